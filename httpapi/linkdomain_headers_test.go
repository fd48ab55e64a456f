package httpapi_test

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web"
)

// linkDomainCSP is the Content-Security-Policy of every link-domain
// response, written out but for the hash of the pages' one stylesheet
// (package web): a change of a directive shows here.
var linkDomainCSP = func() string {
	sum := sha256.Sum256([]byte(web.Stylesheet()))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"img-src data:; base-uri 'none'; frame-ancestors 'none'"
}()

// assertSecurityHeaders asserts the security headers of a link-domain
// response, each once and with its exact value.
func assertSecurityHeaders(t testing.TB, r *response) {
	t.Helper()
	assert.Equal(t, []string{linkDomainCSP}, r.header.Values("Content-Security-Policy"))
	assert.Equal(t, []string{"nosniff"}, r.header.Values("X-Content-Type-Options"))
	assert.Equal(t, []string{"DENY"}, r.header.Values("X-Frame-Options"))
}

func TestLinkDomainSecurityHeaders(t *testing.T) {
	t.Parallel()
	assert.Equal(t, linkDomainCSP, httpapi.LinkDomainCSP)
	assert.Equal(t, httpapi.LinkDomainCSP, httpapi.PasswordPageCSP)

	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		app := h.fullApp(t, o, "null")
		key := o.key.raw
		web := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"web","og_title":"Sale"}`)
		appLink := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"app-link","app_id":"`+app.ID.String()+`"}`)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
		expires := h.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"expiring","expires_at":"`+expires+`"}`)
		require.Equal(t, http.StatusFound, h.visit(t, visit{host: linkDomain, path: "/expiring"}).status)
		h.clock.Advance(time.Hour)

		const jsonAccept = "application/json"
		tests := []struct {
			name   string
			v      visit
			status int
			ctype  string
		}{
			{"a redirect", visit{host: web.Domain, path: "/web", ua: uaDesktop}, http.StatusFound, "text/html; charset=utf-8"},
			{"a redirect, HEAD", visit{method: http.MethodHead, host: web.Domain, path: "/web", ua: uaDesktop}, http.StatusFound, "text/html; charset=utf-8"},
			{"an app link's redirect", visit{host: appLink.Domain, path: "/app-link", ua: uaAndroid}, http.StatusFound, "text/html; charset=utf-8"},
			{"a bot preview", visit{host: web.Domain, path: "/web", ua: uaTwitter}, http.StatusOK, "text/html; charset=utf-8"},
			{"a bot preview, HEAD", visit{method: http.MethodHead, host: web.Domain, path: "/web", ua: uaTwitter}, http.StatusOK, "text/html; charset=utf-8"},
			{"a password form", visit{host: linkDomain, path: "/secret", ua: uaDesktop}, http.StatusOK, "text/html; charset=utf-8"},
			{"a password form to a bot", visit{host: linkDomain, path: "/secret", ua: uaTwitter}, http.StatusOK, "text/html; charset=utf-8"},
			{"a refused password form", visit{method: http.MethodPost, host: linkDomain, path: "/secret", ua: uaDesktop}, http.StatusForbidden, "text/html; charset=utf-8"},
			{"a 404 page", visit{host: linkDomain, path: "/nothing-here", ua: uaDesktop}, http.StatusNotFound, "text/html; charset=utf-8"},
			{"a 404 envelope", visit{host: linkDomain, path: "/nothing-here", accept: jsonAccept}, http.StatusNotFound, "application/json; charset=utf-8"},
			{"the 404 of the root", visit{host: linkDomain, path: "/", ua: uaDesktop}, http.StatusNotFound, "text/html; charset=utf-8"},
			{"a 410 page", visit{host: linkDomain, path: "/expiring", ua: uaDesktop}, http.StatusGone, "text/html; charset=utf-8"},
			{"a 410 envelope", visit{host: linkDomain, path: "/expiring", accept: jsonAccept}, http.StatusGone, "application/json; charset=utf-8"},
			{"a 405 page", visit{method: http.MethodDelete, host: linkDomain, path: "/web"}, http.StatusMethodNotAllowed, "text/html; charset=utf-8"},
			{"a 405 envelope", visit{method: http.MethodPut, host: linkDomain, path: "/web", accept: jsonAccept}, http.StatusMethodNotAllowed, "application/json; charset=utf-8"},
			{"apple-app-site-association", visit{host: app.LinkDomain, path: httpapi.AASAPath}, http.StatusOK, "application/json"},
			{"assetlinks.json", visit{host: app.LinkDomain, path: httpapi.AssetLinksPath}, http.StatusOK, "application/json"},
			{"assetlinks.json, HEAD", visit{method: http.MethodHead, host: app.LinkDomain, path: httpapi.AssetLinksPath}, http.StatusOK, "application/json"},
			{"an association file's 404", visit{host: linkDomain, path: httpapi.AASAPath}, http.StatusNotFound, "text/html; charset=utf-8"},
			{"healthz", visit{host: linkDomain, path: "/healthz"}, http.StatusOK, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.visit(t, tt.v)
				require.Equal(t, tt.status, resp.status, "body: %s", resp.body)
				if tt.ctype != "" {
					assert.Equal(t, tt.ctype, resp.header.Get("Content-Type"))
				}
				assertSecurityHeaders(t, resp)
			})
		}

		t.Run("the other headers are as they were", func(t *testing.T) {
			resp := h.visit(t, visit{host: web.Domain, path: "/web", ua: uaDesktop})
			assert.Equal(t, httpapi.ReferrerPolicy, resp.header.Get("Referrer-Policy"))
			assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
			resp = h.visit(t, visit{host: linkDomain, path: "/secret", ua: uaDesktop})
			assert.Equal(t, "no-referrer", resp.header.Get("Referrer-Policy"), "the password form sends no referrer")
			resp = h.visit(t, visit{host: app.LinkDomain, path: httpapi.AASAPath})
			assert.Equal(t, "public, max-age=300", resp.header.Get("Cache-Control"))
		})
	})
}

func TestOldAddressSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := newMovedHarness(t, storetest.SQLite(t))
	o, app := h.linkOrg(t, "Acme")
	l := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/p","slug":"spring-sale","app_id":"`+app.ID.String()+`"}`)
	h.moved(t, o, l.ID, "spring")
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		resp := h.visit(t, method, oldLinkDomain, "/spring", uaDesktop, nil)
		require.Equal(t, http.StatusMovedPermanently, resp.status, "%s: %s", method, resp.body)
		assertSecurityHeaders(t, resp)
	}
}

// TestLinkDomainUnavailableSecurityHeaders closes the database under the
// handler: its 503 page and envelope carry the headers too.
func TestLinkDomainUnavailableSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	resolver := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain})
	srv := httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: resolver, Logger: discardLogger()}))
	t.Cleanup(srv.Close)
	require.NoError(t, s.Close())

	for _, accept := range []string{"", "application/json"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/some-link", nil)
		require.NoError(t, err)
		req.Host = linkDomain
		req.Header.Set("Accept", accept)
		resp := sendRaw(t, req)
		require.Equal(t, http.StatusServiceUnavailable, resp.status, "Accept %q: %s", accept, resp.body)
		assert.Equal(t, "5", resp.header.Get("Retry-After"))
		assert.True(t, strings.HasPrefix(resp.header.Get("Content-Type"), map[string]string{"": "text/html", "application/json": "application/json"}[accept]))
		assertSecurityHeaders(t, resp)
	}
}

// sendRaw sends req without following redirects.
func sendRaw(t testing.TB, req *http.Request) *response {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
