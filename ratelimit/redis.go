package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix is the key prefix OpenRedis uses.
const DefaultRedisPrefix = "hoplink:ratelimit:"

// allowScript counts one request in KEYS[1] and returns {count, pttl}. The
// key expires ARGV[1] milliseconds after its first increment; a key found
// without an expiry (written by something else) is given one too, so no
// counter outlives its window by long. The expiry only collects garbage:
// windows and Reset come from the caller's clock, as in Memory.
var allowScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {n, ttl}
`)

// Redis is a Limiter whose counters live in Redis, so that every replica
// sharing the server shares each bucket's allowance. It is safe for
// concurrent use.
//
// Each Allow is one round trip: a Lua script, sent with EVALSHA (EVAL only
// the first time a server lacks it), increments the key
// <prefix><bucket>:<window index> and sets its expiry on the first
// increment. The window index comes from the injected clock exactly as in
// Memory; the key expires one window after its window ends, which leaves
// room for clock skew between replicas.
type Redis struct {
	client redis.UniversalClient
	prefix string
	clock  func() time.Time
	owned  bool
}

var _ Limiter = (*Redis)(nil)

// RedisOptions configure a Redis limiter. Every zero value means the
// documented default.
type RedisOptions struct {
	// Prefix starts every key: <prefix><bucket>:<window index>. Replicas
	// that must share allowances use the same prefix. If empty, keys have
	// no prefix (OpenRedis uses DefaultRedisPrefix).
	Prefix string
	// Clock is the time windows are counted in; time.Now when nil.
	Clock func() time.Time
}

// NewRedis returns a Limiter that counts in Redis through client. The
// client stays the caller's: Close does not close it.
func NewRedis(client redis.UniversalClient, opts RedisOptions) *Redis {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Redis{client: client, prefix: opts.Prefix, clock: opts.Clock}
}

// OpenRedis parses a redis:// or rediss:// URL (the --redis flag; see
// redis.ParseURL for the options it accepts) and returns a Redis limiter with
// DefaultRedisPrefix and the system clock. It does not connect: the first
// Allow or Ping does, and Close closes the client it created. It returns an
// error when the URL is invalid.
//
// Because a rate-limit check sits in front of every request and its failure
// is meant to fail open, the client is tuned to give up quickly: context
// deadlines bound every command, a connection is dialled once instead of
// five times, and unless the URL says otherwise max_retries is 1,
// dial_timeout is 1s, and read_timeout and write_timeout are 500ms
// (go-redis defaults: 3, 5s, 3s, 3s).
func OpenRedis(url string) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: parse redis url: %w", err)
	}
	opt.ContextTimeoutEnabled = true
	opt.DialerRetries = 1
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = time.Second
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = 500 * time.Millisecond
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = 500 * time.Millisecond
	}
	r := NewRedis(redis.NewClient(opt), RedisOptions{Prefix: DefaultRedisPrefix})
	r.owned = true
	return r, nil
}

// Allow implements Limiter. It returns an error wrapping ErrUnavailable
// (and the client's error) when Redis cannot be reached, times out or
// replies with an error, and an error wrapping context.Canceled, but not
// ErrUnavailable, when ctx was canceled: the caller has gone, so there is
// nothing to fail open for.
func (r *Redis) Allow(ctx context.Context, bucket string, rule Rule) (Result, error) {
	if err := rule.Validate(); err != nil {
		return Result{}, err
	}
	index, reset := windowAt(r.clock(), rule.Window)
	ttl := (reset + rule.Window + time.Millisecond - 1) / time.Millisecond

	vals, err := allowScript.Run(ctx, r.client, []string{r.key(bucket, index)}, int64(ttl)).Int64Slice()
	if err != nil {
		return Result{}, r.wrap(err)
	}
	if len(vals) != 2 {
		return Result{}, fmt.Errorf("ratelimit: redis: unexpected script reply %v", vals)
	}
	return result(rule, vals[0], reset), nil
}

// Ping checks that Redis answers. It returns an error wrapping
// ErrUnavailable when it does not, so a binary can log the problem at start
// without refusing to start.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return r.wrap(err)
	}
	return nil
}

// Close closes the client when OpenRedis created it, and does nothing for a
// client passed to NewRedis.
func (r *Redis) Close() error {
	if !r.owned {
		return nil
	}
	if err := r.client.Close(); err != nil {
		return fmt.Errorf("ratelimit: close redis: %w", err)
	}
	return nil
}

func (r *Redis) key(bucket string, index int64) string {
	var b strings.Builder
	b.Grow(len(r.prefix) + len(bucket) + 21)
	b.WriteString(r.prefix)
	b.WriteString(bucket)
	b.WriteByte(':')
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], index, 10))
	return b.String()
}

func (r *Redis) wrap(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return fmt.Errorf("ratelimit: redis: %w: %w", ErrUnavailable, err)
}
