package linking_test

import (
	"crypto/rand"
	"testing"

	"github.com/hoplink/hoplink/linking"
)

// BenchmarkValidateSlug measures checking a slug on create: a typical valid
// slug, the longest valid slug, and a refused one (which builds its error).
func BenchmarkValidateSlug(b *testing.B) {
	for _, bc := range []struct{ name, slug string }{
		{"valid", "summer-sale-2026"},
		{"valid-100", "a123456789-b123456789-c123456789-d123456789-e123456789-f123456789-g123456789-h123456789-i123456789-j"},
		{"reserved", "dashboard"},
		{"invalid", "Summer_Sale"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = linking.ValidateSlug(bc.slug, true)
			}
		})
	}
}

// BenchmarkNormalizeURL measures the redirect's URL normalization: a URL
// already normal (the redirect's case: stored URLs are normal), one that
// changes, a custom scheme (checked with net/url), and a refused one.
func BenchmarkNormalizeURL(b *testing.B) {
	for _, bc := range []struct{ name, raw string }{
		{"already-normal", "https://www.example.com/products/shoes?utm_source=newsletter&id=42#reviews"},
		{"changes", "HTTPS://WWW.Example.com:443?utm_source=newsletter&q=café"},
		{"app-scheme", "myapp://products/shoes?id=42"},
		{"refused", "javascript:alert(document.cookie)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = linking.NormalizeURL(bc.raw)
			}
		})
	}
}

// BenchmarkGenerateSlug measures one slug drawn from crypto/rand.
func BenchmarkGenerateSlug(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = linking.GenerateSlug(rand.Reader)
	}
}

// BenchmarkChooseDomain measures the domain rules for a link of a new app
// with no domain named, in an organization with three custom domains.
func BenchmarkChooseDomain(b *testing.B) {
	in := linking.DomainInput{
		App:     &linking.AppDomains{DefaultLinkDomain: "acme.hop.example", LinkDomain: "acme.hop.example"},
		Domains: linking.LinkDomains{Default: "hop.example", Custom: []string{"go.acme.com", "links.acme.com", "l.acme.io"}},
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = linking.ChooseDomain(in)
	}
}
