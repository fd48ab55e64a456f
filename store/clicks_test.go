package store_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// newClick builds a redirect click on l at at, with every text field set.
func newClick(l *linking.Link, at time.Time) analytics.Click {
	return analytics.Click{
		ID: testkit.IDAt(at), OrgID: l.OrgID, LinkID: l.ID, AppID: l.AppID,
		Domain: l.Domain, Slug: l.Slug, OccurredAt: at, Source: analytics.SourceRedirect,
		Platform: "ios", OS: "iOS", OSVersion: "18.6", DeviceModel: "iPhone", Browser: "Safari",
		IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone)", AcceptLanguage: "en-GB,en;q=0.9",
		Referer: "https://news.example/", UTMSource: "newsletter", UTMMedium: "email", UTMCampaign: "spring",
		UTMTerm: "shoes", UTMContent: "hero", Country: "GB", Region: "ENG", City: "London",
	}
}

// withRow gives c an id of another time than its own: on SQLite such a
// candidate keeps a row of clicks (click_rows.go), for a test of the rows.
func withRow(c analytics.Click) analytics.Click {
	c.ID = uuid.Must(uuid.NewV7())
	return c
}

// clickRow is a stored click: the columns of a row of clicks, and the
// address and location that only its segment keeps (storedRows).
type clickRow struct {
	ID             uuid.UUID  `bun:"id"`
	OrgID          uuid.UUID  `bun:"org_id"`
	LinkID         uuid.UUID  `bun:"link_id"`
	AppID          *uuid.UUID `bun:"app_id"`
	OccurredAt     time.Time  `bun:"occurred_at"`
	Source         string     `bun:"source"`
	IP             string     `bun:"ip"`
	IPKey          string     `bun:"ip_key"`
	Country        string     `bun:"country"`
	Region         string     `bun:"region"`
	City           string     `bun:"city"`
	UserAgent      string     `bun:"user_agent"`
	AcceptLanguage string     `bun:"accept_language"`
	UTMContent     string     `bun:"utm_content"`
	TapID          *uuid.UUID `bun:"tap_id"`
}

func clickRows(t *testing.T, s *store.Store, where string, args ...any) []clickRow {
	t.Helper()
	var rows []clickRow
	require.NoError(t, s.DB().NewSelect().Table("clicks").Column("id", "org_id", "link_id", "app_id", "occurred_at",
		"source", "ip_key", "country", "user_agent", "accept_language", "utm_content", "tap_id").
		Where(where, args...).OrderExpr("occurred_at, id").Scan(t.Context(), &rows))
	return rows
}

// storedRows returns o's stored clicks, from the segments, as clickRows,
// in (occurred_at, id) order.
func storedRows(t *testing.T, s *store.Store, orgID uuid.UUID) []clickRow {
	t.Helper()
	clicks, err := s.StoredClicks(t.Context(), orgID)
	require.NoError(t, err)
	rows := make([]clickRow, len(clicks))
	for i, c := range clicks {
		rows[i] = clickRow{
			ID: c.ID, OrgID: c.OrgID, LinkID: c.LinkID, AppID: c.AppID, OccurredAt: c.OccurredAt, Source: string(c.Source),
			IP: c.IP, IPKey: c.IPKey, Country: c.Country, Region: c.Region, City: c.City, UserAgent: c.UserAgent,
			AcceptLanguage: c.AcceptLanguage, UTMContent: c.UTMContent, TapID: c.TapID,
		}
	}
	return rows
}

func clickCount(t *testing.T, s *store.Store, o *org.Organization, at time.Time) int64 {
	t.Helper()
	n, err := s.ClickCount(t.Context(), o.ID, org.PeriodStart(o.BillingPeriodStart, at))
	require.NoError(t, err)
	return n
}

func TestClicksMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		assertMigratesDownAndUp(t, s, "clicks", "click_counts")

		c := newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		n, err := s.InsertClicks(ctx, []analytics.Click{newClick(l, c.next())})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	})
}

// appAndPlainLinks creates two links of organization orgID: "spring" on
// the subdomain of a new app, with that app, and "plain" on hop.example
// without one.
func appAndPlainLinks(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID) (withApp, plain *linking.Link) {
	t.Helper()
	app := linkApp(t, s, c, orgID)
	withApp = newLink(c, orgID, app.LinkDomain, "spring")
	withApp.AppID = &app.ID
	createLink(t, s, withApp)
	return withApp, createLink(t, s, newLink(c, orgID, "hop.example", "plain"))
}

func TestInsertClicksBatch(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)

		var batch []analytics.Click
		for i := range 300 {
			l := plain
			if i%2 == 0 {
				l = withApp
			}
			if l == withApp {
				// Rows on SQLite too, whose values this test reads.
				batch = append(batch, withRow(newClick(l, c.next())))
				continue
			}
			batch = append(batch, newClick(l, c.next()))
		}
		long := newClick(plain, c.next())
		long.UserAgent = strings.Repeat("é", 400) // 800 bytes
		long.AcceptLanguage = strings.Repeat("a", 300)
		long.IP = "2001:db8:1:2:3:4:5:6"
		batch = append(batch, long)

		n, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		assert.Equal(t, 301, n)
		assert.Equal(t, int64(301), clickCount(t, s, o, c.now))

		assert.Len(t, clickRows(t, s, "org_id = ?", o.ID), 150, "the clicks of the link with an app are rows too")
		rows := storedRows(t, s, o.ID)
		require.Len(t, rows, 301)
		first := rows[0]
		assert.Equal(t, batch[0].ID, first.ID)
		assert.Equal(t, withApp.ID, first.LinkID)
		assert.Equal(t, withApp.AppID, first.AppID)
		assert.Equal(t, batch[0].OccurredAt, first.OccurredAt.UTC())
		assert.Equal(t, "redirect", first.Source)
		assert.Equal(t, "203.0.113.7", first.IP)
		assert.Equal(t, "203.0.113.7", first.IPKey)
		assert.Equal(t, "hero", first.UTMContent)
		assert.Equal(t, []string{"GB", "ENG", "London"}, []string{first.Country, first.Region, first.City})
		assert.Nil(t, first.TapID)
		assert.Nil(t, rows[1].AppID)
		assert.Equal(t, "GB", rows[1].Country, "a repeated value is bound once and kept for the next rows")

		last := rows[300]
		assert.Equal(t, strings.Repeat("é", 256), last.UserAgent, "cut to 512 bytes on a rune boundary")
		assert.Len(t, last.AcceptLanguage, 256)
		assert.Equal(t, "2001:db8:1:2::/64", last.IPKey)

		n, err = s.InsertClicks(ctx, nil)
		require.NoError(t, err)
		assert.Zero(t, n)
	})
}

func TestInsertClicksOneClickPerTap(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, "hop.example", "spring"))
		ol := createLink(t, s, newLink(c, other.ID, "hop.example", "other"))
		tap := uuid.New()

		tapped := func(l *linking.Link) analytics.Click {
			cl := newClick(l, c.next())
			cl.Source, cl.TapID = analytics.SourceAppOpen, &tap
			return cl
		}
		// A retry inside one batch, and again in a later batch.
		n, err := s.InsertClicks(ctx, []analytics.Click{tapped(l), tapped(l), newClick(l, c.next())})
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		n, err = s.InsertClicks(ctx, []analytics.Click{tapped(l)})
		require.NoError(t, err)
		assert.Zero(t, n, "the same tap again")
		assert.Equal(t, int64(2), clickCount(t, s, acme, c.now), "a repeated tap is counted once")

		rows := clickRows(t, s, "tap_id = ?", tap)
		require.Len(t, rows, 1)
		assert.Equal(t, "app_open", rows[0].Source)
		tapped1 := 0
		for _, r := range storedRows(t, s, acme.ID) {
			if r.TapID != nil && *r.TapID == tap {
				tapped1++
			}
		}
		assert.Equal(t, 1, tapped1, "a repeated tap is in one segment once")

		n, err = s.InsertClicks(ctx, []analytics.Click{tapped(ol)})
		require.NoError(t, err)
		assert.Equal(t, 1, n, "a tap id is unique per organization")

		// The resolve uses the tap id as the click id too: a retry in the
		// same batch repeats the id, and is still one click.
		again := uuid.New()
		same := func() analytics.Click {
			cl := newClick(l, c.next())
			cl.ID, cl.Source, cl.TapID = again, analytics.SourceAppOpen, &again
			return cl
		}
		n, err = s.InsertClicks(ctx, []analytics.Click{same(), same(), newClick(l, c.next())})
		require.NoError(t, err)
		assert.Equal(t, 2, n, "the repeated id is one click")
		assert.Equal(t, int64(4), clickCount(t, s, acme, c.now), "and is counted once")
	})
}

func TestInsertClicksConcurrentRetriesOfOneTap(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		tap := uuid.New()
		at := c.next()
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			total int
		)
		for range 8 {
			wg.Go(func() {
				cl := newClick(l, at)
				cl.TapID = &tap
				n, err := s.InsertClicks(ctx, []analytics.Click{cl})
				assert.NoError(t, err)
				mu.Lock()
				total += n
				mu.Unlock()
			})
		}
		wg.Wait()
		assert.Equal(t, 1, total)
		assert.Equal(t, int64(1), clickCount(t, s, o, at))
		assert.Len(t, storedRows(t, s, o.ID), 1, "one click in the segments")
	})
}

func TestClickCountersPerOrganizationAndMonth(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, "hop.example", "spring"))
		ol := createLink(t, s, newLink(c, other.ID, "hop.example", "other"))

		nextMonth := acme.BillingPeriodStart.AddDate(0, 1, 0).Add(time.Hour)
		over := newClick(l, c.next())
		over.CountOnly = true
		batch := []analytics.Click{
			newClick(l, c.next()), newClick(l, c.next()), newClick(ol, c.next()),
			newClick(l, nextMonth), over,
		}
		n, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		assert.Equal(t, 4, n, "a count-only click stores no row")

		assert.Equal(t, int64(3), clickCount(t, s, acme, c.now), "two stored and one counted only")
		assert.Equal(t, int64(1), clickCount(t, s, acme, nextMonth))
		assert.Equal(t, int64(1), clickCount(t, s, other, c.now))
		assert.Len(t, storedRows(t, s, acme.ID), 3)

		_, err = s.InsertClicks(ctx, []analytics.Click{newClick(l, c.next())})
		require.NoError(t, err)
		assert.Equal(t, int64(4), clickCount(t, s, acme, c.now), "a later batch adds to the counter")

		summed := newClick(l, c.next())
		summed.CountOnly, summed.Weight = true, 250
		n, err = s.InsertClicks(ctx, []analytics.Click{summed})
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, int64(254), clickCount(t, s, acme, c.now), "a weighted count-only click counts its weight")

		n64, err := s.ClickCount(ctx, uuid.New(), t0)
		require.NoError(t, err)
		assert.Zero(t, n64, "no counter is zero")

		u, err := s.ClickUsage(ctx, acme.ID, c.now)
		require.NoError(t, err)
		assert.Equal(t, analytics.Usage{Limit: 10_000, PeriodStart: acme.BillingPeriodStart, Count: 254}, u)
		_, err = s.ClickUsage(ctx, uuid.New(), c.now)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestDeletingALinkDeletesItsClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, kept := appAndPlainLinks(t, s, c, o.ID)
		gone := createLink(t, s, newLink(c, o.ID, "hop.example", "gone"))
		// Two batches: the deleted links' clicks share segments with the
		// kept link's.
		for range 2 {
			_, err := s.InsertClicks(ctx, []analytics.Click{newClick(gone, c.next()), newClick(kept, c.next()),
				withRow(newClick(withApp, c.next())), newClick(gone, c.next())})
			require.NoError(t, err)
		}
		require.Len(t, clickRows(t, s, "link_id = ?", withApp.ID), 2)

		require.NoError(t, s.DeleteLink(ctx, o.ID, gone.ID))
		require.NoError(t, s.DeleteLink(ctx, o.ID, withApp.ID))
		assert.ErrorIs(t, s.DeleteLink(ctx, o.ID, gone.ID), errcode.ErrNotFound)
		assert.Empty(t, clickRows(t, s, "link_id = ?", withApp.ID), "the rows attribution reads go with the link")
		linksOf := func(rows []clickRow) map[uuid.UUID]int {
			n := map[uuid.UUID]int{}
			for _, r := range rows {
				n[r.LinkID]++
			}
			return n
		}
		assert.Equal(t, map[uuid.UUID]int{kept.ID: 2}, linksOf(storedRows(t, s, o.ID)),
			"the deleted links' clicks are removed from the segments before the delete answers")
		segs, err := s.Segments(ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, segs, 2)
		for _, seg := range segs {
			assert.Equal(t, 1, seg.Clicks, "the segments were encoded again without them")
		}
		assert.Equal(t, int64(8), clickCount(t, s, o, c.now), "the month's count keeps the deleted link's clicks")

		// A click still buffered when its link was deleted is skipped, not
		// an error that would fail its whole batch.
		n, err := s.InsertClicks(ctx, []analytics.Click{newClick(gone, c.next()), newClick(kept, c.next())})
		require.NoError(t, err)
		assert.Equal(t, 1, n)

		// The slug is free again, and a new link's clicks count.
		again := createLink(t, s, newLink(c, o.ID, "hop.example", "gone"))
		_, err = s.InsertClicks(ctx, []analytics.Click{newClick(again, c.next())})
		require.NoError(t, err)
		scanned, err := s.ScanClicks(ctx, o.ID, store.AllTime, analytics.Filter{LinkID: &again.ID}, nil)
		require.NoError(t, err)
		assert.Len(t, scanned, 1)
	})
}

// A deleted link whose compaction did not run (the process stopped after
// the delete) is skipped by readers through its tombstone, and the purge
// removes its clicks.
func TestATombstoneHidesALinksClicksUntilThePurgeCompacts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		gone := createLink(t, s, newLink(c, o.ID, "hop.example", "gone"))
		kept := createLink(t, s, newLink(c, o.ID, "hop.example", "kept"))
		_, err := s.InsertClicks(ctx, []analytics.Click{newClick(gone, c.next()), newClick(kept, c.next())})
		require.NoError(t, err)
		// What DeleteLink's transaction commits, without the compaction.
		_, err = s.DB().NewInsert().Table("click_link_tombstones").Model(&map[string]any{
			"link_id": gone.ID, "org_id": o.ID, "since": gone.CreatedAt, "deleted_at": c.next(),
		}).Exec(ctx)
		require.NoError(t, err)
		_, err = s.DB().NewDelete().Table("links").Where("id = ?", gone.ID).Exec(ctx)
		require.NoError(t, err)

		require.Len(t, storedRows(t, s, o.ID), 2, "still in the segment")
		scanned, err := s.ScanClicks(ctx, o.ID, store.AllTime, analytics.Filter{}, nil)
		require.NoError(t, err)
		require.Len(t, scanned, 1, "but no reader sees it")
		assert.Equal(t, kept.ID, scanned[0].LinkID)
		rows, last, err := s.CountExportClicks(ctx, analytics.ExportScope{OrgID: o.ID, Window: store.AllTime}, nil, 10)
		require.NoError(t, err)
		assert.Equal(t, 1, rows)
		assert.Nil(t, last)

		res, err := newPurger(s, 10).RunOnce(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(1), res.LinksCompacted)
		require.Len(t, storedRows(t, s, o.ID), 1, "the purge compacted the segment")
		res, err = newPurger(s, 10).RunOnce(ctx)
		require.NoError(t, err)
		assert.Zero(t, res.LinksCompacted, "the tombstone is gone")
	})
}

func TestInsertClicksSkipsForeignLinksAndGoneOrganizations(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		ol := createLink(t, s, newLink(c, other.ID, "hop.example", "other"))

		foreign := newClick(ol, c.next())
		foreign.OrgID = acme.ID
		ghost := newClick(ol, c.next())
		ghost.OrgID = uuid.New()
		n, err := s.InsertClicks(ctx, []analytics.Click{foreign, ghost})
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Zero(t, clickCount(t, s, acme, c.now))
	})
}

func TestDeletingAnOrganizationDeletesItsClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		_, err := s.InsertClicks(ctx, []analytics.Click{newClick(l, c.next())})
		require.NoError(t, err)
		require.NoError(t, s.DeleteOrganization(ctx, o.ID))
		assert.Empty(t, storedRows(t, s, o.ID))
		segs, err := s.Segments(ctx, o.ID)
		require.NoError(t, err)
		assert.Empty(t, segs, "the segments go with the organization")
		assert.Zero(t, clickCount(t, s, o, c.now))
	})
}

func BenchmarkInsertClicks500(b *testing.B) {
	run := func(b *testing.B, s *store.Store) {
		ctx, c := b.Context(), newClock()
		o := createOrg(b, s, c, "acme")
		l := createLink(b, s, newLink(c, o.ID, "hop.example", "spring"))
		batch := make([]analytics.Click, 500)
		b.ReportAllocs()
		for b.Loop() {
			for i := range batch {
				batch[i] = newClick(l, c.next())
			}
			n, err := s.InsertClicks(ctx, batch)
			if err != nil || n != len(batch) {
				b.Fatal(n, err)
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) { run(b, storetest.SQLite(b)) })
	b.Run("postgres", func(b *testing.B) { run(b, storetest.Postgres(b)) })
}

// fullClickRow is every column of clicks (migration 20261202000001) but
// PostgreSQL's txid (migration 20261203000007), which is the database's.
type fullClickRow struct {
	bun.BaseModel `bun:"table:clicks"`

	ID               uuid.UUID  `bun:"id"`
	OrgID            uuid.UUID  `bun:"org_id"`
	LinkID           uuid.UUID  `bun:"link_id"`
	AppID            *uuid.UUID `bun:"app_id"`
	Domain           string     `bun:"domain"`
	OccurredAt       time.Time  `bun:"occurred_at"`
	Source           string     `bun:"source"`
	Platform         string     `bun:"platform"`
	OS               string     `bun:"os"`
	OSVersion        string     `bun:"os_version"`
	DeviceModel      string     `bun:"device_model"`
	Browser          string     `bun:"browser"`
	InAppBrowser     string     `bun:"in_app_browser"`
	IPKey            string     `bun:"ip_key"`
	UserAgent        string     `bun:"user_agent"`
	AcceptLanguage   string     `bun:"accept_language"`
	UTMSource        string     `bun:"utm_source"`
	UTMMedium        string     `bun:"utm_medium"`
	UTMCampaign      string     `bun:"utm_campaign"`
	UTMTerm          string     `bun:"utm_term"`
	UTMContent       string     `bun:"utm_content"`
	TapID            *uuid.UUID `bun:"tap_id"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install"`
	Country          string     `bun:"country"`
	RefererHost      string     `bun:"referer_host"`
}

// Every value is stored as given (after Click.Normalize), whatever it
// holds: quotes, backslashes, SQL, percent signs, non-ASCII text, a NUL
// byte (removed by Normalize) and microsecond times; read back through bun.
func TestInsertClicksKeepsEveryValue(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		app := linkApp(t, s, c, o.ID)
		l := newLink(c, o.ID, app.LinkDomain, "spring")
		l.AppID = &app.ID
		createLink(t, s, l)
		tap := uuid.New()
		at := c.next().Add(123456 * time.Microsecond)
		cl := analytics.Click{
			ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, LinkID: l.ID, AppID: &app.ID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: at, Source: analytics.SourceAppOpen, Platform: "android", OS: "Android", OSVersion: "15",
			DeviceModel: `Pixel 9 "Pro"`, Browser: "Chrome", InAppBrowser: "Instagram",
			IP: "2001:db8:1:2::7", UserAgent: `O'Brien'); DROP TABLE clicks; --`,
			AcceptLanguage: "fr-CH, fr;q=0.9", Referer: `https://news.example/a?b='c'&d=\x`,
			UTMSource: "ünïcødé ✓", UTMMedium: "50%_off", UTMCampaign: "''", UTMTerm: "a\x00b", UTMContent: "\\'",
			TapID: &tap, Country: "CH", Region: "ZH", City: "Zürich 'Kreis' 1",
		}
		n, err := s.InsertClicks(ctx, []analytics.Click{cl})
		require.NoError(t, err)
		require.Equal(t, 1, n)

		var got fullClickRow
		require.NoError(t, s.DB().NewSelect().Model(&got).Where("id = ?", cl.ID).Scan(ctx))
		got.OccurredAt = got.OccurredAt.UTC()
		assert.Equal(t, fullClickRow{
			ID: cl.ID, OrgID: o.ID, LinkID: l.ID, AppID: &app.ID, Domain: l.Domain,
			OccurredAt: at.UTC(), Source: "app_open", Platform: "android", OS: "Android", OSVersion: "15",
			DeviceModel: `Pixel 9 "Pro"`, Browser: "Chrome", InAppBrowser: "Instagram",
			IPKey: "2001:db8:1:2::/64", UserAgent: `O'Brien'); DROP TABLE clicks; --`, AcceptLanguage: "fr-CH, fr;q=0.9",
			UTMSource: "ünïcødé ✓", UTMMedium: "50%_off", UTMCampaign: "''", UTMTerm: "ab", UTMContent: "\\'",
			TapID: &tap, Country: "CH", RefererHost: "news.example",
		}, got)
		stored := storedRows(t, s, o.ID)
		require.Len(t, stored, 1)
		assert.Equal(t, []string{"2001:db8:1:2::7", "ZH", "Zürich 'Kreis' 1"}, []string{stored[0].IP, stored[0].Region, stored[0].City},
			"the address and the location are in the segment")
		assert.True(t, tableExists(t, s, "clicks"))

		// Times written by the click insert compare with times bun writes.
		var later int
		require.NoError(t, s.DB().NewSelect().Table("clicks").ColumnExpr("count(*)").
			Where("occurred_at > ?", at.Add(-time.Microsecond)).Where("occurred_at < ?", at.Add(time.Microsecond)).
			Scan(ctx, &later))
		assert.Equal(t, 1, later)
	})
}

// The tap index holds only clicks with a tap id (migration
// 20261123000005): a redirect's click adds no entry to it.
func TestClicksTapIndexIsPartial(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		query := "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"
		if s.Dialect() == "pg" {
			query = "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?"
		}
		var def string
		require.NoError(t, s.DB().QueryRowContext(t.Context(), query, "clicks_org_id_tap_id_key").Scan(&def))
		assert.Contains(t, strings.ToLower(def), "unique")
		assert.Contains(t, strings.ToLower(def), "where")
		assert.Contains(t, strings.ToLower(def), "tap_id is not null")
	})
}

// Consecutive rows of a batch that share some values and differ in others
// (link, app, tap id, every text field) are each stored with their own
// values: the SQLite insert reuses a bound value only while it is equal.
func TestInsertClicksKeepsEveryRowsOwnValues(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		tap := uuid.New()

		a := withRow(newClick(withApp, c.next()))
		b := newClick(plain, c.next())
		b.Source, b.Platform, b.OS, b.OSVersion, b.DeviceModel = analytics.SourceAppOpen, "android", "Android", "15", "Pixel 9"
		b.Browser, b.InAppBrowser, b.IP, b.UserAgent, b.AcceptLanguage = "Chrome", "Instagram", "2001:db8::1", "Mozilla/5.0 (Linux; Android 15)", "de"
		b.Referer, b.UTMSource, b.UTMMedium, b.UTMCampaign, b.UTMTerm, b.UTMContent = "", "", "cpc", "", "boots", ""
		b.TapID = &tap
		b.Country, b.Region, b.City = "DE", "", ""
		a2 := a
		a2.ID, a2.OccurredAt = uuid.Must(uuid.NewV7()), c.next()
		a3 := a2
		a3.ID, a3.OccurredAt, a3.UserAgent = uuid.Must(uuid.NewV7()), c.next(), "Mozilla/5.0 (iPad)"
		batch := []analytics.Click{a, b, a2, a3}
		n, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		require.Equal(t, len(batch), n)

		for _, want := range batch {
			var got fullClickRow
			require.NoError(t, s.DB().NewSelect().Model(&got).Where("id = ?", want.ID).Scan(ctx))
			w := want
			w.Normalize()
			assert.Equal(t, fullClickRow{
				ID: w.ID, OrgID: w.OrgID, LinkID: w.LinkID, AppID: w.AppID, Domain: w.Domain,
				OccurredAt: w.OccurredAt.UTC(), Source: string(w.Source), Platform: w.Platform, OS: w.OS,
				OSVersion: w.OSVersion, DeviceModel: w.DeviceModel, Browser: w.Browser, InAppBrowser: w.InAppBrowser,
				IPKey: w.IPKey, UserAgent: w.UserAgent, AcceptLanguage: w.AcceptLanguage,
				UTMSource: w.UTMSource, UTMMedium: w.UTMMedium, UTMCampaign: w.UTMCampaign, UTMTerm: w.UTMTerm,
				UTMContent: w.UTMContent, TapID: w.TapID, Country: w.Country,
				RefererHost: w.RefererHost,
			}, func() fullClickRow { got.OccurredAt = got.OccurredAt.UTC(); return got }(), "click %s", want.ID)
		}
	})
}

// The click location migration adds country, region and city to a
// database that has clicks already: each existing click gets the country of
// its stored IP (none for a private address), region and city stay empty,
// and the migration rolls back on its own and applies again.
func TestClickLocationMigrationOnAPopulatedDatabase(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261124000011_link_move_choices")
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))

		ips := map[string]string{"8.8.8.8": "US", "10.1.2.3": "", "2001:4860:4860::8888": "US", "not an ip": ""}
		ids := map[uuid.UUID]string{}
		for ip, country := range ips {
			id := uuid.Must(uuid.NewV7())
			ids[id] = country
			row := map[string]any{"id": id, "org_id": o.ID, "link_id": l.ID, "occurred_at": c.next()}
			for _, col := range []string{"domain", "slug", "source", "platform", "os", "os_version", "device_model",
				"browser", "in_app_browser", "ip_key", "user_agent", "accept_language", "referer", "utm_source",
				"utm_medium", "utm_campaign", "utm_term", "utm_content"} {
				row[col] = ""
			}
			row["ip"] = ip
			_, err := s.DB().NewInsert().Table("clicks").Model(&row).Exec(ctx)
			require.NoError(t, err)
		}

		migrateTo(t, s, "20261125000001_click_location")
		type located struct {
			ID      uuid.UUID `bun:"id"`
			Country string    `bun:"country"`
			Region  string    `bun:"region"`
			City    string    `bun:"city"`
		}
		var rows []located
		require.NoError(t, s.DB().NewSelect().Table("clicks").Column("id", "country", "region", "city").Scan(ctx, &rows))
		require.Len(t, rows, len(ips))
		for _, r := range rows {
			assert.Equal(t, ids[r.ID], r.Country, "click %s", r.ID)
			assert.Empty(t, r.Region+r.City)
		}

		require.NoError(t, s.Rollback(ctx))
		for _, col := range []string{"country", "region", "city"} {
			assert.False(t, columnExists(t, s, "clicks", col), "%s after the rollback", col)
		}
		migrateTo(t, s, "20261125000001_click_location")
		assert.True(t, columnExists(t, s, "clicks", "country"))
	})
}
