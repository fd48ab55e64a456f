package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
)

// hoplink backup writes a copy that opens and holds the organizations; it
// says what it wrote, as text and as JSON.
func TestBackup(t *testing.T) {
	db := newDB(t)
	id, _ := createOrg(t, db, "Acme")
	dir := t.TempDir()

	out := filepath.Join(dir, "copy.db")
	doc := ok(t, "", "backup", "--db", db, "--out", out, "--json")
	info, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"path": out, "bytes": float64(info.Size())}, doc)
	got := ok(t, "", "org", "get", id, "--db", out, "--json")
	assert.Equal(t, "Acme", got["name"])

	text := filepath.Join(dir, "text.db")
	run := hoplink(t, "", "backup", "--db", db, "--out", text)
	require.NoError(t, run.err, run.stderr)
	info, err = os.Stat(text)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("Wrote %s (%d bytes).\n", text, info.Size()), run.stdout)

	t.Run("HOPLINK_DB names the database", func(t *testing.T) {
		t.Setenv("HOPLINK_DB", db)
		env := filepath.Join(dir, "env.db")
		ok(t, "", "backup", "--out", env, "--json")
		got := ok(t, "", "org", "get", id, "--db", env, "--json")
		assert.Equal(t, id, got["id"])
	})

	t.Run("an existing file is replaced only with --force", func(t *testing.T) {
		require.NoError(t, os.WriteFile(out, []byte("not a backup"), 0o600))
		e := fails(t, errcode.ValidationError, "", "backup", "--db", db, "--out", out, "--json")
		assert.Contains(t, e["message"], "--force")
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "not a backup", string(b))

		ok(t, "", "backup", "--db", db, "--out", out, "--force", "--json")
		got := ok(t, "", "org", "get", id, "--db", out, "--json")
		assert.Equal(t, id, got["id"])
	})
}

func TestBackupRefuses(t *testing.T) {
	db := newDB(t)
	createOrg(t, db, "Acme")
	dir := t.TempDir()
	out := filepath.Join(dir, "copy.db")
	notDB := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notDB, []byte("not a database, but long enough"), 0o600))
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"PostgreSQL, pointing to pg_dump", "pg_dump",
			[]string{"--db", "postgres://hoplink@127.0.0.1:1/hoplink", "--out", out}},
		{"an in-memory database", "SQLite database file", []string{"--db", ":memory:", "--out", out}},
		{"a database file that does not exist (none is created)", "not a SQLite database file",
			[]string{"--db", filepath.Join(dir, "missing.db"), "--out", out}},
		{"a file that is not a SQLite database", "not a SQLite database file", []string{"--db", notDB, "--out", out}},
		{"a directory as --db", "not a SQLite database file", []string{"--db", dir, "--out", out}},
		{"no --out", "--out", []string{"--db", db}},
		{"an --out that is a directory", "directory", []string{"--db", db, "--out", dir}},
		{"an --out in a directory that does not exist", "does not exist", []string{"--db", db, "--out", filepath.Join(dir, "no", "copy.db")}},
		{"a positional argument", "", []string{"--db", db, "--out", out, "extra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fails(t, "", "", append([]string{"backup", "--json"}, tc.args...)...)
			assert.Contains(t, e["message"], tc.want)
			_, err := os.Stat(out)
			assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written")
			_, err = os.Stat(filepath.Join(dir, "missing.db"))
			assert.ErrorIs(t, err, os.ErrNotExist, "no database is created")
		})
	}
}

// A backup taken while serve answers redirects (each one writing a click)
// is a consistent database: SQLite's integrity check passes, every link in
// it is readable through the store, and every stored click batch decodes.
func TestBackupUnderLoad(t *testing.T) {
	skipCrashTest(t)
	bin := buildHoplink(t)
	dataDir := t.TempDir()
	db := filepath.Join(dataDir, "hoplink.db")
	orgID := seedCrashLink(t, db)
	slugs := seedLinks(t, db, orgID, 200)

	srv := startServe(t, bin, "--db", db, "--no-bootstrap")
	stop := make(chan struct{})
	load := startRedirectLoad(srv, 4, 2500, stop)
	load.waitReceived(t, 1000)

	out := filepath.Join(t.TempDir(), "backup.db")
	stdout, stderr, code := runBinary(t, bin, "backup", "--db", db, "--out", out, "--json")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	during := load.count.Load()
	close(stop)
	received := load.wait(t)
	srv.stop(t)
	var doc backupDoc
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Equal(t, out, doc.Path)
	assert.Positive(t, doc.Bytes)
	t.Logf("backup of %d bytes taken after %d redirects; %d in all", doc.Bytes, during, len(received))

	ctx := context.Background()
	b, err := store.Open(ctx, out)
	require.NoError(t, err)
	defer b.Close()
	var check string
	require.NoError(t, b.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check))
	assert.Equal(t, "ok", check)
	var fkProblems int
	require.NoError(t, b.DB().QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&fkProblems))
	assert.Zero(t, fkProblems, "no row points at a missing parent")

	for _, slug := range append(slugs, crashSlug) {
		l, err := b.LinkByDomainSlug(ctx, "hop.localhost", slug)
		if assert.NoError(t, err, slug) {
			assert.Equal(t, orgID, l.OrgID)
		}
	}
	links, total, err := b.ListLinks(ctx, linking.LinkFilter{OrgID: orgID, Limit: 100})
	require.NoError(t, err)
	assert.Equal(t, len(slugs)+1, total)
	assert.Len(t, links, 100)

	var segments [][]byte
	require.NoError(t, b.DB().NewSelect().Table("click_segments").Column("data").
		Where("org_id = ?", orgID).Scan(ctx, &segments))
	stored := 0
	for _, data := range segments {
		clicks, err := analytics.DecodeSegment(orgID, data)
		require.NoError(t, err)
		stored += len(clicks)
	}
	t.Logf("clicks in the backup: %d", stored)
}

// seedLinks creates n more links of orgID on the default link domain and
// returns their slugs.
func seedLinks(t *testing.T, dsn string, orgID uuid.UUID, n int) []string {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	now := time.Now().UTC()
	slugs := make([]string, n)
	for i := range n {
		slugs[i] = fmt.Sprintf("kept-%03d", i)
		l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Domain: "hop.localhost", Slug: slugs[i],
			DestinationURL: "https://example.com/" + slugs[i], IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
		require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
	}
	return slugs
}
