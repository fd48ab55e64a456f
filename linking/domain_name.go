package linking

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/hoplink/hoplink/errcode"
)

// Lengths of a custom domain name as sent (SPEC.md, Limits: domain name 4 to
// 255 characters), counted in Unicode code points.
const (
	MinCustomDomainLength = 4
	MaxCustomDomainLength = 255
)

// maxDNSNameLength is the longest host name DNS carries in ASCII, without the
// root's trailing dot (RFC 1035 section 2.3.4: 255 octets on the wire).
const maxDNSNameLength = 253

// ReservedDomains are the names a custom domain can never be, because the
// service itself answers on them.
type ReservedDomains struct {
	// DefaultLinkDomain is the service's {default_link_domain}: neither it nor
	// any name under it (the app subdomains among them) may be a custom domain.
	DefaultLinkDomain string
	// ServiceHosts are the host names of the API service (--service-host).
	ServiceHosts []string
	// CNAMETarget is the name custom domains point at (--cname-target).
	CNAMETarget string
}

// domainProfile maps a name as a browser's address bar would (UTS 46
// lookup mapping: case folded, full-width dots and letters mapped) and then
// checks it as strictly as a registry would: letters, digits and hyphens
// only, valid labels, the bidi rule, and DNS lengths.
var domainProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.ValidateLabels(true),
	idna.StrictDomainName(true),
	idna.VerifyDNSLength(true),
	idna.CheckHyphens(true),
	idna.CheckJoiners(true),
)

// ParseCustomDomain checks a custom domain name sent to POST /domains and
// returns the form in which it is stored and compared: ASCII, lowercase,
// internationalized labels in their punycode (xn--) form, without a trailing
// dot. Every refusal is 422 INVALID_DOMAIN with details.domain holding the
// name as sent:
//
//   - fewer than 4 or more than 255 characters (without a trailing dot, and
//     at least 4 once converted), or not valid UTF-8;
//   - not a host name: IDNA 2008 with the UTS 46 lookup mapping, labels of
//     1 to 63 letters, digits and hyphens (no leading or trailing hyphen, no
//     "--" in the third and fourth position unless a valid xn-- label), at
//     most 253 characters once converted, at least two labels, and a last
//     label that is not all digits (so that "1.2.3.4" and "127.1" are not
//     taken for names);
//   - an IP address in any form (IPv4, IPv6, bracketed or not);
//   - localhost or any name under it;
//   - the default link domain or any name under it, a service host, or the
//     CNAME target.
//
// It is pure: no DNS is consulted.
func ParseCustomDomain(name string, reserved ReservedDomains) (string, error) {
	if !utf8.ValidString(name) {
		return "", invalidCustomDomain(name, "is not valid UTF-8")
	}
	trimmed := strings.TrimSuffix(name, ".")
	if n := utf8.RuneCountInString(trimmed); n < MinCustomDomainLength || n > MaxCustomDomainLength {
		return "", invalidCustomDomain(name, lengthRule)
	}
	if isIPAddress(trimmed) {
		return "", invalidCustomDomain(name, "is an IP address; a custom domain is a host name")
	}
	ascii, err := domainProfile.ToASCII(trimmed)
	if err != nil || ascii == "" || strings.HasSuffix(ascii, ".") {
		return "", invalidCustomDomain(name, "is not a valid domain name")
	}
	// The mapping may turn other characters into dots or digits: check the
	// result again.
	if isIPAddress(ascii) {
		return "", invalidCustomDomain(name, "is an IP address; a custom domain is a host name")
	}
	if len(ascii) > maxDNSNameLength {
		return "", invalidCustomDomain(name, "is longer than DNS allows")
	}
	if len(ascii) < MinCustomDomainLength {
		// The mapping dropped characters (soft hyphens, joiners).
		return "", invalidCustomDomain(name, lengthRule)
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", invalidCustomDomain(name, "must have at least two labels, such as links.example.com")
	}
	for _, l := range labels {
		if !validLDHLabel(l) {
			return "", invalidCustomDomain(name, "is not a valid domain name")
		}
	}
	if allDigits(labels[len(labels)-1]) {
		return "", invalidCustomDomain(name, "is not a valid domain name: its last label is all digits")
	}
	// A name the conversion cannot take back (a bogus xn-- label) is refused.
	if _, err := domainProfile.ToUnicode(ascii); err != nil {
		return "", invalidCustomDomain(name, "is not a valid domain name")
	}
	if ascii == "localhost" || strings.HasSuffix(ascii, ".localhost") {
		return "", invalidCustomDomain(name, "is localhost")
	}
	if def := NormalizeDomain(reserved.DefaultLinkDomain); def != "" && (ascii == def || strings.HasSuffix(ascii, "."+def)) {
		return "", invalidCustomDomain(name, "is the service's default link domain or a name under it")
	}
	for _, h := range reserved.ServiceHosts {
		if h = NormalizeDomain(h); h != "" && ascii == h {
			return "", invalidCustomDomain(name, "is a host name of the service")
		}
	}
	if t := NormalizeDomain(reserved.CNAMETarget); t != "" && ascii == t {
		return "", invalidCustomDomain(name, "is the service's CNAME target")
	}
	return ascii, nil
}

// CustomDomainUnicode returns the Unicode form of a stored custom domain for
// display; the stored form itself when it has none.
func CustomDomainUnicode(ascii string) string {
	u, err := domainProfile.ToUnicode(ascii)
	if err != nil {
		return ascii
	}
	return u
}

var lengthRule = fmt.Sprintf("must be %d to %d characters", MinCustomDomainLength, MaxCustomDomainLength)

func invalidCustomDomain(name, why string) *errcode.Error {
	shown := name
	if !utf8.ValidString(shown) {
		shown = strings.ToValidUTF8(shown, "\uFFFD")
	}
	return errcode.Newf(errcode.InvalidDomain, "domain %s", why).WithDetail(DetailDomain, shown)
}

// isIPAddress reports whether s is an IP address, bracketed or not.
func isIPAddress(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	_, err := netip.ParseAddr(s)
	return err == nil
}

// validLDHLabel reports whether l is 1 to 63 ASCII lowercase letters, digits
// and hyphens, neither starting nor ending with a hyphen.
func validLDHLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
