package ratelimit_test

import (
	"testing"
	"time"

	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

// epoch is a minute boundary: 2030-01-01T00:00:00Z is a whole number of
// minutes, and of hours, after the Unix epoch.
var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// newLimiterFunc builds a fresh limiter, with buckets of its own, that reads
// the time from clock.
type newLimiterFunc func(clock func() time.Time) ratelimit.Limiter

// eachLimiter runs body against every implementation: Memory always, Redis
// when HOPLINK_TEST_REDIS holds a URL.
func eachLimiter(t *testing.T, body func(t *testing.T, newLimiter newLimiterFunc)) {
	t.Run("memory", func(t *testing.T) {
		body(t, func(clock func() time.Time) ratelimit.Limiter {
			return ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock})
		})
	})
	t.Run("redis", func(t *testing.T) {
		client := testkit.Redis(t)
		body(t, func(clock func() time.Time) ratelimit.Limiter {
			return ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(t, client, "ratelimit"), Clock: clock})
		})
	})
}
