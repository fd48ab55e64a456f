package linking_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/linking"
)

func TestValidateSlug(t *testing.T) {
	tests := []struct {
		name           string
		slug           string
		onAppSubdomain bool
		wantMsg        string // "" means valid
	}{
		{"two characters is the shortest slug", "ab", false, ""},
		{"a hundred characters is the longest slug", strings.Repeat("a", 100), false, ""},
		{"digits only", "2026", false, ""},
		{"groups joined by single hyphens", "summer-sale-2026", false, ""},
		{"one character is too short", "a", false, "must be at least 2 characters"},
		{"empty is too short", "", false, "must be at least 2 characters"},
		{"101 characters is too long", strings.Repeat("a", 101), false, "must be at most 100 characters"},
		{"length counts characters, not bytes", strings.Repeat("é", 60), false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found 'é')`},
		{"101 multibyte characters is too long", strings.Repeat("é", 101), false, "must be at most 100 characters"},
		{"capitals are refused, not lowered", "Summer", false, `must be lowercase (found 'S')`},
		{"underscore is a bad character", "summer_sale", false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found '_')`},
		{"space is a bad character", "summer sale", false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found ' ')`},
		{"slash is a bad character", "a/b", false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found '/')`},
		{"dot is a bad character", "favicon.ico", false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found '.')`},
		{"non-ASCII letter is a bad character", "café", false, `may contain only lowercase letters a-z, digits 0-9 and hyphens (found 'é')`},
		{"leading hyphen", "-sale", false, "must not start with a hyphen"},
		{"trailing hyphen", "sale-", false, "must not end with a hyphen"},
		{"double hyphen", "summer--sale", false, "must not contain two hyphens in a row"},
		{"hyphens only", "--", false, "must not start with a hyphen"},
		{"reserved slug api", "api", false, `"api" is reserved`},
		{"reserved slug admin", "admin", false, `"admin" is reserved`},
		{"reserved slug dashboard on an app subdomain too", "dashboard", true, `"dashboard" is reserved`},
		{"domain rule 6: test is reserved on an app subdomain", "test", true, `"test" is reserved on an app subdomain`},
		{"domain rule 6: test is free on other domains", "test", false, ""},
		{"a slug containing a reserved word is free", "api-docs-2", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := linking.ValidateSlug(tt.slug, tt.onAppSubdomain)
			if tt.wantMsg == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.wantMsg, requireFieldError(t, err, "slug"))
		})
	}
}

func TestValidResolveSlug(t *testing.T) {
	tests := []struct {
		name string
		slug string
		want bool
	}{
		{"resolve accepts one character", "a", true},
		{"resolve accepts a hundred characters", strings.Repeat("9", 100), true},
		{"resolve accepts groups joined by single hyphens", "a-b-c", true},
		{"resolve accepts a reserved slug's shape", "api", true},
		{"resolve refuses empty", "", false},
		{"resolve refuses 101 characters", strings.Repeat("a", 101), false},
		{"resolve refuses capitals", "Ab", false},
		{"resolve refuses a leading hyphen", "-a", false},
		{"resolve refuses a trailing hyphen", "a-", false},
		{"resolve refuses a double hyphen", "a--b", false},
		{"resolve refuses a lone hyphen", "-", false},
		{"resolve refuses percent-encoding", "a%20b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.ValidResolveSlug(tt.slug))
		})
	}
}

func TestNormalizeSlugForLookup(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"lowercase slug is unchanged", "summer-sale", "summer-sale"},
		{"redirect matches slugs case-insensitively", "Summer-SALE", "summer-sale"},
		{"digits and hyphens are unchanged", "A-1", "a-1"},
		{"only ASCII is lowered: the Kelvin sign stays", "\u212A", "\u212A"},
		{"non-ASCII capitals stay", "É", "É"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.NormalizeSlugForLookup(tt.in))
		})
	}
}

func TestReservedSlugs(t *testing.T) {
	assert.True(t, slices.IsSorted(linking.ReservedSlugs), "ReservedSlugs must stay sorted")
	assert.Equal(t, len(linking.ReservedSlugs), len(slices.Compact(slices.Clone(linking.ReservedSlugs))), "no duplicates")
	for _, s := range []string{"api", "admin", "dashboard", "www", "app", "mcp", "oauth", "login", "static", "assets", "health"} {
		assert.Contains(t, linking.ReservedSlugs, s, "SPEC.md and the issue name it")
	}
	for _, s := range linking.ReservedSlugs {
		assert.True(t, linking.ValidResolveSlug(s) && len(s) >= linking.MinSlugLength, "%q must have slug syntax, or reserving it means nothing", s)
		assert.True(t, linking.IsReservedSlug(s, false), s)
	}
	assert.NotContains(t, linking.ReservedSlugs, "test", "test is reserved on app subdomains only")
}

func TestIsReservedSlug(t *testing.T) {
	tests := []struct {
		name           string
		slug           string
		onAppSubdomain bool
		want           bool
	}{
		{"api is reserved everywhere", "api", false, true},
		{"api is reserved on an app subdomain", "api", true, true},
		{"domain rule 6: test on an app subdomain", "test", true, true},
		{"domain rule 6: test elsewhere", "test", false, false},
		{"reserved slugs are compared as given", "API", false, false},
		{"an ordinary slug", "promo", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.IsReservedSlug(tt.slug, tt.onAppSubdomain))
		})
	}
}

func TestChangingReservedSlugsChangesNothing(t *testing.T) {
	saved := linking.ReservedSlugs[0]
	linking.ReservedSlugs[0] = "promo"
	defer func() { linking.ReservedSlugs[0] = saved }()
	assert.False(t, linking.IsReservedSlug("promo", false))
	assert.True(t, linking.IsReservedSlug(saved, false))
}
