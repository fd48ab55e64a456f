package org_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

func TestLimitsReadFrom(t *testing.T) {
	day := 24 * time.Hour
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	free, scale := org.LimitsOf(org.PlanFree), org.LimitsOf(org.PlanScale)

	ok := []struct {
		name        string
		limits      org.Limits
		from        *time.Time
		defaultFrom time.Time
		to          time.Time
		want        time.Time
	}{
		{"a requested from inside the look-back is kept", free, at(10 * day), now.Add(-30 * day), now, now.Add(-10 * day)},
		{"a default from before the look-back is raised to it", free, nil, now.Add(-90 * day), now, now.Add(-30 * day)},
		{"a default from inside the look-back is kept", free, nil, now.Add(-5 * day), now, now.Add(-5 * day)},
		{"without a look-back a from before retention is raised to it", scale, at(2000 * day), time.Time{}, now, now.Add(-1095 * day)},
		{"without a look-back a default from before retention is raised to it", scale, nil, now.Add(-2000 * day), now, now.Add(-1095 * day)},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.limits.ReadFrom(now, tt.from, tt.defaultFrom, tt.to, "clicks")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	refused := []struct {
		name        string
		limits      org.Limits
		from        *time.Time
		defaultFrom time.Time
		to          time.Time
		code        errcode.Code
		earliest    any
	}{
		{"a from not before to names to", scale, at(day), time.Time{}, now.Add(-day), errcode.ValidationError, nil},
		{"a requested from before the look-back", free, at(31 * day), time.Time{}, now, errcode.LookbackExceeded, now.Add(-30 * day)},
		{"a default from with to before the look-back", free, nil, now.Add(-60 * day), now.Add(-40 * day), errcode.LookbackExceeded, now.Add(-30 * day)},
		{"a default from with to at the look-back's start", free, nil, now.Add(-30 * day), now.Add(-30 * day), errcode.LookbackExceeded, now.Add(-30 * day)},
		{"a window ending before retention", scale, at(2000 * day), time.Time{}, now.Add(-1100 * day), errcode.RetentionWindowUnavailable, now.Add(-1095 * day)},
		{"a default window ending at retention's start", scale, nil, now.Add(-1095 * day), now.Add(-1095 * day), errcode.RetentionWindowUnavailable, now.Add(-1095 * day)},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.limits.ReadFrom(now, tt.from, tt.defaultFrom, tt.to, "clicks")
			e, isCoded := errcode.As(err)
			require.True(t, isCoded, "got %v", err)
			assert.Equal(t, tt.code, e.Code)
			if tt.code == errcode.ValidationError {
				require.Len(t, e.Fields, 1)
				assert.Equal(t, "to", e.Fields[0].Field)
			}
			if tt.earliest != nil {
				assert.Equal(t, tt.earliest, e.Details["earliest_allowed"])
			}
			if tt.code == errcode.LookbackExceeded {
				assert.Equal(t, "this plan reads clicks of the last 30 days only", e.Message)
			}
		})
	}
}
