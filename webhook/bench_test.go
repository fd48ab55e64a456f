package webhook_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

// BenchmarkDeliver measures how fast one worker (the defaults: batches of
// 50, 8 requests at once) empties the outbox into a TLS receiver on
// loopback that answers 204 at once: each iteration is one delivery,
// signed, posted and recorded. SQLite is a file (WAL); PostgreSQL runs
// when HOPLINK_TEST_POSTGRES is set. It reports deliveries per second.
func BenchmarkDeliver(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(b.Context()))
		benchmarkDeliver(b, s)
	})
	b.Run("postgres", func(b *testing.B) { benchmarkDeliver(b, storetest.Postgres(b)) })
}

func benchmarkDeliver(b *testing.B, s *store.Store) {
	rc := newReceiverTB(b, status(http.StatusNoContent))
	f := newFixture(b, rc, fixtureOptions{allowPrivate: true, store: s})
	f.create(b, rc.URL, webhook.MemberJoined)
	events := make([]webhook.Event, b.N)
	for i := range events {
		ev, err := webhook.NewEvent(f.org.ID, webhook.MemberJoined, f.clock.Now(), nil, nil, webhook.MemberData{Role: "member"})
		require.NoError(b, err)
		events[i] = ev
	}
	for start := 0; start < len(events); start += 500 {
		require.NoError(b, s.EnqueueEvents(b.Context(), events[start:min(start+500, len(events))]))
	}
	b.ResetTimer()
	began := time.Now()
	for delivered := 0; delivered < b.N; {
		n, err := f.worker.RunOnce(b.Context())
		require.NoError(b, err)
		delivered += n
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "deliveries/s")
	b.StopTimer()
	require.Len(b, rc.requests(), b.N)
}
