package linking_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
)

func TestValidateAppName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"one character", "A", true},
		{"255 characters", strings.Repeat("é", 255), true},
		{"empty", "", false},
		{"blank", "   ", false},
		{"256 characters", strings.Repeat("a", 256), false},
		{"a line break", "Acme\nShop", false},
		{"invalid UTF-8", "\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := linking.ValidateAppName(tt.in)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			requireFieldError(t, err, "name")
		})
	}
}

// appFieldRule is one table row of a single-field rule.
type appFieldRule struct {
	name string
	in   string
	ok   bool
}

func runAppFieldRules(t *testing.T, field string, check func(string) error, tests []appFieldRule) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := check(tt.in)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.NotEmpty(t, requireFieldError(t, err, field))
		})
	}
}

func TestValidateBundleID(t *testing.T) {
	runAppFieldRules(t, "ios_bundle_id", linking.ValidateBundleID, []appFieldRule{
		{"reverse-domain notation", "com.example.app", true},
		{"two segments", "com.example", true},
		{"capitals, digits and hyphens", "com.Example-2.App3", true},
		{"155 characters", "com." + strings.Repeat("a", 151), true},
		{"one segment", "example", false},
		{"empty", "", false},
		{"an empty segment", "com..app", false},
		{"a leading dot", ".com.app", false},
		{"a trailing dot", "com.app.", false},
		{"an underscore", "com.example_app", false},
		{"a space", "com.example app", false},
		{"non-ASCII", "com.exämple.app", false},
		{"156 characters", "com." + strings.Repeat("a", 152), false},
	})
}

func TestValidateTeamID(t *testing.T) {
	runAppFieldRules(t, "ios_team_id", linking.ValidateTeamID, []appFieldRule{
		{"10 uppercase letters and digits", "ABCDE12345", true},
		{"digits only", "0123456789", true},
		{"lowercase", "abcde12345", false},
		{"9 characters", "ABCDE1234", false},
		{"11 characters", "ABCDE123456", false},
		{"a hyphen", "ABCDE-1234", false},
		{"empty", "", false},
	})
}

func TestValidateAppStoreID(t *testing.T) {
	runAppFieldRules(t, "ios_app_store_id", linking.ValidateAppStoreID, []appFieldRule{
		{"digits", "1234567890", true},
		{"one digit", "1", true},
		{"20 digits", strings.Repeat("9", 20), true},
		{"21 digits", strings.Repeat("9", 21), false},
		{"the id prefix of the store URL", "id1234567890", false},
		{"a sign", "-12", false},
		{"empty", "", false},
	})
}

func TestValidatePackageName(t *testing.T) {
	runAppFieldRules(t, "android_package_name", linking.ValidatePackageName, []appFieldRule{
		{"a Java package name", "com.example.app", true},
		{"underscores and digits after the first letter", "com.example_2.app3", true},
		{"capitals", "com.Example.App", true},
		{"one segment", "example", false},
		{"a segment starting with a digit", "com.2example.app", false},
		{"a segment starting with an underscore", "com._example", false},
		{"a hyphen", "com.example-app", false},
		{"an empty segment", "com..app", false},
		{"a trailing dot", "com.example.", false},
		{"256 characters", "com." + strings.Repeat("a", 252), false},
	})
}

func TestNormalizeFingerprints(t *testing.T) {
	upper := strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	lower := strings.ToLower(upper)
	other := strings.TrimSuffix(strings.Repeat("01:", 32), ":")

	got, err := linking.NormalizeFingerprints([]string{lower, other, upper})
	require.NoError(t, err)
	assert.Equal(t, []string{upper, other}, got, "uppercased; the duplicate after uppercasing dropped, order kept")

	got, err = linking.NormalizeFingerprints(nil)
	require.NoError(t, err)
	assert.Nil(t, got, "null stays null")
	got, err = linking.NormalizeFingerprints([]string{})
	require.NoError(t, err)
	assert.Equal(t, []string{}, got, "[] stays []")

	bad := []struct {
		name  string
		fps   []string
		field string
	}{
		{"31 pairs", []string{strings.TrimSuffix(strings.Repeat("AB:", 31), ":")}, "android_sha256_fingerprints[0]"},
		{"no colons", []string{strings.Repeat("AB", 32)}, "android_sha256_fingerprints[0]"},
		{"a character that is not hex", []string{other, "G" + upper[1:]}, "android_sha256_fingerprints[1]"},
		{"a dash for a colon", []string{strings.ReplaceAll(upper, ":", "-")}, "android_sha256_fingerprints[0]"},
		{"empty", []string{""}, "android_sha256_fingerprints[0]"},
		{"21 items", make([]string, 21), "android_sha256_fingerprints"},
	}
	for _, tt := range bad {
		_, err := linking.NormalizeFingerprints(tt.fps)
		requireFieldError(t, err, tt.field)
	}
}

func TestNormalizeAppPaths(t *testing.T) {
	const field = "ios_universal_link_paths"
	got, err := linking.NormalizeAppPaths(field, []string{"/products/*", "*", "/products/*", "/ünï"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/products/*", "*", "/ünï"}, got, "duplicates dropped, order kept")

	got, err = linking.NormalizeAppPaths(field, nil)
	require.NoError(t, err)
	assert.Nil(t, got, "null stays null")
	got, err = linking.NormalizeAppPaths(field, []string{})
	require.NoError(t, err)
	assert.Equal(t, []string{}, got, "[] stays []")

	fifty := make([]string, 50)
	for i := range fifty {
		fifty[i] = "/" + strings.Repeat("a", i+1)
	}
	_, err = linking.NormalizeAppPaths(field, fifty)
	assert.NoError(t, err, "50 items")
	_, err = linking.NormalizeAppPaths(field, []string{"/" + strings.Repeat("a", 254)})
	assert.NoError(t, err, "255 characters")

	bad := []struct {
		name  string
		paths []string
		field string
	}{
		{"51 items", append(fifty, "/z"), field},
		{"no leading slash or star", []string{"/ok", "products"}, field + "[1]"},
		{"empty", []string{""}, field + "[0]"},
		{"256 characters", []string{"/" + strings.Repeat("a", 255)}, field + "[0]"},
		{"a space", []string{"/a b"}, field + "[0]"},
		{"a control character", []string{"/a\x00"}, field + "[0]"},
		{"invalid UTF-8", []string{"/\xff"}, field + "[0]"},
	}
	for _, tt := range bad {
		_, err := linking.NormalizeAppPaths(field, tt.paths)
		requireFieldError(t, err, tt.field)
	}
}

func TestHandleBase(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lowered", "Acme", "acme"},
		{"runs of other characters become one hyphen", "Acme  Shop & Co.", "acme-shop-co"},
		{"hyphens trimmed from both ends", "--Acme--", "acme"},
		{"digits kept", "Shop 2", "shop-2"},
		{"non-ASCII letters dropped", "Café Über", "caf-ber"},
		{"nothing left", "日本", "app"},
		{"empty", "", "app"},
		{"short names stay short (a suffix is added later)", "A", "a"},
		{"cut to leave room for a suffix", strings.Repeat("abcdefghij", 5), "abcdefghijabcdefghijabcdefghijab"},
		{"no hyphen left at the cut", strings.Repeat("a", 31) + " b", strings.Repeat("a", 31)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linking.HandleBase(tt.in))
		})
	}
}

func TestHandleCandidate(t *testing.T) {
	tests := []struct {
		name, base, suffix, want string
	}{
		{"the plain handle", "acme", "", "acme"},
		{"a reserved slug is never a handle", "www", "", ""},
		{"nor api", "api", "", ""},
		{"nor mcp", "mcp", "", ""},
		{"nor the CNAME target", "cname", "", ""},
		{"nor test, reserved on app subdomains", "test", "", ""},
		{"too short", "ab", "", ""},
		{"with a suffix", "www", "k3j9x2a", "www-k3j9x2a"},
		{"a short base with a suffix", "a", "k3j9x2a", "a-k3j9x2a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := linking.HandleCandidate(tt.base, tt.suffix)
			assert.Equal(t, tt.want, got)
			if got != "" {
				assert.True(t, linking.ValidHandle(got), got)
			}
		})
	}
}

func TestValidHandle(t *testing.T) {
	for h, ok := range map[string]bool{
		"abc": true, "acme-shop": true, strings.Repeat("a", 40): true,
		"ab": false, strings.Repeat("a", 41): false, "-acme": false, "acme-": false,
		"ac--me": false, "Acme": false, "ac.me": false, "": false,
	} {
		assert.Equal(t, ok, linking.ValidHandle(h), h)
	}
}

var handleShape = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzHandleBase: whatever the name, the base has handle syntax and, with a
// generated suffix, is a valid handle that is never reserved.
func FuzzHandleBase(f *testing.F) {
	for _, seed := range []string{"Acme", "", "日本", "--a--", "www", strings.Repeat("x y ", 30), "a\x00b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		base := linking.HandleBase(name)
		if !handleShape.MatchString(base) || len(base) > linking.MaxHandleLength-1-linking.GeneratedSlugLength {
			t.Fatalf("HandleBase(%q) = %q", name, base)
		}
		h := linking.HandleCandidate(base, "k3j9x2a")
		if !linking.ValidHandle(h) || linking.IsReservedHandle(h) {
			t.Fatalf("HandleCandidate(%q, suffix) = %q", base, h)
		}
		if plain := linking.HandleCandidate(base, ""); plain != "" && (!linking.ValidHandle(plain) || linking.IsReservedHandle(plain)) {
			t.Fatalf("HandleCandidate(%q, \"\") = %q", base, plain)
		}
	})
}
