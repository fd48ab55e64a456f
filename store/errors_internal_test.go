package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
)

// The repository tests prove the mapping of real PostgreSQL and SQLite
// errors end to end; this table covers the errors they cannot provoke.
func TestDBErrorClassifies(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want error // nil: only prefixed
	}{
		{"no rows is not found", sql.ErrNoRows, errcode.ErrNotFound},
		{"wrapped no rows is not found", fmt.Errorf("scan: %w", sql.ErrNoRows), errcode.ErrNotFound},
		{"a closed database is unavailable", errors.New("sql: database is closed"), errcode.ErrUnavailable},
		{"a bad connection is unavailable", driver.ErrBadConn, errcode.ErrUnavailable},
		{"a refused dial is unavailable", refused, errcode.ErrUnavailable},
		{"a reset connection is unavailable", syscall.ECONNRESET, errcode.ErrUnavailable},
		{"end of stream is unavailable", io.EOF, errcode.ErrUnavailable},
		{"a cut message is unavailable", io.ErrUnexpectedEOF, errcode.ErrUnavailable},
		{"a pool timeout is unavailable", errors.New("pg: connection pool timeout"), errcode.ErrUnavailable},
		{"a cancelled context is the caller's", context.Canceled, nil},
		{"an expired context is the caller's", fmt.Errorf("read: %w", context.DeadlineExceeded), nil},
		{"anything else is only prefixed", errors.New("syntax error"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := dbError("op", tt.err)
			assert.ErrorIs(t, err, tt.err, "the original stays in the chain")
			assert.Contains(t, err.Error(), "store: op: ")
			for _, sentinel := range []error{errcode.ErrNotFound, errcode.ErrConflict, errcode.ErrUnavailable} {
				assert.Equal(t, sentinel == tt.want, errors.Is(err, sentinel), "%v", sentinel)
			}
		})
	}
	assert.NoError(t, dbError("op", nil))
}

// TestDBErrorSQLiteCodes provokes SQLite's own errors on raw connections,
// without the busy timeout that Open sets.
func TestDBErrorSQLiteCodes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "codes.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", path)
		require.NoError(t, err)
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	a, b := open(), open()
	_, err := a.ExecContext(ctx, "CREATE TABLE t (x TEXT, y TEXT, u TEXT UNIQUE, PRIMARY KEY (x, y))")
	require.NoError(t, err)
	_, err = a.ExecContext(ctx, "INSERT INTO t VALUES ('1', '1', 'a')")
	require.NoError(t, err)

	_, err = a.ExecContext(ctx, "INSERT INTO t VALUES ('2', '2', 'a')")
	assert.ErrorIs(t, dbError("op", err), errcode.ErrConflict, "unique")
	_, err = a.ExecContext(ctx, "INSERT INTO t VALUES ('1', '1', 'b')")
	assert.ErrorIs(t, dbError("op", err), errcode.ErrConflict, "primary key")

	tx, err := a.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, "INSERT INTO t VALUES ('3', '3', 'c')")
	require.NoError(t, err)
	_, err = b.ExecContext(ctx, "INSERT INTO t VALUES ('4', '4', 'd')")
	assert.ErrorIs(t, dbError("op", err), errcode.ErrUnavailable, "busy")
}
