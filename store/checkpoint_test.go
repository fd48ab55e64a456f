package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/store"
)

// TestCheckpointsInBackground checks that a SQLite file's write-ahead log
// reaches the database file without a commit checkpointing it: the rows
// written are far fewer pages than a commit's own checkpoint waits for,
// so only the store's background checkpoint can copy them.
func TestCheckpointsInBackground(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hoplink.db")
	s, err := store.Open(ctx, path)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()

	var pages int
	require.NoError(t, s.DB().QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages))
	require.Equal(t, 10000, pages, "a commit checkpoints only past the backstop")

	_, err = s.DB().ExecContext(ctx, "CREATE TABLE filler (v TEXT)")
	require.NoError(t, err)
	before := fileSize(t, path)
	row := strings.Repeat("x", 1000)
	for range 4 {
		_, err := s.DB().ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
			INSERT INTO filler SELECT ? FROM n`, row)
		require.NoError(t, err)
	}
	// About 2 MB in the log: 500 pages, a twentieth of the backstop.
	require.Greater(t, fileSize(t, path+"-wal"), int64(1<<20))
	deadline := time.Now().Add(30 * time.Second)
	for fileSize(t, path) < before+(1<<20) {
		if time.Now().After(deadline) {
			t.Fatalf("the database file stayed at %d bytes: nothing checkpointed the log", fileSize(t, path))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Size()
}
