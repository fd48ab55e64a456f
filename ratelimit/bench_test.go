package ratelimit_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

func BenchmarkMemoryAllow(b *testing.B) {
	ctx := context.Background()
	rule := ratelimit.DefaultRule

	b.Run("one hot bucket", func(b *testing.B) {
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := l.Allow(ctx, "key:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	})

	b.Run("many buckets", func(b *testing.B) {
		const buckets = 50_000
		names := bucketNames(buckets)
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{})
		var next atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := next.Add(7919)
			for pb.Next() {
				i++
				if _, err := l.Allow(ctx, names[i%buckets], rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	})

	b.Run("churn past the cap", func(b *testing.B) {
		const buckets = 50_000
		names := bucketNames(buckets)
		l := ratelimit.NewMemory(ratelimit.MemoryOptions{MaxBuckets: buckets / 10})
		var next atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := next.Add(7919)
			for pb.Next() {
				i++
				if _, err := l.Allow(ctx, names[i%buckets], rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

func BenchmarkRedisAllow(b *testing.B) {
	client := testkit.Redis(b)
	ctx := context.Background()
	rule := ratelimit.Rule{Limit: 1 << 30, Window: time.Minute}

	b.Run("one hot bucket", func(b *testing.B) {
		l := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(b, client, "ratelimit")})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := l.Allow(ctx, "key:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	})

	b.Run("many buckets", func(b *testing.B) {
		const buckets = 10_000
		names := bucketNames(buckets)
		l := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(b, client, "ratelimit")})
		var next atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := next.Add(7919)
			for pb.Next() {
				i++
				if _, err := l.Allow(ctx, names[i%buckets], rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// bucketNames returns n distinct SDK bucket names, built before the timer
// starts so that the benchmarks measure Allow and not string building.
func bucketNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "sdk:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b:10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256)
	}
	return names
}
