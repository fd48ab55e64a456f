package geo_test

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
	"github.com/stretchr/testify/require"
)

// network is one network of a test database and its record.
type network struct {
	cidr   string
	record mmdbtype.Map
}

// names is a GeoIP2 "names" map with an English name and a German one.
func names(en, de string) mmdbtype.Map {
	return mmdbtype.Map{"en": mmdbtype.String(en), "de": mmdbtype.String(de)}
}

// cityRecord builds a record in the GeoIP2-City shape: country, ordered
// subdivisions (largest first) and city. Empty arguments are left out.
func cityRecord(country, city string, subdivisions ...string) mmdbtype.Map {
	rec := mmdbtype.Map{
		"continent": mmdbtype.Map{"code": mmdbtype.String("EU"), "geoname_id": mmdbtype.Uint32(6255148)},
		"location": mmdbtype.Map{
			"latitude":  mmdbtype.Float64(51.5),
			"longitude": mmdbtype.Float64(-0.1),
			"time_zone": mmdbtype.String("Europe/London"),
		},
	}
	if country != "" {
		rec["country"] = mmdbtype.Map{
			"iso_code":   mmdbtype.String(country),
			"geoname_id": mmdbtype.Uint32(2635167),
			"names":      names("Country "+country, "Land "+country),
		}
		rec["registered_country"] = mmdbtype.Map{"iso_code": mmdbtype.String(country)}
	}
	if len(subdivisions) > 0 {
		subs := mmdbtype.Slice{}
		for _, s := range subdivisions {
			subs = append(subs, mmdbtype.Map{
				"iso_code":   mmdbtype.String(s),
				"geoname_id": mmdbtype.Uint32(6269131),
				"names":      names("Subdivision "+s, "Teil "+s),
			})
		}
		rec["subdivisions"] = subs
	}
	if city != "" {
		rec["city"] = mmdbtype.Map{"geoname_id": mmdbtype.Uint32(2643743), "names": names(city, city+" (de)")}
	}
	return rec
}

// cityNetworks are the networks of the test City database.
var cityNetworks = []network{
	// An IPv4 network with two subdivisions: the first is the region.
	{"81.2.69.0/24", cityRecord("GB", "London", "ENG", "LND")},
	// An IPv6 network.
	{"2a00:1450:4001::/48", cityRecord("DE", "Frankfurt am Main", "HE")},
	// A record without a country: the country falls back to the built-in table.
	{"8.8.8.0/24", cityRecord("", "Mountain View", "CA")},
	// A country the database does not know ("ZZ") falls back too.
	{"193.0.6.0/24", cityRecord("ZZ", "")},
	// A private network the database places: never consulted.
	{"10.0.0.0/8", cityRecord("FR", "Paris", "IDF")},
	// A record with a country only.
	{"200.147.67.0/24", cityRecord("BR", "")},
}

// writeMMDB writes a MaxMind DB of type dbType holding nets into a
// temporary directory and returns its path.
func writeMMDB(t testing.TB, dbType string, ipVersion int, nets []network) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType:            dbType,
		IPVersion:               ipVersion,
		RecordSize:              24,
		Languages:               []string{"en", "de"},
		IncludeReservedNetworks: true,
	})
	require.NoError(t, err)
	for _, n := range nets {
		_, ipnet, err := net.ParseCIDR(n.cidr)
		require.NoError(t, err)
		require.NoError(t, tree.Insert(ipnet, n.record), n.cidr)
	}
	path := filepath.Join(t.TempDir(), dbType+".mmdb")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = tree.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path
}
