package ratelimit

import (
	"context"
	"strings"
)

// Observed is a Limiter that tells a function of every request its Limiter
// refuses, by the name of the limit: the bucket's prefix up to its first
// colon ("key", "sdk", "ip", "oauth", "oauth-register", "linkpw"; see the
// rules' doc for how adapters name buckets). A bucket without a colon is
// named "other", so that a name never carries a key id or an address.
type Observed struct {
	// Limiter counts the requests.
	Limiter
	rejected func(limit string)
}

// Observe returns l telling rejected of each request it refuses; rejected
// runs on the request's goroutine and must not block. A nil rejected
// returns l as it is.
func Observe(l Limiter, rejected func(limit string)) Limiter {
	if l == nil || rejected == nil {
		return l
	}
	return &Observed{Limiter: l, rejected: rejected}
}

// Allow implements Limiter.
func (o *Observed) Allow(ctx context.Context, bucket string, rule Rule) (Result, error) {
	res, err := o.Limiter.Allow(ctx, bucket, rule)
	if err == nil && !res.Allowed {
		o.rejected(LimitName(bucket))
	}
	return res, err
}

// LimitName is the name of the limit of bucket: its prefix up to the first
// colon, or "other" when it has none.
func LimitName(bucket string) string {
	name, _, ok := strings.Cut(bucket, ":")
	if !ok || name == "" {
		return "other"
	}
	return name
}

// Unwrap returns the Limiter an Observed wraps, and l itself otherwise: so
// that a caller can tell the Redis limiter under it.
func Unwrap(l Limiter) Limiter {
	if o, ok := l.(*Observed); ok {
		return o.Limiter
	}
	return l
}
