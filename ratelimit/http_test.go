package ratelimit_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
)

type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, ratelimit.Rule) (ratelimit.Result, error) {
	return ratelimit.Result{}, fmt.Errorf("redis: %w", ratelimit.ErrUnavailable)
}

func TestCheck(t *testing.T) {
	clock := testkit.NewClock(epoch.Add(15 * time.Second))
	limiter := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock.Now})
	rule := ratelimit.Rule{Limit: 1, Window: time.Minute}
	r := httptest.NewRequest(http.MethodGet, "/v1/links", nil)

	t.Run("an allowed request gets the headers and nothing else", func(t *testing.T) {
		rec := httptest.NewRecorder()
		assert.True(t, ratelimit.Check(rec, r, limiter, nil, "key:a", rule))
		assert.Equal(t, "1", rec.Header().Get("X-RateLimit-Limit"))
		assert.Equal(t, "0", rec.Header().Get("X-RateLimit-Remaining"))
		assert.Equal(t, "45", rec.Header().Get("X-RateLimit-Reset"))
		assert.Empty(t, rec.Header().Get("Retry-After"))
		assert.Zero(t, rec.Body.Len())
	})
	t.Run("a spent bucket is 429 with Retry-After and the envelope", func(t *testing.T) {
		rec := httptest.NewRecorder()
		assert.False(t, ratelimit.Check(rec, r, limiter, nil, "key:a", rule))
		assert.Equal(t, http.StatusTooManyRequests, rec.Code)
		assert.Equal(t, "45", rec.Header().Get("Retry-After"))
		assert.Equal(t, "0", rec.Header().Get("X-RateLimit-Remaining"))
		assert.JSONEq(t, `{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"too many requests; retry after the time in Retry-After"}}`, rec.Body.String())
	})
	t.Run("no limiter allows everything without headers", func(t *testing.T) {
		rec := httptest.NewRecorder()
		assert.True(t, ratelimit.Check(rec, r, nil, nil, "key:a", rule))
		assert.Empty(t, rec.Header())
	})
	t.Run("a failing limiter fails open and logs", func(t *testing.T) {
		var logs bytes.Buffer
		rec := httptest.NewRecorder()
		assert.True(t, ratelimit.Check(rec, r, failingLimiter{}, slog.New(slog.NewTextHandler(&logs, nil)), "key:a", rule))
		assert.Empty(t, rec.Header())
		assert.Contains(t, logs.String(), "rate limiter failed; letting the request through")
	})
}
