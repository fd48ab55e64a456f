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
		key := "login:ann@example.com|192.0.2.1"
		r := account.AccountLockout
		for i := range r.Threshold - 1 {
			l.Fail(key, now)
			assert.Zero(t, l.Wait(key, now), "below the threshold after %d failures", i+1)
		}
		l.Fail(key, now)
		assert.Equal(t, r.Base, l.Wait(key, now), "the threshold's failure locks for Base")
		assert.Equal(t, r.Base-time.Minute, l.Wait(key, now.Add(time.Minute)), "the lock runs down")
		assert.Zero(t, l.Wait(key, now.Add(r.Base)), "and ends")

		want := r.Base
		for range 6 {
			want = min(2*want, r.Max)
			now = now.Add(r.Max)
			l.Fail(key, now)
			assert.Equal(t, want, l.Wait(key, now), "each further failure doubles the lock, up to Max")
		}
		assert.Equal(t, r.Max, want, "the loop reached Max")
		assert.Zero(t, l.Wait("login:other@example.com|192.0.2.1", now), "keys are apart")

		l.Reset(key)
		assert.Zero(t, l.Wait(key, now), "a success forgets the key")
		l.Fail(key, now)
		assert.Zero(t, l.Wait(key, now), "and counting starts again")

		for range r.Threshold {
			l.Fail(key, now)
		}
		assert.Positive(t, l.Wait(key, now))
		later := now.Add(24 * time.Hour)
		l.Fail(key, later)
		assert.Zero(t, l.Wait(key, later), "failures a day old are forgotten")

		email := "email:ann@example.com"
		for range account.EmailLockout.Threshold - 1 {
			l.Fail(email, now)
		}
		assert.Zero(t, l.Wait(email, now), "an email across networks gets 100 failures")
		l.Fail(email, now)
		assert.Equal(t, account.EmailLockout.Base, l.Wait(email, now))

		ip := "ip:192.0.2.1"
		for range 19 {
			l.Fail(ip, now)
		}
		assert.Zero(t, l.Wait(ip, now), "a client network gets 20 failures")
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
