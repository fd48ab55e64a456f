package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/migrate"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/migrations"
	"github.com/hoplink/hoplink/store/storetest"
)

// migrationNames returns the names of every registered migration, in order.
func migrationNames() []string {
	var names []string
	for _, m := range migrations.Migrations.Sorted() {
		names = append(names, m.String())
	}
	return names
}

// newApp builds an app of orgID with a unique handle and no optional field.
func newApp(c *clock, orgID uuid.UUID, name string) *linking.App {
	at := c.next()
	id := uuid.Must(uuid.NewV7())
	handle := "app-" + strings.ReplaceAll(id.String(), "-", "")
	return &linking.App{
		ID:                id,
		OrgID:             orgID,
		Name:              name,
		Handle:            handle,
		LinkDomain:        handle + ".hop.example",
		DefaultLinkDomain: handle + ".hop.example",
		CreatedAt:         at,
		UpdatedAt:         at,
	}
}

func str(s string) *string { return &s }

// fullApp builds an app of orgID with every field set.
func fullApp(c *clock, orgID uuid.UUID, name, bundle, pkg string) *linking.App {
	a := newApp(c, orgID, name)
	a.IOSBundleID = str(bundle)
	a.IOSTeamID = str("ABCDE12345")
	a.IOSAppStoreID = str("123456789")
	a.IOSAppStoreURL = str("https://apps.apple.com/app/id123456789")
	a.IOSUniversalLinkPaths = []string{"/open/*", "*"}
	a.AndroidPackageName = str(pkg)
	a.AndroidSHA256Fingerprints = []string{strings.Repeat("AB:", 31) + "CD"}
	a.AndroidPlayStoreURL = str("https://play.google.com/store/apps/details?id=" + pkg)
	a.AndroidAppLinksPaths = []string{}
	a.PreviousLinkDomain = str("old." + a.LinkDomain)
	return a
}

func TestCreateAppAndReadItBack(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		full := fullApp(c, acme.ID, "Acme", "com.acme.app", "com.acme.app")
		bare := newApp(c, acme.ID, "Bare")
		require.NoError(t, s.CreateApp(ctx, full, 10))
		require.NoError(t, s.CreateApp(ctx, bare, 10))

		got, err := s.AppByID(ctx, acme.ID, full.ID)
		require.NoError(t, err)
		assert.Equal(t, full, got, "every field round-trips")
		assert.NotNil(t, got.AndroidAppLinksPaths, "[] stays [] (not null)")

		got, err = s.AppByID(ctx, acme.ID, bare.ID)
		require.NoError(t, err)
		assert.Equal(t, bare, got)
		assert.Nil(t, got.IOSUniversalLinkPaths, "null stays null")

		byHandle, err := s.AppByHandle(ctx, full.Handle)
		require.NoError(t, err)
		assert.Equal(t, full.ID, byHandle.ID)
		_, err = s.AppByHandle(ctx, "nobody")
		assert.ErrorIs(t, err, errcode.ErrNotFound)

		_, err = s.AppByID(ctx, other.ID, full.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's app is not found")
		n, err := s.CountApps(ctx, acme.ID)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		n, err = s.CountApps(ctx, other.ID)
		require.NoError(t, err)
		assert.Zero(t, n)
	})
}

func TestAppUniqueIndexes(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		require.NoError(t, s.CreateApp(ctx, fullApp(c, acme.ID, "A", "com.acme.ios", "com.acme.android"), 10))

		tests := []struct {
			name string
			app  func() *linking.App
			want error // nil: created
		}{
			{"same bundle id in the organization", func() *linking.App {
				return fullApp(c, acme.ID, "B", "com.acme.ios", "com.acme.other")
			}, linking.ErrAppBundleIDTaken},
			{"same package name in the organization", func() *linking.App {
				return fullApp(c, acme.ID, "B", "com.acme.other", "com.acme.android")
			}, linking.ErrAppPackageNameTaken},
			{"bundle id compared exactly", func() *linking.App {
				return fullApp(c, acme.ID, "B", "com.Acme.ios", "com.acme.x")
			}, nil},
			{"same bundle id and package name in another organization", func() *linking.App {
				return fullApp(c, other.ID, "B", "com.acme.ios", "com.acme.android")
			}, nil},
			{"any number of apps without bundle id or package name", func() *linking.App {
				return newApp(c, acme.ID, "C")
			}, nil},
			{"and another", func() *linking.App { return newApp(c, acme.ID, "D") }, nil},
			{"a handle is unique across the service", func() *linking.App {
				a := newApp(c, other.ID, "E")
				a.Handle = "acme"
				return a
			}, nil},
			{"so another organization cannot take it", func() *linking.App {
				a := newApp(c, acme.ID, "F")
				a.Handle = "acme"
				return a
			}, linking.ErrAppHandleTaken},
		}
		for _, tt := range tests {
			err := s.CreateApp(ctx, tt.app(), 10)
			if tt.want == nil {
				assert.NoError(t, err, tt.name)
				continue
			}
			assert.ErrorIs(t, err, errcode.ErrConflict, tt.name)
			assert.ErrorIs(t, err, tt.want, tt.name)
		}
	})
}

func TestCreateAppLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		require.NoError(t, s.CreateApp(ctx, newApp(c, acme.ID, "one"), 1))
		assert.ErrorIs(t, s.CreateApp(ctx, newApp(c, acme.ID, "two"), 1), linking.ErrAppLimit)
		assert.NoError(t, s.CreateApp(ctx, newApp(c, other.ID, "one"), 1), "the limit counts one organization's apps")
		assert.ErrorIs(t, s.CreateApp(ctx, newApp(c, uuid.Must(uuid.NewV7()), "x"), 1), errcode.ErrNotFound,
			"an organization that does not exist")
	})
}

// Concurrent creates never take an organization past its limit: the count and
// the insert are one transaction that concurrent creates take in turn.
func TestCreateAppLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		const limit, tries = 3, 12
		apps := make([]*linking.App, tries)
		for i := range apps {
			apps[i] = newApp(c, acme.ID, "app")
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
		)
		for _, a := range apps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.CreateApp(ctx, a, limit)
				if err != nil {
					assert.ErrorIs(t, err, linking.ErrAppLimit)
					return
				}
				mu.Lock()
				created++
				mu.Unlock()
			}()
		}
		wg.Wait()
		assert.Equal(t, limit, created)
		n, err := s.CountApps(ctx, acme.ID)
		require.NoError(t, err)
		assert.Equal(t, limit, n)
	})
}

func TestListApps(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		mk := func(orgID uuid.UUID, name, bundle, pkg string) *linking.App {
			a := newApp(c, orgID, name)
			if bundle != "" {
				a.IOSBundleID = str(bundle)
			}
			if pkg != "" {
				a.AndroidPackageName = str(pkg)
			}
			require.NoError(t, s.CreateApp(ctx, a, 100))
			return a
		}
		shop := mk(acme.ID, "Shop", "com.acme.Shop", "")
		news := mk(acme.ID, "News 100%", "", "com.acme.news")
		game := mk(acme.ID, "Game_One", "io.games.one", "io.games.one")
		mk(other.ID, "Shop", "com.acme.shop", "")

		ids := func(apps []*linking.App) []uuid.UUID {
			out := []uuid.UUID{}
			for _, a := range apps {
				out = append(out, a.ID)
			}
			return out
		}
		tests := []struct {
			name          string
			filter        linking.AppFilter
			want          []*linking.App
			total         int
			limit, offset int
		}{
			{name: "every app of the organization, oldest first", want: []*linking.App{shop, news, game}, total: 3},
			{name: "a page", limit: 2, offset: 1, want: []*linking.App{news, game}, total: 3},
			{name: "past the end", limit: 2, offset: 3, want: nil, total: 3},
			{name: "name, ignoring case", filter: linking.AppFilter{Search: "sHOP"}, want: []*linking.App{shop}, total: 1},
			{name: "bundle id, ignoring case", filter: linking.AppFilter{Search: "acme.shop"}, want: []*linking.App{shop}, total: 1},
			{name: "package name", filter: linking.AppFilter{Search: "acme.news"}, want: []*linking.App{news}, total: 1},
			{name: "any of the three", filter: linking.AppFilter{Search: "acme"}, want: []*linking.App{shop, news}, total: 2},
			{name: "% is literal", filter: linking.AppFilter{Search: "100%"}, want: []*linking.App{news}, total: 1},
			{name: "_ is literal", filter: linking.AppFilter{Search: "e_o"}, want: []*linking.App{game}, total: 1},
			{name: "_ matches no other character", filter: linking.AppFilter{Search: "s_op"}, want: nil, total: 0},
			{name: "backslash is literal", filter: linking.AppFilter{Search: `\`}, want: nil, total: 0},
			{name: "search and page", filter: linking.AppFilter{Search: "acme"}, limit: 1, offset: 1, want: []*linking.App{news}, total: 2},
		}
		for _, tt := range tests {
			f := tt.filter
			f.OrgID, f.Limit, f.Offset = acme.ID, 20, tt.offset
			if tt.limit > 0 {
				f.Limit = tt.limit
			}
			got, total, err := s.ListApps(ctx, f)
			require.NoError(t, err, tt.name)
			assert.Equal(t, ids(tt.want), ids(got), tt.name)
			assert.Equal(t, tt.total, total, tt.name)
		}
	})
}

func TestUpdateApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		a := fullApp(c, acme.ID, "A", "com.acme.a", "com.acme.a")
		b := fullApp(c, acme.ID, "B", "com.acme.b", "com.acme.b")
		require.NoError(t, s.CreateApp(ctx, a, 10))
		require.NoError(t, s.CreateApp(ctx, b, 10))

		changed := *a
		changed.Name = "A2"
		changed.IOSBundleID, changed.IOSTeamID, changed.IOSUniversalLinkPaths = nil, nil, nil
		changed.AndroidAppLinksPaths = []string{"/x"}
		changed.UpdatedAt = c.next()
		// Fields an update never writes.
		ignored := changed
		ignored.Handle, ignored.LinkDomain, ignored.LegacyApexEnabled = "ignored", "ignored", true
		ignored.CreatedAt = c.next()
		require.NoError(t, s.UpdateApp(ctx, &ignored))

		got, err := s.AppByID(ctx, acme.ID, a.ID)
		require.NoError(t, err)
		assert.Equal(t, &changed, got)

		dup := *got
		dup.AndroidPackageName = b.AndroidPackageName
		err = s.UpdateApp(ctx, &dup)
		assert.ErrorIs(t, err, errcode.ErrConflict)
		assert.ErrorIs(t, err, linking.ErrAppPackageNameTaken)
		dup = *got
		dup.IOSBundleID = b.IOSBundleID
		assert.ErrorIs(t, s.UpdateApp(ctx, &dup), linking.ErrAppBundleIDTaken)

		elsewhere := *got
		elsewhere.OrgID = other.ID
		assert.ErrorIs(t, s.UpdateApp(ctx, &elsewhere), errcode.ErrNotFound, "another organization's app")
	})
}

func TestDeleteApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		a := fullApp(c, acme.ID, "A", "com.acme.a", "com.acme.a")
		require.NoError(t, s.CreateApp(ctx, a, 10))
		tied := newKey(c, acme.ID, nil)
		tied.Type, tied.AppID, tied.Scopes = auth.KeyTypeSDK, &a.ID, auth.SDKScopes
		require.NoError(t, s.CreateKey(ctx, tied))

		at := c.next()
		link := &linking.Link{
			ID: uuid.Must(uuid.NewV7()), OrgID: acme.ID, Slug: "spring", Domain: a.LinkDomain,
			DestinationURL: "https://acme.example/", AppID: &a.ID, IsActive: true, Tags: []string{},
			CreatedAt: at, UpdatedAt: at,
		}
		require.NoError(t, s.CreateLink(ctx, link, linking.LinkQuota{}))

		_, err := s.DeleteApp(ctx, linking.AppDeletion{OrgID: other.ID, ID: a.ID, At: time.Now()})
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's app")

		deleted, err := s.DeleteApp(ctx, linking.AppDeletion{OrgID: acme.ID, ID: a.ID, At: time.Now()})
		require.NoError(t, err)
		assert.Equal(t, a, deleted, "the app as it was")
		_, err = s.AppByID(ctx, acme.ID, a.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		_, _, err = s.KeyByHash(ctx, tied.Hash)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "the tied SDK key went with the app")
		kept, err := s.LinkByID(ctx, acme.ID, link.ID)
		require.NoError(t, err, "the app's links stay")
		assert.Nil(t, kept.AppID, "with app_id null")

		_, err = s.DeleteApp(ctx, linking.AppDeletion{OrgID: acme.ID, ID: a.ID, At: time.Now()})
		assert.ErrorIs(t, err, errcode.ErrNotFound, "deleted twice")
		require.NoError(t, s.CreateApp(ctx, fullApp(c, acme.ID, "A", "com.acme.a", "com.acme.a"), 10),
			"the bundle id and package name are free again")
	})
}

func TestSetAppLegacy(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		a := newApp(c, acme.ID, "A")
		require.NoError(t, s.CreateApp(ctx, a, 10))

		at := c.next()
		got, err := s.SetAppLegacy(ctx, a.ID, true, at)
		require.NoError(t, err)
		want := *a
		want.LegacyApexEnabled, want.UpdatedAt = true, at
		assert.Equal(t, &want, got)

		got, err = s.SetAppLegacy(ctx, a.ID, false, at)
		require.NoError(t, err)
		assert.False(t, got.LegacyApexEnabled)
		assert.Equal(t, a.DefaultLinkDomain, got.DefaultLinkDomain, "the default link domain is left alone")

		_, err = s.SetAppLegacy(ctx, uuid.Must(uuid.NewV7()), true, at)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

// migrateTo applies the registered migrations up to and including name, as
// one group, and the webhooks migration: the tests that migrate part of the
// way fill the database through today's store methods, and those that make
// changes write their events to the webhook outbox in the same transaction.
// Once the click rollups are in, so is their hour table, which today's
// click writer adds to with the others. The table of link rollups' fold
// marks is always in, since today's organizations are created with one,
// unless name is the migration just before it (its own test applies it).
func migrateTo(t *testing.T, s *store.Store, name string) {
	t.Helper()
	const webhooks = "20261127000001_webhooks"
	const rollups, rollupHours = "20261126000001_click_rollups", "20261203000004_click_rollup_hours"
	const linkFolds, beforeFolds = "20261204000001_link_rollup_folds", "20261203000007_click_txid"
	sub := migrate.NewMigrations()
	for _, m := range migrations.Migrations.Sorted() {
		if m.String() <= name || m.String() == webhooks || (m.String() == rollupHours && name >= rollups) ||
			(m.String() == linkFolds && name != beforeFolds) {
			sub.Add(m)
		}
	}
	m := migrate.NewMigrator(s.DB(), sub, migrate.WithMarkAppliedOnSuccess(true))
	require.NoError(t, m.Init(t.Context()))
	_, err := m.Migrate(t.Context())
	require.NoError(t, err)
}

// eachEmptyDB is storetest.EachDB with stores that are not migrated.
func eachEmptyDB(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	open := func(t *testing.T, dsn string) *store.Store {
		s, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	t.Run("sqlite", func(t *testing.T) { fn(t, open(t, ":memory:")) })
	t.Run("postgres", func(t *testing.T) { fn(t, open(t, storetest.PostgresDSN(t))) })
}

// The apps migration runs on a database that already has apps: each gets
// the handle app-<id without hyphens>; it rolls back on its own, keeping the
// apps, and applies again.
func TestAppsMigrationOnAPopulatedDatabase(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		const foundation, apps = "20261122000001_foundation", "20261122000002_apps"
		migrateTo(t, s, foundation)

		o := newOrg(c, "acme")
		_, err := s.DB().NewInsert().Table("organizations").Model(&map[string]any{
			"id": o.ID, "name": o.Name, "slug": o.Slug, "plan": string(o.Plan), "monthly_click_limit": o.MonthlyClickLimit,
			"billing_period_start": o.BillingPeriodStart, "created_at": o.CreatedAt, "updated_at": o.UpdatedAt,
		}).Exec(ctx)
		require.NoError(t, err)
		var ids []uuid.UUID
		for range 2 {
			id, at := uuid.Must(uuid.NewV7()), c.next()
			_, err := s.DB().NewInsert().Table("apps").Model(&map[string]any{
				"id": id, "org_id": o.ID, "name": "Old app", "created_at": at, "updated_at": at,
			}).Exec(ctx)
			require.NoError(t, err)
			ids = append(ids, id)
		}

		// The apps as the apps migration left them, read without the
		// columns later migrations add.
		appByID := func(id uuid.UUID) (*linking.App, error) {
			var row struct {
				Handle             string  `bun:"handle"`
				Name               string  `bun:"name"`
				LinkDomain         string  `bun:"link_domain"`
				DefaultLinkDomain  string  `bun:"default_link_domain"`
				LegacyApexEnabled  bool    `bun:"legacy_apex_enabled"`
				IOSBundleID        *string `bun:"ios_bundle_id"`
				IOSPaths           *string `bun:"ios_universal_link_paths"`
				PreviousLinkDomain *string `bun:"previous_link_domain"`
			}
			err := s.DB().NewSelect().Table("apps").
				Column("handle", "name", "link_domain", "default_link_domain", "legacy_apex_enabled",
					"ios_bundle_id", "ios_universal_link_paths", "previous_link_domain").
				Where("id = ? AND org_id = ?", id, o.ID).Scan(ctx, &row)
			if err != nil {
				return nil, err
			}
			a := &linking.App{Handle: row.Handle, Name: row.Name, LinkDomain: row.LinkDomain, DefaultLinkDomain: row.DefaultLinkDomain,
				LegacyApexEnabled: row.LegacyApexEnabled, IOSBundleID: row.IOSBundleID, PreviousLinkDomain: row.PreviousLinkDomain}
			if row.IOSPaths != nil {
				a.IOSUniversalLinkPaths = []string{}
			}
			return a, nil
		}
		check := func(when string) {
			for _, id := range ids {
				a, err := appByID(id)
				require.NoError(t, err, when)
				assert.Equal(t, "app-"+strings.ReplaceAll(id.String(), "-", ""), a.Handle, when)
				assert.Equal(t, "Old app", a.Name, when)
				assert.Empty(t, a.LinkDomain, when)
				assert.Empty(t, a.DefaultLinkDomain, when)
				assert.False(t, a.LegacyApexEnabled, when)
				assert.Nil(t, a.IOSBundleID, when)
				assert.Nil(t, a.IOSUniversalLinkPaths, when)
				assert.Nil(t, a.PreviousLinkDomain, when)
				a.FillLinkDomains("hop.example")
				assert.Equal(t, a.Handle+".hop.example", a.LinkDomain, when)
				assert.Equal(t, a.LinkDomain, a.DefaultLinkDomain, when)
			}
		}
		migrateTo(t, s, apps)
		check("after up")

		require.NoError(t, s.Rollback(ctx), "rolls back the apps migration alone")
		var n int
		require.NoError(t, s.DB().NewSelect().Table("apps").ColumnExpr("count(*)").Scan(ctx, &n))
		assert.Equal(t, 2, n, "the apps stay")
		_, err = s.DB().ExecContext(ctx, "SELECT handle FROM apps")
		assert.Error(t, err, "the handle column is gone")

		migrateTo(t, s, apps)
		check("after up again")
		require.NoError(t, s.Migrate(ctx), "later migrations apply on top")
		check("after every migration")
	})
}
