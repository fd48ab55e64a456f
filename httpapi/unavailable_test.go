package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// assertUnavailable asserts 503 SERVICE_UNAVAILABLE with Retry-After: 5.
func assertUnavailable(t testing.TB, r *response) {
	t.Helper()
	assertError(t, r, http.StatusServiceUnavailable, errcode.ServiceUnavailable)
	assert.Equal(t, "5", r.header.Get("Retry-After"), "Retry-After")
}

// TestClosedDatabaseIs503 closes the SQLite store under a running server.
func TestClosedDatabaseIs503(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newHarness(t, s)
	o := h.newOrg(t, "Acme")
	uncached := h.scopedKey(t, o, auth.ScopeKeysRead)
	require.Equal(t, http.StatusOK, h.get(t, o.key.raw, "/v1/keys").status, "the bootstrap key is now cached")

	require.NoError(t, s.Close())

	tests := []struct {
		name string
		req  request
	}{
		{"a cached key reaches the handler, whose read fails", request{method: http.MethodGet, path: "/v1/keys", key: o.key.raw}},
		{"a write fails", request{method: http.MethodPost, path: "/v1/keys", key: o.key.raw, body: `{"name":"x","scopes":["links:read"]}`}},
		{"a key that is not cached cannot be checked", request{method: http.MethodGet, path: "/v1/keys", key: uncached.raw}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.do(t, tt.req)
			assertUnavailable(t, resp)
			assert.NotContains(t, string(resp.body), "closed")
			assert.NotEmpty(t, resp.header.Get("X-RateLimit-Limit"))
		})
	}

	t.Run("readyz is 503, healthz still 200", func(t *testing.T) {
		assertUnavailable(t, h.get(t, "", "/readyz"))
		assert.Equal(t, http.StatusOK, h.get(t, "", "/healthz").status)
	})
}

// TestPostgresOutageAndRecovery cuts the connection to PostgreSQL under a
// running server and restores it: the server answers 503 meanwhile and
// recovers by itself.
func TestPostgresOutageAndRecovery(t *testing.T) {
	t.Parallel()
	dsn, err := url.Parse(storetest.PostgresDSN(t))
	require.NoError(t, err)
	proxy := storetest.NewTCPProxy(t, dsn.Host)
	dsn.Host = proxy.Addr()
	s, err := store.Open(context.Background(), dsn.String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(context.Background()))

	// Without the authentication cache every request reads the database.
	h := newHarness(t, s, withCacheTTL(-1))
	o := h.newOrg(t, "Acme")
	list := request{method: http.MethodGet, path: "/v1/keys", key: o.key.raw}
	create := request{method: http.MethodPost, path: "/v1/keys", key: o.key.raw, body: `{"name":"x","scopes":["links:read"]}`}
	require.Equal(t, http.StatusOK, h.do(t, list).status)
	require.Equal(t, http.StatusOK, h.get(t, "", "/readyz").status)

	for round := range 2 {
		proxy.Stop()
		assertUnavailable(t, h.do(t, list))
		assertUnavailable(t, h.do(t, create))
		assertUnavailable(t, h.get(t, "", "/readyz"))
		assert.Equal(t, http.StatusOK, h.get(t, "", "/healthz").status)

		proxy.Start()
		resp := h.do(t, list)
		require.Equal(t, http.StatusOK, resp.status, "round %d: the first request after the database returns succeeds: %s", round, resp.body)
		assert.Equal(t, http.StatusOK, h.get(t, "", "/readyz").status, "round %d", round)
		assert.Equal(t, http.StatusCreated, h.do(t, create).status, "round %d", round)
	}
}

// stalledMatchStore is a store whose database stops answering the
// attribution matcher: its reads wait until their context ends.
type stalledMatchStore struct{ *store.Store }

func (stalledMatchStore) MatchApps(ctx context.Context, _ uuid.UUID) ([]attribution.App, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// An attribution match whose database stalls answers 503 at the match's
// deadline instead of hanging.
func TestStalledAttributionMatchIs503(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newAttrHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		o.Attribution = attribution.NewMatcher(stalledMatchStore{h.store}, attribution.MatcherOptions{Clock: h.clock.Now})
		o.MatchTimeout = 50 * time.Millisecond
	}))
	o, _ := h.linkOrg(t, "Acme")
	sdk := h.sdkKey(t, o).raw
	done := make(chan *response, 1)
	go func() { done <- h.match(t, sdk, "", matchBody(uuid.New())) }()
	select {
	case resp := <-done:
		assertUnavailable(t, resp)
	case <-time.After(30 * time.Second):
		t.Fatal("the match hangs on a stalled database")
	}
}
