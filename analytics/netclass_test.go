package analytics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/analytics"
)

func TestNetworkClass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, ip, want string }{
		{"public IPv4", "8.8.8.8", "ipv4"},
		{"documentation IPv4 routes like any other", "203.0.113.7", "ipv4"},
		{"shared address space is carrier-grade NAT", "100.64.0.1", "cgnat"},
		{"its last address too", "100.127.255.255", "cgnat"},
		{"just outside it", "100.128.0.1", "ipv4"},
		{"IPv4-mapped carrier-grade NAT", "::ffff:100.64.1.1", "cgnat"},
		{"RFC 1918", "192.168.1.10", "private"},
		{"loopback", "127.0.0.1", "private"},
		{"IPv6 unique local", "fd12:3456::1", "private"},
		{"IPv6 link-local with a zone", "fe80::1%eth0", "private"},
		{"public IPv6", "2001:4860:4860::8888", "ipv6"},
		{"not an address", "example.com", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, analytics.NetworkClass(tc.ip)) })
	}
}

func TestNormalizeDerivesIPClass(t *testing.T) {
	t.Parallel()
	c := analytics.Click{IP: "100.64.9.9"}
	c.Normalize()
	assert.Equal(t, analytics.NetworkCGNAT, c.IPClass)
	c = analytics.Click{IP: "100.64.9.9", IPClass: "given"}
	c.Normalize()
	assert.Equal(t, "given", c.IPClass, "a class set by the caller is kept")
}
