package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/migrations"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestMigrationStatus proves that MigrationStatus lists every migration as
// pending on a database no migration ran on (without creating anything),
// every one as applied after Migrate, and pending again once Rollback
// undid that group, and that a migration a newer version applied is
// ignored, on SQLite and on PostgreSQL.
func TestMigrationStatus(t *testing.T) {
	t.Parallel()
	known := migrations.Migrations.Sorted()
	require.NotEmpty(t, known)
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(*testing.T) string { return ":memory:" },
		"postgres": func(t *testing.T) string { return storetest.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s, err := store.Open(ctx, dsn(t))
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })

			fresh, err := s.MigrationStatus(ctx)
			require.NoError(t, err)
			require.Len(t, fresh, len(known))
			for i, m := range fresh {
				assert.Equal(t, known[i].String(), m.Name, "in order")
				assert.False(t, m.Applied(), "%s is pending on a fresh database", m.Name)
			}
			pending, err := s.PendingMigrations(ctx)
			require.NoError(t, err)
			assert.Equal(t, len(known), pending)
			exists, err := s.DB().NewSelect().TableExpr("bun_migrations").Exists(ctx)
			assert.Error(t, err, "reading the status created no migration table (exists: %v)", exists)

			require.NoError(t, s.Migrate(ctx))
			applied, err := s.MigrationStatus(ctx)
			require.NoError(t, err)
			require.Len(t, applied, len(known))
			for _, m := range applied {
				assert.True(t, m.Applied(), "%s is applied after migrate", m.Name)
			}
			pending, err = s.PendingMigrations(ctx)
			require.NoError(t, err)
			assert.Zero(t, pending)

			require.NoError(t, s.Rollback(ctx))
			pending, err = s.PendingMigrations(ctx)
			require.NoError(t, err)
			assert.Equal(t, len(known), pending, "the whole group of the first migrate is rolled back")

			// A migration a newer version applied is neither listed nor
			// counted, so an old replica still starts.
			_, err = s.DB().ExecContext(ctx,
				"INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, ?, ?)", "29991231000000", 99, time.Now())
			require.NoError(t, err)
			list, err := s.MigrationStatus(ctx)
			require.NoError(t, err)
			assert.Len(t, list, len(known))
			pending, err = s.PendingMigrations(ctx)
			require.NoError(t, err)
			assert.Equal(t, len(known), pending)
		})
	}
}
