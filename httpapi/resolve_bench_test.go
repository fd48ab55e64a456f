package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store/storetest"
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
	s := storetest.SQLite(b)
	ctx := context.Background()
	authn := auth.NewAuthenticator(s, auth.AuthenticatorOptions{})
	orgs := org.NewService(s, authn, nil, nil)
	o, _, err := orgs.Create(ctx, "Bench", org.PlanFree)
	require.NoError(b, err)
	p := &auth.Principal{OrgID: o.ID, Scopes: auth.NewScopeSet(auth.RequestableScopes)}
	r := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain})
	apps := linking.NewAppService(s, s, authn, linkDomain, nil, nil)
	apps.SetCache(r)
	_, err = apps.Create(ctx, p, linking.AppInput{Name: linking.Some("Bench")})
	require.NoError(b, err)
	links := linking.NewLinkService(s, s, s, linking.LinkServiceOptions{DefaultLinkDomain: linkDomain, Cache: r})
	utm := "newsletter"
	ios, android := "https://shop.example/ios", "shopapp://product/1"
	_, err = links.Create(ctx, p, linking.CreateLinkInput{DestinationURL: "https://shop.example/p?id=1",
		Slug: linking.Some("bench").Ptr(), UTMSource: &utm, UTMCampaign: &utm, IOSURL: &ios, AndroidURL: &android})
	require.NoError(b, err)
	keys := auth.NewKeys(s, authn, nil, nil)
	sdk, err := keys.CreateFor(ctx, o.ID, nil, "", auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
	require.NoError(b, err)

	benchRule := ratelimit.Rule{Limit: 1 << 30, Window: httpapi.SDKRule.Window}
	h := httpapi.New(httpapi.Options{
		Authenticator:     authn,
		Resolver:          r,
		DefaultLinkDomain: linkDomain,
		Clicks:            discardClicks{},
		Limiter:           limiterWithRule{ratelimit.NewMemory(nil, 0), benchRule},
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
