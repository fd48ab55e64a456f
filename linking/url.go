package linking

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// MaxURLLength is the longest URL a link field may hold, in characters, both
// as sent and once normalized (percent-encoding can lengthen it). 2048 is the
// length every browser, app platform and preview crawler handles.
const MaxURLLength = 2048

// The URL fields of a link, as their errors name them.
const (
	FieldDestinationURL     = "destination_url"
	FieldIOSURL             = "ios_url"
	FieldIOSFallbackURL     = "ios_fallback_url"
	FieldAndroidURL         = "android_url"
	FieldAndroidFallbackURL = "android_fallback_url"
	FieldOGImageURL         = "og_image_url"
)

// fieldURL is the field NormalizeURL's errors name.
const fieldURL = "url"

// refusedSchemes can run script, read local files or embed content; no field
// accepts them, whatever their case.
var refusedSchemes = map[string]bool{
	"about": true, "blob": true, "data": true, "file": true, "filesystem": true,
	"javascript": true, "vbscript": true,
}

// defaultPorts are dropped from http and https URLs.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

// AcceptsAppScheme reports whether a URL field accepts an app's own scheme
// (myapp://path, intent://...): only ios_url and android_url do. Every other
// field, including names this package does not know, takes http and https only.
func AcceptsAppScheme(field string) bool {
	return field == FieldIOSURL || field == FieldAndroidURL
}

// NormalizeLinkURL validates raw for the link field field and returns it
// normalized as NormalizeURL does. Fields for which AcceptsAppScheme is false
// must be http or https. Errors are VALIDATION_ERROR naming field.
func NormalizeLinkURL(field, raw string) (string, error) {
	out, scheme, msg := normalizeURL(raw)
	if msg == "" && !AcceptsAppScheme(field) && scheme != "http" && scheme != "https" {
		msg = "must be an http or https URL"
		if strings.Contains(scheme, ".") {
			msg = "must include a protocol such as https://"
		}
	}
	if msg != "" {
		return "", errcode.Field(field, msg)
	}
	return out, nil
}

// NormalizeURL validates raw and returns it in the form links store it and the
// redirect sends it, so that normalizing its result returns it unchanged. Any
// scheme but the refused ones is accepted; see NormalizeLinkURL for the rules
// of each link field. Errors are VALIDATION_ERROR naming the field url.
//
// Refused: an empty URL; one longer than MaxURLLength; invalid UTF-8;
// whitespace, control characters and invisible formatting characters
// (zero-width and bidirectional marks) anywhere; a missing scheme (and a
// one-letter scheme, which is a Windows drive); the schemes about, blob, data,
// file, filesystem, javascript and vbscript; a "%" not followed by two hex
// digits.
//
// For http and https: "//" and a host are required; a user name or password is
// refused; the host is a DNS name of letters, digits, hyphens, underscores and
// dots (63 per label, 253 in all, one trailing dot allowed), an IPv4 address,
// or an IPv6 address in brackets (without a zone); a host with non-ASCII
// characters is refused, since an internationalised name must be written in its
// xn-- (punycode) form; the port is a number from 1 to 65535.
//
// Normalization, and nothing more: the scheme is lowered; for http and https
// the host is lowered (ASCII only, no IDNA mapping), an IPv6 address takes its
// canonical text form, an empty port and the default port (80, 443) are
// dropped, leading zeros of a port are dropped, and an empty path becomes "/"
// (https://example.com becomes https://example.com/, and
// https://example.com?a=1 becomes https://example.com/?a=1); characters a URL
// may not hold (non-ASCII and " < > \ ^ ` { | }) are percent-encoded as UTF-8.
// Path, query and fragment are otherwise kept byte for byte: dot segments,
// escapes and their case are not touched, so signed URLs keep working. The
// host and path of an app's own scheme are kept as written, since the app
// alone knows whether they are case-sensitive; such a URL must still parse as
// a URL.
//
// NormalizeURL allocates only when the URL changes.
func NormalizeURL(raw string) (string, error) {
	out, _, msg := normalizeURL(raw)
	if msg != "" {
		return "", errcode.Field(fieldURL, msg)
	}
	return out, nil
}

// normalizeURL returns raw normalized and its lowered scheme, or a message
// saying what is wrong with it.
func normalizeURL(raw string) (out, scheme, problem string) {
	if raw == "" {
		return "", "", "must not be empty"
	}
	if len(raw) > MaxURLLength && (len(raw) > utf8.UTFMax*MaxURLLength || utf8.RuneCountInString(raw) > MaxURLLength) {
		return "", "", fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	if msg := scanCharacters(raw); msg != "" {
		return "", "", msg
	}

	colon := schemeEnd(raw)
	if colon < 0 {
		return "", "", "must include a protocol such as https://"
	}
	rawScheme, rest := raw[:colon], raw[colon+1:]
	scheme = lowerASCII(rawScheme)
	if refusedSchemes[scheme] {
		return "", "", scheme + ": URLs are not allowed"
	}

	var b urlBuilder
	b.raw = raw
	b.write(len(rawScheme), scheme)
	b.write(1, ":")
	if scheme == "http" || scheme == "https" {
		if msg := b.webRest(scheme, rest); msg != "" {
			return "", "", msg
		}
	} else {
		if rest == "" {
			return "", "", "must have something after " + scheme + ":"
		}
		b.encode(rest)
	}
	out = b.String()
	if len(out) > MaxURLLength {
		return "", "", fmt.Sprintf("must be at most %d characters once percent-encoded", MaxURLLength)
	}
	if scheme != "http" && scheme != "https" {
		// The authority of an app's scheme is not checked above; the standard
		// parser stands in for the app's own.
		if _, err := url.Parse(out); err != nil {
			return "", "", "is not a valid URL"
		}
	}
	return out, scheme, ""
}

// webRest writes the part of an http or https URL after "scheme:", or returns
// what is wrong with it.
func (b *urlBuilder) webRest(scheme, rest string) string {
	if !strings.HasPrefix(rest, "//") {
		return "must have a host, as in " + scheme + "://example.com/"
	}
	b.write(2, "//")
	rest = rest[2:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if strings.Contains(authority, "@") {
		return "must not contain a user name or password"
	}
	host, port, hasPort := authority, "", false
	if i := strings.LastIndexByte(authority, ':'); i >= 0 && !strings.Contains(authority[i:], "]") {
		host, port, hasPort = authority[:i], authority[i+1:], true
	}
	canonicalHost, msg := normalizeHost(host)
	if msg != "" {
		return msg
	}
	b.write(len(host), canonicalHost)
	if hasPort {
		p, ok := canonicalPort(port)
		if !ok {
			return "must have a port from 1 to 65535"
		}
		if p == "" || p == defaultPorts[scheme] {
			b.write(1+len(port), "")
		} else {
			b.write(1+len(port), ":"+p)
		}
	}
	if tail == "" || tail[0] != '/' {
		b.write(0, "/")
	}
	b.encode(tail)
	return ""
}

// normalizeHost returns the lowered, checked host of an http or https URL, or
// what is wrong with it.
func normalizeHost(host string) (string, string) {
	if host == "" {
		return "", "must have a host"
	}
	if host[0] == '[' {
		if host[len(host)-1] != ']' {
			return "", "has an invalid host"
		}
		addr, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return "", "has an invalid IPv6 address"
		}
		return "[" + addr.String() + "]", ""
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			return "", "must have an ASCII host; write an internationalised domain name in its xn-- (punycode) form"
		}
	}
	host = lowerASCII(host)
	name := strings.TrimSuffix(host, ".")
	if len(name) == 0 || len(name) > 253 {
		return "", "has an invalid host"
	}
	numeric := false
	for label := range strings.SplitSeq(name, ".") {
		if len(label) == 0 || len(label) > 63 {
			return "", "has an invalid host"
		}
		numeric = true
		for i := 0; i < len(label); i++ {
			c := label[i]
			switch {
			case '0' <= c && c <= '9':
			case 'a' <= c && c <= 'z', c == '-', c == '_':
				numeric = false
			default:
				return "", "has an invalid host"
			}
		}
	}
	// Browsers read a name whose last label is a number as an IPv4 address.
	if numeric {
		if addr, err := netip.ParseAddr(host); err != nil || !addr.Is4() {
			return "", "has an invalid IPv4 address"
		}
	}
	return host, ""
}

// canonicalPort returns port without leading zeros ("" for an empty port) and
// whether it is empty or a number from 1 to 65535.
func canonicalPort(port string) (string, bool) {
	if port == "" {
		return "", true
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", false
		}
	}
	trimmed := strings.TrimLeft(port, "0")
	if trimmed == "" || len(trimmed) > 5 {
		return "", false
	}
	n, err := strconv.Atoi(trimmed)
	if err != nil || n > 65535 {
		return "", false
	}
	return trimmed, true
}

// schemeEnd returns the index of the colon ending raw's scheme (RFC 3986,
// section 3.1: a letter, then letters, digits, "+", "-" or "."), or -1 when raw
// has no scheme of at least two characters.
func schemeEnd(raw string) int {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9', c == '+', c == '-', c == '.':
			if i == 0 {
				return -1
			}
		case c == ':':
			if i < 2 {
				return -1
			}
			return i
		default:
			return -1
		}
	}
	return -1
}

// scanCharacters returns what is wrong with the characters of raw, or "".
func scanCharacters(raw string) string {
	if !utf8.ValidString(raw) {
		return "must be valid UTF-8"
	}
	for i, r := range raw {
		switch {
		case r == '%':
			if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
				return `has a "%" that is not followed by two hex digits; write a literal "%" as %25`
			}
		case r < utf8.RuneSelf && r > ' ' && r != 0x7f:
		case unicode.IsSpace(r):
			return "must not contain spaces or other whitespace; percent-encode them (%20)"
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return "must not contain control characters or invisible formatting characters"
		}
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// mustEncode reports whether byte c may not appear as itself in a URL (RFC
// 3986, section 2): anything but the unreserved and reserved characters and
// "%". Whitespace and control characters never get here.
func mustEncode(c byte) bool {
	if c >= utf8.RuneSelf {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return false
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.Map(func(r rune) rune {
				if 'A' <= r && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, s)
		}
	}
	return s
}

// urlBuilder copies a URL piece by piece, allocating only at the first piece
// that differs from the raw URL. pos is how far into raw the pieces written so
// far reach; while the output equals raw[:pos] nothing is buffered.
type urlBuilder struct {
	raw     string
	pos     int
	changed bool
	buf     []byte
}

// write appends s as the replacement of the next n bytes of raw.
func (b *urlBuilder) write(n int, s string) {
	if !b.changed && s == b.raw[b.pos:b.pos+n] {
		b.pos += n
		return
	}
	b.diverge()
	b.buf = append(b.buf, s...)
	b.pos += n
}

// escape appends the percent-encoding of c, the next byte of raw.
func (b *urlBuilder) escape(c byte) {
	const hex = "0123456789ABCDEF"
	b.diverge()
	b.buf = append(b.buf, '%', hex[c>>4], hex[c&15])
	b.pos++
}

// diverge starts buffering: the output is about to differ from raw.
func (b *urlBuilder) diverge() {
	if !b.changed {
		b.changed = true
		b.buf = make([]byte, 0, len(b.raw)+16)
		b.buf = append(b.buf, b.raw[:b.pos]...)
	}
}

// encode appends s, the rest of raw, percent-encoding the bytes mustEncode names.
func (b *urlBuilder) encode(s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		if !mustEncode(s[i]) {
			continue
		}
		b.write(i-start, s[start:i])
		b.escape(s[i])
		start = i + 1
	}
	b.write(len(s)-start, s[start:])
}

// String returns the URL written.
func (b *urlBuilder) String() string {
	if !b.changed {
		return b.raw
	}
	return string(b.buf)
}
