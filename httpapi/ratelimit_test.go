package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// limit is SPEC.md's 60 requests per minute.
const limit = 60

// assertLimit asserts the rate-limit headers of r.
func assertLimit(t testing.TB, r *response, remaining, reset int) {
	t.Helper()
	assert.Equal(t, strconv.Itoa(limit), r.header.Get("X-RateLimit-Limit"), "X-RateLimit-Limit")
	assert.Equal(t, strconv.Itoa(remaining), r.header.Get("X-RateLimit-Remaining"), "X-RateLimit-Remaining")
	assert.Equal(t, strconv.Itoa(reset), r.header.Get("X-RateLimit-Reset"), "X-RateLimit-Reset")
}

// spend sends req limit times, asserting that each is answered with status
// and the headers counting down, then once more, asserting 429.
func spend(t testing.TB, h *harness, req request, status, reset int) {
	t.Helper()
	for i := 1; i <= limit; i++ {
		resp := h.do(t, req)
		require.Equal(t, status, resp.status, "request %d: %s", i, resp.body)
		assertLimit(t, resp, limit-i, reset)
		assert.Empty(t, resp.header.Get("Retry-After"), "request %d", i)
	}
	assertRefused(t, h.do(t, req), reset)
}

// assertRefused asserts a 429 with its headers.
func assertRefused(t testing.TB, r *response, reset int) {
	t.Helper()
	assertError(t, r, http.StatusTooManyRequests, errcode.RateLimitExceeded)
	assertLimit(t, r, 0, reset)
	assert.Equal(t, strconv.Itoa(reset), r.header.Get("Retry-After"), "Retry-After")
}

func fromIP(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

func TestRateLimits(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		t.Run("60 requests per minute per key, then 429 until the next window", func(t *testing.T) {
			h := newHarness(t, s)
			o := h.newOrg(t, "Acme")
			second := h.scopedKey(t, o, auth.ScopeKeysRead)

			get := request{method: http.MethodGet, path: keyPath(o.key.id), key: o.key.raw}
			spend(t, h, get, http.StatusOK, 50)
			assertRefused(t, h.do(t, get), 50) // refused requests do not earn anything back
			assertRefused(t, h.do(t, request{method: http.MethodPost, path: "/v1/keys", key: o.key.raw, body: `{"name":"x","scopes":["links:read"]}`}), 50)

			resp := h.get(t, second.raw, "/v1/keys")
			require.Equal(t, http.StatusOK, resp.status, "another key has its own allowance")
			assertLimit(t, resp, limit-1, 50)

			h.clock.Advance(20 * time.Second)
			assertRefused(t, h.do(t, get), 30)

			h.clock.Advance(30 * time.Second) // the next minute
			resp = h.do(t, get)
			require.Equal(t, http.StatusOK, resp.status, "the next window resets the allowance")
			assertLimit(t, resp, limit-1, 60)
			assertLimit(t, h.get(t, second.raw, "/v1/keys"), limit-1, 60)
		})

		t.Run("every /v1 response carries the rate-limit headers", func(t *testing.T) {
			h := newHarness(t, s)
			o := h.newOrg(t, "Acme")
			sdk := h.sdkKey(t, o)
			tests := []struct {
				name   string
				req    request
				status int
			}{
				{"201", request{method: "POST", path: "/v1/keys", key: o.key.raw, body: `{"name":"x","type":"sdk"}`}, 201},
				{"200", request{method: "GET", path: "/v1/keys", key: o.key.raw}, 200},
				{"204", request{method: "DELETE", path: keyPath(h.sdkKey(t, o).id), key: o.key.raw}, 204},
				{"400", request{method: "GET", path: "/v1/keys/abc", key: o.key.raw}, 400},
				{"403", request{method: "GET", path: "/v1/keys", key: sdk.raw}, 403},
				{"404", request{method: "GET", path: keyPath(o.ID), key: o.key.raw}, 404},
				{"405", request{method: "PUT", path: "/v1/keys", key: o.key.raw, off: true}, 405},
				{"413", request{method: "POST", path: "/v1/keys", key: o.key.raw, body: `"` + strings.Repeat("a", 2<<20) + `"`, off: true}, 413},
				{"unknown route", request{method: "GET", path: "/v1/nothing", off: true}, 404},
				{"non-canonical path", request{method: "GET", path: "/v1/keys/" + o.key.id.String() + "/", off: true}, 404},
				{"401", request{method: "GET", path: "/v1/keys"}, 401},
				{"openapi.json", request{method: "GET", path: "/v1/openapi.json"}, 200},
				{"openapi.json with a query", request{method: "GET", path: "/v1/openapi.json?format=yaml", off: true}, 400},
				{"sdk/validate", request{method: "GET", path: "/v1/sdk/validate", key: sdk.raw}, 200},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.do(t, tt.req)
					require.Equal(t, tt.status, resp.status, "body: %s", resp.body)
					assert.Equal(t, "60", resp.header.Get("X-RateLimit-Limit"))
					remaining, err := strconv.Atoi(resp.header.Get("X-RateLimit-Remaining"))
					if assert.NoError(t, err) {
						assert.Less(t, remaining, limit)
					}
					assert.Equal(t, "50", resp.header.Get("X-RateLimit-Reset"))
				})
			}
		})

		t.Run("the SDK route is limited per key per client IP, apart from the key's allowance", func(t *testing.T) {
			h := newHarness(t, s)
			o := h.newOrg(t, "Acme")
			validate := request{method: http.MethodGet, path: "/v1/sdk/validate", key: o.key.raw}

			a, b := validate, validate
			a.headers, b.headers = fromIP("203.0.113.1"), fromIP("203.0.113.2")
			spend(t, h, a, http.StatusOK, 50)
			spend(t, h, b, http.StatusOK, 50)
			viaProxy := validate
			viaProxy.headers = fromIP("198.51.100.99, 203.0.113.1")
			assertRefused(t, h.do(t, viaProxy), 50) // the client is the rightmost untrusted hop; what it prepends does not count
			direct := h.do(t, validate)
			require.Equal(t, http.StatusOK, direct.status, "the proxy's own address has its own allowance")
			assertLimit(t, direct, limit-1, 50)

			resp := h.get(t, o.key.raw, "/v1/keys")
			require.Equal(t, http.StatusOK, resp.status)
			assertLimit(t, resp, limit-1, 50) // the SDK route did not spend the key's allowance

			sdk := h.sdkKey(t, o)
			sdkA := a
			sdkA.key = sdk.raw
			resp = h.do(t, sdkA)
			require.Equal(t, http.StatusOK, resp.status, "another key from the same IP has its own allowance")
			assertLimit(t, resp, limit-1, 50)

			h.clock.Advance(50 * time.Second)
			resp = h.do(t, a)
			require.Equal(t, http.StatusOK, resp.status)
			assertLimit(t, resp, limit-1, 60)
		})

		t.Run("requests without a valid key are limited per client IP", func(t *testing.T) {
			h := newHarness(t, s)
			o := h.newOrg(t, "Acme")
			anonymous := request{method: http.MethodGet, path: "/v1/keys", headers: fromIP("198.51.100.7")}
			for i := 1; i <= limit; i++ {
				resp := h.do(t, anonymous)
				assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
				assertLimit(t, resp, limit-i, 50)
			}
			assertRefused(t, h.do(t, anonymous), 50)

			badKey := anonymous
			badKey.key = "svc_live_" + "0123456789abcdefghijABCDEFGHIJ01"
			assertRefused(t, h.do(t, badKey), 50)
			openapi := request{method: http.MethodGet, path: "/v1/openapi.json", headers: anonymous.headers}
			assertRefused(t, h.do(t, openapi), 50)
			nowhere := request{method: http.MethodGet, path: "/v1/nothing", headers: anonymous.headers, off: true}
			assertRefused(t, h.do(t, nowhere), 50)
			slash := request{method: http.MethodGet, path: keyPath(o.key.id) + "/", headers: anonymous.headers, off: true}
			assertRefused(t, h.do(t, slash), 50)

			other := anonymous
			other.headers = fromIP("198.51.100.8")
			resp := h.do(t, other)
			assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
			assertLimit(t, resp, limit-1, 50)
			slash.headers = other.headers
			resp = h.do(t, slash)
			assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			assertLimit(t, resp, limit-2, 50)

			keyed := anonymous
			keyed.key = o.key.raw
			resp = h.do(t, keyed)
			require.Equal(t, http.StatusOK, resp.status, "a valid key from the spent IP has its own allowance")
			assertLimit(t, resp, limit-1, 50)

			for _, path := range []string{"/healthz", "/readyz"} {
				resp := h.do(t, request{method: http.MethodGet, path: path, headers: anonymous.headers})
				assert.Equal(t, http.StatusOK, resp.status, "%s is not limited", path)
			}

			h.clock.Advance(50 * time.Second)
			resp = h.do(t, anonymous)
			assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
			assertLimit(t, resp, limit-1, 60)
		})
	})
}

// TestRateLimitsSharedThroughRedis runs two API servers, as two replicas
// would, over one store and one Redis: they share each key's allowance.
func TestRateLimitsSharedThroughRedis(t *testing.T) {
	t.Parallel()
	client := testkit.Redis(t)

	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := testkit.NewClock(start)
		limiter := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: testkit.RedisPrefix(t, client, "httpapi"), Clock: c.Now})
		one := newHarness(t, s, withClock(c), withLimiter(limiter))
		two := newHarness(t, s, withClock(c), withLimiter(limiter))
		o := one.newOrg(t, "Acme")
		get := request{method: http.MethodGet, path: "/v1/keys", key: o.key.raw}

		for i := 1; i <= limit; i++ {
			h := one
			if i%2 == 0 {
				h = two
			}
			resp := h.do(t, get)
			require.Equal(t, http.StatusOK, resp.status, "request %d: %s", i, resp.body)
			assertLimit(t, resp, limit-i, 50)
		}
		assertRefused(t, one.do(t, get), 50)
		assertRefused(t, two.do(t, get), 50)

		// The SDK route's per-IP buckets are shared too.
		validate := request{method: http.MethodGet, path: "/v1/sdk/validate", key: o.key.raw, headers: fromIP("203.0.113.9")}
		for i := 1; i <= limit; i++ {
			h := one
			if i > limit/2 {
				h = two
			}
			resp := h.do(t, validate)
			require.Equal(t, http.StatusOK, resp.status, "request %d: %s", i, resp.body)
		}
		assertRefused(t, two.do(t, validate), 50)

		c.Advance(50 * time.Second)
		resp := two.do(t, get)
		require.Equal(t, http.StatusOK, resp.status)
		assertLimit(t, resp, limit-1, 60)
		assertLimit(t, one.do(t, get), limit-2, 60)
	})
}
