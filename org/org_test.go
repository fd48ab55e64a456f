package org_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

func TestPasswordHash(t *testing.T) {
	h, err := org.HashPassword("correct horse battery")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, "$argon2id$v=19$"))
	ok, err := org.VerifyPassword(h, "correct horse battery")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = org.VerifyPassword(h, "correct horse battery!")
	require.NoError(t, err)
	assert.False(t, ok)

	h2, err := org.HashPassword("correct horse battery")
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "every hash has its own salt")

	for _, bad := range []string{"", "$bcrypt$x", "$argon2id$v=19$m=1$x$y", "$argon2id$v=19$m=1,t=1,p=1$!!$y"} {
		_, err := org.VerifyPassword(bad, "x")
		assert.ErrorIs(t, err, org.ErrBadHash, bad)
	}
}

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

func TestNormalizeEmail(t *testing.T) {
	got, err := org.NormalizeEmail("  Alice@Example.COM ")
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", got)
	for _, bad := range []string{"", "alice", "Alice <alice@example.com>", "a@b@c", strings.Repeat("a", 250) + "@x.com"} {
		_, err := org.NormalizeEmail(bad)
		assert.Equal(t, errcode.ValidationError, errcode.CodeOf(err), bad)
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
