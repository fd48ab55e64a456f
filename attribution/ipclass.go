package attribution

import (
	"net/netip"

	"github.com/hoplink/hoplink/analytics"
)

// IPClass says what kind of address an attempt came from (SPEC.md, attempt
// record).
type IPClass string

// The IP classes.
const (
	// IPClassCGNAT is an IPv4 address of carrier-grade NAT: in the shared
	// address space 100.64.0.0/10 (RFC 6598), or with at least
	// CGNATMinDevices distinct devices seen behind it.
	IPClassCGNAT IPClass = "cgnat"
	// IPClassIPv4 is any other IPv4 address.
	IPClassIPv4 IPClass = "ipv4"
	// IPClassIPv6 is an IPv6 address; its /64 prefix is the IP key.
	IPClassIPv6 IPClass = "ipv6"
)

// CGNATMinDevices is how many distinct devices (distinct user agent and
// Accept-Language pairs among the clicks of all the organization's apps in
// the last ProbabilisticWindow) behind one IPv4 address make it
// carrier-grade NAT.
// A household rarely has five devices clicking one app's links in a day; a
// carrier or office NAT has many.
const CGNATMinDevices = 5

// sharedAddressSpace is RFC 6598's shared address space for carrier NAT.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// ClassifyIP returns the class of addr given how many distinct devices were
// seen behind its IP key. An invalid addr has no class ("").
func ClassifyIP(addr netip.Addr, distinctDevices int) IPClass {
	if !addr.IsValid() {
		return ""
	}
	addr = addr.Unmap()
	switch {
	case addr.Is6():
		return IPClassIPv6
	case sharedAddressSpace.Contains(addr) || distinctDevices >= CGNATMinDevices:
		return IPClassCGNAT
	default:
		return IPClassIPv4
	}
}

// IPKey returns the key clicks are looked up by: the IPv4 address, or the
// IPv6 /64 prefix, exactly as analytics stores it on clicks; "" for an
// invalid addr.
func IPKey(addr netip.Addr) string {
	if !addr.IsValid() {
		return ""
	}
	return analytics.IPKey(addr.String())
}
