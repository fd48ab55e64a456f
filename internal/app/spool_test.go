package app_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/internal/app"
)

// The click spool lives beside a SQLite database, in the user's cache
// directory with PostgreSQL (one per binary), nowhere with an in-memory
// database, and where --spool-dir says when it is set.
func TestSpoolPath(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	pg := "postgres://hoplink@db.internal/hoplink"
	tests := []struct {
		name, db, flag, binary, want string
	}{
		{"beside a SQLite database", filepath.Join("data", "hoplink.db"), "", "hoplink", filepath.Join("data", "hoplink.spool")},
		{"a SQLite database in the working directory", "hoplink.db", "", "hoplink-redirect", "hoplink.spool"},
		{"none for an in-memory database", ":memory:", "", "hoplink", ""},
		{"the flag wins", ":memory:", "/var/spool/hoplink", "hoplink", "/var/spool/hoplink"},
		{"off turns the spool off", filepath.Join("data", "hoplink.db"), "off", "hoplink", ""},
		{"PostgreSQL: one per binary in the cache directory", pg, "", "hoplink-redirect", "hoplink-redirect.spool"},
		{"PostgreSQL with the flag", pg, "/var/spool/hoplink", "hoplink-api", "/var/spool/hoplink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.SpoolPath(tt.db, tt.flag, tt.binary)
			require.NoError(t, err)
			if app.IsPostgresDSN(tt.db) && tt.flag == "" {
				assert.Equal(t, filepath.Join(cache, "hoplink", tt.want), got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// Without a cache directory, the PostgreSQL default is the working
// directory: an admin command on PostgreSQL never fails for want of one.
func TestSpoolPathWithoutACacheDirectory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	got, err := app.SpoolPath("postgres://hoplink@db.internal/hoplink", "", "hoplink-api")
	require.NoError(t, err)
	assert.Equal(t, "hoplink-api.spool", got)
}

func TestSpoolFlags(t *testing.T) {
	clearOperatorEnv(t)
	dir := t.TempDir()
	cfg, err := configFrom(t, true, "--db", filepath.Join(dir, "h.db"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "hoplink.spool"), cfg.SpoolDir)
	assert.Equal(t, int64(analytics.DefaultSpoolMaxBytes), cfg.SpoolMaxBytes, "1 GiB by default")

	t.Setenv("HOPLINK_SPOOL_DIR", filepath.Join(dir, "spool"))
	t.Setenv("HOPLINK_SPOOL_MAX_BYTES", "1048576")
	cfg, err = configFrom(t, false)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "spool"), cfg.SpoolDir)
	assert.Equal(t, int64(1<<20), cfg.SpoolMaxBytes)

	_, err = configFrom(t, false, "--spool-max-bytes", "0")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--spool-max-bytes")
}

// Two processes cannot share a spool: the second fails its start, naming
// the flag.
func TestSpoolDirInUseFailsTheStart(t *testing.T) {
	cfg := validConfig(t)
	cfg.SpoolDir = filepath.Join(t.TempDir(), "spool")
	cfg.SpoolMaxBytes = analytics.DefaultSpoolMaxBytes
	first := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.RedirectService(), fx.NopLogger))
	require.NoError(t, first.Err())
	second := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.RedirectService(), fx.NopLogger))
	require.Error(t, second.Err())
	assert.ErrorIs(t, second.Err(), analytics.ErrSpoolLocked)
	assert.Contains(t, second.Err().Error(), "--spool-dir")
	// The first application holds the lock through its spool's open file:
	// were it collected before the second start, the file's finalizer
	// would close it and free the directory.
	runtime.KeepAlive(first)
}
