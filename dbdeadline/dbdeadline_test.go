package dbdeadline_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
)

// blockUntilDone is a database call that never answers: it returns when its
// context ends, with the error a driver returns then.
func blockUntilDone(ctx context.Context) error {
	<-ctx.Done()
	return fmt.Errorf("store: link: %w", ctx.Err())
}

func TestCallAnExpiredDeadlineIsUnavailable(t *testing.T) {
	t.Parallel()
	err := dbdeadline.Call(context.Background(), time.Millisecond, blockUntilDone)
	require.Error(t, err)
	assert.ErrorIs(t, err, dbdeadline.ErrTimeout)
	assert.ErrorIs(t, err, errcode.ErrUnavailable, "the client gets 503")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the driver's error stays in the chain for the log")
	assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err))
}

func TestCallKeepsAnswersAndOtherEndings(t *testing.T) {
	t.Parallel()
	coded := errcode.New(errcode.NotFound, "link not found")
	tests := []struct {
		name string
		ctx  func() context.Context
		d    time.Duration
		fn   func(context.Context) error
		want func(t *testing.T, err error)
	}{
		{"a call that answers in time is untouched", context.Background, time.Hour,
			func(context.Context) error { return nil },
			func(t *testing.T, err error) { assert.NoError(t, err) }},
		{"not found past the deadline is still the database's answer", context.Background, time.Nanosecond,
			func(ctx context.Context) error {
				<-ctx.Done()
				return fmt.Errorf("store: %w", errcode.ErrNotFound)
			},
			func(t *testing.T, err error) {
				assert.ErrorIs(t, err, errcode.ErrNotFound)
				assert.NotErrorIs(t, err, dbdeadline.ErrTimeout)
			}},
		{"a coded error past the deadline stays as it is", context.Background, time.Nanosecond,
			func(ctx context.Context) error { <-ctx.Done(); return coded },
			func(t *testing.T, err error) { assert.Same(t, coded, err) }},
		{"a caller that went away is not a timeout", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, time.Hour, blockUntilDone,
			func(t *testing.T, err error) {
				assert.ErrorIs(t, err, context.Canceled)
				assert.NotErrorIs(t, err, errcode.ErrUnavailable)
			}},
		{"zero sets no deadline", context.Background, 0,
			func(ctx context.Context) error {
				if _, ok := ctx.Deadline(); ok {
					return errors.New("a deadline was set")
				}
				return nil
			},
			func(t *testing.T, err error) { assert.NoError(t, err) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want(t, dbdeadline.Call(tt.ctx(), tt.d, tt.fn))
		})
	}
}

// An option left at zero takes the default; a set one, or a negative one
// (no deadline), stays.
func TestOr(t *testing.T) {
	assert.Equal(t, dbdeadline.Default, dbdeadline.Or(0, dbdeadline.Default))
	assert.Equal(t, 2*dbdeadline.Default, dbdeadline.Or(0, 2*dbdeadline.Default))
	assert.Equal(t, 300*time.Millisecond, dbdeadline.Or(300*time.Millisecond, dbdeadline.Default))
	assert.Equal(t, -time.Second, dbdeadline.Or(-time.Second, dbdeadline.Default))
}
