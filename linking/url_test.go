package linking_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/linking"
)

func TestNormalizeURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", 2048-len("https://example.com/"))
	tests := []struct {
		name    string
		raw     string
		want    string
		wantMsg string // set when the URL is refused
	}{
		// SPEC.md, Link.destination_url: normalized as the redirect normalizes it.
		{"a bare origin gets a trailing slash", "https://example.com", "https://example.com/", ""},
		{"a bare origin with a query gets a slash before it", "https://example.com?a=1", "https://example.com/?a=1", ""},
		{"a bare origin with a fragment gets a slash before it", "https://example.com#top", "https://example.com/#top", ""},
		{"a normalized URL is returned unchanged", "https://example.com/a/b?c=d#e", "https://example.com/a/b?c=d#e", ""},
		{"scheme and host are lowered", "HTTPS://Example.COM/Path", "https://example.com/Path", ""},
		{"path, query and fragment keep their case", "https://example.com/A?B=C#D", "https://example.com/A?B=C#D", ""},
		{"the default https port is dropped", "https://example.com:443/x", "https://example.com/x", ""},
		{"the default http port is dropped", "http://example.com:80", "http://example.com/", ""},
		{"another port is kept", "https://example.com:8443/x", "https://example.com:8443/x", ""},
		{"port 80 is not https's default", "https://example.com:80/", "https://example.com:80/", ""},
		{"an empty port is dropped", "https://example.com:/x", "https://example.com/x", ""},
		{"leading zeros of a port are dropped", "https://example.com:0443/", "https://example.com/", ""},
		{"fragments are kept", "https://example.com/page#section-2", "https://example.com/page#section-2", ""},
		{"escapes are kept as written", "https://example.com/a%2fb?q=%e2%82%ac", "https://example.com/a%2fb?q=%e2%82%ac", ""},
		{"dot segments are kept", "https://example.com/a/../b", "https://example.com/a/../b", ""},
		{"non-ASCII in the path is percent-encoded", "https://example.com/café?q=€", "https://example.com/caf%C3%A9?q=%E2%82%AC", ""},
		{"characters a URL may not hold are percent-encoded", "https://example.com/a|b?x={1}&y=\"z\"", "https://example.com/a%7Cb?x=%7B1%7D&y=%22z%22", ""},
		{"a backslash in the path is encoded, not read as a slash", `https://example.com/a\b`, "https://example.com/a%5Cb", ""},
		{"IPv4 host", "http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x", ""},
		{"IPv6 host takes its canonical form", "http://[2001:DB8:0:0::1]:80/", "http://[2001:db8::1]/", ""},
		{"a trailing dot in the host is kept", "https://example.com./", "https://example.com./", ""},
		{"underscores in a host are allowed", "https://my_host.example.com/", "https://my_host.example.com/", ""},
		{"punycode host", "https://xn--caf-dma.example/", "https://xn--caf-dma.example/", ""},
		{"an app's own scheme is allowed", "myapp://product/42", "myapp://product/42", ""},
		{"an app's scheme keeps the case of its host and path", "MyApp://Product/42", "myapp://Product/42", ""},
		{"an Android intent URL", "intent://scan/#Intent;scheme=zxing;package=com.example;end", "intent://scan/#Intent;scheme=zxing;package=com.example;end", ""},
		{"an opaque URL", "mailto:team@example.com", "mailto:team@example.com", ""},
		{"the longest URL", long, long, ""},

		{"empty", "", "", "must not be empty"},
		{"a protocol is required", "example.com/page", "", "must include a protocol such as https://"},
		{"a protocol-relative URL has no protocol", "//example.com/", "", "must include a protocol such as https://"},
		{"a one-letter scheme is a drive letter", `c:\files\x`, "", "must include a protocol such as https://"},
		{"javascript is refused", "javascript:alert(1)", "", "javascript: URLs are not allowed"},
		{"javascript is refused whatever its case", "JavaScript:alert(1)", "", "javascript: URLs are not allowed"},
		{"data is refused", "data:text/html,<script>alert(1)</script>", "", "data: URLs are not allowed"},
		{"vbscript is refused", "vbscript:msgbox(1)", "", "vbscript: URLs are not allowed"},
		{"file is refused", "file:///etc/passwd", "", "file: URLs are not allowed"},
		{"a tab inside javascript is refused", "java\tscript:alert(1)", "", "must not contain spaces or other whitespace; percent-encode them (%20)"},
		{"a space is refused", "https://example.com/a b", "", "must not contain spaces or other whitespace; percent-encode them (%20)"},
		{"leading whitespace is refused", " https://example.com/", "", "must not contain spaces or other whitespace; percent-encode them (%20)"},
		{"a newline is refused", "https://example.com/\n", "", "must not contain spaces or other whitespace; percent-encode them (%20)"},
		{"a no-break space is refused", "https://example.com/\u00a0", "", "must not contain spaces or other whitespace; percent-encode them (%20)"},
		{"a NUL is refused", "https://example.com/\x00", "", "must not contain control characters or invisible formatting characters"},
		{"a zero-width space is refused", "https://exam\u200bple.com/", "", "must not contain control characters or invisible formatting characters"},
		{"a right-to-left override is refused", "https://example.com/\u202egnp.exe", "", "must not contain control characters or invisible formatting characters"},
		{"invalid UTF-8 is refused", "https://example.com/\xff", "", "must be valid UTF-8"},
		{"a bad percent-escape is refused", "https://example.com/100%", "", `has a "%" that is not followed by two hex digits; write a literal "%" as %25`},
		{"a percent sign before non-hex is refused", "https://example.com/?q=%zz", "", `has a "%" that is not followed by two hex digits; write a literal "%" as %25`},
		{"http needs a host", "https:example.com", "", "must have a host, as in https://example.com/"},
		{"http needs a non-empty host", "https:///path", "", "must have a host"},
		{"credentials are refused", "https://user:pass@example.com/", "", "must not contain a user name or password"},
		{"a host hidden behind credentials is refused", "https://paypal.com@evil.example/", "", "must not contain a user name or password"},
		{"a backslash in the host is refused", `https://example.com\@evil.example/`, "", "must not contain a user name or password"},
		{"a backslash host trick is refused", `https://evil.example\example.com/`, "", "has an invalid host"},
		{"a non-ASCII host is refused", "https://café.example/", "", "must have an ASCII host; write an internationalised domain name in its xn-- (punycode) form"},
		{"an empty label is refused", "https://example..com/", "", "has an invalid host"},
		{"a label over 63 characters is refused", "https://" + strings.Repeat("a", 64) + ".com/", "", "has an invalid host"},
		{"a percent-encoded host is refused", "https://ex%41mple.com/", "", "has an invalid host"},
		{"a numeric host must be an IPv4 address", "https://999.1.1.1/", "", "has an invalid IPv4 address"},
		{"an unclosed IPv6 bracket is refused", "https://[::1/", "", "has an invalid host"},
		{"an IPv4 address in brackets is refused", "https://[127.0.0.1]/", "", "has an invalid IPv6 address"},
		{"an IPv6 zone is refused", "https://[fe80::1%25eth0]/", "", "has an invalid IPv6 address"},
		{"a port over 65535 is refused", "https://example.com:65536/", "", "must have a port from 1 to 65535"},
		{"port 0 is refused", "https://example.com:0/", "", "must have a port from 1 to 65535"},
		{"a named port is refused", "https://example.com:https/", "", "must have a port from 1 to 65535"},
		{"an app scheme with nothing after it is refused", "myapp:", "", "must have something after myapp:"},
		{"an app scheme URL must parse", "myapp://host:port/", "", "is not a valid URL"},
		{"2049 characters is too long", long + "a", "", "must be at most 2048 characters"},
		{"too long once percent-encoded", "https://example.com/" + strings.Repeat("é", 700), "", "must be at most 2048 characters once percent-encoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linking.NormalizeURL(tt.raw)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, requireFieldError(t, err, "url"))
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := linking.NormalizeURL(got)
			assert.NoError(t, err)
			assert.Equal(t, got, again, "normalizing twice changes nothing")
		})
	}
}

func TestNormalizeLinkURL(t *testing.T) {
	tests := []struct {
		name    string
		field   string
		raw     string
		want    string
		wantMsg string
	}{
		{"destination_url takes https", linking.FieldDestinationURL, "https://example.com", "https://example.com/", ""},
		{"destination_url takes http", linking.FieldDestinationURL, "http://example.com/x", "http://example.com/x", ""},
		{"destination_url refuses an app scheme", linking.FieldDestinationURL, "myapp://x", "", "must be an http or https URL"},
		{"destination_url refuses mailto", linking.FieldDestinationURL, "mailto:a@example.com", "", "must be an http or https URL"},
		{"SPEC.md: destination_url must include a protocol", linking.FieldDestinationURL, "example.com", "", "must include a protocol such as https://"},
		{"a host and port without a protocol is not a scheme", linking.FieldDestinationURL, "example.com:8080/x", "", "must include a protocol such as https://"},
		{"ios_url takes an app scheme", linking.FieldIOSURL, "myapp://product/42", "myapp://product/42", ""},
		{"ios_url takes https (universal link)", linking.FieldIOSURL, "https://example.com", "https://example.com/", ""},
		{"android_url takes an intent URL", linking.FieldAndroidURL, "intent://x#Intent;end", "intent://x#Intent;end", ""},
		{"ios_url still refuses javascript", linking.FieldIOSURL, "javascript:alert(1)", "", "javascript: URLs are not allowed"},
		{"android_url still refuses data", linking.FieldAndroidURL, "data:,x", "", "data: URLs are not allowed"},
		{"ios_fallback_url must be http or https", linking.FieldIOSFallbackURL, "myapp://x", "", "must be an http or https URL"},
		{"android_fallback_url must be http or https", linking.FieldAndroidFallbackURL, "market://details?id=com.example", "", "must be an http or https URL"},
		{"og_image_url must be http or https", linking.FieldOGImageURL, "ftp://example.com/a.png", "", "must be an http or https URL"},
		{"og_image_url takes https", linking.FieldOGImageURL, "https://cdn.example.com/a.png", "https://cdn.example.com/a.png", ""},
		{"an unknown field takes http and https only", "ios_app_store_url", "itms-apps://x", "", "must be an http or https URL"},
		{"errors name the field passed in", "android_play_store_url", "", "", "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linking.NormalizeLinkURL(tt.field, tt.raw)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, requireFieldError(t, err, tt.field))
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAcceptsAppScheme(t *testing.T) {
	for field, want := range map[string]bool{
		linking.FieldIOSURL: true, linking.FieldAndroidURL: true,
		linking.FieldDestinationURL: false, linking.FieldIOSFallbackURL: false,
		linking.FieldAndroidFallbackURL: false, linking.FieldOGImageURL: false, "": false,
	} {
		assert.Equal(t, want, linking.AcceptsAppScheme(field), field)
	}
}
