package geo_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/geo"
)

// FuzzCountry feeds arbitrary 4- and 16-byte addresses to Country and to a
// MaxMind Locator: neither may panic, a country is "" or two upper-case
// letters, a mapped address answers as its IPv4 address, a Locator's
// country is the built-in one or the database's, and the private network
// the database places is never located.
func FuzzCountry(f *testing.F) {
	for _, s := range []string{"8.8.8.8", "::ffff:81.2.69.142", "2a00:1450:4001::1", "::", "ff02::1", "10.0.0.1"} {
		a := netip.MustParseAddr(s)
		f.Add(a.AsSlice())
	}
	m, err := geo.OpenMaxMind(writeMMDB(f, "GeoIP2-City", 6, cityNetworks))
	require.NoError(f, err)
	f.Cleanup(func() { _ = m.Close() })

	inDatabase := map[string]bool{"GB": true, "DE": true, "BR": true}
	private := netip.MustParsePrefix("10.0.0.0/8")
	validCode := func(t *testing.T, c string) {
		if c == "" {
			return
		}
		if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' || c == "ZZ" {
			t.Fatalf("country %q is not an ISO 3166-1 alpha-2 code", c)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ip netip.Addr
		switch {
		case len(b) >= 16:
			ip = netip.AddrFrom16([16]byte(b[:16]))
		case len(b) >= 4:
			ip = netip.AddrFrom4([4]byte(b[:4]))
		}
		c := geo.Country(ip)
		validCode(t, c)
		if u := ip.Unmap(); u != ip && geo.Country(u) != c {
			t.Fatalf("%s answers %q, its IPv4 address %q", ip, c, geo.Country(u))
		}
		loc := m.Locate(ip)
		validCode(t, loc.Country)
		if loc.Country != c && !inDatabase[loc.Country] {
			t.Fatalf("%s located in %q, neither the built-in %q nor a country of the database", ip, loc.Country, c)
		}
		if private.Contains(ip.Unmap()) && loc != (geo.Location{}) {
			t.Fatalf("private %s located at %+v", ip, loc)
		}
	})
}
