package ratelimit_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

// lockoutRules are account's default rules as ratelimit.LockoutRules.
func lockoutRules(key string) ratelimit.LockoutRule {
	r := account.DefaultLockout(key)
	return ratelimit.LockoutRule{Threshold: r.Threshold, Base: r.Base, Max: r.Max, Forget: r.Forget}
}

// eachLockout runs body against account's MemoryLimiter, MemoryLockout
// and, when HOPLINK_TEST_REDIS is set, the Redis one: all must behave alike.
func eachLockout(t *testing.T, body func(t *testing.T, l account.Limiter)) {
	t.Run("account memory", func(t *testing.T) { body(t, account.NewMemoryLimiter()) })
	t.Run("memory", func(t *testing.T) { body(t, ratelimit.NewMemoryLockout(lockoutRules)) })
	t.Run("redis", func(t *testing.T) {
		client := testkit.Redis(t)
		body(t, ratelimit.NewRedisLockout(client, lockoutRules,
			ratelimit.RedisLockoutOptions{Prefix: testkit.RedisPrefix(t, client, "ratelimit"), Logger: slog.New(slog.DiscardHandler)}))
	})
}

func TestLockoutGrowsAndResets(t *testing.T) {
	eachLockout(t, func(t *testing.T, l account.Limiter) {
		now := epoch
		key := "email:ann@example.com"
		for i := range 4 {
			l.Fail(key, now)
			assert.Zero(t, l.Wait(key, now), "below the threshold after %d failures", i+1)
		}
		l.Fail(key, now)
		assert.Equal(t, time.Minute, l.Wait(key, now), "the fifth failure locks for a minute")
		assert.Equal(t, 30*time.Second, l.Wait(key, now.Add(30*time.Second)), "the lock runs down")
		assert.Zero(t, l.Wait(key, now.Add(time.Minute)), "and ends")

		wants := []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour}
		for _, want := range wants {
			now = now.Add(time.Hour)
			l.Fail(key, now)
			assert.Equal(t, want, l.Wait(key, now), "each further failure doubles the lock, up to an hour")
		}
		assert.Zero(t, l.Wait("email:other@example.com", now), "keys are apart")

		l.Reset(key)
		assert.Zero(t, l.Wait(key, now), "a success forgets the key")
		l.Fail(key, now)
		assert.Zero(t, l.Wait(key, now), "and counting starts again")

		for range 5 {
			l.Fail(key, now)
		}
		assert.Positive(t, l.Wait(key, now))
		later := now.Add(24 * time.Hour)
		l.Fail(key, later)
		assert.Zero(t, l.Wait(key, later), "failures a day old are forgotten")

		ip := "ip:192.0.2.1"
		for range 19 {
			l.Fail(ip, now)
		}
		assert.Zero(t, l.Wait(ip, now), "an IP address gets 20 failures")
		l.Fail(ip, now)
		assert.Equal(t, time.Minute, l.Wait(ip, now))
	})
}

func TestRedisLockoutFailsOpen(t *testing.T) {
	// Nothing listens on this port; every command fails at once.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	l := ratelimit.NewRedisLockout(client, lockoutRules,
		ratelimit.RedisLockoutOptions{Prefix: "hoplink-test:", Logger: slog.New(slog.DiscardHandler)})
	for range 6 {
		l.Fail("email:ann@example.com", epoch)
	}
	assert.Zero(t, l.Wait("email:ann@example.com", epoch), "an unreachable Redis locks no one out")
	l.Reset("email:ann@example.com")
}
