package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// openFile opens and migrates a SQLite file store, closed when the test ends.
func openFile(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(context.Background()))
	return s
}

func TestBackupSQLite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, filepath.Join(dir, "live.db"))
	c := newClock()
	o := createOrg(t, s, c, "backup")
	at := c.next()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "hop.localhost", Slug: "kept",
		DestinationURL: "https://example.com/kept", IsActive: true, Tags: []string{}, CreatedAt: at, UpdatedAt: at}
	require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))

	t.Run("the copy opens and holds the links", func(t *testing.T) {
		out := filepath.Join(dir, "copy.db")
		size, err := s.BackupSQLite(ctx, out, false)
		require.NoError(t, err)
		info, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, info.Size(), size)

		b := openFile(t, out)
		var check string
		require.NoError(t, b.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check))
		assert.Equal(t, "ok", check)
		got, err := b.LinkByDomainSlug(ctx, "hop.localhost", "kept")
		require.NoError(t, err)
		assert.Equal(t, l.DestinationURL, got.DestinationURL)
	})

	t.Run("an existing file is not replaced without overwrite", func(t *testing.T) {
		out := filepath.Join(dir, "taken.db")
		require.NoError(t, os.WriteFile(out, []byte("keep me"), 0o600))
		_, err := s.BackupSQLite(ctx, out, false)
		require.ErrorIs(t, err, store.ErrBackupExists)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "keep me", string(b))
		assertNoTempFiles(t, dir)
	})

	t.Run("overwrite replaces an existing file", func(t *testing.T) {
		out := filepath.Join(dir, "replaced.db")
		require.NoError(t, os.WriteFile(out, []byte("old"), 0o600))
		_, err := s.BackupSQLite(ctx, out, true)
		require.NoError(t, err)
		got, err := openFile(t, out).LinkByDomainSlug(ctx, "hop.localhost", "kept")
		require.NoError(t, err)
		assert.Equal(t, l.ID, got.ID)
		assertNoTempFiles(t, dir)
	})

	t.Run("a missing directory fails and leaves nothing", func(t *testing.T) {
		_, err := s.BackupSQLite(ctx, filepath.Join(dir, "no", "such", "dir.db"), false)
		require.Error(t, err)
	})
}

func TestBackupSQLiteRefusesOtherDatabases(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "copy.db")
	t.Run("in-memory", func(t *testing.T) {
		_, err := storetest.SQLite(t).BackupSQLite(ctx, out, false)
		require.ErrorContains(t, err, "in-memory")
	})
	t.Run("postgres", func(t *testing.T) {
		_, err := storetest.Postgres(t).BackupSQLite(ctx, out, false)
		require.ErrorContains(t, err, "pg_dump")
	})
	_, err := os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	tmp, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "no temporary copy is left behind")
}
