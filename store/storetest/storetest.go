// Package storetest gives tests a fresh, migrated store on every database
// Hoplink supports: in-memory SQLite always, and PostgreSQL when the
// environment variable HOPLINK_TEST_POSTGRES holds a DSN (and only there
// when HOPLINK_TEST_SKIP_SQLITE is set as well). Each PostgreSQL
// store lives in a schema of its own, created for the test and dropped after
// it, so tests and test binaries can share one database.
//
// It also has TCPProxy, which tests use to cut a database (or any TCP
// service) off and bring it back.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/store"
)

// EnvPostgres names the environment variable that holds the DSN of the
// PostgreSQL database tests may use, for example
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvPostgres = "HOPLINK_TEST_POSTGRES"

// EnvSkipSQLite names the environment variable that, when not empty, skips
// every test and subtest that asks for a SQLite store (SQLite, and the
// "sqlite" subtest of EachDB). A run against PostgreSQL after a run on
// SQLite sets it so that it does not repeat what the first run covered.
const EnvSkipSQLite = "HOPLINK_TEST_SKIP_SQLITE"

// EachDB runs fn as the subtest "sqlite" on a fresh migrated in-memory SQLite
// store, and as the subtest "postgres" on a fresh migrated store in a schema
// of its own; the "postgres" subtest is skipped when HOPLINK_TEST_POSTGRES is
// not set.
func EachDB(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// SQLite returns a fresh migrated in-memory SQLite store, closed when the
// test ends. It skips the test when HOPLINK_TEST_SKIP_SQLITE is set.
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	SkipUnlessSQLite(t)
	return open(t, ":memory:")
}

// SkipUnlessSQLite skips a test of a SQLite store, one opened on a file
// of its own for example, when HOPLINK_TEST_SKIP_SQLITE is set.
func SkipUnlessSQLite(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvSkipSQLite) != "" {
		t.Skip(EnvSkipSQLite + " is set: the SQLite run covers this")
	}
}

// Postgres returns a fresh migrated PostgreSQL store in a schema of its own
// (see PostgresDSN), closed when the test ends. It skips the test when
// HOPLINK_TEST_POSTGRES is not set.
func Postgres(t testing.TB) *store.Store {
	t.Helper()
	return open(t, PostgresDSN(t))
}

func open(t testing.TB, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(context.Background()))
	return s
}

// PostgresDSN creates an empty schema named t_<random hex> in the database
// that HOPLINK_TEST_POSTGRES names and returns a DSN whose connections use
// it as their search_path. The schema and everything in it is dropped when
// the test ends; stores opened on the DSN must be closed before (cleanups
// registered later run earlier). It skips the test when HOPLINK_TEST_POSTGRES
// is not set.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvPostgres)
	if dsn == "" {
		t.Skip(EnvPostgres + " is not set")
	}
	u, err := url.Parse(dsn)
	require.NoError(t, err, EnvPostgres)

	admin, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	// pg_trgm (store migration 20261203000002) lives once in a database,
	// in the schema that creates it: created by a test's migration, it
	// would be in that test's schema and dropped with it, under the
	// indexes of every other test's schema. Installed in public first,
	// as an operator would, it is shared; two tests racing to create it
	// leave it created either way.
	_, _ = admin.DB().ExecContext(context.Background(), "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
	schema := bun.Ident("t_" + randomHex(t))
	_, err = admin.DB().ExecContext(context.Background(), "CREATE SCHEMA ?", schema)
	if err != nil {
		_ = admin.Close()
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		_, err := admin.DB().ExecContext(context.Background(), "DROP SCHEMA ? CASCADE", schema)
		require.NoError(t, err)
	})

	q := u.Query()
	q.Set("search_path", string(schema))
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}
