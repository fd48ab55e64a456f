package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestAnonymousLimitCountsNetworks proves that the allowance of requests
// without a valid key is one per client network: every address of an IPv6
// /64 shares it, an IPv4-mapped address shares its IPv4 address's, and
// IPv4 stays per address.
func TestAnonymousLimitCountsNetworks(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	c := testkit.NewClock(start)
	h := newCustomHarness(t, s, withClock(c), withLimiter(ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: c.Now})))
	get := func(ip string) *response {
		return h.do(t, request{method: http.MethodGet, path: "/v1/links",
			headers: map[string]string{"X-Forwarded-For": ip}})
	}

	for i := range ratelimit.AnonymousRule.Limit {
		require.Equal(t, http.StatusUnauthorized, get(fmt.Sprintf("2001:db8:9:9::%x", i+1)).status, "request %d", i+1)
	}
	resp := get("2001:db8:9:9:ffff:ffff:ffff:ffff")
	assertError(t, resp, http.StatusTooManyRequests, errcode.RateLimitExceeded)
	assert.NotEmpty(t, resp.header.Get("Retry-After"))
	assert.Equal(t, http.StatusUnauthorized, get("2001:db8:9:a::1").status, "the neighbouring /64 has its own allowance")

	for i := range ratelimit.AnonymousRule.Limit {
		ip := "192.0.2.7"
		if i%2 == 1 {
			ip = "::ffff:192.0.2.7"
		}
		require.Equal(t, http.StatusUnauthorized, get(ip).status, "request %d", i+1)
	}
	assertError(t, get("::ffff:192.0.2.7"), http.StatusTooManyRequests, errcode.RateLimitExceeded)
	assert.Equal(t, http.StatusUnauthorized, get("192.0.2.8").status, "IPv4 stays per address")
}
