package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// DefaultMaxBuckets is the bucket cap NewMemory uses when
// MemoryOptions.MaxBuckets is zero or negative: room for 100,000 keys and client IPs per window, a few
// tens of megabytes at most.
const DefaultMaxBuckets = 100_000

const (
	// maxShards bounds the number of independently locked shards.
	maxShards = 64
	// minShardBuckets is the smallest share of the cap a shard gets, so a
	// small cap is not split into shards too small to be useful.
	minShardBuckets = 64
	// sweepInterval is how often each shard drops its expired windows while
	// serving Allow.
	sweepInterval = time.Minute
	// evictSample is the number of live buckets inspected to choose a victim
	// when a shard is full of live windows.
	evictSample = 8
)

// Memory is a Limiter that counts in this process. It is safe for
// concurrent use and needs no Close: it starts no goroutine.
//
// Buckets are spread over up to 64 independently locked shards. Memory is
// bounded in two ways. Expired windows are dropped lazily: each shard sweeps
// itself at most once a minute while serving Allow, and whenever it is full;
// Sweep drops them all at once. The number of buckets never exceeds the cap
// (MemoryOptions.MaxBuckets), which is divided evenly among the shards, so one shard
// may start evicting slightly before the total reaches the cap.
//
// When a shard is full even after dropping its expired windows, Memory
// evicts a live bucket to make room for the new one, never refusing or
// ignoring the newcomer: it samples a few buckets and evicts the one with
// the lowest count, whose counter restarts from zero if it comes back within
// the same window. Eviction thus fails open for the evicted bucket only, and
// by at most the requests it had already used in that window. A cap sized above the number of
// distinct buckets expected per window avoids eviction entirely.
type Memory struct {
	clock  func() time.Time
	seed   maphash.Seed
	shards []memShard
}

var _ Limiter = (*Memory)(nil)

type memShard struct {
	mu        sync.Mutex
	buckets   map[string]memEntry
	cap       int
	nextSweep int64 // Unix nanoseconds
	minEnd    int64 // no entry's window ends before this; may be early
	_         [24]byte
}

// memEntry is the count of one bucket in the window [start, end), in Unix
// nanoseconds.
type memEntry struct {
	start, end int64
	count      int64
}

// MemoryOptions configure a Memory limiter. Every zero value means the
// documented default.
type MemoryOptions struct {
	// Clock is the time windows are counted in; time.Now when nil.
	Clock func() time.Time
	// MaxBuckets is how many buckets are tracked at most;
	// DefaultMaxBuckets when zero or negative.
	MaxBuckets int
}

// NewMemory returns an in-process Limiter.
func NewMemory(opts MemoryOptions) *Memory {
	clock, maxBuckets := opts.Clock, opts.MaxBuckets
	if clock == nil {
		clock = time.Now
	}
	if maxBuckets <= 0 {
		maxBuckets = DefaultMaxBuckets
	}
	n := min(maxShards, max(1, maxBuckets/minShardBuckets))
	m := &Memory{clock: clock, seed: maphash.MakeSeed(), shards: make([]memShard, n)}
	for i := range m.shards {
		s := &m.shards[i]
		s.cap = maxBuckets / n
		if i < maxBuckets%n {
			s.cap++
		}
		s.buckets = make(map[string]memEntry)
		s.minEnd = math.MaxInt64
	}
	return m
}

// Allow implements Limiter. It never blocks on I/O, ignores ctx, and fails
// only when rule is invalid.
func (m *Memory) Allow(_ context.Context, bucket string, rule Rule) (Result, error) {
	if err := rule.Validate(); err != nil {
		return Result{}, err
	}
	now := m.clock()
	index, reset := windowAt(now, rule.Window)
	w := int64(rule.Window)
	start := index * w
	nowNanos := now.UnixNano()

	s := &m.shards[maphash.String(m.seed, bucket)%uint64(len(m.shards))]
	s.mu.Lock()
	if nowNanos >= s.nextSweep {
		s.sweep(nowNanos)
		s.nextSweep = nowNanos + int64(sweepInterval)
	}
	e, ok := s.buckets[bucket]
	if !ok && len(s.buckets) >= s.cap {
		s.makeRoom(nowNanos)
	}
	if !ok || e.start != start || e.end != start+w {
		e = memEntry{start: start, end: start + w}
	}
	e.count++
	s.buckets[bucket] = e
	s.minEnd = min(s.minEnd, e.end)
	s.mu.Unlock()

	return result(rule, e.count, reset), nil
}

// Len returns the number of buckets currently tracked, expired windows not
// yet swept included. It never exceeds MemoryOptions.MaxBuckets.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.buckets)
		s.mu.Unlock()
	}
	return n
}

// Sweep drops every bucket whose window has ended and returns how many it
// dropped. Allow sweeps lazily, so calling Sweep is never required; an owner
// may call it on its own schedule to release memory sooner.
func (m *Memory) Sweep() int {
	now := m.clock().UnixNano()
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += s.sweep(now)
		s.mu.Unlock()
	}
	return n
}

// sweep drops the expired entries of s, returns how many it dropped and
// brings s.minEnd up to date. It skips the scan when s.minEnd shows that no
// window has ended yet. The caller holds s.mu.
func (s *memShard) sweep(now int64) int {
	if now < s.minEnd {
		return 0
	}
	n := 0
	minEnd := int64(math.MaxInt64)
	for k, e := range s.buckets {
		if now >= e.end {
			delete(s.buckets, k)
			n++
		} else {
			minEnd = min(minEnd, e.end)
		}
	}
	s.minEnd = minEnd
	return n
}

// makeRoom frees at least one slot in the full shard s: by dropping expired
// entries when there are any, otherwise by evicting the entry with the lowest
// count among a sample. Go randomises map iteration order, so the sample
// differs from call to call. The caller holds s.mu.
func (s *memShard) makeRoom(now int64) {
	if s.sweep(now) > 0 {
		return
	}
	var (
		victim string
		lowest int64 = -1
		seen   int
	)
	for k, e := range s.buckets {
		if lowest < 0 || e.count < lowest {
			victim, lowest = k, e.count
		}
		if seen++; seen == evictSample {
			break
		}
	}
	if lowest >= 0 {
		delete(s.buckets, victim)
	}
}
