package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/analytics"
)

// discard is a Store that writes nothing, so that the benchmark measures
// Record and the recorder's loop, not a database.
type discard struct{}

func (discard) InsertClicks(_ context.Context, clicks []analytics.Click) (int, error) {
	return len(clicks), nil
}

func (discard) ClickCount(context.Context, uuid.UUID, time.Time) (int64, error) { return 0, nil }

type unlimited struct{}

func (unlimited) ClickUsage(context.Context, uuid.UUID, time.Time) (analytics.Usage, error) {
	return analytics.Usage{Limit: 1 << 62}, nil
}

// BenchmarkRecord records from every P at once while Run drains the buffer;
// "overflow/op" is the share of clicks that found the buffer full (counted,
// not stored).
func BenchmarkRecord(b *testing.B) {
	run := func(b *testing.B, a *analytics.Allowance) {
		r := analytics.NewRecorder(discard{}, analytics.RecorderOptions{Allowance: a, Logger: quiet})
		stop := start(r)
		c := click(uuid.New())
		if a != nil {
			_ = a.Refresh(context.Background(), c.OrgID)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r.Record(c)
			}
		})
		b.StopTimer()
		stop()
		st := r.Stats()
		b.ReportMetric(float64(st.Overflowed)/float64(st.Accepted), "overflow/op")
	}
	b.Run("plain", func(b *testing.B) { run(b, nil) })
	b.Run("allowance", func(b *testing.B) {
		run(b, analytics.NewAllowance(unlimited{}, analytics.AllowanceOptions{TTL: time.Hour, Logger: quiet}))
	})
}
