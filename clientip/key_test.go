package clientip_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/clientip"
)

func TestKey(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an IPv4 address counts alone", "203.0.113.7", "203.0.113.7"},
		{"an IPv4-mapped IPv6 address counts as its IPv4 address", "::ffff:203.0.113.7", "203.0.113.7"},
		{"an IPv6 address counts by its /64", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{"two addresses of one /64 share a key", "2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"the neighbouring /64 has its own key", "2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"an IPv6 zone is dropped", "fe80::1%eth0", "fe80::/64"},
		{"IPv6 loopback", "::1", "::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clientip.Key(netip.MustParseAddr(tt.in)))
			assert.Equal(t, tt.want, clientip.KeyOf(tt.in))
		})
	}
	t.Run("the invalid address keeps its form", func(t *testing.T) {
		assert.Equal(t, netip.Addr{}.String(), clientip.Key(netip.Addr{}))
	})
	t.Run("KeyOf accepts brackets", func(t *testing.T) {
		assert.Equal(t, "2001:db8::/64", clientip.KeyOf("[2001:db8::5]"))
	})
	t.Run("KeyOf keeps what is not an address", func(t *testing.T) {
		assert.Equal(t, "not an address", clientip.KeyOf("not an address"))
		assert.Equal(t, "", clientip.KeyOf(""))
	})
}

func FuzzKeyOf(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "::ffff:203.0.113.7", "2001:db8::1", "fe80::1%eth0",
		"[2001:db8::1]", "::ffff:0:0", "0.0.0.0", "garbage", "", "2001:db8::/64", "1.2.3.4:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := clientip.KeyOf(s)
		if again := clientip.KeyOf(k); again != k {
			t.Fatalf("KeyOf(%q) = %q but KeyOf of that is %q", s, k, again)
		}
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
		if err != nil {
			if k != s {
				t.Fatalf("KeyOf(%q) = %q, want the string unchanged", s, k)
			}
			return
		}
		if u := a.Unmap(); u.Is4() {
			if k != u.String() {
				t.Fatalf("KeyOf(%q) = %q, want the IPv4 address %q", s, k, u)
			}
			return
		}
		p, err := netip.ParsePrefix(k)
		if err != nil || p.Bits() != clientip.IPv6LimitBits || !p.Contains(a.WithZone("")) || p != p.Masked() {
			t.Fatalf("KeyOf(%q) = %q, want the masked /64 holding it", s, k)
		}
	})
}
