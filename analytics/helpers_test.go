package analytics_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/analytics"
)

// fakeClock's ticker fires when the test sends on tick; its timers fire at
// once and remember how long they were asked to wait.
type fakeClock struct {
	tick chan time.Time

	mu     sync.Mutex
	afters []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{tick: make(chan time.Time)} }

func (c *fakeClock) Now() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

func (c *fakeClock) NewTicker(time.Duration) (<-chan time.Time, func()) { return c.tick, func() {} }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.afters = append(c.afters, d)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

func (c *fakeClock) waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.afters...)
}

var errDown = errors.New("database down")

// fakeStore keeps the batches it is given and reports each insert attempt
// on attempts. It fails while fail is above zero (counting down) or
// forever when fail is negative.
type fakeStore struct {
	attempts chan int

	mu      sync.Mutex
	fail    int
	batches [][]analytics.Click
}

func newFakeStore() *fakeStore { return &fakeStore{attempts: make(chan int, 1000)} }

func (s *fakeStore) InsertClicks(_ context.Context, clicks []analytics.Click) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != 0 {
		if s.fail > 0 {
			s.fail--
		}
		s.report(-len(clicks))
		return 0, errDown
	}
	s.batches = append(s.batches, append([]analytics.Click(nil), clicks...))
	n := 0
	for _, c := range clicks {
		if !c.CountOnly {
			n++
		}
	}
	s.report(len(clicks))
	return n, nil
}

// report tells attempts about an insert, unless nobody listens.
func (s *fakeStore) report(n int) {
	select {
	case s.attempts <- n:
	default:
	}
}

func (s *fakeStore) ClickCount(context.Context, uuid.UUID, time.Time) (int64, error) { return 0, nil }

func (s *fakeStore) sizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, b := range s.batches {
		out = append(out, len(b))
	}
	return out
}

func (s *fakeStore) clicks() []analytics.Click {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []analytics.Click
	for _, b := range s.batches {
		out = append(out, b...)
	}
	return out
}

// start runs r until the returned stop is called; stop waits for Run to
// return.
func start(r *analytics.Recorder) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

func click(orgID uuid.UUID) analytics.Click {
	return analytics.Click{
		OrgID: orgID, LinkID: uuid.New(), Domain: "hop.example", Slug: "spring",
		OccurredAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Source: analytics.SourceRedirect,
		Platform: "ios", IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone)",
	}
}
