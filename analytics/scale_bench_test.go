package analytics_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	"github.com/hoplink/hoplink/internal/scaledata"
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

// scaleLinks is how many links the benchmark's organization has;
// scaleOrgPrefix and the number of clicks make its slug.
const (
	scaleLinks     = 1_000
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

// scaleConfig is the organization of the benchmark with n clicks:
// scaleLinks links, its slug scaleOrgPrefix and n; the load logs to b.
func scaleConfig(b *testing.B, n int) scaledata.Config {
	return scaledata.Config{Slug: scaleOrgPrefix + strconv.Itoa(n), Name: "Analytics bench", Links: scaleLinks,
		Clicks: n, Logf: b.Logf}
}

// loadScaleWorld creates the organization of n clicks in s
// (scaledata.Load), logging the load rate.
func loadScaleWorld(b *testing.B, s *store.Store, n int, capture *sqlCapture) *scaleWorld {
	w, err := scaledata.Load(context.Background(), s, scaleConfig(b, n))
	require.NoError(b, err)
	return newScaleWorld(b, s, w.Org, capture)
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
// into that file (scaledata.OpenSQLite) or into a file of the benchmark's
// temporary directory.
func openScaleSQLite(b *testing.B, n int, capture *sqlCapture) *scaleWorld {
	path := os.Getenv(envScaleDB)
	if path == "" {
		path = filepath.Join(b.TempDir(), "analytics.db")
	}
	s, o, err := scaledata.OpenSQLite(context.Background(), path, scaleConfig(b, n), capture.options()...)
	require.NoError(b, err)
	return newScaleWorld(b, s, o, capture)
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
			ts, err := w.q.TimeSeries(ctx, p, analytics.TimeSeriesQuery{Params: window(w, scaledata.Days),
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
			bd, err := w.q.Breakdown(ctx, p, analytics.BreakdownQuery{Params: window(w, scaledata.Days), By: str("country")})
			if err != nil {
				return 0, err
			}
			return bd.Total.Clicks, nil
		}},
		{"top10-link-90d-ios", func(ctx context.Context, w *scaleWorld, p *auth.Principal) (int64, error) {
			params := window(w, scaledata.Days)
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
			b.ReportMetric(scaledata.Quantile(lat, 50), "p50-ms")
			b.ReportMetric(scaledata.Quantile(lat, 99), "p99-ms")
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
