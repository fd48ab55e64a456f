package ratelimit

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// LockoutRule is a growing lockout (package account's Lockout): after
// Threshold failures a key is locked for Base, every further failure locks
// it for twice as long as the last lock, up to Max, and failures are
// forgotten Forget after the last one.
type LockoutRule struct {
	Threshold int
	Base, Max time.Duration
	Forget    time.Duration
}

// failScript records one failure of KEYS[1] at ARGV[1] (Unix milliseconds)
// under the rule ARGV[2..5] (threshold, base, max, forget, milliseconds)
// and returns the end of the key's lock (0 when not locked). A key last
// failed at least forget ago starts again from nothing. The key expires
// when both its failures are forgotten and its lock is over.
var failScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local threshold = tonumber(ARGV[2])
local base = tonumber(ARGV[3])
local maxd = tonumber(ARGV[4])
local forget = tonumber(ARGV[5])
local v = redis.call('HMGET', KEYS[1], 'count', 'last', 'locked')
local count = tonumber(v[1]) or 0
local last = tonumber(v[2]) or 0
local locked = tonumber(v[3]) or 0
if count == 0 or now - last >= forget then
  count = 0
  locked = 0
end
count = count + 1
if count >= threshold then
  local d = base
  local over = count - threshold
  while over > 0 and d < maxd do
    d = d * 2
    over = over - 1
  end
  if d > maxd then d = maxd end
  locked = now + d
end
redis.call('HSET', KEYS[1], 'count', count, 'last', now, 'locked', locked)
local ttl = forget
if locked - now > ttl then ttl = locked - now end
redis.call('PEXPIRE', KEYS[1], ttl)
return locked
`)

// RedisLockout counts failed sign-ins in Redis, so that every replica sees
// the same lockouts; it implements package account's Limiter. Each key is
// a hash <prefix>lockout:<key> with the failure count and the times of the
// last failure and of the lock's end, all from the caller's clock.
//
// Like the rate limits, it fails open: when Redis cannot be reached within
// RedisLockoutOptions.Timeout, Wait says the key may try and Fail records nothing, and both log
// a warning. Passwords stay slow to guess meanwhile: each check is argon2id.
type RedisLockout struct {
	client  redis.UniversalClient
	prefix  string
	rule    func(key string) LockoutRule
	log     *slog.Logger
	timeout time.Duration
}

// DefaultLockoutTimeout bounds each Redis command of a RedisLockout when
// RedisLockoutOptions names no timeout.
const DefaultLockoutTimeout = time.Second

// RedisLockoutOptions configure a RedisLockout. Every zero value means the
// documented default.
type RedisLockoutOptions struct {
	// Prefix starts every key: <prefix>lockout:<key>. If empty, keys have
	// no prefix.
	Prefix string
	// Logger receives the warnings of failing open; slog.Default when nil.
	Logger *slog.Logger
	// Timeout bounds each Redis command; DefaultLockoutTimeout when zero.
	Timeout time.Duration
}

// NewRedisLockout returns a lockout counter over client, applying rule(key)
// to each key.
func NewRedisLockout(client redis.UniversalClient, rule func(key string) LockoutRule, opts RedisLockoutOptions) *RedisLockout {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultLockoutTimeout
	}
	return &RedisLockout{client: client, prefix: opts.Prefix, rule: rule, log: opts.Logger, timeout: opts.Timeout}
}

// Lockout returns a RedisLockout over r's client and prefix, applying
// rule(key) to each key; a nil log is slog.Default.
func (r *Redis) Lockout(rule func(key string) LockoutRule, log *slog.Logger) *RedisLockout {
	return NewRedisLockout(r.client, rule, RedisLockoutOptions{Prefix: r.prefix, Logger: log})
}

func (l *RedisLockout) key(key string) string { return l.prefix + "lockout:" + key }

func (l *RedisLockout) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), l.timeout)
}

// Wait returns how long key is locked at now; zero when it may try, or
// when Redis does not answer.
func (l *RedisLockout) Wait(key string, now time.Time) time.Duration {
	ctx, cancel := l.ctx()
	defer cancel()
	locked, err := l.client.HGet(ctx, l.key(key), "locked").Int64()
	if err == redis.Nil {
		return 0
	}
	if err != nil {
		l.log.Warn("sign-in lockout: redis did not answer; letting the attempt through", "err", err)
		return 0
	}
	if d := time.UnixMilli(locked).Sub(now); d > 0 {
		return d
	}
	return 0
}

// Fail records a failed attempt of key at now.
func (l *RedisLockout) Fail(key string, now time.Time) {
	r := l.rule(key)
	ctx, cancel := l.ctx()
	defer cancel()
	err := failScript.Run(ctx, l.client, []string{l.key(key)}, now.UnixMilli(), r.Threshold,
		r.Base.Milliseconds(), r.Max.Milliseconds(), r.Forget.Milliseconds()).Err()
	if err != nil {
		l.log.Warn("sign-in lockout: redis did not record a failure", "err", err)
	}
}

// Reset forgets key's failures.
func (l *RedisLockout) Reset(key string) {
	ctx, cancel := l.ctx()
	defer cancel()
	if err := l.client.Del(ctx, l.key(key)).Err(); err != nil {
		l.log.Warn("sign-in lockout: redis did not forget a key", "err", err)
	}
}
