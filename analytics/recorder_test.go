package analytics_test

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/geo"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestRecorderFlushesFullBatches(t *testing.T) {
	s, clock := newFakeStore(), newFakeClock()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BatchSize: 3, Clock: clock, Logger: quiet})
	stop := start(r)
	orgID := uuid.New()
	for range 7 {
		require.True(t, r.Record(click(orgID)))
	}
	assert.Equal(t, 3, <-s.attempts)
	assert.Equal(t, 3, <-s.attempts)
	stop()
	assert.Equal(t, []int{3, 3, 1}, s.sizes(), "the last partial batch is written on shutdown")
	for _, c := range s.clicks() {
		assert.Equal(t, uuid.Version(7), c.ID.Version(), "the recorder gives clicks a UUIDv7")
		assert.Equal(t, "203.0.113.7", c.IPKey, "clicks are normalized")
	}
}

func TestRecorderTellsOnFlushOfEveryInsert(t *testing.T) {
	s, clock := newFakeStore(), newFakeClock()
	type flush struct {
		clicks int
		failed bool
	}
	var mu sync.Mutex
	var flushes []flush
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BatchSize: 3, Clock: clock, Logger: quiet,
		OnFlush: func(clicks int, took time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			assert.GreaterOrEqual(t, took, time.Duration(0))
			flushes = append(flushes, flush{clicks, err != nil})
		}})
	stop := start(r)
	orgID := uuid.New()
	for range 4 {
		require.True(t, r.Record(click(orgID)))
	}
	assert.Equal(t, 3, <-s.attempts)
	stop()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []flush{{3, false}, {1, false}}, flushes, "each batch, the last partial one included")
}

func TestRecorderFlushesOnTheInterval(t *testing.T) {
	s, clock := newFakeStore(), newFakeClock()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BatchSize: 100, Clock: clock, Logger: quiet})
	stop := start(r)
	defer stop()
	orgID := uuid.New()
	require.True(t, r.Record(click(orgID)))
	require.True(t, r.Record(click(orgID)))
	clock.tick <- clock.Now()
	assert.Equal(t, 2, <-s.attempts, "a tick writes every click recorded before it")

	clock.tick <- clock.Now()
	require.True(t, r.Record(click(orgID)))
	clock.tick <- clock.Now()
	assert.Equal(t, 1, <-s.attempts, "an empty tick writes nothing")
	assert.Equal(t, []int{2, 1}, s.sizes())
}

func TestRecorderCountsClicksOverTheBuffer(t *testing.T) {
	s := newFakeStore()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BufferSize: 2, Clock: newFakeClock(), Logger: quiet})
	acme, other := uuid.New(), uuid.New()
	// Not running: nothing drains the buffer, and Record must not block.
	assert.True(t, r.Record(click(acme)))
	assert.True(t, r.Record(click(acme)))
	for range 5 {
		assert.True(t, r.Record(click(acme)), "a click over the buffer is taken, to be counted")
	}
	assert.True(t, r.Record(click(other)))
	later := click(acme)
	later.OccurredAt = later.OccurredAt.Add(time.Minute)
	assert.True(t, r.Record(later), "another minute is summed apart")
	st := r.Stats()
	assert.Equal(t, uint64(9), st.Accepted)
	assert.Equal(t, uint64(7), st.Overflowed)
	assert.Zero(t, st.Dropped)
	assert.Equal(t, 2, st.Buffered, "the buffer stays bounded")

	start(r)()
	st = r.Stats()
	assert.Equal(t, uint64(2), st.Written)
	assert.Equal(t, uint64(7), st.CountedOnly, "every overflowing click is counted")
	assert.Zero(t, st.Buffered)
	assert.Equal(t, st.Accepted, st.Written+st.CountedOnly)

	weights := map[uuid.UUID][]int64{}
	rows := 0
	for _, c := range s.clicks() {
		if c.CountOnly {
			weights[c.OrgID] = append(weights[c.OrgID], c.Weight)
		} else {
			rows++
		}
	}
	assert.Equal(t, 2, rows)
	assert.ElementsMatch(t, []int64{5, 1}, weights[acme], "one counted click per organization and minute")
	assert.Equal(t, []int64{1}, weights[other])

	assert.False(t, r.Record(click(acme)), "a recorder that shut down takes nothing")
	assert.Equal(t, uint64(1), r.Stats().Dropped)
}

func TestRecorderRetriesThenDrops(t *testing.T) {
	s, clock := newFakeStore(), newFakeClock()
	s.fail = -1
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BatchSize: 2, Retries: 2, Clock: clock, Logger: quiet})
	stop := start(r)
	defer stop()
	orgID := uuid.New()
	r.Record(click(orgID))
	r.Record(click(orgID))
	for range 3 {
		assert.Equal(t, -2, <-s.attempts)
	}
	// The next batch succeeds: the failed one was given up on, not kept.
	s.mu.Lock()
	s.fail = 1
	s.mu.Unlock()
	r.Record(click(orgID))
	r.Record(click(orgID))
	assert.Equal(t, -2, <-s.attempts, "fails once")
	assert.Equal(t, 2, <-s.attempts, "then the retry writes it")

	// The store answers before the recorder counts: stop it before reading.
	stop()
	st := r.Stats()
	assert.Equal(t, uint64(2), st.Failed)
	assert.Equal(t, uint64(2), st.Written)
	assert.Equal(t, uint64(4), st.FailedFlushes)
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 100 * time.Millisecond},
		clock.waits(), "the backoff doubles and starts over for each batch")
}

func TestRecorderShutdownWritesEveryAcceptedClick(t *testing.T) {
	s := newFakeStore()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{BufferSize: 64, BatchSize: 10, Clock: newFakeClock(), Logger: quiet})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()

	var wg sync.WaitGroup
	orgID := uuid.New()
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				r.Record(click(orgID))
			}
		})
	}
	<-s.attempts // at least one batch written while running
	cancel()     // while the producers may still be recording
	wg.Wait()
	<-done

	st := r.Stats()
	assert.Equal(t, uint64(16000), st.Accepted+st.Dropped)
	assert.Equal(t, st.Accepted, st.Written+st.CountedOnly, "every accepted click is written or, over the buffer, counted")
	assert.Equal(t, st.Overflowed, st.CountedOnly)
	var rows, counted int64
	for _, c := range s.clicks() {
		if c.CountOnly {
			counted += c.Clicks()
		} else {
			rows++
		}
	}
	assert.Equal(t, int64(st.Written), rows)
	assert.Equal(t, int64(st.CountedOnly), counted)
	assert.Zero(t, st.Buffered)
}

func TestRecorderShutdownTimeoutDrops(t *testing.T) {
	s, clock := newFakeStore(), newFakeClock()
	s.fail = -1
	r := analytics.NewRecorder(s, analytics.RecorderOptions{Retries: 1000, ShutdownTimeout: time.Millisecond,
		Clock: clock, Logger: quiet})
	r.Record(click(uuid.New()))
	start(r)() // returns although the store never recovers
	st := r.Stats()
	assert.Equal(t, uint64(1), st.Failed)
	assert.Zero(t, st.Written)
}

// stubLocator answers one location for every address, and records them.
type stubLocator struct {
	mu   sync.Mutex
	seen []netip.Addr
}

func (l *stubLocator) Locate(ip netip.Addr) geo.Location {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, ip)
	return geo.Location{Country: "NZ", Region: "AUK", City: "Auckland"}
}

// The writer fills a click's location from its IP with the recorder's
// Locator, keeps a location the click brought, and leaves an address that
// does not parse without one.
func TestRecorderLocatesClicks(t *testing.T) {
	s, loc := newFakeStore(), &stubLocator{}
	r := analytics.NewRecorder(s, analytics.RecorderOptions{Clock: newFakeClock(), Logger: quiet, Locator: loc})
	stop := start(r)
	orgID := uuid.New()
	located := click(orgID)
	located.Country = "FR"
	bad := click(orgID)
	bad.IP = "not an address"
	for _, c := range []analytics.Click{click(orgID), located, bad} {
		require.True(t, r.Record(c))
	}
	stop()
	got := s.clicks()
	require.Len(t, got, 3)
	assert.Equal(t, []string{"NZ", "AUK", "Auckland"}, []string{got[0].Country, got[0].Region, got[0].City})
	assert.Equal(t, []string{"FR", "", ""}, []string{got[1].Country, got[1].Region, got[1].City})
	assert.Empty(t, got[2].Country+got[2].Region+got[2].City)
	assert.Equal(t, []netip.Addr{netip.MustParseAddr("203.0.113.7")}, loc.seen, "only the click without a country is looked up")
}

// Without a Locator the recorder uses the built-in country table.
func TestRecorderLocatesCountriesByDefault(t *testing.T) {
	s := newFakeStore()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{Clock: newFakeClock(), Logger: quiet})
	stop := start(r)
	c := click(uuid.New())
	c.IP = "8.8.8.8"
	require.True(t, r.Record(c))
	stop()
	require.Len(t, s.clicks(), 1)
	assert.Equal(t, "US", s.clicks()[0].Country)
	assert.Empty(t, s.clicks()[0].City, "the built-in table knows countries only")
}
