package account

import (
	"strings"
	"sync"
	"time"
)

// Limiter counts failed sign-ins per key and says how long a key must wait
// before its next attempt. The keys are "login:<email>|<network>" (an
// email from one client network), "email:<email>" (the email from every
// network), "ip:<network>" (a client network, whatever the email) and
// "reauth:<email>" (a signed-in user confirming their password), the
// network being clientip.KeyOf the client address. Implementations are
// safe for concurrent use; MemoryLimiter keeps counts in this process, and
// a shared implementation (Redis) can replace it when several replicas
// serve sign-in.
type Limiter interface {
	// Wait returns how long key is locked out at now; zero when it may try.
	Wait(key string, now time.Time) time.Duration
	// Fail records a failed attempt of key at now.
	Fail(key string, now time.Time)
	// Reset forgets key's failures, after a successful sign-in.
	Reset(key string)
}

// Lockout is the rule of a MemoryLimiter: after Threshold failures a key is
// locked for Base; every further failure locks it for twice as long as the
// last lock, up to Max. Failures are forgotten Forget after the last one.
type Lockout struct {
	Threshold int
	Base, Max time.Duration
	Forget    time.Duration
}

// The default rules. AccountLockout locks an email on one client network
// (and a signed-in user's password confirmations) for 15 minutes after 10
// failures; EmailLockout is the much higher ceiling of an email across
// every network, 100 failures, so that a guesser on one network cannot
// lock the owner of a known email out of their own network; IPLockout
// locks a client network (which many people may share behind NAT) for a
// minute after 20 failures, whatever the emails. Each further failure
// doubles the lock, up to 4 hours (an hour for a network); counts are
// forgotten a day after the last failure.
var (
	AccountLockout = Lockout{Threshold: 10, Base: 15 * time.Minute, Max: 4 * time.Hour, Forget: 24 * time.Hour}
	EmailLockout   = Lockout{Threshold: 100, Base: 15 * time.Minute, Max: 4 * time.Hour, Forget: 24 * time.Hour}
	IPLockout      = Lockout{Threshold: 20, Base: time.Minute, Max: time.Hour, Forget: 24 * time.Hour}
)

// DefaultLockout returns the default rule of key: IPLockout for the keys of
// client networks ("ip:..."), EmailLockout for the email-wide keys
// ("email:..."), AccountLockout for every other key. A shared Limiter
// applies it as MemoryLimiter does.
func DefaultLockout(key string) Lockout {
	switch {
	case strings.HasPrefix(key, "ip:"):
		return IPLockout
	case strings.HasPrefix(key, "email:"):
		return EmailLockout
	}
	return AccountLockout
}

type failures struct {
	count       int
	last        time.Time
	lockedUntil time.Time
}

// MemoryLimiter is the in-process Limiter. Keys that start with "ip:" follow
// IP, keys that start with "email:" follow Email, every other key follows
// Account.
type MemoryLimiter struct {
	Account, Email, IP Lockout

	mu    sync.Mutex
	byKey map[string]*failures
	sweep time.Time
}

// NewMemoryLimiter returns a MemoryLimiter with AccountLockout,
// EmailLockout and IPLockout.
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{Account: AccountLockout, Email: EmailLockout, IP: IPLockout, byKey: map[string]*failures{}}
}

func (l *MemoryLimiter) rule(key string) Lockout {
	switch {
	case strings.HasPrefix(key, "ip:"):
		return l.IP
	case strings.HasPrefix(key, "email:"):
		return l.Email
	}
	return l.Account
}

// Wait implements Limiter.
func (l *MemoryLimiter) Wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.byKey[key]
	if f == nil || !now.Before(f.lockedUntil) {
		return 0
	}
	return f.lockedUntil.Sub(now)
}

// Fail implements Limiter.
func (l *MemoryLimiter) Fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rule(key)
	l.sweepLocked(now)
	f := l.byKey[key]
	if f == nil || now.Sub(f.last) >= r.Forget {
		f = &failures{}
		l.byKey[key] = f
	}
	f.count++
	f.last = now
	if over := f.count - r.Threshold; over >= 0 {
		d := r.Base
		for i := 0; i < over && d < r.Max; i++ {
			d *= 2
		}
		f.lockedUntil = now.Add(min(d, r.Max))
	}
}

// Reset implements Limiter.
func (l *MemoryLimiter) Reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byKey, key)
}

// sweepLocked drops forgotten keys, at most once a minute, so that the map
// stays as small as the set of recently failing keys.
func (l *MemoryLimiter) sweepLocked(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, f := range l.byKey {
		if now.Sub(f.last) >= l.rule(k).Forget && !now.Before(f.lockedUntil) {
			delete(l.byKey, k)
		}
	}
}
