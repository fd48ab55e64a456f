package linking_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

var reservedDomains = linking.ReservedDomains{
	DefaultLinkDomain: "hop.example",
	ServiceHosts:      []string{"api.hoplink.example", "localhost", "127.0.0.1"},
	CNAMETarget:       "cname.hoplink.example",
}

func TestParseCustomDomain(t *testing.T) {
	accepted := []struct {
		rule, in, want string
	}{
		{"a plain name is kept", "links.acme.com", "links.acme.com"},
		{"letters are lowered", "Links.ACME.com", "links.acme.com"},
		{"one trailing dot is dropped", "links.acme.com.", "links.acme.com"},
		{"a Unicode name is stored in punycode", "bücher.example", "xn--bcher-kva.example"},
		{"a Unicode name with capitals is folded first", "Bücher.Example", "xn--bcher-kva.example"},
		{"a punycode name is accepted as it is", "xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"full-width dots are mapped", "links\u3002acme\uff0ecom", "links.acme.com"},
		{"digits and hyphens inside labels", "go-1.a2b.io", "go-1.a2b.io"},
		{"four characters is the minimum", "a.io", "a.io"},
		{"a name under the service's own domain is not reserved", "links.hoplink.example", "links.hoplink.example"},
		{"a 63-character label", strings.Repeat("a", 63) + ".com", strings.Repeat("a", 63) + ".com"},
	}
	for _, c := range accepted {
		t.Run(c.rule, func(t *testing.T) {
			got, err := linking.ParseCustomDomain(c.in, reservedDomains)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}

	refused := []struct{ rule, in string }{
		{"shorter than 4 characters", "a.b"},
		{"longer than 255 characters", strings.Repeat("a.", 127) + "com"},
		{"longer than DNS allows once converted", strings.Repeat("ü", 60) + "." + strings.Repeat("ü", 60) + "." + strings.Repeat("ü", 60) + ".com"},
		{"empty", ""},
		{"not UTF-8", "ab\xff.com"},
		{"one label", "example"},
		{"an IPv4 address", "192.168.1.10"},
		{"an IPv4 address with a trailing dot", "10.0.0.1."},
		{"a short IPv4 form", "127.1"},
		{"an IPv6 address", "2001:db8::1"},
		{"a bracketed IPv6 address", "[2001:db8::1]"},
		{"an all-digit last label", "links.123"},
		{"localhost", "localhost"},
		{"a name under localhost", "shop.localhost"},
		{"the default link domain", "hop.example"},
		{"the default link domain in capitals", "HOP.example"},
		{"an app subdomain", "acme.hop.example"},
		{"a deeper name under the default link domain", "a.b.hop.example"},
		{"a service host", "api.hoplink.example"},
		{"the CNAME target", "cname.hoplink.example"},
		{"an underscore", "my_links.example.com"},
		{"a space", "links .example.com"},
		{"a wildcard", "*.example.com"},
		{"a leading hyphen", "-links.example.com"},
		{"a trailing hyphen", "links-.example.com"},
		{"an empty label", "links..example.com"},
		{"a leading dot", ".example.com"},
		{"two trailing dots", "example.com.."},
		{"a 64-character label", strings.Repeat("a", 64) + ".com"},
		{"a port", "example.com:443"},
		{"a URL", "https://example.com"},
		{"a path", "example.com/x"},
		{"a bogus punycode label", "xn--zz.example"},
		{"a user name", "me@example.com"},
	}
	for _, c := range refused {
		t.Run("refused: "+c.rule, func(t *testing.T) {
			_, err := linking.ParseCustomDomain(c.in, reservedDomains)
			require.Error(t, err)
			e, ok := errcode.As(err)
			require.True(t, ok, "an *errcode.Error: %v", err)
			assert.Equal(t, errcode.InvalidDomain, e.Code)
			assert.NotEmpty(t, e.Message)
			assert.Contains(t, e.Details, linking.DetailDomain)
		})
	}
}

func TestCustomDomainUnicode(t *testing.T) {
	assert.Equal(t, "bücher.example", linking.CustomDomainUnicode("xn--bcher-kva.example"))
	assert.Equal(t, "links.acme.com", linking.CustomDomainUnicode("links.acme.com"))
}

// FuzzParseCustomDomain checks that ParseCustomDomain never panics, that
// everything it accepts is a lowercase ASCII host name of valid labels that
// is no IP address and parses to itself again, and that every refusal is 422
// INVALID_DOMAIN. The seeds (and the corpus in testdata) run as a test.
func FuzzParseCustomDomain(f *testing.F) {
	for _, s := range []string{
		"links.acme.com", "Bücher.example", "xn--bcher-kva.example", "127.0.0.1", "[::1]", "127.1",
		"localhost", "a.localhost", "hop.example", "x.hop.example", "a..b", "a.b.", "-a.com", "a_b.com",
		"ＡＢＣ.com", "links\u3002acme.com", "\u200d.com", "xn--.com", "1.2.3.4.5", "é.é", "a.xn--p1ai",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := linking.ParseCustomDomain(in, reservedDomains)
		if err != nil {
			e, ok := errcode.As(err)
			if !ok || e.Code != errcode.InvalidDomain {
				t.Fatalf("ParseCustomDomain(%q) = %v, want INVALID_DOMAIN", in, err)
			}
			return
		}
		if n := utf8.RuneCountInString(in); n < 4 || n > 255 {
			t.Fatalf("ParseCustomDomain(%q) accepted %d characters", in, n)
		}
		if len(got) > 253 || strings.Count(got, ".") < 1 {
			t.Fatalf("ParseCustomDomain(%q) = %q: not a host name of two labels or more", in, got)
		}
		for _, l := range strings.Split(got, ".") {
			if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
				t.Fatalf("ParseCustomDomain(%q) = %q: bad label %q", in, got, l)
			}
			for i := 0; i < len(l); i++ {
				c := l[i]
				if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
					t.Fatalf("ParseCustomDomain(%q) = %q: byte %q", in, got, c)
				}
			}
		}
		if got == "hop.example" || strings.HasSuffix(got, ".hop.example") || strings.HasSuffix(got, ".localhost") {
			t.Fatalf("ParseCustomDomain(%q) = %q: a reserved name", in, got)
		}
		again, err := linking.ParseCustomDomain(got, reservedDomains)
		if err != nil || again != got {
			t.Fatalf("ParseCustomDomain(%q) = %q, which parses to %q, %v", in, got, again, err)
		}
	})
}
