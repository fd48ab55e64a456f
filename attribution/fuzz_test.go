package attribution_test

import (
	"testing"

	"github.com/hoplink/hoplink/attribution"
)

// FuzzRequestSignals checks that reading a request's signals never panics
// and that a valid request's language is lower case without quality.
func FuzzRequestSignals(f *testing.F) {
	f.Add("ios", iosWebView17_5, "en-US,en;q=0.9")
	f.Add("android", androidPixel8, "*")
	f.Add("android", "", ";q=0.1,")
	f.Fuzz(func(t *testing.T, platform, ua, lang string) {
		r := attribution.MatchRequest{Platform: attribution.Platform(platform), UserAgent: ua, AcceptLanguage: lang}
		s := attribution.RequestSignals(&r)
		for _, c := range []byte(s.Language) {
			if c >= 'A' && c <= 'Z' || c == ';' || c == ',' {
				t.Fatalf("language %q of %q", s.Language, lang)
			}
		}
	})
}

// FuzzCompareOSVersions checks that the comparison is antisymmetric and
// never panics.
func FuzzCompareOSVersions(f *testing.F) {
	f.Add("17.5", "17.5.1")
	f.Add("18_1", "9")
	f.Add("", "x.y")
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, okA := attribution.CompareOSVersions(a, b)
		ba, okB := attribution.CompareOSVersions(b, a)
		if okA != okB || ab != -ba {
			t.Fatalf("%q vs %q: %d %v, %d %v", a, b, ab, okA, ba, okB)
		}
	})
}
