package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/ratelimit"
)

// redisEnv names the variable that holds the URL of a Redis server for the
// tests; the Redis tests are skipped when it is empty.
const redisEnv = "HOPLINK_TEST_REDIS"

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
		client := redisClient(t)
		body(t, func(clock func() time.Time) ratelimit.Limiter {
			return ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testPrefix(t, client), Clock: clock})
		})
	})
}

// redisClient connects to HOPLINK_TEST_REDIS, or skips t when it is unset.
func redisClient(t testing.TB) redis.UniversalClient {
	t.Helper()
	url := os.Getenv(redisEnv)
	if url == "" {
		t.Skip(redisEnv + " is not set")
	}
	opt, err := redis.ParseURL(url)
	require.NoError(t, err)
	client := redis.NewClient(opt)
	t.Cleanup(func() { _ = client.Close() })
	require.NoError(t, client.Ping(context.Background()).Err(), "ping %s", url)
	return client
}

// testPrefix returns a random key prefix whose keys are deleted when t ends.
func testPrefix(t testing.TB, client redis.UniversalClient) string {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:])
	prefix := "hoplink-test:ratelimit:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { deleteKeys(t, client, prefix) })
	return prefix
}

// deleteKeys deletes every key that starts with prefix, which holds no glob
// metacharacters.
func deleteKeys(t testing.TB, client redis.UniversalClient, prefix string) {
	ctx := context.Background()
	var cursor uint64
	for {
		keys, next, err := client.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			t.Errorf("scan %s*: %v", prefix, err)
			return
		}
		if len(keys) > 0 {
			if err := client.Del(ctx, keys...).Err(); err != nil {
				t.Errorf("delete %s*: %v", prefix, err)
				return
			}
		}
		if cursor = next; cursor == 0 {
			return
		}
	}
}
