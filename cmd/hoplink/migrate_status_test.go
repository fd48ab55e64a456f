package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/migrations"
	"github.com/hoplink/hoplink/store/storetest"
)

// statusRows decodes `migrate --status --json` and checks its counts
// against its rows; it returns the rows and the pending count.
func statusRows(t *testing.T, db string) ([]map[string]any, int) {
	t.Helper()
	doc := ok(t, "", "migrate", "--status", "--db", db, "--json")
	require.Equal(t, []string{"applied", "data", "pending"}, sorted(keysOf(doc)))
	var rows []map[string]any
	for _, r := range doc["data"].([]any) {
		rows = append(rows, r.(map[string]any))
	}
	pending := 0
	for _, r := range rows {
		require.Equal(t, []string{"applied", "applied_at", "name"}, sorted(keysOf(r)))
		if r["applied"] == true {
			requireTime(t, r["applied_at"])
		} else {
			assert.Nil(t, r["applied_at"], "a pending migration has no applied_at")
			pending++
		}
	}
	assert.EqualValues(t, pending, doc["pending"])
	assert.EqualValues(t, len(rows)-pending, doc["applied"])
	return rows, pending
}

// TestMigrateStatus proves that `migrate --status` lists every migration as
// pending on a new database and applies none of them, and every one as
// applied after `migrate`, in JSON and in text, on SQLite and, when
// HOPLINK_TEST_POSTGRES is set, on PostgreSQL in a schema of its own.
func TestMigrateStatus(t *testing.T) {
	for name, newDatabase := range map[string]func(t *testing.T) string{
		"sqlite": newDB,
		"postgres": func(t *testing.T) string {
			dsn := storetest.PostgresDSN(t)
			clearEnv(t)
			return dsn
		},
	} {
		t.Run(name, func(t *testing.T) {
			db := newDatabase(t)
			rows, pending := statusRows(t, db)
			require.NotEmpty(t, rows)
			assert.Equal(t, len(rows), pending, "a new database has every migration pending")
			text := hoplink(t, "", "migrate", "--status", "--db", db)
			require.NoError(t, text.err)
			assert.Contains(t, text.stdout, "pending  "+rows[0]["name"].(string)+"\n")
			assert.Contains(t, text.stdout, "`hoplink migrate` applies them")
			_, pending = statusRows(t, db)
			assert.Equal(t, len(rows), pending, "--status applied nothing")

			applied := strs(t, ok(t, "", "migrate", "--db", db, "--json")["applied"])
			after, pending := statusRows(t, db)
			assert.Zero(t, pending, "after migrate every migration is applied")
			require.Len(t, after, len(applied))
			for i, r := range after {
				assert.Equal(t, applied[i], r["name"], "oldest first, named as migrate names them")
			}
			text = hoplink(t, "", "migrate", "--status", "--db", db)
			require.NoError(t, text.err)
			assert.Contains(t, text.stdout, "applied  "+applied[0]+"  ")
			assert.Contains(t, text.stdout, "all applied: the database is up to date.\n")
		})
	}
}

// TestServeRefusesPendingMigrationsOnPostgres proves that `hoplink serve`
// on a PostgreSQL schema with a migration pending exits with one line that
// names the count and `hoplink migrate`, and starts once it is applied.
func TestServeRefusesPendingMigrationsOnPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	// Every migration but the newest, as an older version left the schema.
	known := migrations.Migrations.Sorted()
	older := migrate.NewMigrations()
	for _, m := range known[:len(known)-1] {
		older.Add(m)
	}
	m := migrate.NewMigrator(s.DB(), older, migrate.WithMarkAppliedOnSuccess(true))
	require.NoError(t, m.Init(ctx))
	_, err = m.Migrate(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	bin := buildHoplink(t)
	dir := t.TempDir()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(hex.EncodeToString(secret)), 0o600))
	args := []string{"--db", dsn, "--secret-file", secretFile, "--spool-dir", filepath.Join(dir, "spool"), "--no-bootstrap"}
	stdout, stderr, code := runBinary(t, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	assert.NotZero(t, code, "stdout: %s\nstderr: %s", stdout, stderr)
	want := "hoplink: 1 database migration is pending: run `hoplink migrate` with the same --db, then start again"
	assert.Equal(t, 1, strings.Count(stderr, "pending"), "one line says so: %s", stderr)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	assert.Equal(t, want, lines[len(lines)-1], "stderr: %s", stderr)

	stdout, stderr, code = runBinary(t, bin, "migrate", "--db", dsn)
	require.Zero(t, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Contains(t, stdout, "Applied 1 migrations: "+known[len(known)-1].String())

	srv := startServe(t, bin, args...)
	srv.stop(t)
}
