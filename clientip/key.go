package clientip

import (
	"net/netip"
	"strings"
)

// IPv6LimitBits is the prefix length by which per-client limits count an
// IPv6 client. One subscriber, host or cloud instance usually holds a
// whole /64 (RFC 6177 recommends at least that much per site) and can pick
// any of its 2^64 addresses for each request, so counting single IPv6
// addresses would let one client multiply every per-address limit at will.
const IPv6LimitBits = 64

// Key returns the name under which every per-client limit counts a (rate
// limits of requests without a key and of the SDK routes, link-password
// attempts, sign-in lockouts, client registration): an IPv4 address as
// itself ("203.0.113.7"), an IPv4-mapped IPv6 address as the IPv4 address it
// maps, and any other IPv6 address as its /64 network ("2001:db8:1:2::/64"),
// its zone dropped. The invalid address keeps its String form, so that
// clients whose address could not be read still share one count.
func Key(a netip.Addr) string {
	if !a.IsValid() {
		return a.String()
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, IPv6LimitBits).Masked().String()
}

// KeyOf returns Key of the address written in s (as Client.IP fields and
// logs carry it: "203.0.113.7", "2001:db8::1", "::ffff:203.0.113.7", with or
// without brackets or a zone). A string that is not an address is returned
// unchanged, so KeyOf(KeyOf(s)) == KeyOf(s) for every s.
func KeyOf(s string) string {
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return s
	}
	return Key(a)
}
