package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/ratelimit"
)

// discardClicks is a ClickRecorder that keeps nothing, as a recorder with
// room in its buffer costs the request nothing but a channel send.
type discardClicks struct{}

func (discardClicks) Record(analytics.Click) bool { return true }

// BenchmarkResolveLink measures a whole SDK resolve on a warm link cache and
// a warm authentication cache: routing, request id, authentication, the
// per-key-per-IP limit, the strict query, the cache hit, params.Apply for
// the destination and four platform URLs with a visitor query, the
// app_open click (tap id parsed, device classified) and the JSON answer.
func BenchmarkResolveLink(b *testing.B) {
	utm := "newsletter"
	ios, android := "https://shop.example/ios", "shopapp://product/1"
	s, o, authn, r := benchLink(b, linking.CreateLinkInput{DestinationURL: "https://shop.example/p?id=1",
		Slug: apitype.Some("bench").Ptr(), UTMSource: &utm, UTMCampaign: &utm, IOSURL: &ios, AndroidURL: &android})
	ctx := context.Background()
	keys := auth.NewKeys(s, auth.KeysOptions{Forget: authn})
	sdk, err := keys.CreateFor(ctx, o.ID, nil, "", auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
	require.NoError(b, err)

	benchRule := ratelimit.Rule{Limit: 1 << 30, Window: ratelimit.SDKRule.Window}
	h := httpapi.New(httpapi.Options{
		Authenticator:     authn,
		Resolver:          r,
		DefaultLinkDomain: linkDomain,
		Clicks:            discardClicks{},
		Limiter:           limiterWithRule{ratelimit.NewMemory(ratelimit.MemoryOptions{}), benchRule},
	})
	req := httptest.NewRequest(http.MethodGet, "/v1/links/resolve/bench?params=utm_medium%3Dpush%26ref%3Dapp", nil)
	req.Header.Set("Authorization", "Bearer "+sdk.RawKey)
	req.Header.Set(httpapi.TapIDHeader, uuid.NewString())
	req.Header.Set("User-Agent", uaIPhone)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(b, http.StatusOK, rec.Code, rec.Body.String())

	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
}
