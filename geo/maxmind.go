package geo

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oschwald/maxminddb-golang/v2"
)

// MaxMind is a Locator over a MaxMind-format database (the MaxMind DB
// format of GeoIP2, GeoLite2 and DB-IP lite files). It reads country,
// region and city from records in the GeoIP2 City or Country shape, and
// answers the built-in country (see Country) when the database has none
// for an address. It is safe for concurrent use, Close included.
type MaxMind struct {
	mu     sync.RWMutex // held for reading by lookups, for writing by Close
	db     *maxminddb.Reader
	ipv4   bool // the database holds IPv4 networks only
	errors atomic.Uint64
}

var _ Locator = (*MaxMind)(nil)

// mmdbRecord is the part of a GeoIP2 City or Country record that Locate
// reads; a Country database has no subdivisions and no city.
type mmdbRecord struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	Subdivisions []struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"subdivisions"`
	City struct {
		Names struct {
			English string `maxminddb:"en"`
		} `maxminddb:"names"`
	} `maxminddb:"city"`
}

// OpenMaxMind opens the MaxMind-format database at path, memory-mapped
// where the platform allows it (else read into memory). It fails when the
// file cannot be read, is not a MaxMind DB (a corrupt or truncated file),
// or is of a kind that has no places: its metadata database type must name
// a City, Country or Enterprise database ("GeoLite2-City",
// "DBIP-Country-Lite", ...), so that pointing at an ASN or ISP database is
// an error at start and not a silent lack of regions. Close releases it.
//
// OpenMaxMind expands the built-in IPv6 table as Builtin does, since it
// serves as the fallback.
func OpenMaxMind(path string) (*MaxMind, error) {
	db, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("geo: open MaxMind database: %w", err)
	}
	kind := strings.ToLower(db.Metadata.DatabaseType)
	if !strings.Contains(kind, "city") && !strings.Contains(kind, "country") && !strings.Contains(kind, "enterprise") {
		_ = db.Close()
		return nil, fmt.Errorf("geo: MaxMind database of type %q has no countries or cities; want a City or Country database", db.Metadata.DatabaseType)
	}
	warm()
	return &MaxMind{db: db, ipv4: db.Metadata.IPVersion == 4}, nil
}

// ErrClosed is returned by Close when the database was already closed.
var ErrClosed = errors.New("geo: MaxMind database already closed")

// Close releases the database. Lookups after Close answer the built-in
// country alone. A second Close returns ErrClosed.
func (m *MaxMind) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.db == nil {
		return ErrClosed
	}
	err := m.db.Close()
	m.db = nil
	if err != nil {
		return fmt.Errorf("geo: close MaxMind database: %w", err)
	}
	return nil
}

// Errors returns how many lookups found a record that did not decode (a
// damaged database). Such a lookup answers the built-in country alone.
func (m *MaxMind) Errors() uint64 { return m.errors.Load() }

// Locate implements Locator: the database's country, first subdivision's
// ISO code and English city name; the built-in country when the database
// has no country (or no record) for ip.
func (m *MaxMind) Locate(ip netip.Addr) Location {
	ip = ip.Unmap().WithZone("")
	if !routable(ip) {
		return Location{}
	}
	var rec mmdbRecord
	m.mu.RLock()
	if m.db != nil && (ip.Is4() || !m.ipv4) {
		if err := m.db.Lookup(ip).Decode(&rec); err != nil {
			m.errors.Add(1)
			rec = mmdbRecord{}
		}
	}
	m.mu.RUnlock()

	loc := Location{Country: countryCode(rec.Country.ISOCode), City: rec.City.Names.English}
	if len(rec.Subdivisions) > 0 {
		loc.Region = rec.Subdivisions[0].ISOCode
	}
	if loc.Country == "" {
		loc.Country = Country(ip)
	}
	return loc
}
