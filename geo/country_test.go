package geo_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/geo"
)

func TestCountry(t *testing.T) {
	for _, tc := range []struct{ name, ip, want string }{
		{"a public IPv4 address has its country", "8.8.8.8", "US"},
		{"another registry's IPv4 address", "193.0.6.139", "NL"},
		{"a public IPv6 address has its country", "2001:4860:4860::8888", "US"},
		{"an IPv6 address in Europe", "2a00:1450:4001:80b::200e", "DE"},
		{"an IPv4-mapped IPv6 address is its IPv4 address", "::ffff:193.0.6.139", "NL"},
		{"a zone is ignored", "2001:4860:4860::8888%eth0", "US"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, geo.Country(netip.MustParseAddr(tc.ip)))
		})
	}
}

// unroutable are addresses that no Locator places, one per rule of the
// package doc.
var unroutable = []struct{ name, ip string }{
	{"unspecified IPv4", "0.0.0.0"},
	{"this network", "0.1.2.3"},
	{"private 10/8", "10.1.2.3"},
	{"shared address space", "100.64.1.1"},
	{"loopback", "127.0.0.1"},
	{"link-local", "169.254.1.1"},
	{"private 172.16/12", "172.16.0.1"},
	{"IETF protocol assignments", "192.0.0.1"},
	{"documentation TEST-NET-1", "192.0.2.1"},
	{"6to4 relay anycast", "192.88.99.1"},
	{"private 192.168/16", "192.168.1.1"},
	{"benchmarking", "198.18.0.1"},
	{"documentation TEST-NET-2", "198.51.100.1"},
	{"documentation TEST-NET-3", "203.0.113.1"},
	{"multicast", "224.0.0.1"},
	{"reserved 240/4", "240.0.0.1"},
	{"limited broadcast", "255.255.255.255"},
	{"IPv4-mapped private", "::ffff:10.0.0.1"},
	{"unspecified IPv6", "::"},
	{"IPv6 loopback", "::1"},
	{"unique local", "fc00::1"},
	{"IPv6 link-local", "fe80::1"},
	{"IPv6 multicast", "ff02::1"},
	{"NAT64 well-known prefix", "64:ff9b::808:808"},
	{"Teredo", "2001::1"},
	{"IPv6 documentation", "2001:db8::1"},
	{"IPv6 documentation RFC 9637", "3fff::1"},
}

func TestCountryUnknown(t *testing.T) {
	for _, tc := range unroutable {
		t.Run(tc.name+" has no country", func(t *testing.T) {
			assert.Empty(t, geo.Country(netip.MustParseAddr(tc.ip)))
		})
	}
	t.Run("the zero address has no country", func(t *testing.T) {
		assert.Empty(t, geo.Country(netip.Addr{}))
	})
	t.Run("an address the table places nowhere has no country, not ZZ", func(t *testing.T) {
		// 6to4 (2002::/16) is global unicast, but the table answers ZZ.
		assert.Empty(t, geo.Country(netip.MustParseAddr("2002:808:808::1")))
	})
}

func TestBuiltin(t *testing.T) {
	loc := geo.Builtin()
	t.Run("it answers the country alone", func(t *testing.T) {
		assert.Equal(t, geo.Location{Country: "DE"}, loc.Locate(netip.MustParseAddr("2a00:1450:4001:80b::200e")))
	})
	t.Run("a private address is nowhere", func(t *testing.T) {
		assert.Equal(t, geo.Location{}, loc.Locate(netip.MustParseAddr("192.168.1.1")))
	})
}

func BenchmarkCountry(b *testing.B) {
	geo.Builtin() // expand the IPv6 table outside the measurement
	for _, bc := range []struct{ name, ip string }{
		{"IPv4", "193.0.6.139"},
		{"IPv6", "2a00:1450:4001:80b::200e"},
		{"IPv4-mapped", "::ffff:193.0.6.139"},
		{"private", "192.168.1.1"},
	} {
		ip := netip.MustParseAddr(bc.ip)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var c string
			for b.Loop() {
				c = geo.Country(ip)
			}
			_ = c
		})
	}
}
