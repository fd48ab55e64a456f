package geo

import (
	"net/netip"

	"github.com/phuslu/iploc"
)

// Location is where an IP address is, as far as a Locator knows. Each
// field is "" when unknown.
type Location struct {
	// Country is an ISO 3166-1 alpha-2 code in upper case ("DE").
	Country string
	// Region is the ISO 3166-2 code of the first subdivision, without the
	// country prefix ("BY" for Bavaria), as the database writes it.
	Region string
	// City is the city's English name ("Munich").
	City string
}

// Locator places an IP address. Implementations are safe for concurrent
// use, never fail (an unknown place is an empty field) and follow the rules
// of the package doc.
type Locator interface {
	Locate(ip netip.Addr) Location
}

// Builtin returns the Locator that knows countries only, from the built-in
// table (see Country); Region and City are always empty. It expands the
// built-in IPv6 table before it returns, so that no visitor's click pays
// for it.
func Builtin() Locator {
	warm()
	return builtin{}
}

type builtin struct{}

// Locate implements Locator.
func (builtin) Locate(ip netip.Addr) Location {
	return Location{Country: Country(ip)}
}

// warm makes the built-in table expand its compressed IPv6 part now rather
// than on the first IPv6 lookup. It is cheap once done.
func warm() {
	iploc.IPCountry(netip.IPv6Unspecified())
}
