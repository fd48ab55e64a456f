package httpapi_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
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

// TestLinkPasswordLinkLockout proves the per-link limit: a guesser spread
// over many networks, each within its own allowance, is stopped after
// DefaultLinkLockout.Threshold wrong passwords, the right password waits
// as long as a wrong one, and each wrong password after a lock doubles the
// wait. It runs on the in-process lockout and, when HOPLINK_TEST_REDIS is
// set, on Redis.
func TestLinkPasswordLinkLockout(t *testing.T) {
	t.Parallel()
	lockouts := map[string]func(t *testing.T) ratelimit.Lockout{
		"memory": func(*testing.T) ratelimit.Lockout { return nil },
		"redis": func(t *testing.T) ratelimit.Lockout {
			client := testkit.Redis(t)
			return ratelimit.NewRedisLockout(client, func(string) ratelimit.LockoutRule { return httpapi.DefaultLinkLockout },
				ratelimit.RedisLockoutOptions{Prefix: testkit.RedisPrefix(t, client, "linkpw"), Logger: slog.New(slog.DiscardHandler)})
		},
	}
	for name, lockout := range lockouts {
		t.Run(name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				l := lockout(t)
				h := newPWHarnessWith(t, s, l)
				o, _ := h.linkOrg(t, "Acme")
				h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
				h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"other","password":"open sesame"}`)
				network := 0
				guess := func(password string) *response {
					network++
					ip := fmt.Sprintf("198.51.%d.%d", network/250, network%250+1)
					return h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", password),
						headers: map[string]string{"X-Forwarded-For": ip}})
				}
				retryAfter := func(resp *response) int {
					n, err := strconv.Atoi(resp.header.Get("Retry-After"))
					require.NoError(t, err, "Retry-After %q", resp.header.Get("Retry-After"))
					return n
				}

				for i := range httpapi.DefaultLinkLockout.Threshold {
					require.Equal(t, http.StatusUnauthorized, guess(fmt.Sprintf("guess %d", i)).status, "guess %d", i+1)
				}
				base := int(httpapi.DefaultLinkLockout.Base / time.Second)
				resp := guess("another guess")
				assertForm(t, resp, http.StatusTooManyRequests, "Too many attempts.")
				assert.Equal(t, base, retryAfter(resp), "the link is locked from a fresh network")

				resp = guess("open sesame")
				assertForm(t, resp, http.StatusTooManyRequests, "Too many attempts.")
				assert.Zero(t, h.eventCount(), "the right password waits too: a refusal tells nothing")

				other := h.send(t, pwRequest{path: "/other", ua: uaDesktop, form: h.form(t, "/other", "guess"),
					headers: map[string]string{"X-Forwarded-For": "192.0.2.1"}})
				assert.Equal(t, http.StatusUnauthorized, other.status, "other links keep their own count")

				h.clock.Advance(httpapi.DefaultLinkLockout.Base - time.Second)
				assert.Equal(t, 1, retryAfter(guess("open sesame")), "the wait runs down")

				h.clock.Advance(time.Second)
				require.Equal(t, http.StatusUnauthorized, guess("still guessing").status, "the lock is over")
				resp = guess("open sesame")
				assert.Equal(t, 2*base, retryAfter(resp), "a wrong password after a lock doubles the wait")

				h.clock.Advance(2 * httpapi.DefaultLinkLockout.Base)
				resp = guess("open sesame")
				assert.Equal(t, http.StatusFound, resp.status, "the right password opens once the wait is over")
				assert.Equal(t, 1, h.eventCount())
			})
		})
	}
}
