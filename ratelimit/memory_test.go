package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

func TestMemoryBucketCap(t *testing.T) {
	ctx := context.Background()
	rule := ratelimit.Rule{Limit: 3, Window: time.Minute}

	t.Run("the cap is never exceeded and newcomers are still counted", func(t *testing.T) {
		const maxBuckets = 10
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: testkit.NewClock(epoch).Now, MaxBuckets: maxBuckets})
		for i := range 1000 {
			bucket := fmt.Sprintf("ip:198.51.100.%d", i)
			res, err := l.Allow(ctx, bucket, rule)
			require.NoError(t, err)
			assert.Equal(t, rule.Limit-1, res.Remaining, bucket)
			res, err = l.Allow(ctx, bucket, rule)
			require.NoError(t, err)
			assert.Equal(t, rule.Limit-2, res.Remaining, "%s is not evicted by its own insertion", bucket)
			require.LessOrEqual(t, l.Len(), maxBuckets)
		}
		assert.Equal(t, maxBuckets, l.Len())
	})

	t.Run("the cap holds across shards under concurrent use", func(t *testing.T) {
		const maxBuckets = 1000
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: testkit.NewClock(epoch).Now, MaxBuckets: maxBuckets})
		var wg sync.WaitGroup
		for g := range 16 {
			wg.Go(func() {
				for i := range 1000 {
					_, err := l.Allow(ctx, fmt.Sprintf("sdk:%d:%d", g, i), rule)
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, maxBuckets, l.Len(), "every shard filled up to its share of the cap")
	})

	t.Run("expired windows make room before live buckets are evicted", func(t *testing.T) {
		const maxBuckets = 10
		clock := testkit.NewClock(epoch)
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock.Now, MaxBuckets: maxBuckets})
		for i := range maxBuckets {
			_, err := l.Allow(ctx, fmt.Sprintf("old:%d", i), rule)
			require.NoError(t, err)
		}

		clock.Advance(rule.Window)
		for i := range maxBuckets {
			_, err := l.Allow(ctx, fmt.Sprintf("new:%d", i), rule)
			require.NoError(t, err)
		}
		for i := range maxBuckets {
			res, err := l.Allow(ctx, fmt.Sprintf("new:%d", i), rule)
			require.NoError(t, err)
			assert.Equal(t, rule.Limit-2, res.Remaining, "new:%d kept its count", i)
		}
		assert.Equal(t, maxBuckets, l.Len())
	})

	t.Run("zero cap means the default", func(t *testing.T) {
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{})
		res, err := l.Allow(ctx, "key:a", ratelimit.DefaultRule)
		require.NoError(t, err)
		assert.True(t, res.Allowed)
		assert.Equal(t, 59, res.Remaining)
		assert.Positive(t, res.Reset)
	})
}

func TestMemorySweepsStaleWindows(t *testing.T) {
	ctx := context.Background()
	rule := ratelimit.Rule{Limit: 3, Window: 10 * time.Second}

	t.Run("Sweep drops only ended windows", func(t *testing.T) {
		clock := testkit.NewClock(epoch)
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock.Now})
		for i := range 50 {
			_, err := l.Allow(ctx, fmt.Sprintf("key:%d", i), rule)
			require.NoError(t, err)
		}
		_, err := l.Allow(ctx, "key:hourly", ratelimit.Rule{Limit: 3, Window: time.Hour})
		require.NoError(t, err)

		clock.Advance(rule.Window - time.Nanosecond)
		assert.Equal(t, 0, l.Sweep(), "windows still open")
		assert.Equal(t, 51, l.Len())

		clock.Advance(time.Nanosecond)
		assert.Equal(t, 50, l.Sweep())
		assert.Equal(t, 1, l.Len(), "the hourly window is still open")
	})

	t.Run("Allow sweeps lazily", func(t *testing.T) {
		clock := testkit.NewClock(epoch)
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock.Now, MaxBuckets: 100}) // one shard, so every Allow reaches it
		for i := range 50 {
			_, err := l.Allow(ctx, fmt.Sprintf("key:%d", i), rule)
			require.NoError(t, err)
		}

		clock.Advance(2 * time.Minute)
		_, err := l.Allow(ctx, "key:later", rule)
		require.NoError(t, err)
		assert.Equal(t, 1, l.Len())
	})
}
