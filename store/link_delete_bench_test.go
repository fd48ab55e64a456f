package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkDeleteLinkCompaction measures what DeleteLink costs in an
// organization holding 200,000 clicks of 100 links over 10 days (batches
// of 500, about 400 segments): each iteration deletes one link whose
// clicks are in every segment, so that the compaction reads every segment
// and encodes each again. It reports the time per delete and per click of
// the organization read.
func BenchmarkDeleteLinkCompaction(b *testing.B) {
	const links, total, batch = 100, 200_000, 500
	run := func(b *testing.B, s *store.Store) {
		ctx, c := b.Context(), newClock()
		o := createOrg(b, s, c, "acme")
		ls := make([]*linking.Link, links)
		for i := range ls {
			ls[i] = createLink(b, s, newLink(c, o.ID, "hop.example", "l"+string(rune('a'+i/26))+string(rune('a'+i%26))))
		}
		start := c.next()
		clicks := make([]analytics.Click, 0, batch)
		for i := range total {
			clicks = append(clicks, newClick(ls[i%links], start.Add(time.Duration(i)*10*24*time.Hour/total)))
			if len(clicks) == batch {
				_, err := s.InsertClicks(ctx, clicks)
				require.NoError(b, err)
				clicks = clicks[:0]
			}
		}
		next := 0
		for b.Loop() {
			require.NoError(b, s.DeleteLink(ctx, o.ID, ls[next].ID))
			next++
			if next == links {
				b.Fatal("no link left to delete")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/click-read")
	}
	b.Run("sqlite", func(b *testing.B) {
		s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(b.Context()))
		run(b, s)
	})
	b.Run("postgres", func(b *testing.B) { run(b, storetest.Postgres(b)) })
}
