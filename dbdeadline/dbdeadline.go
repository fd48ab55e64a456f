package dbdeadline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoplink/hoplink/errcode"
)

// Default is the deadline of one database call on a request's path when the
// operator sets none (--db-timeout): a healthy database answers these reads
// in milliseconds, and a visitor who waits longer than a second is better
// served by a prompt 503 with Retry-After than by a page that hangs.
const Default = time.Second

// Or returns d, an option's deadline, or def when the option is left
// unset (zero); a negative d, no deadline, is returned as it is.
func Or(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// ErrTimeout means that the database did not answer within the deadline of
// Context. It wraps errcode.ErrUnavailable, so adapters answer it 503
// SERVICE_UNAVAILABLE.
var ErrTimeout = fmt.Errorf("database did not answer in time: %w", errcode.ErrUnavailable)

// Context returns a copy of parent that ends d from now, for one database
// call, with ErrTimeout as its cause; a d of zero or less sets no deadline.
// Pass the call's error to Err, and call cancel when the call returns.
func Context(parent context.Context, d time.Duration) (ctx context.Context, cancel context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(parent)
	}
	return context.WithTimeoutCause(parent, d, ErrTimeout)
}

// Err returns err, the error of a call made with ctx (from Context), wrapped
// in ErrTimeout when ctx ended on its deadline and err is not already an
// answer of the database (errcode.ErrNotFound, errcode.ErrConflict or a
// coded *errcode.Error) nor already errcode.ErrUnavailable. Whatever the
// driver reports once the deadline has passed, the database did not answer
// in time. nil stays nil.
func Err(ctx context.Context, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), ErrTimeout) {
		return err
	}
	if errors.Is(err, errcode.ErrUnavailable) || errors.Is(err, errcode.ErrNotFound) || errors.Is(err, errcode.ErrConflict) {
		return err
	}
	if _, ok := errcode.As(err); ok {
		return err
	}
	return fmt.Errorf("%w: %w", ErrTimeout, err)
}

// Call runs fn with a context (Context) that ends d from now and returns its
// error through Err.
func Call(parent context.Context, d time.Duration, fn func(ctx context.Context) error) error {
	ctx, cancel := Context(parent, d)
	defer cancel()
	return Err(ctx, fn(ctx))
}
