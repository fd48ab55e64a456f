package geo

import (
	"net/netip"

	"github.com/phuslu/iploc"
)

// Country returns the ISO 3166-1 alpha-2 code, in upper case, of the
// country ip is registered in according to the built-in table, or "" when
// it is unknown: for an address that is not globally routable (see the
// package doc) and for one the table places nowhere. An IPv4-mapped IPv6
// address is looked up as its IPv4 address. Country is safe for concurrent
// use and does not allocate.
func Country(ip netip.Addr) string {
	ip = ip.Unmap()
	if !routable(ip) {
		return ""
	}
	return countryCode(iploc.IPCountry(ip))
}

// countryCode returns c when it is an assigned-looking ISO 3166-1 alpha-2
// code, two upper-case ASCII letters other than "ZZ" (the code iploc and
// others use for "unknown"), and "" otherwise.
func countryCode(c string) string {
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' || c == "ZZ" {
		return ""
	}
	return c
}

// v4Block is an IPv4 network as a 32-bit prefix and its mask.
type v4Block struct{ prefix, mask uint32 }

// unroutable4 lists the IPv4 networks of the IANA IPv4 Special-Purpose
// Address Registry that are not globally reachable, and the deprecated
// 6to4 relay anycast (RFC 7526). Multicast and the limited broadcast fall
// in 224.0.0.0/4 and 240.0.0.0/4.
var unroutable4 = [...]v4Block{
	{0x00000000, 0xff000000}, // 0.0.0.0/8, "this network" (RFC 791)
	{0x0a000000, 0xff000000}, // 10.0.0.0/8, private (RFC 1918)
	{0x64400000, 0xffc00000}, // 100.64.0.0/10, shared address space (RFC 6598)
	{0x7f000000, 0xff000000}, // 127.0.0.0/8, loopback (RFC 1122)
	{0xa9fe0000, 0xffff0000}, // 169.254.0.0/16, link-local (RFC 3927)
	{0xac100000, 0xfff00000}, // 172.16.0.0/12, private (RFC 1918)
	{0xc0000000, 0xffffff00}, // 192.0.0.0/24, IETF protocol assignments (RFC 6890)
	{0xc0000200, 0xffffff00}, // 192.0.2.0/24, documentation (RFC 5737)
	{0xc0586300, 0xffffff00}, // 192.88.99.0/24, 6to4 relay anycast (RFC 7526)
	{0xc0a80000, 0xffff0000}, // 192.168.0.0/16, private (RFC 1918)
	{0xc6120000, 0xfffe0000}, // 198.18.0.0/15, benchmarking (RFC 2544)
	{0xc6336400, 0xffffff00}, // 198.51.100.0/24, documentation (RFC 5737)
	{0xcb007100, 0xffffff00}, // 203.0.113.0/24, documentation (RFC 5737)
	{0xe0000000, 0xe0000000}, // 224.0.0.0/3: multicast (224/4) and reserved (240/4)
}

// routable reports whether ip, already unmapped, is a globally routable
// unicast address that a country can be looked up for.
func routable(ip netip.Addr) bool {
	if ip.Is4() {
		b := ip.As4()
		n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		for _, blk := range unroutable4 {
			if n&blk.mask == blk.prefix {
				return false
			}
		}
		return true
	}
	if !ip.Is6() {
		return false // the zero Addr
	}
	b := ip.As16()
	hi := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	switch {
	case hi&0xe0000000 != 0x20000000:
		// Outside 2000::/3, the global unicast space (RFC 4291): loopback,
		// unspecified, ULA, link-local, multicast and the reserved rest.
		return false
	case hi&0xfffffe00 == 0x20010000:
		// 2001::/23, IETF protocol assignments (RFC 2928): Teredo,
		// benchmarking, ORCHID and the like.
		return false
	case hi == 0x20010db8:
		// 2001:db8::/32, documentation (RFC 3849).
		return false
	case hi&0xfffff000 == 0x3fff0000:
		// 3fff::/20, documentation (RFC 9637).
		return false
	}
	return true
}
