package analytics_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
)

// fakeUsage answers ClickUsage from its map; an organization it lacks is
// not found. It counts its reads.
type fakeUsage struct {
	mu    sync.Mutex
	usage map[uuid.UUID]analytics.Usage
	err   error
	reads int
}

func (f *fakeUsage) ClickUsage(_ context.Context, orgID uuid.UUID, _ time.Time) (analytics.Usage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return analytics.Usage{}, f.err
	}
	u, ok := f.usage[orgID]
	if !ok {
		return analytics.Usage{}, fmt.Errorf("store: click usage: %w", errcode.ErrNotFound)
	}
	return u, nil
}

func (f *fakeUsage) set(orgID uuid.UUID, u analytics.Usage, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage[orgID], f.err = u, err
}

func TestAllowance(t *testing.T) {
	orgID := uuid.New()
	f := &fakeUsage{usage: map[uuid.UUID]analytics.Usage{orgID: {Limit: 3, Count: 1}}}
	clock := testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	a := analytics.NewAllowance(f, analytics.AllowanceOptions{TTL: 5 * time.Second, Clock: clock.Now, Logger: quiet})

	assert.True(t, a.Store(orgID), "an organization not read yet is stored, without waiting")
	a.Wait()
	assert.True(t, a.Store(orgID), "1 counted + 1 allowed ≤ 3")
	assert.True(t, a.Store(orgID), "1 counted + 2 allowed ≤ 3")
	assert.False(t, a.Store(orgID), "past the limit")
	assert.False(t, a.Store(orgID))
	assert.Equal(t, 1, f.reads, "within the TTL the store is not read again")

	// A new billing month: the next read after the TTL sees the new count.
	f.set(orgID, analytics.Usage{Limit: 3, Count: 0}, nil)
	clock.Advance(5 * time.Second)
	assert.False(t, a.Store(orgID), "answers from what it knows while it reads again")
	a.Wait()
	assert.True(t, a.Store(orgID))
	assert.Equal(t, 2, f.reads)

	// A failed read keeps the last answer and is not tried again before the TTL.
	f.set(orgID, analytics.Usage{Limit: 3, Count: 3}, errDown)
	clock.Advance(5 * time.Second)
	assert.True(t, a.Store(orgID))
	a.Wait()
	assert.True(t, a.Store(orgID), "the last answer: 0 counted + 3 allowed")
	assert.False(t, a.Store(orgID))
	a.Wait()
	assert.Equal(t, 3, f.reads)

	f.set(orgID, analytics.Usage{Limit: 3, Count: 3}, nil)

	unknown := uuid.New()
	require.NoError(t, a.Refresh(context.Background(), unknown))
	assert.True(t, a.Store(unknown), "an organization the store does not find is stored")
}

func TestAllowanceUnderConcurrency(t *testing.T) {
	orgID := uuid.New()
	f := &fakeUsage{usage: map[uuid.UUID]analytics.Usage{orgID: {Limit: 100}}}
	a := analytics.NewAllowance(f, analytics.AllowanceOptions{Logger: quiet})
	require.NoError(t, a.Refresh(context.Background(), orgID))
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		stored int
	)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if a.Store(orgID) {
					mu.Lock()
					stored++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	a.Wait()
	assert.Equal(t, 100, stored, "exactly the limit within one process and one read")
}

func TestRecorderMarksClicksPastTheAllowance(t *testing.T) {
	orgID := uuid.New()
	f := &fakeUsage{usage: map[uuid.UUID]analytics.Usage{orgID: {Limit: 2}}}
	// A clock that stands still: with the real one, a loaded machine could
	// let the TTL pass between the clicks, and the read in the background
	// that follows would start the count of clicks allowed again.
	clock := testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	a := analytics.NewAllowance(f, analytics.AllowanceOptions{Clock: clock.Now, Logger: quiet})
	require.NoError(t, a.Refresh(context.Background(), orgID))
	s := newFakeStore()
	r := analytics.NewRecorder(s, analytics.RecorderOptions{Allowance: a, Clock: newFakeClock(), Logger: quiet})
	for range 5 {
		require.True(t, r.Record(click(orgID)), "clicks past the allowance are still taken")
	}
	start(r)()
	var countOnly int
	for _, c := range s.clicks() {
		if c.CountOnly {
			countOnly++
		}
	}
	assert.Equal(t, 3, countOnly)
	st := r.Stats()
	assert.Equal(t, uint64(2), st.Written)
	assert.Equal(t, uint64(3), st.CountedOnly)
	assert.Equal(t, uint64(3), st.OverAllowance, "counted apart from the clicks over the buffer")
	assert.Zero(t, st.Overflowed)
	a.Wait()
	assert.Equal(t, 1, f.reads, "the usage is read once, by Refresh")
}
