package attribution

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBackgroundSpan checks the span of a busy key's background sample: the
// whole carrier NAT window when the sample is not full, else from its
// oldest click to now, floored at a minute and capped at the window.
func TestBackgroundSpan(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sample := func(n int, oldest, step time.Duration) []Click {
		out := make([]Click, n)
		for i := range out {
			out[i].OccurredAt = now.Add(-oldest + time.Duration(i)*step)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		sample []Click
		want   time.Duration
	}{
		{"no click", nil, CGNATWindow},
		{"fewer than the sample: the window read", sample(BusyBackgroundClicks-1, time.Hour, time.Second), CGNATWindow},
		{"a full sample: from its oldest click", sample(BusyBackgroundClicks, 2*time.Hour, time.Second), 2 * time.Hour},
		{"the oldest anywhere in the sample", sample(BusyBackgroundClicks, 90*time.Minute, -time.Second), 90*time.Minute + time.Duration(BusyBackgroundClicks-1)*time.Second},
		{"a burst: at least a minute", sample(BusyBackgroundClicks, 0, 0), minBackgroundSpan},
		{"never more than the window", sample(BusyBackgroundClicks, 7*time.Hour, 0), CGNATWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, backgroundSpan(tc.sample, now))
		})
	}
}
