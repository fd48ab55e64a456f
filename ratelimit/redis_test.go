package ratelimit_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

func TestRedisUnreachableIsErrUnavailable(t *testing.T) {
	addr := testkit.FreeAddr(t)
	client := redis.NewClient(&redis.Options{
		Addr:          addr,
		DialTimeout:   100 * time.Millisecond,
		MaxRetries:    -1,
		DialerRetries: 1,
	})
	t.Cleanup(func() { _ = client.Close() })
	l := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: "hoplink-test:", Clock: testkit.NewClock(epoch).Now})

	t.Run("Allow", func(t *testing.T) {
		res, err := l.Allow(context.Background(), "key:a", ratelimit.DefaultRule)
		require.ErrorIs(t, err, ratelimit.ErrUnavailable)
		assert.Equal(t, ratelimit.Result{}, res)
	})

	t.Run("Ping", func(t *testing.T) {
		assert.ErrorIs(t, l.Ping(context.Background()), ratelimit.ErrUnavailable)
	})

	t.Run("a canceled caller is not an outage", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := l.Allow(ctx, "key:a", ratelimit.DefaultRule)
		require.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, ratelimit.ErrUnavailable)
	})

	t.Run("OpenRedis", func(t *testing.T) {
		l, err := ratelimit.OpenRedis("redis://" + addr + "/0")
		require.NoError(t, err, "OpenRedis does not connect")
		t.Cleanup(func() { assert.NoError(t, l.Close()) })
		assert.ErrorIs(t, l.Ping(context.Background()), ratelimit.ErrUnavailable)
		_, err = l.Allow(context.Background(), "key:a", ratelimit.DefaultRule)
		assert.ErrorIs(t, err, ratelimit.ErrUnavailable)
	})
}

func TestOpenRedisRejectsBadURL(t *testing.T) {
	for _, url := range []string{"", "http://127.0.0.1:6379", "redis://127.0.0.1:6379/notanumber"} {
		_, err := ratelimit.OpenRedis(url)
		assert.Error(t, err, url)
	}
}

func TestOpenRedis(t *testing.T) {
	client := testkit.Redis(t) // skips without a server
	l, err := ratelimit.OpenRedis(os.Getenv(testkit.RedisEnv))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	bucket := "test:" + testkit.RedisPrefix(t, client, "ratelimit")
	t.Cleanup(func() { testkit.DeleteRedisKeys(t, client, ratelimit.DefaultRedisPrefix+bucket) })

	require.NoError(t, l.Ping(context.Background()))
	res, err := l.Allow(context.Background(), bucket, ratelimit.DefaultRule)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	assert.Equal(t, 59, res.Remaining)
}

func TestRedisReplicasShareAllowances(t *testing.T) {
	client := testkit.Redis(t)
	prefix := testkit.RedisPrefix(t, client, "ratelimit")
	ctx := context.Background()
	clock := testkit.NewClock(epoch.Add(20 * time.Second))
	rule := ratelimit.Rule{Limit: 4, Window: time.Minute}
	a := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: prefix, Clock: clock.Now})
	b := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: prefix, Clock: clock.Now})
	other := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(t, client, "ratelimit"), Clock: clock.Now})

	for i, l := range []ratelimit.Limiter{a, b, a, b} {
		res, err := l.Allow(ctx, "sdk:k:203.0.113.7", rule)
		require.NoError(t, err)
		assert.Equal(t, rule.Limit-1-i, res.Remaining)
	}
	res, err := b.Allow(ctx, "sdk:k:203.0.113.7", rule)
	require.NoError(t, err)
	assert.False(t, res.Allowed)

	res, err = other.Allow(ctx, "sdk:k:203.0.113.7", rule)
	require.NoError(t, err)
	assert.True(t, res.Allowed, "a different prefix is a different set of counters")
}

func TestRedisKeys(t *testing.T) {
	client := testkit.Redis(t)
	prefix := testkit.RedisPrefix(t, client, "ratelimit")
	ctx := context.Background()
	clock := testkit.NewClock(epoch.Add(20 * time.Second))
	rule := ratelimit.Rule{Limit: 10, Window: time.Minute}
	l := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: prefix, Clock: clock.Now})
	key := prefix + "key:a:" + strconv.FormatInt(epoch.Unix()/60, 10)

	t.Run("are named by bucket and window index and expire after their window", func(t *testing.T) {
		_, err := l.Allow(ctx, "key:a", rule)
		require.NoError(t, err)
		_, err = l.Allow(ctx, "key:a", rule)
		require.NoError(t, err)

		n, err := client.Get(ctx, key).Int64()
		require.NoError(t, err)
		assert.Equal(t, int64(2), n)
		ttl, err := client.PTTL(ctx, key).Result()
		require.NoError(t, err)
		assert.Positive(t, ttl)
		assert.LessOrEqual(t, ttl, 40*time.Second+rule.Window, "remaining window plus one window of grace")
	})

	t.Run("a counter found without expiry is given one", func(t *testing.T) {
		stray := prefix + "key:b:" + strconv.FormatInt(epoch.Unix()/60, 10)
		require.NoError(t, client.Set(ctx, stray, 7, 0).Err())
		res, err := l.Allow(ctx, "key:b", rule)
		require.NoError(t, err)
		assert.Equal(t, rule.Limit-8, res.Remaining)
		ttl, err := client.PTTL(ctx, stray).Result()
		require.NoError(t, err)
		assert.Positive(t, ttl)
	})
}

func TestRedisAndMemoryAgree(t *testing.T) {
	client := testkit.Redis(t)
	ctx := context.Background()
	clock := testkit.NewClock(epoch.Add(7*time.Minute + 33*time.Second + 123*time.Millisecond))
	rule := ratelimit.Rule{Limit: 3, Window: 30 * time.Second}
	mem := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock.Now})
	red := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(t, client, "ratelimit"), Clock: clock.Now})

	for range 3 {
		for range rule.Limit + 2 {
			want, err := mem.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			got, err := red.Allow(ctx, "key:a", rule)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		clock.Advance(17 * time.Second)
	}
}
