package attribution_test

import (
	"context"
	"fmt"
	"math/rand"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// benchWorld is a store holding benchClicks() clicks of the last day.
type benchWorld struct {
	f    *fixture
	ips  []string
	cgn  []string
	apps []*linking.App
}

var (
	benchOnce  = map[string]*benchWorld{}
	benchMu    sync.Mutex
	benchAgent = []string{iosSafari17_5, androidPixel8C, androidSamsung,
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"}
)

// benchClicks is how many clicks the benchmark loads: one million, or
// HOPLINK_BENCH_CLICKS.
func benchClicks() int {
	if v, err := strconv.Atoi(os.Getenv("HOPLINK_BENCH_CLICKS")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

// loadBenchWorld fills s with an organization of three apps and
// benchClicks() clicks over the last 24 hours: 80% from 250,000 home
// addresses (a few clicks each), 20% from 200 carrier NAT addresses (about
// a thousand each).
func loadBenchWorld(b testing.TB, name string, s *store.Store) *benchWorld {
	benchMu.Lock()
	defer benchMu.Unlock()
	if w := benchOnce[name]; w != nil {
		return w
	}
	f := newFixture(b, s)
	w := &benchWorld{f: f, apps: []*linking.App{f.app, f.newApp(f.org.ID, "com.acme.b", "com.acme.b"), f.newApp(f.org.ID, "com.acme.c", "com.acme.c")}}
	var links []*linking.Link
	for _, a := range w.apps {
		for range 4 {
			links = append(links, f.newLink(f.org.ID, &a.ID, nil))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := range 250_000 {
		w.ips = append(w.ips, fmt.Sprintf("11.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	for i := range 200 {
		w.cgn = append(w.cgn, fmt.Sprintf("12.0.%d.%d", i>>8, i&255))
	}
	n := benchClicks()
	now := f.clock.Now()
	ctx := context.Background()
	const batch = 800
	rows := make([]analytics.Click, 0, batch)
	flush := func() {
		if len(rows) == 0 {
			return
		}
		stored, err := s.InsertClicks(ctx, rows)
		require.NoError(b, err)
		require.Equal(b, len(rows), stored)
		rows = rows[:0]
	}
	for i := range n {
		ip := w.ips[r.Intn(len(w.ips))]
		if r.Intn(5) == 0 {
			ip = w.cgn[r.Intn(len(w.cgn))]
		}
		l := links[r.Intn(len(links))]
		ua := benchAgent[r.Intn(len(benchAgent))]
		d := linking.ClassifyDevice(ua)
		rows = append(rows, analytics.Click{
			ID: uuid.Must(uuid.NewV7()), OrgID: f.org.ID, LinkID: l.ID, AppID: l.AppID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: now.Add(-time.Duration(r.Int63n(int64(24 * time.Hour)))), Source: analytics.SourceRedirect,
			Platform: string(d.Platform), OS: d.OS, OSVersion: d.OSVersion, DeviceModel: d.Model, Browser: d.Browser,
			IP: ip, IPKey: ip, UserAgent: ua, AcceptLanguage: "en-US,en;q=0.9",
		})
		if len(rows) == batch {
			flush()
		}
		if i > 0 && i%200_000 == 0 {
			b.Logf("%s: %d clicks loaded", name, i)
		}
	}
	flush()
	if s.Dialect() == "sqlite" {
		// Fold the load's write-ahead log into the database, so that the
		// first timed writes do not pay for checkpointing a million rows.
		_, err := s.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		require.NoError(b, err)
	} else {
		// Do what autovacuum does to a table that grows: set its visibility
		// map, so that the count of a key's clicks reads the index alone,
		// and its statistics.
		_, err := s.DB().ExecContext(ctx, "VACUUM ANALYZE clicks")
		require.NoError(b, err)
		// And write the load's pages out now, as the SQLite checkpoint
		// above does, rather than during the timed matches (a role
		// that may not checkpoint leaves it to the server's schedule).
		_, _ = s.DB().ExecContext(ctx, "CHECKPOINT")
	}
	// Build the candidate index a server builds at start, and say what
	// it took.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	require.NoError(b, s.PrepareMatching(ctx, now))
	built := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.Logf("%s: candidate index built in %s, heap grew %d MiB", name, built.Round(time.Millisecond),
		(int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20)
	benchOnce[name] = w
	return w
}

// benchMatch runs b.N matches from random addresses of the world and reports
// the latency's p50 and p99, and where a match's time goes: the busy keys'
// reads (KeyClicks) and the writes every match ends with (its attempt, or
// the claim of a click).
func benchMatch(b *testing.B, w *benchWorld) {
	r := rand.New(rand.NewSource(int64(b.N)))
	timed := &timedStore{Store: w.f.s}
	m := attribution.NewMatcher(timed, attribution.MatcherOptions{Clock: w.f.clock.Now})
	lat := make([]time.Duration, 0, b.N)
	var home, cgnat []time.Duration
	b.ResetTimer()
	for range b.N {
		ip := w.ips[r.Intn(len(w.ips))]
		shared := r.Intn(5) == 0
		if shared {
			ip = w.cgn[r.Intn(len(w.cgn))]
		}
		req := iosRequest()
		if r.Intn(2) == 0 {
			req = androidRequest()
		}
		app := w.apps[r.Intn(len(w.apps))]
		in := attribution.MatchInput{OrgID: w.f.org.ID, AppHeader: "com.acme." + []string{"shop", "b", "c"}[indexOf(w.apps, app)], Request: req, ClientIP: netip.MustParseAddr(ip)}
		start := time.Now()
		if _, err := m.Match(context.Background(), in); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		lat = append(lat, d)
		if shared {
			cgnat = append(cgnat, d)
		} else {
			home = append(home, d)
		}
	}
	b.StopTimer()
	b.ReportMetric(quantile(lat, 50), "p50-ms")
	b.ReportMetric(quantile(lat, 99), "p99-ms")
	b.ReportMetric(quantile(home, 99), "home-p99-ms")
	b.ReportMetric(quantile(cgnat, 50), "cgnat-p50-ms")
	b.ReportMetric(quantile(cgnat, 99), "cgnat-p99-ms")
	b.ReportMetric(quantile(timed.busyReads, 50), "busy-read-p50-ms")
	b.ReportMetric(quantile(timed.busyReads, 95), "busy-read-p95-ms")
	b.ReportMetric(quantile(timed.writes, 50), "write-p50-ms")
	b.ReportMetric(quantile(timed.writes, 99), "write-p99-ms")
}

// timedStore times the reads of busy keys and the writes that end a match,
// for benchMatch's breakdown. It is used by one goroutine.
type timedStore struct {
	*store.Store
	busyReads, writes []time.Duration
}

func (t *timedStore) KeyClicks(ctx context.Context, q attribution.KeyQuery) (attribution.KeyRead, error) {
	start := time.Now()
	read, err := t.Store.KeyClicks(ctx, q)
	if read.Busy {
		t.busyReads = append(t.busyReads, time.Since(start))
	}
	return read, err
}

func (t *timedStore) RecordAttempt(ctx context.Context, a attribution.Attempt) error {
	defer t.timeWrite(time.Now())
	return t.Store.RecordAttempt(ctx, a)
}

func (t *timedStore) Claim(ctx context.Context, in attribution.InstallRecord, a attribution.Attempt) error {
	defer t.timeWrite(time.Now())
	return t.Store.Claim(ctx, in, a)
}

func (t *timedStore) timeWrite(start time.Time) {
	t.writes = append(t.writes, time.Since(start))
}

// quantile returns the q-th percentile of ds in milliseconds.
func quantile(ds []time.Duration, q int) float64 {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[min(len(ds)-1, len(ds)*q/100)].Microseconds()) / 1000
}

func indexOf(apps []*linking.App, a *linking.App) int {
	for i := range apps {
		if apps[i] == a {
			return i
		}
	}
	return 0
}

// BenchmarkMatch measures one match against a store holding one million
// clicks of the last day (HOPLINK_BENCH_CLICKS to change it), on a SQLite
// file and, when HOPLINK_TEST_POSTGRES is set, on PostgreSQL. Loading the
// clicks takes a minute or two per database.
func BenchmarkMatch(b *testing.B) {
	dir := b.TempDir()
	b.Run("sqlite", func(b *testing.B) {
		benchMu.Lock()
		w := benchOnce["sqlite"]
		benchMu.Unlock()
		if w == nil {
			s, err := store.Open(context.Background(), filepath.Join(dir, "bench.db"))
			require.NoError(b, err)
			require.NoError(b, s.Migrate(context.Background()))
			w = loadBenchWorld(b, "sqlite", s)
		}
		benchMatch(b, w)
	})
	var pg *store.Store
	if os.Getenv(storetest.EnvPostgres) != "" {
		// Opened here, so that it stays open across the sub-benchmark's runs.
		pg = storetest.Postgres(b)
	}
	b.Run("postgres", func(b *testing.B) {
		if pg == nil {
			b.Skip(storetest.EnvPostgres + " is not set")
		}
		benchMu.Lock()
		w := benchOnce["postgres"]
		benchMu.Unlock()
		if w == nil {
			w = loadBenchWorld(b, "postgres", pg)
		}
		benchMatch(b, w)
	})
}
