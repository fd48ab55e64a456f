package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Limiter counts requests in named buckets. Implementations are safe for
// concurrent use, and every implementation in this package computes windows
// the same way (see the package documentation), so replicas using different
// implementations agree on when a window starts and ends.
type Limiter interface {
	// Allow counts one request against bucket under rule and reports the
	// outcome. The request is allowed while the bucket's count in the current
	// window is at most rule.Limit; refused requests are counted too. Allow
	// returns an error wrapping ErrInvalidRule when rule is not valid, and an
	// error wrapping ErrUnavailable when the counter cannot be consulted; the
	// Result is then the zero value.
	Allow(ctx context.Context, bucket string, rule Rule) (Result, error)
}

// ErrInvalidRule is wrapped by the error Allow returns when the rule has a
// Limit below 1 or a Window shorter than one millisecond.
var ErrInvalidRule = errors.New("invalid rate-limit rule")

// ErrUnavailable is wrapped by the error Allow returns when a shared counter
// (Redis) cannot be reached, times out or refuses the command. Callers are
// expected to fail open: serve the request and log the error.
var ErrUnavailable = errors.New("rate limiter unavailable")

// DefaultRule is SPEC.md's request rate: 60 requests per minute. It applies
// to per-key buckets on normal routes and to per-key-per-IP buckets on the SDK
// routes.
var DefaultRule = Rule{Limit: 60, Window: time.Minute}

// Rule is a limit of Limit requests per Window.
type Rule struct {
	// Limit is the number of requests allowed per window; at least 1.
	Limit int
	// Window is the length of a window; at least one millisecond. Windows are
	// aligned to the Unix epoch, so a one-minute window starts on the minute.
	Window time.Duration
}

// Validate returns an error wrapping ErrInvalidRule when r.Limit is below 1 or
// r.Window is shorter than one millisecond, and nil otherwise.
func (r Rule) Validate() error {
	if r.Limit < 1 {
		return fmt.Errorf("ratelimit: limit %d: %w", r.Limit, ErrInvalidRule)
	}
	if r.Window < time.Millisecond {
		return fmt.Errorf("ratelimit: window %s: %w", r.Window, ErrInvalidRule)
	}
	return nil
}

// Result is the outcome of one Allow call.
type Result struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the rule's limit: the value of X-RateLimit-Limit.
	Limit int
	// Remaining is the number of further requests the window allows: the
	// value of X-RateLimit-Remaining. It is never negative.
	Remaining int
	// Reset is the time until the current window ends and the count starts
	// again. It is always positive in a Result returned by Allow.
	Reset time.Duration
	// RetryAfter is the time the client must wait before a request can be
	// allowed: Reset when the request was refused, zero when it was allowed.
	RetryAfter time.Duration
}

// Header names written by Result.SetHeaders (SPEC.md, Limits).
const (
	// HeaderLimit carries Result.Limit, the maximum per window.
	HeaderLimit = "X-RateLimit-Limit"
	// HeaderRemaining carries Result.Remaining.
	HeaderRemaining = "X-RateLimit-Remaining"
	// HeaderReset carries Result.ResetSeconds, the seconds until the window
	// resets.
	HeaderReset = "X-RateLimit-Reset"
	// HeaderRetryAfter carries Result.RetryAfterSeconds on a refused request.
	HeaderRetryAfter = "Retry-After"
)

// ResetSeconds returns Reset rounded up to whole seconds, the value of
// X-RateLimit-Reset. It is at least 1 whenever Reset is positive, so a client
// never reads "0" while the window is still open.
func (r Result) ResetSeconds() int {
	return ceilSeconds(r.Reset)
}

// RetryAfterSeconds returns RetryAfter rounded up to whole seconds, the value
// of Retry-After (RFC 9110, section 10.2.3). It is 0 for an allowed request
// and at least 1 for a refused one.
func (r Result) RetryAfterSeconds() int {
	if r.Allowed {
		return 0
	}
	return max(1, ceilSeconds(r.RetryAfter))
}

// SetHeaders calls set once for each of X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset, and for Retry-After when the
// request was refused. Pass an http.Header's Set method:
//
//	res.SetHeaders(w.Header().Set)
func (r Result) SetHeaders(set func(name, value string)) {
	set(HeaderLimit, strconv.Itoa(r.Limit))
	set(HeaderRemaining, strconv.Itoa(r.Remaining))
	set(HeaderReset, strconv.Itoa(r.ResetSeconds()))
	if !r.Allowed {
		set(HeaderRetryAfter, strconv.Itoa(r.RetryAfterSeconds()))
	}
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// windowAt returns the index of the epoch-aligned window of length w that
// holds now, and the time from now until that window ends (always > 0).
func windowAt(now time.Time, w time.Duration) (index int64, reset time.Duration) {
	n, d := now.UnixNano(), int64(w)
	index = n / d
	if n%d < 0 {
		index-- // floor division for instants before 1970
	}
	return index, time.Duration((index+1)*d - n)
}

// result turns the count of the current window into a Result. Both
// implementations use it, so they agree on every field.
func result(rule Rule, count int64, reset time.Duration) Result {
	res := Result{
		Allowed:   count <= int64(rule.Limit),
		Limit:     rule.Limit,
		Remaining: int(max(0, int64(rule.Limit)-count)),
		Reset:     reset,
	}
	if !res.Allowed {
		res.RetryAfter = reset
	}
	return res
}
