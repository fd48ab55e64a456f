package httpapi

import (
	"testing"

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
