package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// newLink builds an active link of orgID on domain with slug and no optional field.
func newLink(c *clock, orgID uuid.UUID, domain, slug string) *linking.Link {
	at := c.next()
	return &linking.Link{
		ID:             uuid.Must(uuid.NewV7()),
		OrgID:          orgID,
		Domain:         domain,
		Slug:           slug,
		DestinationURL: "https://example.com/" + slug,
		IsActive:       true,
		Tags:           []string{},
		CreatedAt:      at,
		UpdatedAt:      at,
	}
}

func createLink(t testing.TB, s *store.Store, l *linking.Link) *linking.Link {
	t.Helper()
	require.NoError(t, s.CreateLink(t.Context(), l, linking.LinkQuota{}))
	return l
}

// linkApp creates an app of orgID through the apps repository.
func linkApp(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID) *linking.App {
	t.Helper()
	at := c.next()
	id := uuid.Must(uuid.NewV7())
	handle := "links-" + id.String()[24:]
	a := &linking.App{ID: id, OrgID: orgID, Name: "Links app", Handle: handle,
		LinkDomain: handle + ".hop.example", DefaultLinkDomain: handle + ".hop.example", CreatedAt: at, UpdatedAt: at}
	require.NoError(t, s.CreateApp(t.Context(), a, 1000))
	return a
}

func columnExists(t *testing.T, s *store.Store, table, column string) bool {
	t.Helper()
	query := "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?"
	if s.Dialect() == "pg" {
		query = "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?"
	}
	var n int
	require.NoError(t, s.DB().QueryRowContext(t.Context(), query, table, column).Scan(&n))
	return n == 1
}

func TestLinksMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assert.True(t, columnExists(t, s, "organizations", "parameters"))
		assertMigratesDownAndUp(t, s, "links")
		assert.True(t, columnExists(t, s, "organizations", "parameters"), "after up again")
		c := newClock()
		o := createOrg(t, s, c, "acme")
		createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
	})
}

func TestCreateLinkAndReadItBack(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		app := linkApp(t, s, c, o.ID)
		creator := uuid.Must(uuid.NewV7())
		hours := 48
		expires := t0.Add(24 * time.Hour)
		l := newLink(c, o.ID, app.LinkDomain, "full")
		l.AppID = &app.ID
		l.Name = str("Spring sale")
		l.IOSURL = str("myapp://open/spring")
		l.IOSFallbackURL = str("https://apps.apple.com/app/id1")
		l.AndroidURL = str("intent://spring")
		l.AndroidFallbackURL = str("https://play.google.com/store/apps/details?id=x")
		l.OGTitle = str("Spring")
		l.OGDescription = str("Two\nlines")
		l.OGImageURL = str("https://cdn.example/spring.png")
		l.UTMSource, l.UTMMedium, l.UTMCampaign = str("newsletter"), str("email"), str("spring")
		l.MatchWindowHours = &hours
		l.ExpiresAt = &expires
		l.Tags = []string{"spring", "iOS", `say "hi"`}
		l.Parameters = &params.LinkConfig{
			Injected:           []params.InjectedParam{{Key: "ref", Value: "hop", Mode: params.ModeAlways}, {Key: "lang", Value: "en"}},
			Forwarding:         &params.Forwarding{Enabled: true, Allowlist: []string{"utm_source"}},
			DefaultMode:        params.ModeDefault,
			InheritOrgInjected: true,
			SuppressedOrgKeys:  []string{"x"},
		}
		l.PasswordHash = str("$argon2id$v=19$m=65536,t=3,p=2$salt$hash")
		l.CreatedBy = &creator
		createLink(t, s, l)

		got, err := s.LinkByID(ctx, o.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, l, got)

		plain := createLink(t, s, newLink(c, o.ID, "hop.example", "plain"))
		got, err = s.LinkByID(ctx, o.ID, plain.ID)
		require.NoError(t, err)
		assert.Equal(t, plain, got, "nullable fields come back nil and tags empty")
		assert.NotNil(t, got.Tags)

		other := createOrg(t, s, c, "other")
		_, err = s.LinkByID(ctx, other.ID, l.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's link")
	})
}

func TestLinkSlugIsUniquePerDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		first := createLink(t, s, newLink(c, acme.ID, "hop.example", "spring"))

		err := s.CreateLink(ctx, newLink(c, acme.ID, "hop.example", "spring"), linking.LinkQuota{})
		assert.ErrorIs(t, err, errcode.ErrConflict, "same domain, same slug")
		err = s.CreateLink(ctx, newLink(c, other.ID, "hop.example", "spring"), linking.LinkQuota{Max: 100, Since: t0})
		assert.ErrorIs(t, err, errcode.ErrConflict, "the slug is taken on the domain whatever the organization")
		createLink(t, s, newLink(c, acme.ID, "go.example", "spring"))

		require.NoError(t, s.DeleteLink(ctx, acme.ID, first.ID))
		createLink(t, s, newLink(c, other.ID, "hop.example", "spring"))
	})
}

// TestConcurrentCreatesOfOneSlug proves that the unique index, not a read
// before the write, decides: of 20 concurrent creates of one slug on one
// domain exactly one succeeds and every other one is a conflict.
func TestConcurrentCreatesOfOneSlug(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		orgs := []uuid.UUID{createOrg(t, s, c, "acme").ID, createOrg(t, s, c, "other").ID}
		for _, quota := range []linking.LinkQuota{{}, {Max: 1000, Since: t0}} {
			t.Run(fmt.Sprintf("quota %d", quota.Max), func(t *testing.T) {
				slug := fmt.Sprintf("race-%d", quota.Max)
				const n = 20
				links := make([]*linking.Link, n)
				for i := range links {
					links[i] = newLink(c, orgs[i%2], "hop.example", slug)
				}
				errs := make([]error, n)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range links {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = s.CreateLink(t.Context(), links[i], quota)
					}()
				}
				close(start)
				wg.Wait()
				assertOneWins(t, errs[:], errcode.ErrConflict)
			})
		}
	})
}

func TestCreateLinkQuota(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		old := newLink(c, o.ID, "hop.example", "last-month")
		old.CreatedAt = t0.Add(-time.Hour)
		createLink(t, s, old)
		since := t0
		quota := linking.LinkQuota{Since: since, Max: 2}

		first := newLink(c, o.ID, "hop.example", "one")
		require.NoError(t, s.CreateLink(ctx, first, quota))
		require.NoError(t, s.CreateLink(ctx, newLink(c, o.ID, "hop.example", "two"), quota), "links before Since do not count")
		err := s.CreateLink(ctx, newLink(c, o.ID, "hop.example", "three"), quota)
		assert.ErrorIs(t, err, linking.ErrLinkLimit)
		_, err = s.LinkByID(ctx, o.ID, first.ID)
		require.NoError(t, err)

		require.NoError(t, s.DeleteLink(ctx, o.ID, first.ID))
		require.NoError(t, s.CreateLink(ctx, newLink(c, o.ID, "hop.example", "three"), quota), "a deleted link stops counting")

		other := createOrg(t, s, c, "other")
		require.NoError(t, s.CreateLink(ctx, newLink(c, other.ID, "hop.example", "four"), quota), "the quota is per organization")
	})
}

// TestCreateLinkQuotaUnderConcurrency proves that the count and the insert
// are one step: of 12 concurrent creates with room for 5, exactly 5 succeed.
func TestCreateLinkQuotaUnderConcurrency(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		quota := linking.LinkQuota{Since: t0, Max: 5}
		const n = 12
		links := make([]*linking.Link, n)
		for i := range links {
			links[i] = newLink(c, o.ID, "hop.example", fmt.Sprintf("quota-%d", i))
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range links {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = s.CreateLink(t.Context(), links[i], quota)
			}()
		}
		close(start)
		wg.Wait()
		created := 0
		for _, err := range errs {
			if err == nil {
				created++
				continue
			}
			assert.True(t, errors.Is(err, linking.ErrLinkLimit), "%v", err)
		}
		assert.Equal(t, 5, created)
	})
}

func TestListLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		mk := func(slug string, mod func(*linking.Link)) *linking.Link {
			l := newLink(c, o.ID, "hop.example", slug)
			if mod != nil {
				mod(l)
			}
			return createLink(t, s, l)
		}
		a := mk("alpha", func(l *linking.Link) { l.Tags = []string{"ios", "Spring"} })
		b := mk("bravo", func(l *linking.Link) { l.Name = str("Summer SALE"); l.IsActive = false })
		cc := mk("charlie", func(l *linking.Link) { l.DestinationURL = "https://Shop.example/100%_off" })
		d := mk("delta", func(l *linking.Link) { l.Tags = []string{`x"ios`, "iOS"} })
		createLink(t, s, newLink(c, other.ID, "hop.example", "other-alpha"))

		list := func(f linking.LinkFilter) ([]uuid.UUID, int) {
			t.Helper()
			f.OrgID = o.ID
			if f.Limit == 0 {
				f.Limit = 100
			}
			links, total, err := s.ListLinks(ctx, f)
			require.NoError(t, err)
			ids := []uuid.UUID{}
			for _, l := range links {
				ids = append(ids, l.ID)
			}
			return ids, total
		}
		tests := []struct {
			name  string
			f     linking.LinkFilter
			want  []*linking.Link
			total int
		}{
			{"every link of the organization, newest first", linking.LinkFilter{}, []*linking.Link{d, cc, b, a}, 4},
			{"a page", linking.LinkFilter{Limit: 2, Offset: 1}, []*linking.Link{cc, b}, 4},
			{"past the end", linking.LinkFilter{Limit: 2, Offset: 10}, nil, 4},
			{"tag matches exactly", linking.LinkFilter{Tag: "ios"}, []*linking.Link{a}, 1},
			{"tag is case-sensitive", linking.LinkFilter{Tag: "iOS"}, []*linking.Link{d}, 1},
			{"paused links", linking.LinkFilter{IsActive: ptr(false)}, []*linking.Link{b}, 1},
			{"active links", linking.LinkFilter{IsActive: ptr(true)}, []*linking.Link{d, cc, a}, 3},
			{"search in the slug", linking.LinkFilter{Search: "LPH"}, []*linking.Link{a}, 1},
			{"search in the name, ignoring case", linking.LinkFilter{Search: "sale"}, []*linking.Link{b}, 1},
			{"search in the destination", linking.LinkFilter{Search: "shop.EXAMPLE"}, []*linking.Link{cc}, 1},
			{"search in the tags", linking.LinkFilter{Search: "spr"}, []*linking.Link{a}, 1},
			{"search matches % and _ literally", linking.LinkFilter{Search: "0%_o"}, []*linking.Link{cc}, 1},
			{"a wildcard alone matches only itself", linking.LinkFilter{Search: "_"}, []*linking.Link{cc}, 1},
			{"filters combine", linking.LinkFilter{Search: "a", IsActive: ptr(true), Tag: "ios"}, []*linking.Link{a}, 1},
			{"nothing matches", linking.LinkFilter{Search: "zulu"}, nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ids, total := list(tt.f)
				want := []uuid.UUID{}
				for _, l := range tt.want {
					want = append(want, l.ID)
				}
				assert.Equal(t, want, ids)
				assert.Equal(t, tt.total, total)
			})
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestListLinksSorts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		mike := createLink(t, s, newLink(c, o.ID, "hop.example", "mike"))
		alpha := createLink(t, s, newLink(c, o.ID, "hop.example", "alpha-2"))
		zulu := createLink(t, s, newLink(c, o.ID, "hop.example", "zulu"))
		mike.Name, mike.UpdatedAt = str("changed last"), c.next()
		require.NoError(t, s.UpdateLink(ctx, mike))

		tests := []struct {
			sort linking.LinkSort
			want []*linking.Link
		}{
			{"", []*linking.Link{zulu, alpha, mike}},
			{linking.LinkSortNewest, []*linking.Link{zulu, alpha, mike}},
			{linking.LinkSortOldest, []*linking.Link{mike, alpha, zulu}},
			{linking.LinkSortUpdated, []*linking.Link{mike, zulu, alpha}},
			{linking.LinkSortSlug, []*linking.Link{alpha, mike, zulu}},
		}
		for _, tt := range tests {
			t.Run("sort "+string(tt.sort), func(t *testing.T) {
				links, total, err := s.ListLinks(ctx, linking.LinkFilter{OrgID: o.ID, Limit: 2, Offset: 1, Sort: tt.sort})
				require.NoError(t, err)
				assert.Equal(t, 3, total)
				require.Len(t, links, 2, "the second page of two holds the last two")
				assert.Equal(t, []uuid.UUID{tt.want[1].ID, tt.want[2].ID}, []uuid.UUID{links[0].ID, links[1].ID})
			})
		}
	})
}

func TestUpdateLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))

		l.Name = str("Renamed")
		l.IsActive = false
		l.Tags = []string{"a"}
		l.Parameters = &params.LinkConfig{Injected: []params.InjectedParam{}, SuppressedOrgKeys: []string{}}
		l.PasswordHash = str("hash")
		l.UpdatedAt = c.next()
		require.NoError(t, s.UpdateLink(ctx, l))
		got, err := s.LinkByID(ctx, o.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, l, got)

		l.Name, l.Parameters, l.PasswordHash = nil, nil, nil
		require.NoError(t, s.UpdateLink(ctx, l))
		got, err = s.LinkByID(ctx, o.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, l, got, "cleared fields are null again")

		moved := *l
		moved.OrgID = other.ID
		assert.ErrorIs(t, s.UpdateLink(ctx, &moved), errcode.ErrNotFound, "another organization's link")
		assert.ErrorIs(t, s.DeleteLink(ctx, other.ID, l.ID), errcode.ErrNotFound, "another organization's link")
	})
}

func TestLinksFollowTheirAppAndOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		app := linkApp(t, s, c, o.ID)
		l := newLink(c, o.ID, app.LinkDomain, "spring")
		l.AppID = &app.ID
		createLink(t, s, l)

		_, err := s.DeleteApp(ctx, linking.AppDeletion{OrgID: o.ID, ID: app.ID, At: time.Now()})
		require.NoError(t, err)
		got, err := s.LinkByID(ctx, o.ID, l.ID)
		require.NoError(t, err, "deleting an app keeps its links")
		assert.Nil(t, got.AppID, "with no app")
		assert.Equal(t, app.LinkDomain, got.Domain, "on the same domain")

		require.NoError(t, s.DeleteOrganization(ctx, o.ID))
		_, err = s.LinkByID(ctx, o.ID, l.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "deleting the organization deletes its links")
	})
}

func TestOrgParameters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		cfg, err := s.OrgParameters(ctx, o.ID)
		require.NoError(t, err)
		assert.Nil(t, cfg, "none set")

		want := &params.OrgConfig{
			Injected:    []params.InjectedParam{{Key: "ref", Value: "hop"}},
			Forwarding:  &params.Forwarding{Enabled: true},
			DefaultMode: params.ModeAlways,
		}
		at := c.next()
		require.NoError(t, s.SetOrgParameters(ctx, o.ID, want, at))
		cfg, err = s.OrgParameters(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, want, cfg)
		got, err := s.OrganizationByID(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, at, got.UpdatedAt)

		require.NoError(t, s.SetOrgParameters(ctx, o.ID, nil, c.next()))
		cfg, err = s.OrgParameters(ctx, o.ID)
		require.NoError(t, err)
		assert.Nil(t, cfg, "cleared")

		missing := uuid.Must(uuid.NewV7())
		_, err = s.OrgParameters(ctx, missing)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		assert.ErrorIs(t, s.SetOrgParameters(ctx, missing, want, c.next()), errcode.ErrNotFound)
	})
}
