package store_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// t0 is the time the builders start from; each builder call is a millisecond later.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// clock hands out increasing times, so that creation order is explicit.
type clock struct{ now time.Time }

func newClock() *clock { return &clock{now: t0} }

func (c *clock) next() time.Time {
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func newOrg(c *clock, slug string) *org.Organization {
	at := c.next()
	return &org.Organization{
		ID:                 uuid.Must(uuid.NewV7()),
		Name:               "Org " + slug,
		Slug:               slug,
		Plan:               org.PlanFree,
		MonthlyClickLimit:  10_000,
		BillingPeriodStart: at,
		CreatedAt:          at,
		UpdatedAt:          at,
	}
}

func createOrg(t testing.TB, s *store.Store, c *clock, slug string) *org.Organization {
	t.Helper()
	o := newOrg(c, slug)
	require.NoError(t, s.CreateOrganization(t.Context(), o, nil))
	return o
}

func newUser(c *clock, email string) *identity.User {
	at := c.next()
	return &identity.User{ID: uuid.Must(uuid.NewV7()), Email: email, PasswordHash: "$argon2id$hash", CreatedAt: at, UpdatedAt: at}
}

func createUser(t *testing.T, s *store.Store, c *clock, email string) *identity.User {
	t.Helper()
	u := newUser(c, email)
	require.NoError(t, s.CreateUser(t.Context(), u))
	return u
}

func addMember(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID, u *identity.User, role auth.Role) *org.Member {
	t.Helper()
	at := c.next()
	m := &org.Member{OrgID: orgID, UserID: u.ID, Email: u.Email, Role: role, CreatedAt: at, UpdatedAt: at}
	require.NoError(t, s.AddMember(t.Context(), m))
	return m
}

func newKey(c *clock, orgID uuid.UUID, createdBy *uuid.UUID) *auth.Key {
	at := c.next()
	id := uuid.Must(uuid.NewV7())
	return &auth.Key{
		ID:        id,
		OrgID:     orgID,
		Type:      auth.KeyTypeAPI,
		Name:      "key " + id.String()[:8],
		Prefix:    auth.LivePrefix,
		Hash:      auth.HashKey(id.String()),
		Scopes:    []auth.Scope{auth.ScopeLinksRead, auth.ScopeLinksWrite, auth.ScopeKeysRead},
		CreatedBy: createdBy,
		CreatedAt: at,
		UpdatedAt: at,
	}
}

func createKey(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID, createdBy *uuid.UUID) *auth.Key {
	t.Helper()
	k := newKey(c, orgID, createdBy)
	require.NoError(t, s.CreateKey(t.Context(), k))
	return k
}

// createApp inserts an app with only a name and a handle through the apps
// repository (apps_test.go has builders for every field).
func createApp(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID) uuid.UUID {
	t.Helper()
	a := newApp(c, orgID, "App")
	require.NoError(t, s.CreateApp(t.Context(), a, 1000))
	return a.ID
}

func tableExists(t *testing.T, s *store.Store, name string) bool {
	t.Helper()
	query := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if s.Dialect() == "pg" {
		query = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
	}
	var n int
	require.NoError(t, s.DB().QueryRowContext(t.Context(), query, name).Scan(&n))
	return n == 1
}

// assertMigratesDownAndUp checks that tables exist, that rolling the
// migrations back drops them and that migrating again creates them.
func assertMigratesDownAndUp(t *testing.T, s *store.Store, tables ...string) {
	t.Helper()
	ctx := t.Context()
	for _, table := range tables {
		assert.True(t, tableExists(t, s, table), "after up: %s", table)
	}
	require.NoError(t, s.Rollback(ctx))
	for _, table := range tables {
		assert.False(t, tableExists(t, s, table), "after down: %s", table)
	}
	require.NoError(t, s.Migrate(ctx))
	for _, table := range tables {
		assert.True(t, tableExists(t, s, table), "after up again: %s", table)
	}
}

// assertOneWins checks that exactly one of errs, the outcomes of racing
// calls, is nil and that every other is lost.
func assertOneWins(t *testing.T, errs []error, lost error, msgAndArgs ...any) {
	t.Helper()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		assert.ErrorIs(t, err, lost)
	}
	assert.Equal(t, 1, won, msgAndArgs...)
}

var tables = []string{"organizations", "users", "memberships", "apps", "api_keys"}

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		for _, table := range tables {
			assert.True(t, tableExists(t, s, table), "after up: %s", table)
		}
		names, err := s.MigrateNames(ctx)
		require.NoError(t, err)
		assert.Empty(t, names, "migrating again changes nothing")

		require.NoError(t, s.Rollback(ctx))
		for _, table := range tables {
			assert.False(t, tableExists(t, s, table), "after down: %s", table)
		}

		names, err = s.MigrateNames(ctx)
		require.NoError(t, err)
		assert.Equal(t, migrationNames(), names)
		for _, table := range tables {
			assert.True(t, tableExists(t, s, table), "after up again: %s", table)
		}
		c := newClock()
		o := createOrg(t, s, c, "acme")
		createKey(t, s, c, o.ID, nil)
	})
}

func TestDialect(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { assert.Equal(t, "sqlite", storetest.SQLite(t).Dialect()) })
	t.Run("postgres", func(t *testing.T) { assert.Equal(t, "pg", storetest.Postgres(t).Dialect()) })
}

func TestOpenRejectsBadDSNs(t *testing.T) {
	t.Parallel()
	_, err := store.Open(t.Context(), "")
	assert.Error(t, err)

	_, err = store.Open(t.Context(), "postgres://user:secret@host:5432/db?sslmode=bogus")
	require.Error(t, err, "pgdriver's panic becomes an error")
	assert.NotContains(t, err.Error(), "secret")
}

func TestSQLiteConnectionSettings(t *testing.T) {
	t.Parallel()
	pragma := func(t *testing.T, s *store.Store, name string) string {
		var v string
		require.NoError(t, s.DB().QueryRowContext(t.Context(), "PRAGMA "+name).Scan(&v))
		return v
	}

	mem := storetest.SQLite(t)
	assert.Equal(t, "1", pragma(t, mem, "foreign_keys"))
	assert.Equal(t, "10000", pragma(t, mem, "busy_timeout"))

	file, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "hoplink.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	assert.Equal(t, "1", pragma(t, file, "foreign_keys"))
	assert.Equal(t, "10000", pragma(t, file, "busy_timeout"))
	assert.Equal(t, "wal", pragma(t, file, "journal_mode"))
	assert.Equal(t, "1", pragma(t, file, "synchronous"), "NORMAL: a commit under WAL does not wait for the disk")
}

// TestPostgresConnectionSettings checks that PostgreSQL connections plan
// prepared statements once (plan_cache_mode force_generic_plan) unless the
// DSN says otherwise.
func TestPostgresConnectionSettings(t *testing.T) {
	t.Parallel()
	setting := func(t *testing.T, dsn string) string {
		s, err := store.Open(t.Context(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		var v string
		require.NoError(t, s.DB().QueryRowContext(t.Context(), "SHOW plan_cache_mode").Scan(&v))
		return v
	}
	dsn, err := url.Parse(storetest.PostgresDSN(t))
	require.NoError(t, err)
	assert.Equal(t, "force_generic_plan", setting(t, dsn.String()))
	q := dsn.Query()
	q.Set("plan_cache_mode", "auto")
	dsn.RawQuery = q.Encode()
	assert.Equal(t, "auto", setting(t, dsn.String()), "the DSN's own setting")
}

func TestInMemoryDatabases(t *testing.T) {
	t.Parallel()
	ctx, c := t.Context(), newClock()
	a, b := storetest.SQLite(t), storetest.SQLite(t)
	createOrg(t, a, c, "acme")

	n, err := b.CountOrganizations(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "each store has a database of its own")

	// The pool discards a connection whose query was cancelled.
	endless := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"
	cancelled, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = a.DB().ExecContext(cancelled, endless)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	n, err = a.CountOrganizations(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the database outlives a discarded connection")
}

// concurrentWrites runs writers that each create an organization with a
// bootstrap key (a transaction) and touch keys, all at once.
func concurrentWrites(t *testing.T, s *store.Store) {
	const writers = 24
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			c := newClock()
			o := newOrg(c, fmt.Sprintf("org-%d", i))
			k := newKey(c, o.ID, nil)
			if err := s.CreateOrganization(context.Background(), o, k); err != nil {
				errs <- err
				return
			}
			errs <- s.TouchKeys(context.Background(), map[uuid.UUID]time.Time{k.ID: c.next()})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	n, err := s.CountOrganizations(t.Context())
	require.NoError(t, err)
	assert.Equal(t, writers, n)
}

func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, concurrentWrites)
	t.Run("sqlite file", func(t *testing.T) {
		s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "hoplink.db"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		require.NoError(t, s.Migrate(t.Context()))
		concurrentWrites(t, s)
	})
}

func TestTimesAreReturnedInUTC(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := newOrg(c, "acme")
		tokyo := time.FixedZone("JST", 9*60*60)
		o.CreatedAt = o.CreatedAt.In(tokyo)
		require.NoError(t, s.CreateOrganization(t.Context(), o, nil))

		got, err := s.OrganizationByID(t.Context(), o.ID)
		require.NoError(t, err)
		assert.Equal(t, time.UTC, got.CreatedAt.Location())
		assert.True(t, got.CreatedAt.Equal(o.CreatedAt))
	})
}

func TestClosedStoreIsUnavailable(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		require.NoError(t, s.Close())
		_, err := s.CountOrganizations(t.Context())
		assert.ErrorIs(t, err, errcode.ErrUnavailable)
		assert.ErrorIs(t, s.Ping(t.Context()), errcode.ErrUnavailable)
		assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err))
	})
}

// openBehindProxy opens a migrated store on PostgreSQL through a proxy
// that the test can cut or stall, and returns the proxy's DSN too.
func openBehindProxy(t *testing.T) (*store.Store, *storetest.TCPProxy, *url.URL) {
	t.Helper()
	dsn, err := url.Parse(storetest.PostgresDSN(t))
	require.NoError(t, err)
	proxy := storetest.NewTCPProxy(t, dsn.Host)
	dsn.Host = proxy.Addr()
	s, err := store.Open(t.Context(), dsn.String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(t.Context()))
	return s, proxy, dsn
}

func TestUnreachablePostgresIsUnavailable(t *testing.T) {
	t.Parallel()
	s, proxy, dsn := openBehindProxy(t)
	// Fill the pool with idle connections, all of which the cut breaks.
	var txs []bun.Tx
	for range 4 {
		tx, err := s.DB().BeginTx(t.Context(), nil)
		require.NoError(t, err)
		txs = append(txs, tx)
	}
	for _, tx := range txs {
		require.NoError(t, tx.Rollback())
	}

	proxy.Stop()
	_, err := s.CountOrganizations(t.Context())
	assert.ErrorIs(t, err, errcode.ErrUnavailable, "query on a cut connection")
	_, err = store.Open(t.Context(), dsn.String())
	assert.ErrorIs(t, err, errcode.ErrUnavailable, "open on a refused connection")

	proxy.Start()
	_, err = s.CountOrganizations(t.Context())
	assert.NoError(t, err, "the first query after recovery works: no stale connection is left")
	c := newClock()
	createOrg(t, s, c, "after-recovery")
}

func TestTerminatedPostgresSessionIsUnavailable(t *testing.T) {
	t.Parallel()
	dsn, err := url.Parse(storetest.PostgresDSN(t))
	require.NoError(t, err)
	app := "hoplink_" + uuid.NewString()[:8]
	q := dsn.Query()
	q.Set("application_name", app)
	dsn.RawQuery = q.Encode()
	s, err := store.Open(t.Context(), dsn.String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(t.Context()))

	// An administrator ends the store's sessions (SQLSTATE 57P01) and waits
	// until they are gone.
	admin := storetest.Postgres(t)
	_, err = admin.DB().ExecContext(t.Context(),
		"SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = ?", app)
	require.NoError(t, err)

	_, err = s.CountOrganizations(t.Context())
	assert.ErrorIs(t, err, errcode.ErrUnavailable)
	_, err = s.CountOrganizations(t.Context())
	assert.NoError(t, err, "the pool reconnects")
}
