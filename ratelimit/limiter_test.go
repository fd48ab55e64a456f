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

func TestLimiterConformance(t *testing.T) {
	eachLimiter(t, func(t *testing.T, newLimiter newLimiterFunc) {
		ctx := context.Background()
		rule := ratelimit.Rule{Limit: 5, Window: time.Minute}

		t.Run("allows exactly Limit requests per window, then refuses until it ends", func(t *testing.T) {
			clock := testkit.NewClock(epoch.Add(15 * time.Second))
			l := newLimiter(clock.Now)

			for i := range rule.Limit {
				res, err := l.Allow(ctx, "key:a", rule)
				require.NoError(t, err)
				assert.Equal(t, ratelimit.Result{
					Allowed:   true,
					Limit:     5,
					Remaining: rule.Limit - 1 - i,
					Reset:     45 * time.Second,
				}, res, "request %d", i+1)
			}

			res, err := l.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			assert.Equal(t, ratelimit.Result{
				Allowed:    false,
				Limit:      5,
				Remaining:  0,
				Reset:      45 * time.Second,
				RetryAfter: 45 * time.Second,
			}, res)
			assert.Equal(t, 45, res.RetryAfterSeconds())

			clock.Advance(44*time.Second + 500*time.Millisecond)
			res, err = l.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			assert.False(t, res.Allowed)
			assert.Equal(t, 500*time.Millisecond, res.RetryAfter)
			assert.Equal(t, 1, res.RetryAfterSeconds())
			assert.Equal(t, 1, res.ResetSeconds())
		})

		t.Run("a new window starts the count again", func(t *testing.T) {
			clock := testkit.NewClock(epoch.Add(50 * time.Second))
			l := newLimiter(clock.Now)
			for range rule.Limit + 3 {
				_, err := l.Allow(ctx, "key:a", rule)
				require.NoError(t, err)
			}

			clock.Advance(10 * time.Second) // exactly the next window's start
			res, err := l.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			assert.True(t, res.Allowed)
			assert.Equal(t, rule.Limit-1, res.Remaining)
			assert.Equal(t, time.Minute, res.Reset)

			clock.Advance(3 * time.Minute) // windows with no request in between
			res, err = l.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			assert.Equal(t, rule.Limit-1, res.Remaining)
		})

		t.Run("refused requests are counted and Remaining never goes below zero", func(t *testing.T) {
			clock := testkit.NewClock(epoch)
			l := newLimiter(clock.Now)
			var res ratelimit.Result
			for range 3 * rule.Limit {
				var err error
				res, err = l.Allow(ctx, "key:a", rule)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, res.Remaining, 0)
			}
			assert.False(t, res.Allowed)
			assert.Equal(t, 0, res.Remaining)
			assert.Equal(t, time.Minute, res.RetryAfter)
		})

		t.Run("buckets are independent", func(t *testing.T) {
			clock := testkit.NewClock(epoch)
			l := newLimiter(clock.Now)
			for range rule.Limit + 1 {
				_, err := l.Allow(ctx, "sdk:k1:192.0.2.1", rule)
				require.NoError(t, err)
			}
			for _, bucket := range []string{"sdk:k1:192.0.2.2", "sdk:k2:192.0.2.1", "key:k1", "ip:192.0.2.1"} {
				res, err := l.Allow(ctx, bucket, rule)
				require.NoError(t, err)
				assert.True(t, res.Allowed, bucket)
				assert.Equal(t, rule.Limit-1, res.Remaining, bucket)
			}
		})

		t.Run("windows are aligned to the Unix epoch", func(t *testing.T) {
			clock := testkit.NewClock(epoch.Add(time.Hour + 15*time.Second + 250*time.Millisecond))
			l := newLimiter(clock.Now)
			cases := []struct {
				window time.Duration
				reset  time.Duration
			}{
				{10 * time.Second, 4*time.Second + 750*time.Millisecond},
				{time.Minute, 44*time.Second + 750*time.Millisecond},
				{time.Hour, 59*time.Minute + 44*time.Second + 750*time.Millisecond},
				{time.Millisecond, time.Millisecond},
			}
			for _, c := range cases {
				res, err := l.Allow(ctx, "window:"+c.window.String(), ratelimit.Rule{Limit: 1, Window: c.window})
				require.NoError(t, err)
				assert.Equal(t, c.reset, res.Reset, c.window)
			}
		})

		t.Run("an invalid rule is refused", func(t *testing.T) {
			l := newLimiter(testkit.NewClock(epoch).Now)
			for _, r := range []ratelimit.Rule{
				{Limit: 0, Window: time.Minute},
				{Limit: -1, Window: time.Minute},
				{Limit: 1, Window: 0},
				{Limit: 1, Window: time.Microsecond},
			} {
				_, err := l.Allow(ctx, "key:a", r)
				assert.ErrorIs(t, err, ratelimit.ErrInvalidRule, "%+v", r)
			}
		})

		t.Run("concurrent callers never get more than Limit", func(t *testing.T) {
			l := newLimiter(testkit.NewClock(epoch.Add(30 * time.Second)).Now)
			const goroutines, perGoroutine = 32, 20
			rule := ratelimit.DefaultRule
			var (
				mu        sync.Mutex
				allowed   int
				remaining = map[int]int{}
				wg        sync.WaitGroup
			)
			for g := range goroutines {
				wg.Go(func() {
					for range perGoroutine {
						res, err := l.Allow(ctx, "key:hot", rule)
						if !assert.NoError(t, err) {
							return
						}
						// Other buckets are busy at the same time.
						_, err = l.Allow(ctx, fmt.Sprintf("key:other-%d", g), rule)
						assert.NoError(t, err)
						if res.Allowed {
							mu.Lock()
							allowed++
							remaining[res.Remaining]++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			assert.Equal(t, rule.Limit, allowed)
			for r := range rule.Limit {
				assert.Equal(t, 1, remaining[r], "Remaining %d reported once", r)
			}
		})
	})
}

func TestResultHeaders(t *testing.T) {
	cases := []struct {
		name   string
		res    ratelimit.Result
		reset  int
		retry  int
		header map[string]string
	}{
		{
			name:  "allowed request has no Retry-After",
			res:   ratelimit.Result{Allowed: true, Limit: 60, Remaining: 59, Reset: 42 * time.Second},
			reset: 42,
			header: map[string]string{
				"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "42",
			},
		},
		{
			name:  "partial seconds round up",
			res:   ratelimit.Result{Allowed: true, Limit: 60, Remaining: 0, Reset: 41*time.Second + time.Nanosecond},
			reset: 42,
			header: map[string]string{
				"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "42",
			},
		},
		{
			name:  "refused request carries Retry-After",
			res:   ratelimit.Result{Limit: 60, Reset: 1500 * time.Millisecond, RetryAfter: 1500 * time.Millisecond},
			reset: 2,
			retry: 2,
			header: map[string]string{
				"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2", "Retry-After": "2",
			},
		},
		{
			name:  "refused request never says retry after 0 seconds",
			res:   ratelimit.Result{Limit: 60, Reset: time.Nanosecond, RetryAfter: 0},
			reset: 1,
			retry: 1,
			header: map[string]string{
				"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1", "Retry-After": "1",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.reset, c.res.ResetSeconds())
			assert.Equal(t, c.retry, c.res.RetryAfterSeconds())
			got := map[string]string{}
			c.res.SetHeaders(func(name, value string) { got[name] = value })
			assert.Equal(t, c.header, got)
		})
	}
}

func TestDefaultRuleIsSpecRate(t *testing.T) {
	assert.Equal(t, ratelimit.Rule{Limit: 60, Window: time.Minute}, ratelimit.DefaultRule)
	assert.NoError(t, ratelimit.DefaultRule.Validate())
}

func ExampleResult_SetHeaders() {
	clock := func() time.Time { return time.Date(2030, 1, 1, 12, 0, 59, 500_000_000, time.UTC) }
	l := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock})
	rule := ratelimit.Rule{Limit: 1, Window: time.Minute}
	for range 2 {
		res, _ := l.Allow(context.Background(), "key:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", rule)
		fmt.Println("allowed:", res.Allowed)
		res.SetHeaders(func(name, value string) { fmt.Printf("  %s: %s\n", name, value) })
	}
	// Output:
	// allowed: true
	//   X-RateLimit-Limit: 1
	//   X-RateLimit-Remaining: 0
	//   X-RateLimit-Reset: 1
	// allowed: false
	//   X-RateLimit-Limit: 1
	//   X-RateLimit-Remaining: 0
	//   X-RateLimit-Reset: 1
	//   Retry-After: 1
}
