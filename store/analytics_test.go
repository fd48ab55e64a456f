package store_test

import (
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// attributedInstall records an install of organization orgID attributed to
// click through Claim, as the matcher does, so that the rollups count it.
func attributedInstall(t *testing.T, s *store.Store, orgID, click uuid.UUID, at time.Time) {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	mt := attribution.MatchDeterministic
	rec := attribution.InstallRecord{
		Install: attribution.Install{ID: id, ClickID: &click, MatchGuaranteed: true, InstalledAt: at},
		OrgID:   orgID, IP: "203.0.113.7", Platform: attribution.PlatformIOS,
		Payload: &attribution.Payload{MatchType: mt, MatchConfidence: 1},
	}
	att := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Matched: true, MatchType: &mt,
		InstallID: &id, CreatedAt: at, Platform: attribution.PlatformIOS}
	require.NoError(t, s.Claim(t.Context(), rec, att))
}

// The slots hold every click of the window, cut exactly at its edges, with
// the installs attributed to them.
func TestCountClickSlots(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		other := createOrg(t, s, c, "other")
		theirs := createLink(t, s, newLink(c, other.ID, "hop.example", "theirs"))

		base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		at := func(min, sec int) time.Time {
			return base.Add(time.Duration(min)*time.Minute + time.Duration(sec)*time.Second)
		}
		clicks := []analytics.Click{
			newClick(withApp, at(0, 1)),   // before the window
			newClick(withApp, at(0, 30)),  // slot 12:00
			newClick(plain, at(14, 59)),   // slot 12:00
			newClick(plain, at(15, 0)),    // slot 12:15
			newClick(withApp, at(44, 59)), // slot 12:30
			newClick(withApp, at(45, 0)),  // at the window's end: out
			newClick(theirs, at(20, 0)),   // another organization
		}
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)
		attributedInstall(t, s, o.ID, clicks[1].ID, at(50, 0))
		attributedInstall(t, s, o.ID, clicks[4].ID, at(46, 0))
		attributedInstall(t, s, o.ID, clicks[0].ID, at(46, 0))

		w := analytics.Window{From: at(0, 10), To: at(45, 0)}
		got, err := s.CountClickSlots(ctx, analytics.ClickSet{OrgID: o.ID, Window: w})
		require.NoError(t, err)
		sort.Slice(got, func(i, j int) bool { return got[i].Start.Before(got[j].Start) })
		assert.Equal(t, []analytics.SlotCount{
			{Start: base, Clicks: 2, Installs: 1},
			{Start: at(15, 0), Clicks: 1},
			{Start: at(30, 0), Clicks: 1, Installs: 1},
		}, got, "installs count with their click, whenever they happened")

		got, err = s.CountClickSlots(ctx, analytics.ClickSet{OrgID: o.ID, Window: w, Filter: analytics.Filter{LinkID: &plain.ID}})
		require.NoError(t, err)
		assert.Len(t, got, 2)

		got, err = s.CountClickSlots(ctx, analytics.ClickSet{OrgID: o.ID, Window: w, Filter: analytics.Filter{LinkID: &theirs.ID}})
		require.NoError(t, err)
		assert.Empty(t, got, "another organization's link filters to nothing")
	})
}

// A breakdown groups by each dimension's column, unknown values in one
// group, and narrows to a member's links.
func TestCountClicksBy(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		member := createUser(t, s, c, "member@example.com")
		mine := newLink(c, o.ID, "hop.example", "mine")
		mine.CreatedBy = &member.ID
		createLink(t, s, mine)

		first := c.next()
		a := newClick(withApp, first)
		b := newClick(plain, c.next())
		b.Country, b.Referer, b.UTMSource = "", "", ""
		d := newClick(plain, c.next())
		d.Country, d.Referer = "US", "https://WWW.Example.com:8443/x"
		// A tap id keeps d a row attribution can read, so that an install
		// can be attributed to it.
		tap := uuid.Must(uuid.NewV7())
		d.TapID = &tap
		e := newClick(mine, c.next())
		_, err := s.InsertClicks(ctx, []analytics.Click{a, b, d, e})
		require.NoError(t, err)
		attributedInstall(t, s, o.ID, d.ID, c.next())

		w := analytics.Window{From: first, To: c.next()}
		values := func(set analytics.ClickSet, by analytics.Dimension) map[string][2]int64 {
			t.Helper()
			got, err := s.CountClicksBy(ctx, set, by)
			require.NoError(t, err)
			out := map[string][2]int64{}
			for _, v := range got {
				key := "<null>"
				if v.Value != nil {
					require.NotEmpty(t, *v.Value)
					key = *v.Value
				}
				_, dup := out[key]
				require.False(t, dup, "one entry per value")
				out[key] = [2]int64{v.Clicks, v.Installs}
			}
			return out
		}
		all := analytics.ClickSet{OrgID: o.ID, Window: w}
		assert.Equal(t, map[string][2]int64{"GB": {2, 0}, "US": {1, 1}, "<null>": {1, 0}}, values(all, analytics.DimCountry))
		assert.Equal(t, map[string][2]int64{"news.example": {2, 0}, "www.example.com": {1, 1}, "<null>": {1, 0}},
			values(all, analytics.DimRefererHost))
		assert.Equal(t, map[string][2]int64{withApp.AppID.String(): {1, 0}, "<null>": {3, 1}}, values(all, analytics.DimApp))
		assert.Equal(t, map[string][2]int64{withApp.ID.String(): {1, 0}, plain.ID.String(): {2, 1}, mine.ID.String(): {1, 0}},
			values(all, analytics.DimLink))
		for _, by := range analytics.Dimensions() {
			var n int64
			for _, v := range values(all, by) {
				n += v[0]
			}
			assert.Equal(t, int64(4), n, "every dimension sums to every click: %s", by)
		}
		own := analytics.ClickSet{OrgID: o.ID, Window: w, CreatedBy: &member.ID}
		assert.Equal(t, map[string][2]int64{mine.ID.String(): {1, 0}}, values(own, analytics.DimLink))
	})
}

// Clicks counted but not stored are kept per organization and quarter
// hour, in the same transaction as the counter, on both insert paths.
func TestUnstoredClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		other := createOrg(t, s, c, "other")
		theirs := createLink(t, s, newLink(c, other.ID, "hop.example", "theirs"))

		base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		only := func(l2 string, at time.Time, weight int64) analytics.Click {
			k := newClick(l, at)
			if l2 == "theirs" {
				k = newClick(theirs, at)
			}
			k.CountOnly, k.Weight = true, weight
			return k
		}
		stored := newClick(l, base.Add(time.Minute))
		n, err := s.InsertClicks(ctx, []analytics.Click{
			stored,
			only("", base.Add(2*time.Minute), 0),
			only("", base.Add(14*time.Minute), 40),
			only("", base.Add(16*time.Minute), 5),
			only("theirs", base.Add(2*time.Minute), 7),
		})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		_, err = s.InsertClicks(ctx, []analytics.Click{only("", base.Add(3*time.Minute), 2)})
		require.NoError(t, err)
		assert.Equal(t, int64(1+1+40+5+2), clickCount(t, s, o, base))

		count := func(from, to time.Time) int64 {
			t.Helper()
			n, err := s.UnstoredClicks(ctx, o.ID, analytics.Window{From: from, To: to})
			require.NoError(t, err)
			return n
		}
		assert.Equal(t, int64(1+40+5+2), count(base, base.Add(time.Hour)))
		assert.Equal(t, int64(1+40+2), count(base, base.Add(15*time.Minute)), "a quarter hour counts where it starts")
		assert.Equal(t, int64(5), count(base.Add(time.Minute), base.Add(time.Hour)))
		assert.Equal(t, int64(0), count(base.Add(time.Hour), base.Add(2*time.Hour)))
	})
}

// The migration derives referer_host for the clicks it finds.
func TestClickAnalyticsMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261125000001_click_location")
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		ids := []uuid.UUID{uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())}
		for i, ref := range []string{"https://News.Example:8080/a", ""} {
			k := map[string]any{"id": ids[i], "org_id": o.ID, "link_id": l.ID, "domain": l.Domain, "slug": l.Slug,
				"occurred_at": c.next(), "source": "redirect", "platform": "ios", "os": "", "os_version": "",
				"device_model": "", "browser": "", "in_app_browser": "", "ip": "", "ip_key": "", "user_agent": "",
				"accept_language": "", "referer": ref, "utm_source": "", "utm_medium": "", "utm_campaign": "",
				"utm_term": "", "utm_content": ""}
			_, err := s.DB().NewInsert().Model(&k).TableExpr("clicks").Exec(ctx)
			require.NoError(t, err)
		}
		migrateTo(t, s, "20261125000002_click_analytics")
		var hosts []string
		require.NoError(t, s.DB().NewSelect().Table("clicks").Column("referer_host").OrderExpr("id").Scan(ctx, &hosts))
		assert.Equal(t, []string{"news.example", ""}, hosts)
		assertMigratesDownAndUp(t, s, "click_unstored")
	})
}
