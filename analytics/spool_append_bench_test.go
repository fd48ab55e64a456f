package analytics

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkSpoolAppend measures one record appended to the spool, on one
// goroutine, without the writer: the cost a redirect pays for the spool.
func BenchmarkSpoolAppend(b *testing.B) {
	for _, mapped := range []bool{true, false} {
		name := map[bool]string{true: "mapped", false: "write"}[mapped]
		b.Run(name, func(b *testing.B) {
			defer func(was bool) { mapChunks = was }(mapChunks)
			mapChunks = mapped
			benchSpoolAppend(b)
		})
	}
}

func benchSpoolAppend(b *testing.B) {
	s, err := openSpool(b.TempDir(), 1<<40, 2000)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	app := uuid.New()
	c := Click{ID: uuid.Must(uuid.NewV7()), OrgID: uuid.New(), LinkID: uuid.New(), AppID: &app, Domain: "hop.example",
		Slug: "spring", OccurredAt: time.Now(), Source: SourceRedirect, Platform: "desktop", OS: "macOS",
		OSVersion: "10.15.7", Browser: "Chrome", IP: "203.0.113.7",
		UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
		UTMSource: "newsletter", UTMMedium: "social", UTMCampaign: "spring"}
	b.ReportAllocs()
	// The appends that rotate the chunk (one in 2,000), timed apart:
	// "rotate-µs" is their mean.
	var rotating time.Duration
	rotations := 0
	for b.Loop() {
		seq := s.seq
		began := time.Now()
		if ok, err := s.append(&c, false); !ok || err != nil {
			b.Fatal(ok, err)
		}
		if s.seq != seq {
			rotating += time.Since(began)
			rotations++
		}
		// Chunks the writer would have deleted.
		for seq, ok := s.next(); ok; seq, ok = s.next() {
			_ = s.remove(seq, 0)
		}
	}
	if rotations > 0 {
		b.ReportMetric(float64(rotating.Microseconds())/float64(rotations), "rotate-µs")
	}
}

// BenchmarkSpoolRotation measures what a rotation holds the spool's
// mutex for ("locked-µs", the mean): every Record waits that long. The
// chunks are rotated 2 ms apart (a full chunk of 2,000 clicks takes some
// 50 ms at 40,000 redirects a second), the old chunk finished outside the
// mutex as append does.
func BenchmarkSpoolRotation(b *testing.B) {
	s, err := openSpool(b.TempDir(), 1<<40, 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	c := Click{ID: uuid.Must(uuid.NewV7()), OrgID: uuid.New(), LinkID: uuid.New(), OccurredAt: time.Now()}
	var locked time.Duration
	n := 0
	for b.Loop() {
		if ok, err := s.append(&c, false); !ok || err != nil {
			b.Fatal(ok, err)
		}
		time.Sleep(2 * time.Millisecond)
		began := time.Now()
		s.mu.Lock()
		old, err := s.rotateLocked()
		s.mu.Unlock()
		locked += time.Since(began)
		n++
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range old {
			s.retire(o)
		}
		for seq, ok := s.next(); ok; seq, ok = s.next() {
			_ = s.remove(seq, 0)
		}
	}
	b.ReportMetric(float64(locked.Nanoseconds())/1e3/float64(n), "locked-µs")
}
