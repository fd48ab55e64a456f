package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
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

// TestLinkPasswordMinimum proves that a new link password is at least
// linking.MinLinkPasswordLength characters, on create and update, and that
// a link whose shorter password was set before still opens with it.
func TestLinkPasswordMinimum(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		l := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)

		refused := map[string]request{
			"create": {method: http.MethodPost, path: "/v1/links", key: o.key.raw, off: true,
				body: `{"destination_url":"https://shop.example/","password":"1234567"}`},
			"update": {method: http.MethodPatch, path: linkPath(l.ID), key: o.key.raw, off: true,
				body: `{"password":"1234"}`},
		}
		for name, req := range refused {
			t.Run("a short password is refused on "+name, func(t *testing.T) {
				resp := h.do(t, req)
				require.Equal(t, http.StatusBadRequest, resp.status, "body: %s", resp.body)
				var e envelope
				resp.decode(t, &e)
				assert.Equal(t, errcode.ValidationError, e.Error.Code)
				require.NotNil(t, e.Error.Details)
				assert.Equal(t, []errcode.FieldError{{Field: "password", Message: "must be at least 8 characters"}}, e.Error.Details.Fields)
				assert.Equal(t, "password: must be at least 8 characters", e.Error.Message)
			})
		}
		t.Run("eight characters are accepted", func(t *testing.T) {
			resp := h.patch(t, o.key.raw, linkPath(l.ID), `{"password":"12345678"}`)
			assert.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		})

		t.Run("a shorter password set before the minimum still opens its link", func(t *testing.T) {
			_, err := s.DB().NewUpdate().Table("links").Set("password_hash = ?", "fast:1234").
				Where("id = ?", l.ID).Exec(t.Context())
			require.NoError(t, err)
			h.resolver.InvalidateAll()
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "1234")})
			assert.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
			assert.Equal(t, "https://shop.example/", resp.header.Get("Location"))
		})
	})
}
