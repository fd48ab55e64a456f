//go:build unix

package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkRollupWrite measures what the click rollups cost the batch
// writer, on a SQLite file under WAL as serve opens it and, when
// HOPLINK_TEST_POSTGRES is set, on PostgreSQL: batches of 500 (the
// recorder's default) and 5,000 clicks with varied values (50 links, three
// platforms, 40 countries, a few browsers, referers and UTM values), a
// batch's clicks within one second, the clock moving on a second a batch;
// and, as "zipf-batch-N", the same values over 10,000 links picked with a
// Zipf law (s 1.1), as a recorder batch of many links' traffic is, whose
// long tail touches a link row for a click or two. "rollups" writes only the rollup upserts of a batch in their own
// transaction; "insert-clicks" is the whole InsertClicks, rows and
// rollups. It reports the process's CPU time per click ("cpu-µs/click",
// user and system; on PostgreSQL the server's share is not in it) and the
// rollup rows a batch's upserts name (the organization's, not the links').
func BenchmarkRollupWrite(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres"} {
		for _, links := range []int{50, 10_000} {
			for _, size := range []int{500, 5000} {
				for _, what := range []string{"rollups", "insert-clicks"} {
					shape := "batch"
					if links > 50 {
						shape = "zipf-batch"
					}
					b.Run(fmt.Sprintf("%s/%s-%d/%s", db, shape, size, what), func(b *testing.B) {
						benchRollupWrite(b, db, links, size, 0, what == "rollups")
					})
					if links > 50 && size == 5000 {
						b.Run(fmt.Sprintf("%s/%s-%d-aged/%s", db, shape, size, what), func(b *testing.B) {
							benchRollupWrite(b, db, links, size, agedDays, what == "rollups")
						})
					}
				}
			}
		}
	}
}

// agedDays is how many days of link rollups "-aged" benchmarks find in the
// store before their first batch: a day row and four hour rows a link and
// day (store.SeedLinkRollups), as after weeks of many links' traffic, so
// that the rows a batch touches lie in a table larger than its pages in
// memory.
const agedDays = 30

func benchRollupWrite(b *testing.B, db string, nlinks, size, aged int, rollupsOnly bool) {
	ctx, c := b.Context(), newClock()
	dsn := filepath.Join(b.TempDir(), "bench.db")
	if db == "postgres" {
		dsn = storetest.PostgresDSN(b)
	}
	s, err := store.Open(ctx, dsn)
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	require.NoError(b, s.Migrate(ctx))
	o := createOrg(b, s, c, "acme")
	links := make([]*linking.Link, nlinks)
	for i := range links {
		links[i] = newLink(c, o.ID, "hop.example", fmt.Sprintf("l%05d", i))
	}
	require.NoError(b, s.BulkInsertLinks(ctx, links))
	at := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	// The organization has a fold mark at the batches' first day, as every
	// one after its first purge: the links' rows are hour rows.
	_, err = s.FoldLinkRollupDays(ctx, o.ID, at.Add(-time.Hour), 1)
	require.NoError(b, err)
	if aged > 0 {
		ids := make([]uuid.UUID, len(links))
		for i, l := range links {
			ids[i] = l.ID
		}
		require.NoError(b, s.SeedLinkRollups(ctx, o.ID, ids, aged, 4, at))
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() *linking.Link { return links[min(r.IntN(len(links)), r.IntN(len(links)))] }
	if nlinks > 50 {
		zipf := rand.NewZipf(r, 1.1, 1, uint64(nlinks-1))
		pick = func() *linking.Link { return links[zipf.Uint64()] }
	}
	countries := []string{"US", "DE", "GB", "IN", "FR", "BR", "CA", "ES", "IT", "NL", "JP", "MX", "AU", "PL", "TR",
		"SE", "ID", "KR", "CH", "AT", "BE", "AR", "PH", "NG", "ZA", "PT", "DK", "NO", "IE", "FI", "CZ", "RO", "VN",
		"TH", "EG", "CO", "CL", "NZ", "GR", ""}
	batch := make([]analytics.Click, size)
	fill := func() {
		for i := range batch {
			l := pick()
			cl := newClick(l, at.Add(time.Duration(i)*time.Second/time.Duration(size)))
			p := r.IntN(3)
			cl.Platform = []string{"ios", "android", "desktop"}[p]
			cl.OS = []string{"iOS", "Android", "macOS"}[p]
			cl.OSVersion = []string{"18.6", "14", "10.15.7"}[p]
			cl.DeviceModel = []string{"iPhone", "Pixel 8", ""}[p]
			cl.Browser = []string{"Safari", "Chrome", "Firefox", "Samsung Internet"}[r.IntN(4)]
			cl.InAppBrowser = []string{"", "", "", "Instagram", "Facebook"}[r.IntN(5)]
			cl.Country = countries[min(r.IntN(len(countries)), r.IntN(len(countries)))]
			cl.Referer = []string{"", "https://www.google.com/", "https://t.co/x", "https://news.example.org/a"}[r.IntN(4)]
			cl.UTMSource = []string{"", "google", "facebook", "newsletter"}[r.IntN(4)]
			cl.UTMMedium = []string{"", "cpc", "social", "email"}[r.IntN(4)]
			cl.UTMCampaign = []string{"", "spring_sale", "black_friday", "launch"}[r.IntN(4)]
			cl.UTMTerm, cl.UTMContent = "", []string{"", "hero", "footer"}[r.IntN(3)]
			batch[i] = cl
		}
		at = at.Add(time.Second)
	}
	write := func(ctx context.Context) error {
		if rollupsOnly {
			return s.AddToRollups(ctx, batch)
		}
		n, err := s.InsertClicks(ctx, batch)
		if err == nil && n != len(batch) {
			err = fmt.Errorf("stored %d of %d", n, len(batch))
		}
		return err
	}
	// upserted counts the rows a batch's upserts name: one per quarter
	// hour, and one per dimension value in each of the three tables.
	var upserted int
	count := func() {
		keys := map[string]bool{}
		for i := range batch {
			c := batch[i]
			c.Normalize()
			keys["slot "+analytics.SlotOf(c.OccurredAt).String()] = true
			for _, d := range analytics.Dimensions() {
				keys[string(d)+" "+store.RollupValue(&c, d)+" "+analytics.SlotOf(c.OccurredAt).String()] = true
				keys["hour "+string(d)+" "+store.RollupValue(&c, d)+" "+c.OccurredAt.Truncate(time.Hour).String()] = true
				keys["day "+string(d)+" "+store.RollupValue(&c, d)+" "+c.OccurredAt.Format(time.DateOnly)] = true
			}
		}
		upserted += len(keys)
	}
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		fill()
		count()
		b.StartTimer()
		before := processCPU(b)
		require.NoError(b, write(ctx))
		cpu += processCPU(b) - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*size), "cpu-µs/click")
	b.ReportMetric(float64(upserted)/float64(b.N), "rollup-rows/batch")
}
