package org_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/org"
)

func TestPeriodStart(t *testing.T) {
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		name        string
		anchor, now time.Time
		want        time.Time
	}{
		{"the first period starts at the anchor", at(2030, 1, 15, 9), at(2030, 1, 20, 0), at(2030, 1, 15, 9)},
		{"at the anchor", at(2030, 1, 15, 9), at(2030, 1, 15, 9), at(2030, 1, 15, 9)},
		{"before the anchor, the anchor", at(2030, 1, 15, 9), at(2029, 12, 1, 0), at(2030, 1, 15, 9)},
		{"the same day of a later month", at(2030, 1, 15, 9), at(2030, 5, 20, 0), at(2030, 5, 15, 9)},
		{"before the day in the month: the previous month's", at(2030, 1, 15, 9), at(2030, 5, 15, 8), at(2030, 4, 15, 9)},
		{"across a year", at(2029, 11, 30, 0), at(2030, 1, 5, 0), at(2029, 12, 30, 0)},
		{"a 31st anchor in February: its last day", at(2030, 1, 31, 9), at(2030, 2, 28, 10), at(2030, 2, 28, 9)},
		{"a 31st anchor in a leap February", at(2031, 12, 31, 0), at(2032, 2, 29, 1), at(2032, 2, 29, 0)},
		{"a 31st anchor in March: the 31st again", at(2030, 1, 31, 9), at(2030, 3, 31, 9), at(2030, 3, 31, 9)},
		{"a 31st anchor on March 30: February's last day", at(2030, 1, 31, 9), at(2030, 3, 30, 0), at(2030, 2, 28, 9)},
		{"a 30th anchor in a 31-day month", at(2030, 4, 30, 0), at(2030, 5, 31, 0), at(2030, 5, 30, 0)},
		{"other time zones count in UTC", at(2030, 1, 15, 9), time.Date(2030, 3, 15, 10, 0, 0, 0, time.FixedZone("x", 2*3600)), at(2030, 2, 15, 9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := org.PeriodStart(tt.anchor, tt.now)
			assert.Equal(t, tt.want, got)
			assert.False(t, got.After(tt.now.UTC()) && tt.now.After(tt.anchor), "never after now")
		})
	}
}
