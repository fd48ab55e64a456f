package linking_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hoplink/hoplink/linking"
)

// slugPattern is SPEC.md's slug pattern, the oracle ValidateSlug is checked against.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzValidateSlug checks ValidateSlug and ValidResolveSlug against SPEC.md's
// pattern and lengths. The seeds run as a test.
func FuzzValidateSlug(f *testing.F) {
	for _, s := range []string{
		"", "a", "ab", "summer-sale", "-a", "a-", "a--b", "A", "test", "api", "café",
		strings.Repeat("a", 100), strings.Repeat("a", 101), "\xff", "\u212a", "a b", "1-2-3",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, slug string, onAppSubdomain bool) {
		err := linking.ValidateSlug(slug, onAppSubdomain)
		shape := slugPattern.MatchString(slug) && len(slug) <= linking.MaxSlugLength
		want := shape && len(slug) >= linking.MinSlugLength && !linking.IsReservedSlug(slug, onAppSubdomain)
		if (err == nil) != want {
			t.Fatalf("ValidateSlug(%q, %v) = %v, want valid %v", slug, onAppSubdomain, err, want)
		}
		if got := linking.ValidResolveSlug(slug); got != shape {
			t.Fatalf("ValidResolveSlug(%q) = %v, want %v", slug, got, shape)
		}
		lowered := linking.NormalizeSlugForLookup(slug)
		if len(lowered) != len(slug) || linking.NormalizeSlugForLookup(lowered) != lowered {
			t.Fatalf("NormalizeSlugForLookup(%q) = %q", slug, lowered)
		}
		if err == nil && lowered != slug {
			t.Fatalf("a valid slug %q is not its own lookup form %q", slug, lowered)
		}
	})
}

// FuzzNormalizeURL checks that NormalizeURL never panics, that normalizing its
// result returns it unchanged, and that the result is a URL the standard
// parser reads the same way. The seeds run as a test.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com", "HTTPS://Example.COM:443", "http://example.com:80/a?b#c",
		"https://example.com/café?q=€#frag", "https://[2001:DB8::1]:8443/x", "https://127.0.0.1/",
		"https://user@example.com/", `https://example.com\@evil.example/`, "https://example.com/%zz",
		"myapp://Product/42", "intent://scan/#Intent;scheme=zxing;end", "mailto:a@example.com",
		"javascript:alert(1)", "data:,x", "example.com", "//example.com", "https:", "https://",
		"https://a.com:/", "https://a.com:0443", "https://a..com", "https://999.1.1.1/",
		"https://example.com/a|b{c}", "myapp:x%41", "a:b", "x-y.z+w://h/p", "https://[::1%25eth0]/",
		"https://example.com./", "https://ex_ample.com", " https://example.com", "https://e.com/\u200b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := linking.NormalizeURL(raw)
		if err != nil {
			if out != "" {
				t.Fatalf("NormalizeURL(%q) returned %q with error %v", raw, out, err)
			}
			return
		}
		again, err := linking.NormalizeURL(out)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which is refused: %v", raw, out, err)
		}
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, out, again)
		}
		if len(out) > linking.MaxURLLength {
			t.Fatalf("NormalizeURL(%q) is %d bytes long", raw, len(out))
		}
		for i := 0; i < len(out); i++ {
			if c := out[i]; c <= ' ' || c >= utf8.RuneSelf || c == 0x7f {
				t.Fatalf("NormalizeURL(%q) = %q holds byte %#x", raw, out, c)
			}
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which net/url refuses: %v", raw, out, err)
		}
		if u.Scheme != strings.ToLower(u.Scheme) {
			t.Fatalf("NormalizeURL(%q) = %q has scheme %q", raw, out, u.Scheme)
		}
		if u.Scheme == "http" || u.Scheme == "https" {
			if u.Host == "" || u.User != nil || u.Host != strings.ToLower(u.Host) || u.Opaque != "" {
				t.Fatalf("NormalizeURL(%q) = %q parses to host %q user %v opaque %q", raw, out, u.Host, u.User, u.Opaque)
			}
			if p := u.Port(); p == "" && strings.HasSuffix(u.Host, ":") ||
				u.Scheme == "http" && p == "80" || u.Scheme == "https" && p == "443" {
				t.Fatalf("NormalizeURL(%q) = %q keeps a default or empty port", raw, out)
			}
			if !strings.HasPrefix(out[len(u.Scheme)+3+len(u.Host):], "/") {
				t.Fatalf("NormalizeURL(%q) = %q has no path", raw, out)
			}
		}
	})
}
