package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestLinkPasswordNetworkLimit proves issue 16's brute force from one IPv6
// /64: every address of the network shares one count, so 200 addresses get
// no more guesses than one.
func TestLinkPasswordNetworkLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
		from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

		guessed, refused := 0, 0
		for i := range 200 {
			ip := fmt.Sprintf("2001:db8:1:2:%x:%x::%x", (i*7919)%0x10000, i, i+1)
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", fmt.Sprintf("%04d", i)), headers: from(ip)})
			switch resp.status {
			case http.StatusUnauthorized:
				guessed++
			case http.StatusTooManyRequests:
				refused++
				assert.NotEmpty(t, resp.header.Get("Retry-After"))
			default:
				require.Failf(t, "unexpected status", "attempt %d from %s: %d", i+1, ip, resp.status)
			}
		}
		assert.Equal(t, httpapi.DefaultPasswordRule.Limit, guessed, "the /64 gets one address's guesses")
		assert.Equal(t, 200-httpapi.DefaultPasswordRule.Limit, refused)

		t.Run("the right password from another address of the network waits too", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame"), headers: from("2001:db8:1:2:ffff::1")})
			assertForm(t, resp, http.StatusTooManyRequests, "Too many attempts.")
			assert.Zero(t, h.eventCount())
		})
		t.Run("the neighbouring /64 has its own count", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame"), headers: from("2001:db8:1:3::1")})
			assert.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
		})
	})
}

// TestLinkPasswordIPv4MappedLimit proves that an IPv4-mapped IPv6 address
// counts as the IPv4 address it maps, and that IPv4 stays per address.
func TestLinkPasswordIPv4MappedLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
		from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

		for i := range httpapi.DefaultPasswordRule.Limit {
			ip := "203.0.113.7"
			if i%2 == 1 {
				ip = "::ffff:203.0.113.7"
			}
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "guess"), headers: from(ip)})
			require.Equal(t, http.StatusUnauthorized, resp.status, "attempt %d", i+1)
		}
		resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "guess"), headers: from("::ffff:203.0.113.7")})
		assertForm(t, resp, http.StatusTooManyRequests, "Too many attempts.")
		resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "guess"), headers: from("203.0.113.8")})
		assert.Equal(t, http.StatusUnauthorized, resp.status, "the next IPv4 address keeps its own count")
	})
}
