package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkAuthenticatedRequest measures a whole authenticated API request on
// a warm authentication cache: routing, request id, authentication, the rate
// limit and a small JSON answer (GET /v1/sdk/validate).
func BenchmarkAuthenticatedRequest(b *testing.B) {
	s := storetest.SQLite(b)
	authn := auth.NewAuthenticator(s, auth.AuthenticatorOptions{})
	orgs := org.NewService(s, org.ServiceOptions{Forget: authn})
	_, key, err := orgs.Create(context.Background(), "Bench", org.PlanFree)
	require.NoError(b, err)
	// A limit no benchmark reaches, so that every request is served.
	benchRule := ratelimit.Rule{Limit: 1 << 30, Window: ratelimit.KeyRule.Window}
	h := httpapi.New(httpapi.Options{Authenticator: authn, Orgs: orgs,
		Limiter: limiterWithRule{ratelimit.NewMemory(ratelimit.MemoryOptions{}), benchRule}})
	req := httptest.NewRequest(http.MethodGet, "/v1/sdk/validate", nil)
	req.Header.Set("Authorization", "Bearer "+key.RawKey)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// limiterWithRule applies one rule whatever the caller asks, for benchmarks.
type limiterWithRule struct {
	ratelimit.Limiter
	rule ratelimit.Rule
}

func (l limiterWithRule) Allow(ctx context.Context, bucket string, _ ratelimit.Rule) (ratelimit.Result, error) {
	return l.Limiter.Allow(ctx, bucket, l.rule)
}
