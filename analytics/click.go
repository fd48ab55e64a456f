package analytics

import (
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Source says what recorded a click.
type Source string

// The click sources.
const (
	// SourceRedirect is a real visitor redirected by a link domain
	// (issue 4, item 7).
	SourceRedirect Source = "redirect"
	// SourceAppOpen is a resolve by an SDK on a device (SPEC.md, link
	// resolution rule 1).
	SourceAppOpen Source = "app_open"
)

// Length limits of the free-text fields, in bytes. Normalize cuts longer
// values on a UTF-8 boundary.
const (
	MaxUserAgent      = 512
	MaxAcceptLanguage = 256
	MaxReferer        = 2048
	// MaxText bounds every other text field (device model, browser, UTM
	// values, ...), which come from the request too.
	MaxText = 256
)

// Click is one recorded click: a redirect of a real visitor or an SDK
// resolve. Empty strings stand for "unknown"; the store keeps them as
// empty strings, not NULL.
type Click struct {
	// ID is a UUIDv7. When zero, the recorder assigns one before writing.
	// The redirect sets it itself when it needs the click id first (the
	// Play Store referrer carries it).
	ID    uuid.UUID
	OrgID uuid.UUID
	// LinkID names the link; deleting the link deletes its clicks (SPEC.md,
	// Link states).
	LinkID uuid.UUID
	// AppID is the link's app, nil for a link without one.
	AppID *uuid.UUID
	// Domain and Slug are the address the visitor used.
	Domain string
	Slug   string
	// OccurredAt is when the click happened; stored in UTC.
	OccurredAt time.Time
	Source     Source
	// Platform is linking.Platform as a string: "ios", "android", "desktop"
	// or "unknown".
	Platform    string
	OS          string
	OSVersion   string
	DeviceModel string
	Browser     string
	// InAppBrowser names the app of an in-app browser ("Instagram"), or is
	// empty.
	InAppBrowser string
	// IP is the client's address as text. It is stored for attribution and
	// never logged.
	IP string
	// Country is the ISO 3166-1 alpha-2 code of IP's country ("US"), Region
	// the ISO 3166-2 subdivision code without the country ("CA"), City its
	// English name; empty when unknown. The recorder fills them from IP
	// with its Locator (RecorderOptions.Locator) when Country is empty;
	// Region and City need a MaxMind-format database (--geoip-db).
	Country string
	Region  string
	City    string
	// IPClass is the network class of IP (NetworkClass: "ipv4", "ipv6",
	// "cgnat", "private", or "" when IP is not an address). Normalize
	// derives it from IP when empty. It stays when the purge clears IP and
	// IPKey (IPRetention).
	IPClass string
	// IPKey is the IPv4 address, or the IPv6 /64 prefix ("2001:db8:1:2::/64"),
	// that attribution looks clicks up by. Normalize derives it from IP when
	// empty.
	IPKey          string
	UserAgent      string
	AcceptLanguage string
	Referer        string
	// RefererHost is the host of Referer as RefererHost returns it, the
	// value the analytics breakdown by referer_host reads. Normalize
	// derives it from Referer when empty.
	RefererHost string
	// UTM values of the final URL for a web destination, of the tap
	// otherwise (SPEC.md, UTM rule 4).
	UTMSource   string
	UTMMedium   string
	UTMCampaign string
	UTMTerm     string
	UTMContent  string
	// TapID is the SDK's X-Service-Tap-Id, nil when absent or malformed. A
	// tap id is unique within an organization: a second click with the same
	// tap id is skipped by the store (SPEC.md, resolve rule 3).
	TapID *uuid.UUID
	// CountOnly marks a click past the organization's monthly allowance: it
	// is counted but no row is stored (see the package doc). The recorder
	// sets it from its Allowance, and on the clicks that arrive while its
	// buffer is full.
	CountOnly bool
	// Weight is how many clicks a CountOnly click stands for; 0 means 1.
	// The recorder sums the clicks that overflow its buffer into one
	// CountOnly click per organization and minute.
	Weight int64
}

// Clicks returns how many clicks c counts for: Weight for a CountOnly
// click that carries one, else 1.
func (c *Click) Clicks() int64 {
	if c.CountOnly && c.Weight > 0 {
		return c.Weight
	}
	return 1
}

// Normalize prepares c for storage: it cuts the free-text fields to their
// limits on a UTF-8 boundary, replaces invalid UTF-8 and removes NUL bytes
// (PostgreSQL refuses both in text), stores OccurredAt in UTC and derives
// IPKey and IPClass from IP when they are empty. It never fails: a field it cannot
// make sense of (an IP that does not parse) is left as it is, with an empty
// IPKey.
func (c *Click) Normalize() {
	c.OccurredAt = c.OccurredAt.UTC()
	for _, f := range []struct {
		s   *string
		max int
	}{
		{&c.UserAgent, MaxUserAgent},
		{&c.AcceptLanguage, MaxAcceptLanguage},
		{&c.Referer, MaxReferer},
		{&c.Domain, MaxText},
		{&c.Slug, MaxText},
		{&c.Platform, MaxText},
		{&c.OS, MaxText},
		{&c.OSVersion, MaxText},
		{&c.DeviceModel, MaxText},
		{&c.Browser, MaxText},
		{&c.InAppBrowser, MaxText},
		{&c.IP, MaxText},
		{&c.IPKey, MaxText},
		{&c.IPClass, MaxText},
		{&c.Country, MaxText},
		{&c.Region, MaxText},
		{&c.City, MaxText},
		{&c.UTMSource, MaxText},
		{&c.UTMMedium, MaxText},
		{&c.UTMCampaign, MaxText},
		{&c.UTMTerm, MaxText},
		{&c.UTMContent, MaxText},
	} {
		*f.s = cleanText(*f.s, f.max)
	}
	if c.IPKey == "" {
		c.IPKey = IPKey(c.IP)
	}
	if c.IPClass == "" {
		c.IPClass = NetworkClass(c.IP)
	}
	if c.RefererHost == "" {
		c.RefererHost = RefererHost(c.Referer)
	} else {
		c.RefererHost = cleanText(c.RefererHost, MaxText)
	}
}

// RefererHost returns the host of referer, an absolute URL: lower case,
// without a port, an IPv6 address without its brackets, and a leading
// "www." kept (www.example.com and example.com may be different sites, and
// the breakdown shows what the visitor's browser sent). It returns "" when
// referer is empty, not an absolute URL with a host, or a host longer than
// MaxText bytes.
func RefererHost(referer string) string {
	if referer == "" {
		return ""
	}
	u, err := url.Parse(referer)
	if err != nil || u.Host == "" {
		return ""
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if len(h) > MaxText || !utf8.ValidString(h) {
		return ""
	}
	return h
}

// cleanText returns s as valid UTF-8 without NUL bytes, at most max bytes
// long, cut before a rune that would cross the limit.
func cleanText(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// IPKey returns the key attribution groups clicks by: an IPv4 address as
// itself (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address as
// its /64 prefix ("2001:db8:1:2::/64"), and "" for text that is not an IP
// address. A zone is dropped.
func IPKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return ""
	}
	return p.String()
}
