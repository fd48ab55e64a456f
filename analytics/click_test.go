package analytics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/analytics"
)

func TestIPKey(t *testing.T) {
	for _, tc := range []struct{ name, ip, want string }{
		{"IPv4 is itself", "203.0.113.7", "203.0.113.7"},
		{"IPv4-mapped IPv6 is its IPv4", "::ffff:203.0.113.7", "203.0.113.7"},
		{"IPv6 is its /64", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"a zone is dropped", "fe80::1%eth0", "fe80::/64"},
		{"not an address", "unknown", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, analytics.IPKey(tc.ip)) })
	}
}

func TestNormalize(t *testing.T) {
	at := time.Date(2026, 11, 22, 11, 0, 0, 0, time.FixedZone("CET", 3600))
	c := analytics.Click{
		OccurredAt:     at,
		UserAgent:      "a" + strings.Repeat("€", 200), // 601 bytes; € is 3 bytes
		AcceptLanguage: strings.Repeat("x", 300),
		Referer:        "https://example.com/\xff\x00path",
		IP:             "2001:db8::1",
		UTMSource:      strings.Repeat("s", 1000),
	}
	c.Normalize()
	assert.Equal(t, "a"+strings.Repeat("€", 170), c.UserAgent, "cut before the rune that would pass 512 bytes")
	assert.Len(t, c.AcceptLanguage, analytics.MaxAcceptLanguage)
	assert.Equal(t, "https://example.com/\uFFFDpath", c.Referer, "invalid UTF-8 replaced, NUL removed")
	assert.Equal(t, "2001:db8::/64", c.IPKey)
	assert.Len(t, c.UTMSource, analytics.MaxText)
	assert.Equal(t, time.UTC, c.OccurredAt.Location())
	assert.True(t, at.Equal(c.OccurredAt))

	c = analytics.Click{IP: "203.0.113.7", IPKey: "given"}
	c.Normalize()
	assert.Equal(t, "given", c.IPKey, "an IPKey set by the caller is kept")
}

func TestRefererHost(t *testing.T) {
	for _, tc := range []struct{ name, referer, want string }{
		{"the host of a URL", "https://news.example/a/b?c=d", "news.example"},
		{"lower case", "https://News.EXAMPLE/", "news.example"},
		{"without the port", "http://news.example:8080/", "news.example"},
		{"www. is kept", "https://www.example.com/", "www.example.com"},
		{"an IPv6 host without brackets", "http://[2001:db8::1]:80/", "2001:db8::1"},
		{"the trailing dot of a full name is dropped", "https://news.example./", "news.example"},
		{"an app referer keeps its host", "android-app://com.google.android.gm/", "com.google.android.gm"},
		{"a relative reference has none", "/path", ""},
		{"not a URL", "%zz", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, analytics.RefererHost(tc.referer)) })
	}
}

func TestNormalizeDerivesRefererHost(t *testing.T) {
	c := analytics.Click{Referer: "https://Mail.Example:443/inbox"}
	c.Normalize()
	assert.Equal(t, "mail.example", c.RefererHost)
}
