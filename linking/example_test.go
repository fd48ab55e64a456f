package linking_test

import (
	"bytes"
	"fmt"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

func ExampleValidateSlug() {
	for _, slug := range []string{"summer-sale", "Summer", "summer--sale", "admin"} {
		fmt.Println(slug, linking.ValidateSlug(slug, false))
	}
	// "test" is reserved on an app subdomain only (domain rule 6).
	fmt.Println(linking.ValidateSlug("test", false))
	fmt.Println(linking.ValidateSlug("test", true))
	// Output:
	// summer-sale <nil>
	// Summer VALIDATION_ERROR: slug: must be lowercase (found 'S')
	// summer--sale VALIDATION_ERROR: slug: must not contain two hyphens in a row
	// admin VALIDATION_ERROR: slug: "admin" is reserved
	// <nil>
	// VALIDATION_ERROR: slug: "test" is reserved on an app subdomain
}

func ExampleNormalizeSlugForLookup() {
	fmt.Println(linking.NormalizeSlugForLookup("Summer-SALE"))
	// Output: summer-sale
}

func ExampleGenerateSlug() {
	// Production passes crypto/rand.Reader; a fixed reader makes the example
	// repeatable. Byte b picks character b%36 of a-z0-9; bytes 252 to 255 are
	// skipped.
	random := bytes.NewReader([]byte{7, 4, 255, 11, 11, 14, 36 + 26, 27})
	slug, err := linking.GenerateSlug(random)
	fmt.Println(slug, err)
	// Output: hello01 <nil>
}

func ExampleGenerateUniqueSlug() {
	random := bytes.NewReader([]byte{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1})
	taken := func(slug string) (bool, error) { return slug == "aaaaaaa", nil }
	slug, err := linking.GenerateUniqueSlug(random, taken, 5)
	fmt.Println(slug, err)
	// Output: bbbbbbb <nil>
}

func ExampleNormalizeURL() {
	for _, raw := range []string{
		"https://Example.com",
		"HTTPS://example.com:443/Sale?ref=mail#top",
		"https://example.com/café",
		"example.com",
		"javascript:alert(1)",
	} {
		out, err := linking.NormalizeURL(raw)
		fmt.Printf("%q %v\n", out, err)
	}
	// Output:
	// "https://example.com/" <nil>
	// "https://example.com/Sale?ref=mail#top" <nil>
	// "https://example.com/caf%C3%A9" <nil>
	// "" VALIDATION_ERROR: url: must include a protocol such as https://
	// "" VALIDATION_ERROR: url: javascript: URLs are not allowed
}

func ExampleNormalizeLinkURL() {
	ios, err := linking.NormalizeLinkURL(linking.FieldIOSURL, "myapp://product/42")
	fmt.Println(ios, err)
	_, err = linking.NormalizeLinkURL(linking.FieldDestinationURL, "myapp://product/42")
	fmt.Println(err)
	// Output:
	// myapp://product/42 <nil>
	// VALIDATION_ERROR: destination_url: must be an http or https URL
}

func ExampleNormalizeTags() {
	tags, err := linking.NormalizeTags([]string{" spring ", "promo", "spring"})
	fmt.Printf("%q %v\n", tags, err)
	// Output: ["spring" "promo"] <nil>
}

func ExampleChooseDomain() {
	domains := linking.LinkDomains{Default: "hop.example", Custom: []string{"go.acme.com"}}
	app := &linking.AppDomains{DefaultLinkDomain: "acme.hop.example", LinkDomain: "acme.hop.example"}

	// Domain rule 1: no domain named, so the app's default.
	choice, err := linking.ChooseDomain(linking.DomainInput{App: app, Domains: domains})
	fmt.Println(choice.Domain, choice.OnAppSubdomain, err)

	// Domain rule 4: a new app never uses the default link domain.
	_, err = linking.ChooseDomain(linking.DomainInput{Domain: "hop.example", App: app, Domains: domains})
	e, _ := errcode.As(err)
	fmt.Println(e.Code, e.Details["allowed_link_domains"])

	// Domain rule 9: the app's saved default custom domain is no longer live.
	app.DefaultLinkDomain = "old.acme.com"
	_, err = linking.ChooseDomain(linking.DomainInput{App: app, Domains: domains})
	e, _ = errcode.As(err)
	fmt.Println(e.Code, e.Details["allowed_link_domains"])
	// Output:
	// acme.hop.example true <nil>
	// INVALID_DOMAIN [acme.hop.example go.acme.com]
	// DEFAULT_DOMAIN_UNAVAILABLE [acme.hop.example go.acme.com]
}
