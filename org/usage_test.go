package org_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/org"
)

func TestPeriodEndIsTheNextPeriodsStart(t *testing.T) {
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		name        string
		anchor, now time.Time
		want        time.Time
	}{
		{"in the first period", at(2030, 1, 15, 9), at(2030, 1, 20, 0), at(2030, 2, 15, 9)},
		{"at the anchor", at(2030, 1, 15, 9), at(2030, 1, 15, 9), at(2030, 2, 15, 9)},
		{"before the anchor", at(2030, 1, 15, 9), at(2029, 12, 1, 0), at(2030, 2, 15, 9)},
		{"at a period's start the next one ends it", at(2030, 1, 15, 9), at(2030, 3, 15, 9), at(2030, 4, 15, 9)},
		{"just before a period's start", at(2030, 1, 15, 9), at(2030, 3, 15, 8), at(2030, 3, 15, 9)},
		{"a short month ends on its last day", at(2030, 1, 31, 0), at(2030, 2, 1, 0), at(2030, 2, 28, 0)},
		{"then the anchor's day again", at(2030, 1, 31, 0), at(2030, 3, 1, 0), at(2030, 3, 31, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end := org.PeriodEnd(tt.anchor, tt.now)
			assert.Equal(t, tt.want, end)
			assert.True(t, org.PeriodStart(tt.anchor, tt.now).Before(end))
		})
	}
}
