package analytics

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkRecordAccepted measures Record when the buffer has room: every
// time the buffer is full, the timer stops while the benchmark empties it,
// so that every click takes the accepted path.
func BenchmarkRecordAccepted(b *testing.B) {
	r := NewRecorder(nil, RecorderOptions{})
	c := Click{OrgID: uuid.New(), LinkID: uuid.New(), Domain: "hop.example", Slug: "spring",
		OccurredAt: time.Now(), Source: SourceRedirect, IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone)"}
	b.ReportAllocs()
	for b.Loop() {
		if len(r.ch) == cap(r.ch) {
			b.StopTimer()
			for len(r.ch) > 0 {
				<-r.ch
			}
			select {
			case <-r.full:
			default:
			}
			b.StartTimer()
		}
		if !r.Record(c) {
			b.Fatal("dropped")
		}
	}
}
