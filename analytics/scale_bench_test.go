package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The environment of BenchmarkAnalyticsAtScale.
const (
	// envScaleBench enables the benchmark (any non-empty value): loading
	// ten million clicks takes far too long for a routine benchmark run.
	envScaleBench = "HOPLINK_BENCH_ANALYTICS"
	// envScaleClicks is how many clicks to load; 10,000,000 when unset.
	envScaleClicks = "HOPLINK_BENCH_CLICKS"
	// envScaleExplain, when set, logs after each query the plan of its
	// count (EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE, BUFFERS) on
	// PostgreSQL).
	envScaleExplain = "HOPLINK_BENCH_ANALYTICS_EXPLAIN"
	// envScaleDB names a SQLite file that keeps the loaded clicks between
	// runs: loaded there once (through a temporary file beside it, renamed
	// when complete), reused while it holds the same number of clicks.
	envScaleDB = "HOPLINK_BENCH_ANALYTICS_DB"
)

// The shape of the benchmark's organization.
const (
	scaleLinks     = 1_000
	scaleDays      = 90
	scaleBatch     = 10_000 // the recorder's merged batch under load
	scaleOrgPrefix = "analytics-bench-"
)

// scaleWorld is an organization with its clicks, and the queries over
// them.
type scaleWorld struct {
	store *store.Store
	org   *org.Organization
	// end is when the clicks' 90 days end: the load's "now".
	end time.Time
	// top is the link with the most clicks.
	top uuid.UUID
	q   *analytics.Queries
	// capture is the query hook of envScaleExplain, or nil.
	capture *sqlCapture
	// explained names the queries whose plan was logged.
	explained map[string]bool
}

// scaleClickCount is how many clicks BenchmarkAnalyticsAtScale loads.
func scaleClickCount() int {
	if v, err := strconv.Atoi(os.Getenv(envScaleClicks)); err == nil && v > 0 {
		return v
	}
	return 10_000_000
}

// scaleAgents are the visitors' user agents: iPhone, Android and desktop
// a third each, a few browsers and in-app browsers within each.
var scaleAgents = [3][]string{
	{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 350.0.0.0.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
	},
	{
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.210 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/450.0.0.0;]",
	},
	{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	},
}

// scaleCountries are 40 countries, most clicks first: the i-th is weighed
// 1/(i+1)^1.3, so the first has about a third of the clicks and the last
// ten about 3% together.
var scaleCountries = []string{"US", "DE", "GB", "IN", "FR", "BR", "CA", "ES", "IT", "NL",
	"JP", "MX", "AU", "PL", "TR", "SE", "ID", "KR", "CH", "AT",
	"BE", "AR", "PH", "NG", "ZA", "PT", "DK", "NO", "IE", "FI",
	"CZ", "RO", "VN", "TH", "EG", "CO", "CL", "NZ", "GR", "HU"}

// weighted picks indexes by fixed weights.
type weighted []float64 // cumulative, the last 1

func newWeighted(w []float64) weighted {
	var sum float64
	for _, v := range w {
		sum += v
	}
	out := make(weighted, len(w))
	var acc float64
	for i, v := range w {
		acc += v
		out[i] = acc / sum
	}
	out[len(out)-1] = 1
	return out
}

func (w weighted) pick(r *rand.Rand) int {
	return min(sort.SearchFloat64s(w, r.Float64()), len(w)-1)
}

// scaleGen draws the benchmark's clicks.
type scaleGen struct {
	r         *rand.Rand
	links     []*linking.Link
	linkZipf  *rand.Zipf
	devices   [3][]linking.Device
	agents    [3][]string
	countries weighted
	minutes   weighted // minute of the UTC day
	sources   weighted
	campaigns weighted
	referers  weighted
}

var (
	scaleUTMSources = []string{"", "google", "facebook", "instagram", "newsletter", "twitter"}
	scaleUTMMedium  = []string{"", "cpc", "social", "social", "email", "social"}
	scaleCampaigns  = []string{"", "spring_sale", "black_friday", "launch", "retargeting"}
	scaleReferers   = []string{"", "https://www.google.com/", "https://t.co/abc", "https://www.facebook.com/",
		"https://l.instagram.com/", "https://news.example.org/issue/42"}
)

func newScaleGen(links []*linking.Link) *scaleGen {
	r := rand.New(rand.NewSource(1))
	g := &scaleGen{r: r, links: links, linkZipf: rand.NewZipf(r, 1.1, 1, uint64(len(links)-1)), agents: scaleAgents}
	for p, uas := range scaleAgents {
		for _, ua := range uas {
			g.devices[p] = append(g.devices[p], linking.ClassifyDevice(ua))
		}
	}
	cw := make([]float64, len(scaleCountries)+1)
	for i := range scaleCountries {
		cw[i] = 1 / math.Pow(float64(i+1), 1.3)
	}
	cw[len(scaleCountries)] = 0.03 // unknown: a private or unlisted address
	g.countries = newWeighted(cw)
	mw := make([]float64, 24*60)
	for m := range mw {
		// One daily cycle: busiest at 19:00 UTC, quietest at 07:00, a
		// fifth of the peak.
		mw[m] = 1 + 0.67*math.Cos(2*math.Pi*(float64(m)/60-19)/24)
	}
	g.minutes = newWeighted(mw)
	g.sources = newWeighted([]float64{50, 20, 12, 8, 6, 4})
	g.campaigns = newWeighted([]float64{40, 25, 15, 12, 8})
	g.referers = newWeighted([]float64{45, 20, 10, 10, 10, 5})
	return g
}

// day returns n clicks of the UTC day that starts at start, in time order,
// none at or after end.
func (g *scaleGen) day(orgID uuid.UUID, start, end time.Time, n int) []analytics.Click {
	at := make([]time.Time, 0, n)
	for len(at) < n {
		t := start.Add(time.Duration(g.minutes.pick(g.r))*time.Minute + time.Duration(g.r.Int63n(int64(time.Minute))))
		if t.Before(end) {
			at = append(at, t)
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]analytics.Click, n)
	for i, t := range at {
		l := g.links[g.linkZipf.Uint64()]
		p := g.r.Intn(3)
		k := g.r.Intn(len(g.agents[p]))
		d := g.devices[p][k]
		ip := fmt.Sprintf("%d.%d.%d.%d", 11+g.r.Intn(180), g.r.Intn(256), g.r.Intn(256), 1+g.r.Intn(254))
		c := analytics.Click{
			ID: uuid.Must(uuid.NewV7()), OrgID: orgID, LinkID: l.ID, AppID: l.AppID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: t, Source: analytics.SourceRedirect, Platform: string(d.Platform), OS: d.OS,
			OSVersion: d.OSVersion, DeviceModel: d.Model, Browser: d.Browser, InAppBrowser: d.App,
			IP: ip, IPKey: ip, UserAgent: g.agents[p][k], AcceptLanguage: "en-US,en;q=0.9",
			Referer: scaleReferers[g.referers.pick(g.r)],
		}
		if ci := g.countries.pick(g.r); ci < len(scaleCountries) {
			c.Country = scaleCountries[ci]
		}
		if si := g.sources.pick(g.r); si > 0 {
			c.UTMSource, c.UTMMedium = scaleUTMSources[si], scaleUTMMedium[si]
			c.UTMCampaign = scaleCampaigns[g.campaigns.pick(g.r)]
		}
		c.Normalize()
		out[i] = c
	}
	return out
}

// loadScaleWorld creates an organization of the Scale plan with
// scaleLinks links (two apps, a third of the links on each, the rest
// web-only) and n clicks over the scaleDays days before now, written
// through Store.InsertClicks in batches of scaleBatch, day by day in time
// order as the recorder writes them. It logs the load rate.
func loadScaleWorld(b *testing.B, s *store.Store, n int, capture *sqlCapture) *scaleWorld {
	ctx := context.Background()
	end := time.Now().UTC().Truncate(time.Minute)
	o := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Analytics bench",
		Slug: scaleOrgPrefix + strconv.Itoa(n), Plan: org.PlanScale, MonthlyClickLimit: 1 << 40,
		BillingPeriodStart: end.Add(-scaleDays * 24 * time.Hour), CreatedAt: end, UpdatedAt: end}
	require.NoError(b, s.CreateOrganization(ctx, o, nil))
	var apps []*linking.App
	for i := range 2 {
		handle := fmt.Sprintf("bench-app-%d", i)
		a := &linking.App{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Name: handle, Handle: handle,
			LinkDomain: handle + ".hop.example", DefaultLinkDomain: handle + ".hop.example", CreatedAt: end, UpdatedAt: end}
		require.NoError(b, s.CreateApp(ctx, a, 1000))
		apps = append(apps, a)
	}
	links := make([]*linking.Link, scaleLinks)
	for i := range links {
		l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "hop.example", Slug: fmt.Sprintf("l%04d", i),
			DestinationURL: fmt.Sprintf("https://example.com/p/%d", i), IsActive: true, Tags: []string{}, CreatedAt: end, UpdatedAt: end}
		if a := i % 3; a < len(apps) {
			l.AppID, l.Domain = &apps[a].ID, apps[a].LinkDomain
		}
		require.NoError(b, s.CreateLink(ctx, l, linking.LinkQuota{}))
		links[i] = l
	}

	g := newScaleGen(links)
	started := time.Now()
	first := end.Add(-scaleDays * 24 * time.Hour)
	loaded := 0
	for d := range scaleDays + 1 {
		// The window starts inside a UTC day: the first and last days are
		// partial, and the clicks are spread over the window evenly.
		dayStart := first.Truncate(24 * time.Hour).Add(time.Duration(d) * 24 * time.Hour)
		from, to := dayStart, dayStart.Add(24*time.Hour)
		if from.Before(first) {
			from = first
		}
		if to.After(end) {
			to = end
		}
		if !from.Before(to) {
			continue
		}
		want := int(math.Round(float64(n) * to.Sub(first).Seconds() / end.Sub(first).Seconds()))
		clicks := g.dayWithin(o.ID, dayStart, from, to, want-loaded)
		for len(clicks) > 0 {
			k := min(scaleBatch, len(clicks))
			stored, err := s.InsertClicks(ctx, clicks[:k])
			require.NoError(b, err)
			require.Equal(b, k, stored)
			clicks = clicks[k:]
			loaded += k
		}
		if d%10 == 0 {
			el := time.Since(started)
			b.Logf("%s: %d of %d clicks loaded in %s (%.0f clicks/s)", s.Dialect(), loaded, n, el.Round(time.Second),
				float64(loaded)/el.Seconds())
		}
	}
	el := time.Since(started)
	b.Logf("%s: loaded %d clicks in %s: %.0f clicks/s", s.Dialect(), loaded, el.Round(time.Second), float64(loaded)/el.Seconds())
	if s.Dialect() == "sqlite" {
		// Fold the load's write-ahead log into the database, as a
		// checkpoint would over time.
		_, err := s.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		require.NoError(b, err)
	} else {
		// What autovacuum does to the tables that grew: the visibility
		// map and the statistics.
		for _, table := range []string{"clicks", "click_rollup_slots", "click_rollup_dims", "click_rollup_dim_days"} {
			_, err := s.DB().ExecContext(ctx, "VACUUM ANALYZE "+table)
			require.NoError(b, err)
		}
	}
	return newScaleWorld(b, s, o, capture)
}

// dayWithin returns n clicks between from and to, drawn with the daily
// cycle of the UTC day that starts at dayStart.
func (g *scaleGen) dayWithin(orgID uuid.UUID, dayStart, from, to time.Time, n int) []analytics.Click {
	if n <= 0 {
		return nil
	}
	clicks := g.day(orgID, dayStart, to, n)
	// Draws before from are redrawn: the partial first day keeps the
	// cycle's shape over its remaining hours.
	for i := range clicks {
		for clicks[i].OccurredAt.Before(from) {
			t := dayStart.Add(time.Duration(g.minutes.pick(g.r))*time.Minute + time.Duration(g.r.Int63n(int64(time.Minute))))
			if !t.Before(from) && t.Before(to) {
				clicks[i].OccurredAt = t
			}
		}
	}
	slices.SortFunc(clicks, func(a, b analytics.Click) int { return a.OccurredAt.Compare(b.OccurredAt) })
	return clicks
}

// newScaleWorld finds the link with the most clicks of o and sets up the
// queries, whose clock is the load's end. capture, when not nil, is the
// query hook s was opened with.
func newScaleWorld(b *testing.B, s *store.Store, o *org.Organization, capture *sqlCapture) *scaleWorld {
	w := &scaleWorld{store: s, org: o, end: o.CreatedAt.UTC(), capture: capture, explained: map[string]bool{}}
	// The generator's Zipf draw gives the most clicks to the first link
	// created.
	var top struct {
		ID uuid.UUID `bun:"id"`
	}
	err := s.DB().NewSelect().Table("links").Column("id").Where("org_id = ?", o.ID).OrderExpr("slug").Limit(1).
		Scan(context.Background(), &top)
	require.NoError(b, err)
	w.top = top.ID
	w.q = analytics.NewQueries(s, org.NewService(s, org.ServiceOptions{}),
		analytics.QueriesOptions{Clock: func() time.Time { return w.end }})
	return w
}

// openScaleSQLite returns a SQLite store holding n benchmark clicks: the
// file named by envScaleDB when it holds them already, else a fresh load,
// into that file (through a temporary file renamed when complete) or into
// a file of the benchmark's temporary directory.
func openScaleSQLite(b *testing.B, n int, capture *sqlCapture) *scaleWorld {
	ctx := context.Background()
	path := os.Getenv(envScaleDB)
	if path == "" {
		path = filepath.Join(b.TempDir(), "analytics.db")
	}
	if _, err := os.Stat(path); err == nil {
		s, err := store.Open(ctx, path, capture.options()...)
		require.NoError(b, err)
		require.NoError(b, s.Migrate(ctx))
		if o := findScaleOrg(b, s, n); o != nil {
			b.Logf("sqlite: reusing %d clicks loaded at %s", n, o.CreatedAt.UTC().Format(time.RFC3339))
			return newScaleWorld(b, s, o, capture)
		}
		require.NoError(b, s.Close())
		b.Logf("sqlite: the cached file holds no %d clicks; loading again", n)
	} else if !errors.Is(err, os.ErrNotExist) {
		require.NoError(b, err)
	}
	tmp := path + ".loading"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
	s, err := store.Open(ctx, tmp)
	require.NoError(b, err)
	require.NoError(b, s.Migrate(ctx))
	o := loadScaleWorld(b, s, n, nil).org
	require.NoError(b, s.Close())
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
	require.NoError(b, os.Rename(tmp, path))
	s, err = store.Open(ctx, path, capture.options()...)
	require.NoError(b, err)
	return newScaleWorld(b, s, o, capture)
}

// findScaleOrg returns the benchmark organization of n clicks in s, or nil.
func findScaleOrg(b *testing.B, s *store.Store, n int) *org.Organization {
	orgs, err := s.ListOrganizations(context.Background())
	require.NoError(b, err)
	for i := range orgs {
		if orgs[i].Slug == scaleOrgPrefix+strconv.Itoa(n) {
			return &orgs[i]
		}
	}
	return nil
}

// scaleQuery is one query the benchmark times.
type scaleQuery struct {
	name string
	run  func(ctx context.Context, w *scaleWorld, p *auth.Principal) (clicks int64, err error)
}

func scaleQueries() []scaleQuery {
	str := func(s string) *string { return &s }
	window := func(w *scaleWorld, days int) analytics.Params {
		return analytics.Params{From: str(w.end.Add(-time.Duration(days) * 24 * time.Hour).Format(time.RFC3339)),
			To: str(w.end.Format(time.RFC3339))}
	}
	series := func(interval, zone string) func(context.Context, *scaleWorld, *auth.Principal) (int64, error) {
		return func(ctx context.Context, w *scaleWorld, p *auth.Principal) (int64, error) {
			ts, err := w.q.TimeSeries(ctx, p, analytics.TimeSeriesQuery{Params: window(w, scaleDays),
				Interval: str(interval), Timezone: str(zone)})
			if err != nil {
				return 0, err
			}
			return ts.Total.Clicks, nil
		}
	}
	return []scaleQuery{
		{"series-90d-day-utc", series("day", "UTC")},
		{"series-90d-day-berlin", series("day", "Europe/Berlin")},
		{"top10-country-90d", func(ctx context.Context, w *scaleWorld, p *auth.Principal) (int64, error) {
			bd, err := w.q.Breakdown(ctx, p, analytics.BreakdownQuery{Params: window(w, scaleDays), By: str("country")})
			if err != nil {
				return 0, err
			}
			return bd.Total.Clicks, nil
		}},
		{"top10-link-90d-ios", func(ctx context.Context, w *scaleWorld, p *auth.Principal) (int64, error) {
			params := window(w, scaleDays)
			params.Platform = str("ios")
			bd, err := w.q.Breakdown(ctx, p, analytics.BreakdownQuery{Params: params, By: str("link")})
			if err != nil {
				return 0, err
			}
			return bd.Total.Clicks, nil
		}},
		{"series-7d-hour-top-link", func(ctx context.Context, w *scaleWorld, p *auth.Principal) (int64, error) {
			params := window(w, 7)
			params.LinkID = str(w.top.String())
			ts, err := w.q.TimeSeries(ctx, p, analytics.TimeSeriesQuery{Params: params, Interval: str("hour")})
			if err != nil {
				return 0, err
			}
			return ts.Total.Clicks, nil
		}},
	}
}

// benchScaleQueries runs b.N of each query against w as a sub-benchmark
// and reports the latency's p50 and p99. The 90-day series must count
// every click loaded (the figures would mean nothing otherwise); no time
// is asserted.
func benchScaleQueries(b *testing.B, w *scaleWorld, n int) {
	p := &auth.Principal{OrgID: w.org.ID, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAnalyticsRead})}
	for _, q := range scaleQueries() {
		b.Run(q.name, func(b *testing.B) {
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				clicks, err := q.run(ctx, w, p)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if q.name == "series-90d-day-utc" && clicks != int64(n) {
					b.Fatalf("the series counts %d clicks, want %d", clicks, n)
				}
			}
			b.StopTimer()
			b.ReportMetric(scaleQuantile(lat, 50), "p50-ms")
			b.ReportMetric(scaleQuantile(lat, 99), "p99-ms")
			if w.capture != nil && !w.explained[q.name] {
				w.explained[q.name] = true
				explainScaleQuery(b, w, func() error { _, err := q.run(ctx, w, p); return err })
			}
		})
	}
}

// sqlCapture is a query hook that keeps the statements run while on.
type sqlCapture struct {
	mu    sync.Mutex
	on    bool
	stmts []string
}

// options returns the store options that install c; none when c is nil.
func (c *sqlCapture) options() []store.Option {
	if c == nil {
		return nil
	}
	return []store.Option{store.WithQueryHook(c)}
}

func (c *sqlCapture) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (c *sqlCapture) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		c.stmts = append(c.stmts, e.Query)
	}
}

// explainScaleQuery runs a query once more, capturing its statements, and
// logs the plan of the ones that count clicks (those grouping raw clicks,
// and those reading the rollups).
func explainScaleQuery(b *testing.B, w *scaleWorld, run func() error) {
	ctx := context.Background()
	w.capture.mu.Lock()
	w.capture.on, w.capture.stmts = true, nil
	w.capture.mu.Unlock()
	err := run()
	w.capture.mu.Lock()
	w.capture.on = false
	stmts := w.capture.stmts
	w.capture.mu.Unlock()
	require.NoError(b, err)
	for _, q := range stmts {
		counts := strings.Contains(q, "FROM clicks AS c") && strings.Contains(q, "GROUP BY")
		if !counts && !strings.Contains(q, "click_rollup_") {
			continue
		}
		explain := "EXPLAIN QUERY PLAN "
		if w.store.Dialect() != "sqlite" {
			explain = "EXPLAIN (ANALYZE, BUFFERS) "
		}
		rows, err := w.store.DB().QueryContext(ctx, explain+q)
		require.NoError(b, err)
		cols, err := rows.Columns()
		require.NoError(b, err)
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(b, rows.Scan(ptrs...))
			text := make([]string, len(vals))
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				text[i] = fmt.Sprint(v)
			}
			lines = append(lines, strings.Join(text, " "))
		}
		require.NoError(b, rows.Err())
		require.NoError(b, rows.Close())
		b.Logf("%s\n%s", q, strings.Join(lines, "\n"))
	}
}

// scaleQuantile returns the q-th percentile of ds in milliseconds.
func scaleQuantile(ds []time.Duration, q int) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, len(ds)*q/100)].Microseconds()) / 1000
}

// BenchmarkAnalyticsAtScale measures the analytics queries of issue 15
// through analytics.Queries on one organization with 1,000 links and ten
// million clicks over the last 90 days (HOPLINK_BENCH_CLICKS to change the
// number), on a SQLite file (WAL, as serve opens it) and, when
// HOPLINK_TEST_POSTGRES is set, on PostgreSQL in a schema of its own. The
// clicks are skewed as real traffic is: a Zipf draw over links, 40
// countries with a heavy head, iPhone, Android and desktop a third each, a
// few UTM sources and campaigns, a daily cycle. They are written through
// Store.InsertClicks in the recorder's batches; the load rate is logged.
//
// Loading ten million clicks takes tens of minutes, so the benchmark runs
// only when HOPLINK_BENCH_ANALYTICS is set, never under -short, and
// HOPLINK_BENCH_ANALYTICS_DB may name a SQLite file that keeps the clicks
// for the next run. Each query is a sub-benchmark reporting p50-ms and
// p99-ms over b.N runs; use -benchtime Nx.
func BenchmarkAnalyticsAtScale(b *testing.B) {
	if testing.Short() {
		b.Skip("loads millions of clicks")
	}
	if os.Getenv(envScaleBench) == "" {
		b.Skip(envScaleBench + " is not set")
	}
	n := scaleClickCount()
	var capture *sqlCapture
	if os.Getenv(envScaleExplain) != "" {
		capture = &sqlCapture{}
	}
	b.Run("sqlite", func(b *testing.B) {
		w := openScaleSQLite(b, n, capture)
		b.Cleanup(func() { _ = w.store.Close() })
		benchScaleQueries(b, w, n)
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(storetest.EnvPostgres) == "" {
			b.Skip(storetest.EnvPostgres + " is not set")
		}
		s, err := store.Open(context.Background(), storetest.PostgresDSN(b), capture.options()...)
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(context.Background()))
		benchScaleQueries(b, loadScaleWorld(b, s, n, capture), n)
	})
}
