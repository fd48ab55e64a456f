package clientip_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/clientip"
)

func TestOf(t *testing.T) {
	trusted, err := clientip.ParseTrustedProxies("10.0.0.0/8, 192.168.1.1")
	require.NoError(t, err)
	tests := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"the peer without trusted proxies", "203.0.113.7:5000", []string{"198.51.100.1"}, nil, "203.0.113.7"},
		{"X-Forwarded-For from an untrusted peer is ignored", "203.0.113.7:5000", []string{"198.51.100.1"}, trusted, "203.0.113.7"},
		{"a trusted peer's X-Forwarded-For is believed", "10.1.2.3:5000", []string{"198.51.100.1"}, trusted, "198.51.100.1"},
		{"the rightmost untrusted hop is the client", "10.1.2.3:5000", []string{"1.1.1.1, 198.51.100.1, 192.168.1.1"}, trusted, "198.51.100.1"},
		{"several header lines are one chain", "10.1.2.3:5000", []string{"1.1.1.1", "198.51.100.2"}, trusted, "198.51.100.2"},
		{"a garbage hop ends the walk", "10.1.2.3:5000", []string{"198.51.100.1, garbage"}, trusted, "10.1.2.3"},
		{"a chain of trusted proxies only gives its leftmost", "10.1.2.3:5000", []string{"10.9.9.9"}, trusted, "10.9.9.9"},
		{"IPv6 peers", "[2001:db8::1]:443", nil, nil, "2001:db8::1"},
		{"IPv4-mapped IPv6 is unmapped", "[::ffff:203.0.113.9]:80", nil, nil, "203.0.113.9"},
		{"a bare address", "203.0.113.7", nil, nil, "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clientip.Of(tt.remote, tt.xff, tt.trusted).String())
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	p, err := clientip.ParseTrustedProxies("")
	require.NoError(t, err)
	assert.Empty(t, p)
	p, err = clientip.ParseTrustedProxies("10.0.0.1/8,::1")
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.0/8", p[0].String())
	assert.Equal(t, "::1/128", p[1].String())
	_, err = clientip.ParseTrustedProxies("10.0.0.0/99")
	assert.Error(t, err)
	_, err = clientip.ParseTrustedProxies("not-an-ip")
	assert.Error(t, err)
}

func FuzzClientIP(f *testing.F) {
	f.Add("10.1.2.3:5000", "198.51.100.1, 1.1.1.1")
	f.Add("[::1]:1", "")
	f.Add("garbage", ",,,")
	trusted, _ := clientip.ParseTrustedProxies("10.0.0.0/8,::1")
	f.Fuzz(func(t *testing.T, remote, xff string) {
		a := clientip.Of(remote, []string{xff}, trusted)
		if a.IsValid() && a.Zone() != "" {
			t.Fatalf("zone kept in %v", a)
		}
	})
}

func TestPeerTrusted(t *testing.T) {
	trusted, err := clientip.ParseTrustedProxies("10.0.0.0/8, ::1")
	require.NoError(t, err)
	tests := []struct {
		name   string
		remote string
		want   bool
	}{
		{"a peer inside a trusted prefix", "10.1.2.3:5000", true},
		{"a bare trusted address", "::1", true},
		{"a peer outside every prefix", "203.0.113.7:5000", false},
		{"an address that cannot be parsed", "garbage", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clientip.PeerTrusted(tt.remote, trusted))
		})
	}
	assert.False(t, clientip.PeerTrusted("10.1.2.3:5000", nil), "no trusted proxies trusts no peer")
}

func TestFromRequestReadsEveryForwardedHeader(t *testing.T) {
	trusted, err := clientip.ParseTrustedProxies("10.0.0.0/8")
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.1.2.3:5000"
	r.Header.Add("X-Forwarded-For", "1.1.1.1")
	r.Header.Add("X-Forwarded-For", "198.51.100.2")
	assert.Equal(t, "198.51.100.2", clientip.FromRequest(r, trusted).String())
}
