package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync"

	"github.com/uptrace/bun/driver/pgdriver"
)

// stmtConnector is pgdriver's connector, its connections wrapped
// (stmtConn).
type stmtConnector struct {
	*pgdriver.Connector
	// kept holds the queries of preparedStmt, whose statements last as long
	// as their connection.
	kept *sync.Map
}

// Connect implements driver.Connector.
func (c stmtConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stmtConn{Conn: cn.(*pgdriver.Conn), kept: c.kept}, nil
}

// stmtConn is a pgdriver connection whose prepared statements leave the
// pool as sound on a database that stops answering (a frozen server, a
// network path that drops everything) as its text queries do:
//   - pgdriver closes a connection whose text query fails with anything but
//     an error from the server, and database/sql then discards it (the
//     driver.Validator); a prepared statement's failure, a timeout say, left
//     it in the pool with the answer still to come, which the next
//     statement on it would read as its own. stmtConn closes it.
//   - database/sql closes a connection's statements before the connection,
//     and pgdriver closes one with a round trip that waits for the driver's
//     own read timeout (ten seconds), not the caller's deadline. The store
//     drops its idle connections after an error that says the database is
//     unreachable (err): on a stalled database, a key read with a deadline
//     of 300 ms answered after 40 seconds, ten for each idle connection
//     that held attribution's statement. A statement of preparedStmt is
//     never closed on its own, so stmtConn does not send its close: the
//     server drops it with the session.
type stmtConn struct {
	*pgdriver.Conn
	kept *sync.Map
}

// PrepareContext implements driver.ConnPrepareContext.
func (cn *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := cn.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, cn.check(err)
	}
	_, kept := cn.kept.Load(query)
	return &stmt{Stmt: st, cn: cn, kept: kept}, nil
}

// check closes the connection when err is not an error from the server,
// after which the connection's state is unknown, and returns err.
func (cn *stmtConn) check(err error) error {
	var pgErr pgdriver.Error
	if err != nil && !errors.As(err, &pgErr) {
		_ = cn.Conn.Close()
	}
	return err
}

// stmt is a statement of a stmtConn.
type stmt struct {
	driver.Stmt
	cn   *stmtConn
	kept bool
}

// Close implements driver.Stmt; a statement of preparedStmt is left to
// the server (stmtConn).
func (st *stmt) Close() error {
	if st.kept {
		return nil
	}
	return st.Stmt.Close()
}

// ExecContext implements driver.StmtExecContext.
func (st *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := st.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	return res, st.cn.check(err)
}

// QueryContext implements driver.StmtQueryContext.
func (st *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := st.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	return rows, st.cn.check(err)
}
