// Package geo places an IP address in a country, and optionally in a region
// and a city (issue 15, item 2).
//
// # What it owns
//
// Country answers the ISO 3166-1 alpha-2 code of an address from the
// country table that github.com/phuslu/iploc compiles into the binary, so
// it needs no download, no licence key and no configuration. A Locator
// answers a Location: Builtin gives the country alone; OpenMaxMind reads a
// MaxMind-format database (GeoIP2 or GeoLite2 City or Country, DB-IP lite
// in MaxMind format, ...) that an operator names, and adds the region and
// the city.
//
// # Rules every lookup follows
//
//   - An unknown place is the empty string, never a placeholder: "ZZ" and
//     anything else that is not two upper-case ASCII letters become "".
//   - An IPv4-mapped IPv6 address (::ffff:192.0.2.1) is looked up as its
//     IPv4 address, and a zone is ignored.
//   - An address that is not globally routable is never located, by any
//     Locator: the invalid (zero) address, unspecified, loopback,
//     link-local, multicast, private (RFC 1918, RFC 4193), shared
//     (100.64.0.0/10), documentation, benchmarking and reserved ranges of
//     the IANA special-purpose registries, and IPv6 outside 2000::/3. Such
//     an address says where a proxy is, not where the visitor is, and an
//     operator's database that places private ranges is not consulted for
//     them either, so every deployment answers the same.
//   - A lookup never fails: a Locator has no error to return on the click
//     path. A record that does not decode is counted (MaxMind.Errors) and
//     answered with the built-in country.
//
// # Cost
//
// Country is a binary search over sorted tables in memory: no allocation,
// no lock, no I/O, a few tens of nanoseconds (BenchmarkCountry). The IPv6
// table ships compressed and is expanded (about 11 MB, some tens of
// milliseconds) on the first IPv6 lookup; Builtin and OpenMaxMind expand it
// at once, so that a server pays it at start and not on a visitor's click.
// A MaxMind lookup reads the memory-mapped file (page faults are its only
// I/O) and allocates the strings it returns.
//
// Region is the ISO 3166-2 code of the first (largest) subdivision as the
// database writes it, without the country prefix ("CA" for California,
// "ENG" for England); a database whose subdivisions carry names but no ISO
// code leaves it empty, rather than mixing codes and names in one column.
// City is the city's English name.
//
// Package geo imports only the standard library, github.com/phuslu/iploc
// and github.com/oschwald/maxminddb-golang/v2; it knows nothing of clicks,
// storage or HTTP.
package geo
