package ratelimit

import (
	"sync"
	"time"
)

// Lockout counts failures per key and says how long a key must wait before
// its next try, under a LockoutRule per key: the growing lockouts of
// sign-in and of link passwords. MemoryLockout counts in this process and
// RedisLockout among replicas; both apply a rule the same way.
// Implementations are safe for concurrent use and fail open.
type Lockout interface {
	// Wait returns how long key is locked at now; zero when it may try.
	Wait(key string, now time.Time) time.Duration
	// Fail records a failed attempt of key at now.
	Fail(key string, now time.Time)
	// Reset forgets key's failures.
	Reset(key string)
}

var (
	_ Lockout = (*MemoryLockout)(nil)
	_ Lockout = (*RedisLockout)(nil)
)

// MemoryLockout is the in-process Lockout. It applies the rule as
// RedisLockout's script does: a key last failed at least Forget ago starts
// again from nothing; the Threshold-th failure locks the key for Base and
// every further one for twice the last lock, up to Max.
type MemoryLockout struct {
	rule func(key string) LockoutRule

	mu    sync.Mutex
	byKey map[string]*lockState
	sweep time.Time
}

type lockState struct {
	count       int
	last        time.Time
	lockedUntil time.Time
}

// NewMemoryLockout returns an in-process Lockout applying rule(key) to each
// key.
func NewMemoryLockout(rule func(key string) LockoutRule) *MemoryLockout {
	return &MemoryLockout{rule: rule, byKey: map[string]*lockState{}}
}

// Wait implements Lockout.
func (l *MemoryLockout) Wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.byKey[key]
	if s == nil || !now.Before(s.lockedUntil) {
		return 0
	}
	return s.lockedUntil.Sub(now)
}

// Fail implements Lockout.
func (l *MemoryLockout) Fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rule(key)
	l.sweepLocked(now)
	s := l.byKey[key]
	if s == nil || now.Sub(s.last) >= r.Forget {
		s = &lockState{}
		l.byKey[key] = s
	}
	s.count++
	s.last = now
	if over := s.count - r.Threshold; over >= 0 {
		d := r.Base
		for i := 0; i < over && d < r.Max; i++ {
			d *= 2
		}
		s.lockedUntil = now.Add(min(d, r.Max))
	}
}

// Reset implements Lockout.
func (l *MemoryLockout) Reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byKey, key)
}

// sweepLocked drops forgotten keys whose lock is over, at most once a
// minute, so that the map holds only recently failing keys.
func (l *MemoryLockout) sweepLocked(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, s := range l.byKey {
		if now.Sub(s.last) >= l.rule(k).Forget && !now.Before(s.lockedUntil) {
			delete(l.byKey, k)
		}
	}
}
