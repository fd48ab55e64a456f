package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCountryLabel(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"a country by its English name and code", "DE", "Germany (DE)"},
		{"CLDR's short name", "US", "United States (US)"},
		{"a name with a non-ASCII letter", "CI", "Côte d’Ivoire (CI)"},
		{"a user-assigned code that CLDR names", "XK", "Kosovo (XK)"},
		{"the code as stored, whatever case", "gb", "United Kingdom (gb)"},
		{"a user-assigned code is shown as it is", "XX", "XX"},
		{"CLDR's unknown region is not a country", "ZZ", "ZZ"},
		{"a grouping is not a country", "EU", "EU"},
		{"a numeric area is not a country", "419", "419"},
		{"not a region code", "Germany", "Germany"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, countryLabel(tt.code))
		})
	}
}

// The page's window is whole days ending with the current UTC hour: its
// edges are whole hours, and it holds every click up to now.
func TestAnalyticsWindowEndsWithTheHour(t *testing.T) {
	tests := []struct {
		name     string
		now      string
		days     int
		from, to string
	}{
		{"inside an hour", "2026-12-02T13:08:24.5Z", 7, "2026-11-25T14:00:00Z", "2026-12-02T14:00:00Z"},
		{"on the hour", "2026-12-02T13:00:00Z", 1, "2026-12-01T13:00:00Z", "2026-12-02T13:00:00Z"},
		{"a second past the hour", "2026-12-02T13:00:01Z", 90, "2026-09-03T14:00:00Z", "2026-12-02T14:00:00Z"},
		{"another zone's clock, the same instant", "2026-12-02T18:38:24+05:30", 30, "2026-11-02T14:00:00Z", "2026-12-02T14:00:00Z"},
	}
	for _, tt := range tests {
		now, err := time.Parse(time.RFC3339Nano, tt.now)
		assert.NoError(t, err, tt.name)
		from, to := analyticsWindow(now, tt.days)
		assert.Equal(t, tt.from, from.Format(time.RFC3339), tt.name)
		assert.Equal(t, tt.to, to.Format(time.RFC3339), tt.name)
		assert.False(t, to.Before(now), "%s: the window holds now", tt.name)
	}
}
