package org_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/org"
)

func TestSlugify(t *testing.T) {
	tests := map[string]string{
		"Acme Inc.":             "acme-inc",
		"  Hello   World  ":     "hello-world",
		"Ünïcode Ωrg":           "n-code-rg",
		"!!!":                   "org",
		strings.Repeat("a", 80): strings.Repeat("a", 48),
	}
	for in, want := range tests {
		assert.Equal(t, want, org.Slugify(in), in)
	}
}

func TestPlans(t *testing.T) {
	assert.True(t, org.PlanScale.Valid())
	assert.False(t, org.Plan("enterprise").Valid())
	free := org.LimitsOf(org.PlanFree)
	assert.Zero(t, free.CustomDomains, "Free has no custom domains")
	assert.Equal(t, 30*24*60*60, int(free.Lookback.Seconds()))
	prev := org.Limits{}
	for _, p := range org.Plans {
		l := org.LimitsOf(p)
		assert.Positive(t, l.Retention, "retention is finite and set")
		assert.GreaterOrEqual(t, l.LinksPerMonth, prev.LinksPerMonth, p)
		assert.GreaterOrEqual(t, l.MonthlyClicks, prev.MonthlyClicks, p)
		prev = l
	}
	assert.Equal(t, free, org.LimitsOf("unknown"))
}
