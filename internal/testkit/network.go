package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// RedisEnv names the variable that holds the URL of the Redis server the
// tests may use; tests that need Redis are skipped when it is empty.
const RedisEnv = "HOPLINK_TEST_REDIS"

// Redis connects to the server named by RedisEnv and closes the client when
// t ends, or skips t when the variable is empty. A server that does not
// answer a PING fails t.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	url := os.Getenv(RedisEnv)
	if url == "" {
		t.Skip(RedisEnv + " is not set")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("testkit: %s: %v", RedisEnv, err)
	}
	client := redis.NewClient(opt)
	t.Cleanup(func() { _ = client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("testkit: ping %s: %v", url, err)
	}
	return client
}

// RedisPrefix returns a key prefix of its own for t ("hoplink-test:" + scope
// + ":" + random hex + ":") and deletes every key under it when t ends, so
// that tests sharing one Redis server neither see nor leave each other's
// keys.
func RedisPrefix(t testing.TB, client redis.UniversalClient, scope string) string {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error
	prefix := "hoplink-test:" + scope + ":" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { DeleteRedisKeys(t, client, prefix) })
	return prefix
}

// DeleteRedisKeys deletes every key that starts with prefix, which holds no
// glob metacharacter, with SCAN and DEL; a failure fails t.
func DeleteRedisKeys(t testing.TB, client redis.UniversalClient, prefix string) {
	ctx := context.Background()
	var cursor uint64
	for {
		keys, next, err := client.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			t.Errorf("testkit: scan %s*: %v", prefix, err)
			return
		}
		if len(keys) > 0 {
			if err := client.Del(ctx, keys...).Err(); err != nil {
				t.Errorf("testkit: delete %s*: %v", prefix, err)
				return
			}
		}
		if cursor = next; cursor == 0 {
			return
		}
	}
}

// FreeAddr returns a loopback address ("127.0.0.1:port") whose port was free
// a moment ago: nothing listens there, until a test starts a server on it.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: listen on loopback: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("testkit: close %s: %v", addr, err)
	}
	return addr
}
