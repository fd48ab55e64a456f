package geo_test

import (
	"bytes"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/oschwald/maxminddb-golang/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/geo"
)

func openCity(t testing.TB) *geo.MaxMind {
	t.Helper()
	m, err := geo.OpenMaxMind(writeMMDB(t, "GeoIP2-City", 6, cityNetworks))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestMaxMindLocate(t *testing.T) {
	m := openCity(t)
	for _, tc := range []struct {
		name string
		ip   string
		want geo.Location
	}{
		{"an IPv4 record gives country, first subdivision and English city",
			"81.2.69.142", geo.Location{Country: "GB", Region: "ENG", City: "London"}},
		{"an IPv6 record gives country, region and city",
			"2a00:1450:4001:80b::200e", geo.Location{Country: "DE", Region: "HE", City: "Frankfurt am Main"}},
		{"an IPv4-mapped IPv6 address is looked up as IPv4",
			"::ffff:81.2.69.1", geo.Location{Country: "GB", Region: "ENG", City: "London"}},
		{"a record without a country takes the built-in country",
			"8.8.8.8", geo.Location{Country: "US", Region: "CA", City: "Mountain View"}},
		{"a record whose country is ZZ takes the built-in country",
			"193.0.6.139", geo.Location{Country: "NL"}},
		{"a country-only record has no region or city",
			"200.147.67.142", geo.Location{Country: "BR"}},
		{"an IPv4 address the database lacks gets the built-in country",
			"133.1.1.1", geo.Location{Country: "JP"}},
		{"an IPv6 address the database lacks gets the built-in country",
			"2001:4860:4860::8888", geo.Location{Country: "US"}},
		{"a private address is nowhere even when the database places it",
			"10.1.2.3", geo.Location{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, m.Locate(netip.MustParseAddr(tc.ip)))
		})
	}
	t.Run("no address of the special-purpose ranges is located", func(t *testing.T) {
		for _, u := range unroutable {
			assert.Equal(t, geo.Location{}, m.Locate(netip.MustParseAddr(u.ip)), u.name)
		}
		assert.Equal(t, geo.Location{}, m.Locate(netip.Addr{}), "the zero address")
	})
	assert.Zero(t, m.Errors())
}

func TestMaxMindCountryDatabase(t *testing.T) {
	path := writeMMDB(t, "GeoLite2-Country", 6, []network{
		{"81.2.69.0/24", cityRecord("GB", "")},
	})
	m, err := geo.OpenMaxMind(path)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, geo.Location{Country: "GB"}, m.Locate(netip.MustParseAddr("81.2.69.142")))
}

func TestMaxMindIPv4OnlyDatabase(t *testing.T) {
	path := writeMMDB(t, "DBIP-City-Lite", 4, []network{
		{"81.2.69.0/24", cityRecord("GB", "London", "ENG")},
	})
	m, err := geo.OpenMaxMind(path)
	require.NoError(t, err)
	defer m.Close()
	t.Run("IPv4 is looked up", func(t *testing.T) {
		assert.Equal(t, geo.Location{Country: "GB", Region: "ENG", City: "London"}, m.Locate(netip.MustParseAddr("81.2.69.142")))
	})
	t.Run("IPv6 gets the built-in country without an error", func(t *testing.T) {
		assert.Equal(t, geo.Location{Country: "DE"}, m.Locate(netip.MustParseAddr("2a00:1450:4001:80b::200e")))
		assert.Zero(t, m.Errors())
	})
}

func TestOpenMaxMindErrors(t *testing.T) {
	dir := t.TempDir()
	valid, err := os.ReadFile(writeMMDB(t, "GeoIP2-City", 6, cityNetworks))
	require.NoError(t, err)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o600))
		return p
	}

	t.Run("a missing file", func(t *testing.T) {
		_, err := geo.OpenMaxMind(filepath.Join(dir, "missing.mmdb"))
		require.Error(t, err)
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"an empty file", nil},
		{"a file that is not a MaxMind DB", bytes.Repeat([]byte("not a database "), 100)},
		{"a truncated database", valid[:len(valid)/2]},
		{"a database whose metadata is damaged", append(bytes.Clone(valid[:len(valid)-40]), bytes.Repeat([]byte{0xff}, 40)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := geo.OpenMaxMind(write(tc.name+".mmdb", tc.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "geo: open MaxMind database")
		})
	}
	t.Run("a database without places", func(t *testing.T) {
		path := writeMMDB(t, "GeoLite2-ASN", 6, []network{{"81.2.69.0/24", cityRecord("GB", "")}})
		_, err := geo.OpenMaxMind(path)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `"GeoLite2-ASN"`)
	})
}

// damageDataSection returns db with every byte of its data section set to
// 0xff, a control byte of no valid type, and its metadata intact.
func damageDataSection(t *testing.T, db []byte) []byte {
	t.Helper()
	r, err := maxminddb.OpenBytes(bytes.Clone(db))
	require.NoError(t, err)
	treeSize := int(r.Metadata.NodeCount) * int(r.Metadata.RecordSize) / 4
	require.NoError(t, r.Close())
	meta := bytes.LastIndex(db, []byte("\xab\xcd\xefMaxMind.com"))
	require.Greater(t, meta, treeSize+16)
	out := bytes.Clone(db)
	for i := treeSize + 16; i < meta; i++ {
		out[i] = 0xff
	}
	return out
}

func TestMaxMindDamagedRecord(t *testing.T) {
	valid, err := os.ReadFile(writeMMDB(t, "GeoIP2-City", 6, cityNetworks))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "damaged.mmdb")
	require.NoError(t, os.WriteFile(path, damageDataSection(t, valid), 0o600))

	m, err := geo.OpenMaxMind(path)
	require.NoError(t, err, "the metadata is intact, so it opens")
	defer m.Close()
	assert.Equal(t, geo.Location{Country: "GB"}, m.Locate(netip.MustParseAddr("81.2.69.142")),
		"a record that does not decode answers the built-in country")
	assert.Equal(t, uint64(1), m.Errors())
}

func TestMaxMindClose(t *testing.T) {
	m, err := geo.OpenMaxMind(writeMMDB(t, "GeoIP2-City", 6, cityNetworks))
	require.NoError(t, err)
	require.NoError(t, m.Close())
	t.Run("lookups after Close answer the built-in country", func(t *testing.T) {
		assert.Equal(t, geo.Location{Country: "GB"}, m.Locate(netip.MustParseAddr("81.2.69.142")))
	})
	t.Run("a second Close says so", func(t *testing.T) {
		assert.ErrorIs(t, m.Close(), geo.ErrClosed)
	})
}

func BenchmarkMaxMindLocate(b *testing.B) {
	m, err := geo.OpenMaxMind(writeMMDB(b, "GeoIP2-City", 6, cityNetworks))
	require.NoError(b, err)
	defer m.Close()
	for _, bc := range []struct{ name, ip string }{
		{"city record", "81.2.69.142"},
		{"miss", "133.1.1.1"},
	} {
		ip := netip.MustParseAddr(bc.ip)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.Locate(ip)
			}
		})
	}
}

func TestMaxMindCloseWhileLocating(t *testing.T) {
	m, err := geo.OpenMaxMind(writeMMDB(t, "GeoIP2-City", 6, cityNetworks))
	require.NoError(t, err)
	ip := netip.MustParseAddr("81.2.69.142")
	done := make(chan geo.Location)
	for range 4 {
		go func() {
			var last geo.Location
			for range 2000 {
				last = m.Locate(ip)
			}
			done <- last
		}()
	}
	require.NoError(t, m.Close())
	for range 4 {
		assert.Equal(t, "GB", (<-done).Country, "a lookup racing Close answers the database or the built-in country")
	}
}
