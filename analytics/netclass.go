package analytics

import "net/netip"

// The network classes of a click's IP address (Click.IPClass). They are
// what a click keeps of its address once the purge has cleared it (see
// IPRetention), beside its country.
const (
	// NetworkCGNAT is an IPv4 address in the shared address space of
	// carrier-grade NAT, 100.64.0.0/10 (RFC 6598).
	NetworkCGNAT = "cgnat"
	// NetworkPrivate is an address that does not route on the internet:
	// private (RFC 1918, the IPv6 unique local fc00::/7), loopback,
	// link-local or unspecified. A click from one usually means the
	// server reads the address of a proxy it should trust
	// (--trusted-proxies).
	NetworkPrivate = "private"
	// NetworkIPv4 is any other IPv4 address.
	NetworkIPv4 = "ipv4"
	// NetworkIPv6 is any other IPv6 address.
	NetworkIPv6 = "ipv6"
)

// NetworkClass returns the network class of ip, an address as text:
// NetworkCGNAT, NetworkPrivate, NetworkIPv4 or NetworkIPv6, and "" for
// text that is not an IP address. An IPv4-mapped IPv6 address is classed
// as its IPv4 form; a zone is ignored.
//
// It is the part of attribution's IP class (attribution.ClassifyIP) that
// the address alone tells: "cgnat", "ipv4" and "ipv6" mean the same there.
// Attribution also calls an IPv4 address carrier-grade NAT when many
// devices clicked behind it, which needs the click history the purge
// removes, so a stored class never depends on it; and it has no private
// class (such an address is "ipv4" or "ipv6" there).
func NetworkClass(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	addr = addr.Unmap().WithZone("")
	switch {
	case addr.Is4() && sharedAddressSpace.Contains(addr):
		return NetworkCGNAT
	case addr.IsPrivate() || addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsUnspecified():
		return NetworkPrivate
	case addr.Is4():
		return NetworkIPv4
	default:
		return NetworkIPv6
	}
}

// sharedAddressSpace is RFC 6598's shared address space for carrier NAT.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
