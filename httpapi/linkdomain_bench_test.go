package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkLinkDomainRedirect measures the link-domain handler redirecting a
// real visitor on a warm cache: path and slug checks, the cache hit, device
// classification, routing with a new click id, params.Apply with the link's
// UTM fields and a visitor query, and the 302 with its short body. The
// response writer is reused, as a server's is, so that the figures are the
// handler's.
func BenchmarkLinkDomainRedirect(b *testing.B) {
	utm := "newsletter"
	_, _, _, r := benchLink(b, linking.CreateLinkInput{DestinationURL: "https://shop.example/p?id=1",
		Slug: apitype.Some("bench").Ptr(), UTMSource: &utm, UTMCampaign: &utm})
	h := httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: r})
	// With the click built and handed to a recorder, as serve does; the
	// recorder here keeps nothing, so that the figure is the handler's share
	// (the batched write is measured by store's BenchmarkInsertClicks500).
	withClicks := httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: r,
		OnRedirect: httpapi.RecordClicks(discardClicks{})})
	// With the hooks serve gives when --metrics-addr is set: outcomes and
	// requests counted (by atomic counters here: the Prometheus side is
	// measured by internal/app's BenchmarkMetricsHooks).
	var outcomes [httpapi.NumOutcomes]atomic.Uint64
	var requests atomic.Uint64
	withMetrics := httpapi.Instrument(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: r,
		OnRedirect: httpapi.RecordClicks(discardClicks{}),
		OnOutcome:  func(o httpapi.Outcome) { outcomes[o].Add(1) }}),
		func(route string, status int, took time.Duration) { requests.Add(1) })

	for _, bc := range []struct {
		name, ua string
		h        http.Handler
	}{
		{"desktop", uaDesktop, h},
		{"iphone", uaIPhone, h},
		{"desktop-click", uaDesktop, withClicks},
		{"iphone-click", uaIPhone, withClicks},
		// With the access log serve writes by default (to a text handler
		// that discards its lines, so that formatting is counted).
		{"iphone-click-accesslog", uaIPhone, httpapi.AccessLog(withClicks, slog.New(slog.NewTextHandler(io.Discard, nil)))},
		{"iphone-click-metrics", uaIPhone, withMetrics},
		{"iphone-click-accesslog-metrics", uaIPhone, httpapi.AccessLog(withMetrics, slog.New(slog.NewTextHandler(io.Discard, nil)))},
	} {
		h := bc.h
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "http://"+linkDomain+"/bench?utm_medium=social", nil)
			req.Header.Set("User-Agent", bc.ua)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(b, http.StatusFound, rec.Code, rec.Body.String())
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				// A visitor sends no request id: the access log makes one.
				req.Header.Del("X-Request-Id")
				h.ServeHTTP(w, req)
				if w.code != http.StatusFound {
					b.Fatalf("status %d", w.code)
				}
			}
		})
	}
}

// benchLink creates, on in-memory SQLite, an organization with an app and
// the link in, and returns the store, the organization, the authenticator
// and a resolver that the link's creation has gone through.
func benchLink(b *testing.B, in linking.CreateLinkInput) (*store.Store, *org.Organization, *auth.Authenticator, *linking.Resolver) {
	b.Helper()
	s := storetest.SQLite(b)
	ctx := context.Background()
	authn := auth.NewAuthenticator(s, auth.AuthenticatorOptions{})
	orgs := org.NewService(s, org.ServiceOptions{Forget: authn})
	o, _, err := orgs.Create(ctx, "Bench", org.PlanFree)
	require.NoError(b, err)
	p := testkit.Principal(o.ID, auth.RequestableScopes...)
	r := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain})
	apps := linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: linkDomain, Forget: authn,
		OnAppChange: func(uuid.UUID) { r.InvalidateAll() }})
	_, err = apps.Create(ctx, p, linking.AppInput{Name: apitype.Some("Bench")})
	require.NoError(b, err)
	links := linking.NewLinkService(s, s, s, linking.LinkServiceOptions{DefaultLinkDomain: linkDomain, Cache: r})
	_, err = links.Create(ctx, p, in)
	require.NoError(b, err)
	return s, o, authn, r
}

// discardWriter is a ResponseWriter that keeps the status and drops the body.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
