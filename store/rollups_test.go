package store_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// rollupWorld is an organization with links of two members, two tags, an
// app, and random clicks of known values written through InsertClicks,
// some with an install attributed through Claim.
type rollupWorld struct {
	org      uuid.UUID
	links    []*linking.Link
	members  []uuid.UUID
	app      uuid.UUID
	clicks   []analytics.Click
	installs map[uuid.UUID]bool
	start    time.Time
	// other is another organization, with clicks that never count.
	other uuid.UUID
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func newRollupWorld(t *testing.T, s *store.Store, n int, seed uint64) *rollupWorld {
	t.Helper()
	ctx, c := t.Context(), newClock()
	r := rand.New(rand.NewPCG(seed, 15))
	o := createOrg(t, s, c, "acme")
	w := &rollupWorld{org: o.ID, installs: map[uuid.UUID]bool{},
		start: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
	for i := range 2 {
		u := createUser(t, s, c, fmt.Sprintf("member%d@example.com", i))
		w.members = append(w.members, u.ID)
	}
	app := linkApp(t, s, c, o.ID)
	w.app = app.ID
	for i := range 6 {
		l := newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i))
		if i%2 == 0 {
			l.AppID, l.Domain = &app.ID, app.LinkDomain
		}
		l.Tags = [][]string{{"spring"}, {"spring", "sale"}, {}}[i%3]
		if i < 4 {
			l.CreatedBy = &w.members[i%2]
		}
		w.links = append(w.links, createLink(t, s, l))
	}
	// Other organizations' clicks never count.
	other := createOrg(t, s, c, "other")
	w.other = other.ID
	theirs := createLink(t, s, newLink(c, other.ID, "hop.example", "theirs"))

	for len(w.clicks) < n {
		batch := make([]analytics.Click, 0, 50)
		for range 1 + r.IntN(50) {
			l := w.links[r.IntN(len(w.links))]
			at := w.start.Add(time.Duration(r.Int64N(int64(3 * 24 * time.Hour))))
			cl := newClick(l, at)
			cl.Source = pick(r, analytics.SourceRedirect, analytics.SourceAppOpen)
			cl.Platform = pick(r, "ios", "android", "desktop", "unknown")
			cl.OS = pick(r, "iOS", "Android", "")
			cl.OSVersion = pick(r, "18.6", "15", "")
			cl.Browser = pick(r, "Safari", "Chrome", "")
			cl.DeviceModel = pick(r, "iPhone", "Pixel 9", "")
			cl.InAppBrowser = pick(r, "", "", "Instagram")
			cl.Country = pick(r, "US", "GB", "DE", "")
			cl.Referer = pick(r, "", "https://news.example/a", "https://www.social.example/")
			cl.UTMSource = pick(r, "", "newsletter", "ads")
			cl.UTMMedium = pick(r, "", "email", "cpc")
			cl.UTMCampaign = pick(r, "", "spring", "fall")
			cl.UTMTerm = pick(r, "", "shoes")
			cl.UTMContent = pick(r, "", "hero", "footer")
			batch = append(batch, cl)
		}
		if r.IntN(4) == 0 {
			batch = append(batch, newClick(theirs, w.start.Add(time.Hour)))
		}
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		for _, cl := range batch {
			if cl.OrgID == w.org {
				cl.Normalize()
				w.clicks = append(w.clicks, cl)
			}
		}
	}
	for i := 0; i < len(w.clicks); i += 1 + r.IntN(25) {
		cl := w.clicks[i]
		if !store.IsCandidate(&cl) {
			continue
		}
		attributedInstall(t, s, w.org, cl.ID, cl.OccurredAt.Add(time.Minute))
		w.installs[cl.ID] = true
	}
	return w
}

func sortedSlots(xs []analytics.SlotCount) []analytics.SlotCount {
	sort.Slice(xs, func(i, j int) bool { return xs[i].Start.Before(xs[j].Start) })
	return xs
}

func valueMap(xs []analytics.ValueCount) map[string][2]int64 {
	out := map[string][2]int64{}
	for _, x := range xs {
		k := "<unknown>"
		if x.Value != nil {
			k = *x.Value
		}
		out[k] = [2]int64{x.Clicks, x.Installs}
	}
	return out
}

// raceSample is how many of the cases that compare a view with the raw
// scan one checks under the race detector, where each takes twenty times
// as long; .ci/run runs those tests once more without it, checking all.
const raceSample = 5

// caseSample picks the cases of a comparison with the raw scan that are
// checked: every case, or under the race detector about one in
// raceSample, drawn from a fixed seed so that a run is repeatable and no
// case is left out by its position.
type caseSample struct{ r *rand.Rand }

func newCaseSample() caseSample { return caseSample{rand.New(rand.NewPCG(11, 13))} }

// next reports whether the next case is checked.
func (c caseSample) next() bool {
	return !testkit.RaceDetector || c.r.IntN(raceSample) == 0
}

// Every view the rollups answer equals the same view counted from the raw
// clicks, for random clicks of known values, on every combination of
// window, filter and member reach; and the unfiltered totals equal the
// clicks written.
func TestRollupsEqualRawCounts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		w := newRollupWorld(t, s, 600, 1)
		str := func(v string) *string { return &v }
		l0, app := w.links[0].ID, w.app
		filters := []analytics.Filter{
			{}, {LinkID: &l0}, {AppID: &app}, {Domain: str("hop.example")}, {Tag: str("spring")}, {Tag: str("sale")},
			{Source: str("app_open")}, {Platform: str("android")}, {Platform: str("unknown")}, {Country: str("GB")},
			{UTMSource: str("ads")}, {UTMMedium: str("email")}, {UTMCampaign: str("fall")},
			{Country: str("US"), Platform: str("ios")}, {LinkID: &l0, Tag: str("spring")},
		}
		h := func(d, hh, mm int) time.Time {
			return w.start.Add(time.Duration(d)*24*time.Hour + time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
		}
		windows := []analytics.Window{
			{From: h(0, 0, 0), To: h(3, 0, 0)},     // whole days
			{From: h(0, 5, 15), To: h(2, 17, 45)},  // days, hours and quarter hours at both edges
			{From: h(0, 5, 0), To: h(2, 18, 0)},    // days and whole hours at the edges
			{From: h(0, 23, 45), To: h(2, 0, 30)},  // a day, a quarter hour before, half an hour after
			{From: h(1, 3, 0), To: h(1, 9, 30)},    // hours inside one day, quarter hours after
			{From: h(1, 21, 30), To: h(2, 2, 15)},  // hours across midnight, no whole day
			{From: h(1, 3, 45), To: h(1, 4, 15)},   // across an hour, no whole hour
			{From: h(1, 10, 15), To: h(1, 10, 45)}, // inside one hour
			{From: h(-5, 0, 0), To: h(1, 0, 0)},    // before the first click
		}
		reaches := []*uuid.UUID{nil, &w.members[0]}

		// The unfiltered rollups hold every click written, and every
		// install.
		all := analytics.ClickSet{OrgID: w.org, Window: windows[0]}
		slots, err := s.CountClickSlots(ctx, all)
		require.NoError(t, err)
		var clicks, installs int64
		for _, sc := range slots {
			clicks += sc.Clicks
			installs += sc.Installs
		}
		assert.Equal(t, int64(len(w.clicks)), clicks)
		assert.Equal(t, int64(len(w.installs)), installs)

		sample := newCaseSample()
		for _, win := range windows {
			for _, f := range filters {
				for _, reach := range reaches {
					if !sample.next() {
						continue
					}
					set := analytics.ClickSet{OrgID: w.org, Window: win, Filter: f, CreatedBy: reach}
					name := fmt.Sprintf("window %s..%s filter %+v member %v", win.From.Format(time.RFC3339),
						win.To.Format(time.RFC3339), f, reach != nil)
					got, err := s.CountClickSlots(ctx, set)
					require.NoError(t, err)
					want, err := s.CountClickSlotsScan(ctx, set)
					require.NoError(t, err)
					assert.Equal(t, sortedSlots(want), sortedSlots(got), "series, %s", name)
					// A breakdown with a filter scans, so one dimension
					// checks that the scan filters; without one, every
					// dimension reads the rollups.
					dims := analytics.Dimensions()
					if f != (analytics.Filter{}) {
						dims = []analytics.Dimension{analytics.DimCountry}
					}
					for _, by := range dims {
						got, err := s.CountClicksBy(ctx, set, by)
						require.NoError(t, err)
						want, err := s.CountClicksByScan(ctx, set, by)
						require.NoError(t, err)
						assert.Equal(t, valueMap(want), valueMap(got), "breakdown by %s, %s", by, name)
					}
				}
			}
		}

		assertHoursSumQuarters(t, s)

		// The raw count itself agrees with the clicks written.
		byCountry, err := s.CountClicksByScan(ctx, all, analytics.DimCountry)
		require.NoError(t, err)
		want := map[string][2]int64{}
		for _, cl := range w.clicks {
			k := cl.Country
			if k == "" {
				k = "<unknown>"
			}
			n := want[k]
			n[0]++
			if w.installs[cl.ID] {
				n[1]++
			}
			want[k] = n
		}
		assert.Equal(t, want, valueMap(byCountry))
	})
}

// Removing clicks (a deleted link's) subtracts them and their installs
// from every rollup, and leaves no row without counts.
func TestRollupsRemoveClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		w := newRollupWorld(t, s, 200, 2)
		gone := w.links[0].ID
		var removed []analytics.Click
		remaining := map[string][2]int64{}
		for _, cl := range w.clicks {
			if cl.LinkID == gone {
				removed = append(removed, cl)
				continue
			}
			n := remaining[cl.LinkID.String()]
			n[0]++
			if w.installs[cl.ID] {
				n[1]++
			}
			remaining[cl.LinkID.String()] = n
		}
		require.NotEmpty(t, removed)
		require.NoError(t, s.RemoveClicksFromRollups(ctx, removed))

		set := analytics.ClickSet{OrgID: w.org, Window: analytics.Window{From: w.start, To: w.start.Add(72 * time.Hour)}}
		got, err := s.CountClicksBy(ctx, set, analytics.DimLink)
		require.NoError(t, err)
		assert.Equal(t, remaining, valueMap(got))
		edges := set
		edges.Window.From = edges.Window.From.Add(45 * time.Minute)
		got, err = s.CountClicksBy(ctx, edges, analytics.DimLink)
		require.NoError(t, err)
		assert.NotContains(t, valueMap(got), gone.String(), "the quarter hours at the edges")
		edges.Window = analytics.Window{From: w.start.Add(2*time.Hour + 15*time.Minute), To: w.start.Add(70*time.Hour + 15*time.Minute)}
		got, err = s.CountClicksBy(ctx, edges, analytics.DimLink)
		require.NoError(t, err)
		// The raw clicks are still there: the scan counts the link gone.
		want, err := s.CountClicksByScan(ctx, edges, analytics.DimLink)
		require.NoError(t, err)
		wantLeft := valueMap(want)
		require.Contains(t, wantLeft, gone.String())
		delete(wantLeft, gone.String())
		assert.Equal(t, wantLeft, valueMap(got), "the hours at the edges")
		assertHoursSumQuarters(t, s)
		one := set
		one.Filter.LinkID = &gone
		slots, err := s.CountClickSlots(ctx, one)
		require.NoError(t, err)
		assert.Empty(t, slots)

		for _, table := range []string{"click_rollup_slots", "click_rollup_dims", "click_rollup_dim_hours", "click_rollup_dim_days"} {
			n, err := s.DB().NewSelect().TableExpr(table).Where("clicks <= 0 AND installs <= 0").Count(ctx)
			require.NoError(t, err)
			assert.Zero(t, n, table)
		}
	})
}

// A claim's install is counted with its click; a click without an
// install, or a claim without a click, adds none.
func TestRollupsCountAttributedInstalls(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		clicks := []analytics.Click{newClick(withApp, at), newClick(withApp, at.Add(time.Minute)), newClick(plain, at.Add(20*time.Minute))}
		clicks[1].Country = "US"
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)
		attributedInstall(t, s, o.ID, clicks[1].ID, at.Add(time.Hour))

		set := analytics.ClickSet{OrgID: o.ID, Window: analytics.Window{From: at, To: at.Add(time.Hour)}}
		slots, err := s.CountClickSlots(ctx, set)
		require.NoError(t, err)
		assert.Equal(t, []analytics.SlotCount{{Start: at, Clicks: 2, Installs: 1}, {Start: at.Add(15 * time.Minute), Clicks: 1}},
			sortedSlots(slots))
		by, err := s.CountClicksBy(ctx, set, analytics.DimCountry)
		require.NoError(t, err)
		assert.Equal(t, map[string][2]int64{"US": {1, 1}, "GB": {2, 0}}, valueMap(by))
		us := "US"
		set.Filter.Country = &us
		slots, err = s.CountClickSlots(ctx, set)
		require.NoError(t, err)
		assert.Equal(t, []analytics.SlotCount{{Start: at, Clicks: 1, Installs: 1}}, slots)
	})
}

// The purge deletes the rollups of the quarter hours before retention,
// and the hours and days that end before it, keeping the rest.
func TestRollupsPurged(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		var clicks []analytics.Click
		for _, at := range []time.Time{day.Add(-time.Hour), day.Add(6 * time.Hour), day.Add(30 * time.Hour)} {
			clicks = append(clicks, newClick(l, at))
		}
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)
		before := day.Add(12 * time.Hour)
		_, err = s.DeleteUnstoredBefore(ctx, o.ID, before, 1)
		require.NoError(t, err)

		count := func(table, where string, args ...any) int64 {
			n, err := s.DB().NewSelect().TableExpr(table).Where("org_id = ?", o.ID).Where(where, args...).Count(ctx)
			require.NoError(t, err)
			return n
		}
		assert.Zero(t, count("click_rollup_slots", "slot < ?", before.Unix()))
		assert.Equal(t, int64(1), count("click_rollup_slots", "slot >= ?", before.Unix()))
		assert.Zero(t, count("click_rollup_dims", "slot < ?", before.Unix()))
		assert.Equal(t, int64(len(analytics.Dimensions())), count("click_rollup_dims", "slot >= ?", before.Unix()))
		assert.Zero(t, count("click_rollup_dim_hours", "hour < ?", before.Unix()), "the hours that ended before")
		assert.Equal(t, int64(len(analytics.Dimensions())), count("click_rollup_dim_hours", "hour >= ?", before.Unix()))
		assert.Zero(t, count("click_rollup_dim_days", "day < ?", day.Unix()), "the day that ended before")
		assert.Equal(t, int64(2*len(analytics.Dimensions())), count("click_rollup_dim_days", "day >= ?", day.Unix()),
			"a day that ends after the cut stays, as does the next")
	})
}

// The rollups migration counts the clicks already stored, with their
// installs, in all three tables; it rolls back and applies again.
func TestClickRollupsMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261125000005_install_ip_index")
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		base := time.Date(2026, 11, 21, 23, 50, 0, 0, time.UTC)
		var ids []uuid.UUID
		for i, country := range []string{"US", "US", "GB", ""} {
			id := uuid.Must(uuid.NewV7())
			ids = append(ids, id)
			k := map[string]any{"id": id, "org_id": o.ID, "link_id": l.ID, "domain": l.Domain, "slug": l.Slug,
				"occurred_at": base.Add(time.Duration(i) * 10 * time.Minute), "source": "redirect", "platform": "ios",
				"os": "iOS", "os_version": "", "device_model": "", "browser": "", "in_app_browser": "", "ip": "",
				"ip_key": "", "user_agent": "", "accept_language": "", "referer": "https://news.example/a", "referer_host": "news.example",
				"country": country, "utm_source": "", "utm_medium": "", "utm_campaign": "", "utm_term": "", "utm_content": ""}
			_, err := s.DB().NewInsert().Model(&k).TableExpr("clicks").Exec(ctx)
			require.NoError(t, err)
		}
		install := map[string]any{"id": uuid.Must(uuid.NewV7()), "org_id": o.ID, "click_id": ids[1],
			"match_type": "deterministic", "match_confidence": 1.0, "match_guaranteed": true,
			"installed_at": base.Add(time.Hour), "ip": "", "platform": "ios"}
		_, err := s.DB().NewInsert().Model(&install).TableExpr("installs").Exec(ctx)
		require.NoError(t, err)
		require.NoError(t, s.Migrate(ctx))

		set := analytics.ClickSet{OrgID: o.ID, Window: analytics.Window{From: base.Add(-50 * time.Minute), To: base.Add(70 * time.Minute)}}
		slots, err := s.CountClickSlots(ctx, set)
		require.NoError(t, err)
		assert.Equal(t, []analytics.SlotCount{
			{Start: base.Add(-5 * time.Minute), Clicks: 1},
			{Start: base.Add(10 * time.Minute), Clicks: 2, Installs: 1},
			{Start: base.Add(25 * time.Minute), Clicks: 1},
		}, sortedSlots(slots))
		for _, by := range []analytics.Dimension{analytics.DimCountry, analytics.DimRefererHost, analytics.DimLink} {
			got, err := s.CountClicksBy(ctx, set, by)
			require.NoError(t, err)
			want, err := s.CountClicksByScan(ctx, set, by)
			require.NoError(t, err)
			assert.Equal(t, valueMap(want), valueMap(got), "by %s", by)
		}
		assertMigratesDownAndUp(t, s, "click_rollup_slots", "click_rollup_dims", "click_rollup_dim_days")
		n, err := s.DB().NewSelect().TableExpr("click_rollup_dim_days").Where("dim = 'country'").Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, 4, int(n), "US on the first day; US, GB and unknown on the next")
	})
}

// assertHoursSumQuarters checks that every row of click_rollup_dim_hours
// holds the sum of its hour's rows of click_rollup_dims, and that no
// hour of click_rollup_dims is missing from it.
func assertHoursSumQuarters(t *testing.T, s *store.Store) {
	t.Helper()
	type row struct {
		OrgID    uuid.UUID `bun:"org_id"`
		Dim      string    `bun:"dim"`
		At       int64     `bun:"at"`
		Value    string    `bun:"value"`
		Clicks   int64     `bun:"clicks"`
		Installs int64     `bun:"installs"`
	}
	type key struct {
		org        uuid.UUID
		dim, value string
		hour       int64
	}
	read := func(table, at string) map[key][2]int64 {
		var rows []row
		require.NoError(t, s.DB().NewSelect().TableExpr(table).Column("org_id", "dim", "value", "clicks", "installs").
			ColumnExpr(at+" AS at").Scan(t.Context(), &rows))
		out := map[key][2]int64{}
		for _, r := range rows {
			k := key{r.OrgID, r.Dim, r.Value, r.At - r.At%3600}
			n := out[k]
			out[k] = [2]int64{n[0] + r.Clicks, n[1] + r.Installs}
		}
		return out
	}
	quarters := read("click_rollup_dims", "slot")
	require.NotEmpty(t, quarters)
	assert.Equal(t, quarters, read("click_rollup_dim_hours", "hour"))
}

// The hour rollups migration counts every hour of click_rollup_dims, the
// sum of its quarter hours, into click_rollup_dim_hours, which answers
// the breakdowns at the windows' edges; it rolls back and applies again.
func TestClickRollupHoursMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		// Clicks stored before the rollups: the rollups migration counts
		// them into click_rollup_dims, and this one into the hours.
		migrateTo(t, s, "20261125000005_install_ip_index")
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		base := time.Date(2026, 11, 21, 21, 50, 0, 0, time.UTC)
		var ids []uuid.UUID
		for i := range 16 {
			id := uuid.Must(uuid.NewV7())
			ids = append(ids, id)
			k := map[string]any{"id": id, "org_id": o.ID, "link_id": l.ID, "domain": l.Domain, "slug": l.Slug,
				"occurred_at": base.Add(time.Duration(i) * 17 * time.Minute), "source": "redirect", "platform": "ios",
				"os": "iOS", "os_version": "", "device_model": "", "browser": "", "in_app_browser": "", "ip": "",
				"ip_key": "", "user_agent": "", "accept_language": "", "referer": "https://news.example/a", "referer_host": "news.example",
				"country": []string{"US", "US", "GB", ""}[i%4], "utm_source": "", "utm_medium": "", "utm_campaign": "",
				"utm_term": "", "utm_content": ""}
			_, err := s.DB().NewInsert().Model(&k).TableExpr("clicks").Exec(ctx)
			require.NoError(t, err)
		}
		for _, i := range []int{1, 6, 13} {
			install := map[string]any{"id": uuid.Must(uuid.NewV7()), "org_id": o.ID, "click_id": ids[i],
				"match_type": "deterministic", "match_confidence": 1.0, "match_guaranteed": true,
				"installed_at": base.Add(6 * time.Hour), "ip": "", "platform": "ios"}
			_, err := s.DB().NewInsert().Model(&install).TableExpr("installs").Exec(ctx)
			require.NoError(t, err)
		}
		require.NoError(t, s.Migrate(ctx))
		assertHoursSumQuarters(t, s)

		// 21:45 to 02:15 of the next day: a quarter hour at each edge and
		// whole hours across midnight; then 22:00 to 01:00, whole hours
		// alone.
		for _, w := range []analytics.Window{
			{From: base.Add(-5 * time.Minute), To: base.Add(4*time.Hour + 25*time.Minute)},
			{From: base.Add(10 * time.Minute), To: base.Add(3*time.Hour + 10*time.Minute)},
		} {
			set := analytics.ClickSet{OrgID: o.ID, Window: w}
			for _, by := range []analytics.Dimension{analytics.DimCountry, analytics.DimRefererHost, analytics.DimLink} {
				got, err := s.CountClicksBy(ctx, set, by)
				require.NoError(t, err)
				want, err := s.CountClicksByScan(ctx, set, by)
				require.NoError(t, err)
				require.NotEmpty(t, want)
				assert.Equal(t, valueMap(want), valueMap(got), "by %s, %s", by, w.From)
			}
		}
		n, err := s.DB().NewSelect().TableExpr("click_rollup_dim_hours").Where("dim = 'country' AND value = 'US'").Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, 5, int(n), "US in every hour from 21:00 to 02:00")
		assertMigratesDownAndUp(t, s, "click_rollup_dim_hours")
		assertHoursSumQuarters(t, s)
	})
}
