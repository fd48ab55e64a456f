package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hoplink/hoplink/errcode"
)

// err is how every store method returns a database error: normalised by
// dbError, with PostgreSQL's idle connections dropped when the database could
// not be reached. Those connections most likely broke together (a restart, a
// failover, a cut network), and dropping them means that the first query
// after recovery opens a fresh connection instead of failing on a stale one.
// SQLite's connections are never dropped: an in-memory database dies with
// its only connection.
func (s *Store) err(op string, err error) error {
	err = dbError(op, err)
	if errors.Is(err, errcode.ErrUnavailable) && s.db.Dialect().Name() == dialect.PG {
		s.db.SetMaxIdleConns(0)
		s.db.SetMaxIdleConns(s.maxIdle)
	}
	return err
}

// dbError normalises a database error, keeping the original in the chain for
// the logs:
//   - sql.ErrNoRows wraps errcode.ErrNotFound;
//   - a unique or primary key violation (PostgreSQL SQLSTATE 23505, SQLite
//     SQLITE_CONSTRAINT_UNIQUE or SQLITE_CONSTRAINT_PRIMARYKEY) wraps
//     errcode.ErrConflict;
//   - a database that cannot be reached (see unavailable) wraps
//     errcode.ErrUnavailable;
//   - anything else is only prefixed.
func dbError(op string, err error) error {
	var sentinel error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		sentinel = errcode.ErrNotFound
	case uniqueViolation(err):
		sentinel = errcode.ErrConflict
	case unavailable(err):
		sentinel = errcode.ErrUnavailable
	default:
		return fmt.Errorf("store: %s: %w", op, err)
	}
	return fmt.Errorf("store: %s: %w: %w", op, sentinel, err)
}

func uniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		code := liteErr.Code()
		return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// unavailable reports whether err means that the database could not be
// reached or could not serve the query: a closed *sql.DB, a broken or refused
// connection, PostgreSQL's connection exceptions (SQLSTATE class 08) and
// shutdown states (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
// connect now), and SQLite still busy or locked after its busy timeout.
// A cancelled or expired context is the caller's doing, not the database's.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		code := pgErr.Field('C')
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		primary := liteErr.Code() & 0xff
		return primary == sqlite3.SQLITE_BUSY || primary == sqlite3.SQLITE_LOCKED
	}
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		errors.As(err, &netErr):
		return true
	}
	// database/sql does not export its closed-database error. pgdriver has no
	// pool of its own (database/sql's waits on the context), but a pool
	// timeout from any other pool means the same thing.
	msg := err.Error()
	return strings.Contains(msg, "sql: database is closed") || strings.Contains(msg, "connection pool timeout")
}
