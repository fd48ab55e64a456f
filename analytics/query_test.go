package analytics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

func TestResolveWindow(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 123_456_789, time.UTC)
	nowMs := now.Truncate(time.Millisecond)
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { v := nowMs.Add(d); return &v }
	tests := []struct {
		name       string
		plan       org.Plan
		from, to   *time.Time
		want       analytics.Window
		code       errcode.Code
		earliestAt time.Duration // details.earliest_allowed, relative to now
	}{
		{name: "the default window is the last 30 days", plan: org.PlanScale,
			want: analytics.Window{From: nowMs.Add(-30 * day), To: nowMs}},
		{name: "a to alone moves the default from with it", plan: org.PlanScale, to: at(-10 * day),
			want: analytics.Window{From: nowMs.Add(-40 * day), To: nowMs.Add(-10 * day)}},
		{name: "from and to are taken as given", plan: org.PlanScale, from: at(-90 * day), to: at(-day),
			want: analytics.Window{From: nowMs.Add(-90 * day), To: nowMs.Add(-day)}},
		{name: "from must be before to", plan: org.PlanScale, from: at(-day), to: at(-day), code: errcode.ValidationError},
		{name: "a Free from older than 30 days is refused", plan: org.PlanFree, from: at(-31 * day),
			code: errcode.LookbackExceeded, earliestAt: -30 * day},
		{name: "a Free default from is raised to the look-back", plan: org.PlanFree, to: at(-day),
			want: analytics.Window{From: nowMs.Add(-30 * day), To: nowMs.Add(-day)}},
		{name: "a Free window wholly before the look-back is refused", plan: org.PlanFree, to: at(-31 * day),
			code: errcode.LookbackExceeded, earliestAt: -30 * day},
		{name: "a window wholly before retention is unavailable", plan: org.PlanStarter,
			from: at(-400 * day), to: at(-366 * day), code: errcode.RetentionWindowUnavailable, earliestAt: -365 * day},
		{name: "a from before retention is raised to it", plan: org.PlanStarter, from: at(-400 * day),
			want: analytics.Window{From: nowMs.Add(-365 * day), To: nowMs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := analytics.ResolveWindow(tt.plan, tt.from, tt.to, now)
			if tt.code == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			var e *errcode.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			if tt.earliestAt != 0 {
				assert.Equal(t, nowMs.Add(tt.earliestAt), e.Details["earliest_allowed"])
			}
		})
	}
}

// A window is widened to whole quarter hours of UTC, whatever the offset
// its times carry; a window already on them is kept.
func TestWindowOnSlots(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
		return v
	}
	for _, tc := range []struct{ name, from, to, wantFrom, wantTo string }{
		{"on quarter hours", "2026-11-22T12:00:00Z", "2026-11-22T12:30:00Z", "2026-11-22T12:00:00Z", "2026-11-22T12:30:00Z"},
		{"from down, to up", "2026-11-22T12:07:30.5Z", "2026-11-22T12:30:00.001Z", "2026-11-22T12:00:00Z", "2026-11-22T12:45:00Z"},
		{"offsets become UTC", "2026-11-22T17:50:00+05:45", "2026-11-22T13:01:00+01:00", "2026-11-22T12:00:00Z", "2026-11-22T12:15:00Z"},
	} {
		w := analytics.Window{From: at(tc.from), To: at(tc.to)}.OnSlots()
		assert.Equal(t, at(tc.wantFrom), w.From, tc.name)
		assert.Equal(t, at(tc.wantTo), w.To, tc.name)
	}
}
