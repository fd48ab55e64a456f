package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/ratelimit"
)

func TestObserveTellsOfEachRefusalByLimitName(t *testing.T) {
	t.Parallel()
	mem := ratelimit.NewMemory(ratelimit.MemoryOptions{})
	var refused []string
	l := ratelimit.Observe(mem, func(limit string) { refused = append(refused, limit) })
	rule := ratelimit.Rule{Limit: 1, Window: time.Minute}
	ctx := context.Background()
	for _, bucket := range []string{"key:0190", "key:0190", "sdk:0190:203.0.113.7", "sdk:0190:203.0.113.7", "nocolon", "nocolon"} {
		_, err := l.Allow(ctx, bucket, rule)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"key", "sdk", "other"}, refused, "only the refusals, named without the key or address")
	assert.Same(t, mem, ratelimit.Unwrap(l))
	assert.Same(t, mem, ratelimit.Unwrap(mem))
	assert.Same(t, mem, ratelimit.Observe(mem, nil), "nothing to tell: the limiter as it is")

	_, err := l.Allow(ctx, "key:x", ratelimit.Rule{})
	require.ErrorIs(t, err, ratelimit.ErrInvalidRule, "an error is not a refusal")
	assert.Len(t, refused, 3)
}
