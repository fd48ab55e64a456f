package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// oldLinkDomain is the domain the old addresses of these tests are on: the
// default link domain, where links without an app may be created too.
const oldLinkDomain = linkDomain

// movedHarness is a resolve harness whose link-domain handler builds short
// URLs as its link service does and keeps the redirects it reports.
type movedHarness struct {
	*resolveHarness
	site *httptest.Server
	// redirects keeps the redirects reported.
	redirects sink[httpapi.RedirectEvent]
}

func newMovedHarness(t *testing.T, s *store.Store) *movedHarness {
	t.Helper()
	h := &movedHarness{resolveHarness: newResolveHarness(t, s)}
	h.site = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver:     h.resolver,
		Clock:        h.clock.Now,
		ShortURLBase: "http://{domain}:8080",
		OnRedirect: func(_ context.Context, ev httpapi.RedirectEvent) {
			h.redirects.add(ev)
		},
	}))
	t.Cleanup(h.site.Close)
	return h
}

// moved records slug on oldLinkDomain as an old address of link id of o.
func (h *movedHarness) moved(t testing.TB, o *testOrg, id uuid.UUID, slug string) {
	t.Helper()
	_, err := h.links.RecordOldAddress(context.Background(), o.ID, id, oldLinkDomain, slug)
	require.NoError(t, err)
}

// visit sends a request for path to the link domain host without
// following redirects.
func (h *movedHarness) visit(t testing.TB, method, host, path, ua string, header map[string]string) *response {
	t.Helper()
	req, err := http.NewRequest(method, h.site.URL+path, nil)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("User-Agent", ua)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

func TestOldAddressRedirectsPermanently(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newMovedHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring-sale","app_id":"`+app.ID.String()+`"}`)
		h.moved(t, o, l.ID, "spring")
		newURL := "http://" + app.LinkDomain + ":8080/spring-sale"
		require.Equal(t, newURL, l.ShortURL)

		t.Run("301 to the current short URL with the query kept, and no click", func(t *testing.T) {
			resp := h.visit(t, http.MethodGet, oldLinkDomain, "/Spring?utm_medium=social&x=1", uaIPhone, nil)
			require.Equal(t, http.StatusMovedPermanently, resp.status, "body: %s", resp.body)
			assert.Equal(t, newURL+"?utm_medium=social&x=1", resp.header.Get("Location"))
			assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
			assert.Contains(t, string(resp.body), `href="`+newURL+`?utm_medium=social&amp;x=1"`)

			resp = h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, nil)
			require.Equal(t, http.StatusMovedPermanently, resp.status)
			assert.Equal(t, newURL, resp.header.Get("Location"), "no query, no question mark")
			assert.Empty(t, h.redirects.take(), "a 301 records no click")
		})

		t.Run("HEAD, bots and JSON clients get the 301 too", func(t *testing.T) {
			resp := h.visit(t, http.MethodHead, oldLinkDomain, "/spring?a=b", uaDesktop, nil)
			assert.Equal(t, http.StatusMovedPermanently, resp.status)
			assert.Equal(t, newURL+"?a=b", resp.header.Get("Location"))
			assert.Empty(t, resp.body)
			resp = h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaTwitter, nil)
			assert.Equal(t, http.StatusMovedPermanently, resp.status, "a bot follows the move instead of a preview")
			resp = h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, map[string]string{"Accept": "application/json"})
			assert.Equal(t, http.StatusMovedPermanently, resp.status)
			assert.Empty(t, h.redirects.take())
		})

		t.Run("POST is 405", func(t *testing.T) {
			resp := h.visit(t, http.MethodPost, oldLinkDomain, "/spring", uaDesktop, nil)
			assert.Equal(t, http.StatusMethodNotAllowed, resp.status)
			assert.Equal(t, "GET, HEAD", resp.header.Get("Allow"))
		})

		t.Run("the new address redirects and records the click", func(t *testing.T) {
			resp := h.visit(t, http.MethodGet, app.LinkDomain, "/spring-sale?utm_medium=social", uaDesktop, nil)
			require.Equal(t, http.StatusFound, resp.status)
			assert.Equal(t, "https://shop.example/p?utm_medium=social", resp.header.Get("Location"))
			events := h.redirects.take()
			require.Len(t, events, 1)
			assert.Equal(t, l.ID, events[0].Link.ID)
		})

		t.Run("a paused or protected link's old address still moves; the new address answers the state", func(t *testing.T) {
			require.Equal(t, http.StatusOK, h.post(t, key, linkPath(l.ID)+"/deactivate", "").status)
			resp := h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, nil)
			assert.Equal(t, http.StatusMovedPermanently, resp.status)
			assert.Equal(t, newURL, resp.header.Get("Location"))
			resp = h.visit(t, http.MethodGet, app.LinkDomain, "/spring-sale", uaDesktop, nil)
			assert.Equal(t, http.StatusNotFound, resp.status)
			require.Equal(t, http.StatusOK, h.post(t, key, linkPath(l.ID)+"/activate", "").status)

			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"password":"open sesame"}`).status)
			resp = h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, nil)
			assert.Equal(t, http.StatusMovedPermanently, resp.status)
			resp = h.visit(t, http.MethodGet, app.LinkDomain, "/spring-sale", uaDesktop, nil)
			assert.Equal(t, http.StatusOK, resp.status, "the password form")
			assert.Empty(t, h.redirects.take())
		})

		t.Run("an unknown slug on the old domain is 404", func(t *testing.T) {
			resp := h.visit(t, http.MethodGet, oldLinkDomain, "/autumn", uaDesktop, nil)
			assert.Equal(t, http.StatusNotFound, resp.status)
		})
	})
}

func TestResolveOldAddress(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newMovedHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p?id=1","slug":"spring-sale","app_id":"`+app.ID.String()+`",
			"utm_source":"newsletter"}`)
		h.moved(t, o, l.ID, "spring")
		query := "domain=" + oldLinkDomain + "&params=utm_medium%3Dpush"

		t.Run("returns the moved link's current domain and slug and records its click", func(t *testing.T) {
			tap := uuid.NewString()
			resp := h.resolve(t, resolve{key: sdk, slug: "Spring", query: query, tap: tap, ua: uaIPhone})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.resolved(t)
			assert.Equal(t, l.ID, got.ID)
			assert.Equal(t, app.LinkDomain, got.Domain)
			assert.Equal(t, "spring-sale", got.Slug)
			assert.Equal(t, "https://shop.example/p?id=1&utm_source=newsletter&utm_medium=push", got.DestinationURL)

			direct := h.resolve(t, resolve{key: sdk, slug: "spring-sale", query: "domain=" + app.LinkDomain + "&params=utm_medium%3Dpush",
				ua: uaIPhone}).resolved(t)
			assert.Equal(t, direct, got, "the same answer as a resolve of the link itself")

			clicks := h.clicks.take()
			require.Len(t, clicks, 2)
			c := clicks[0]
			assert.Equal(t, analytics.SourceAppOpen, c.Source)
			assert.Equal(t, tap, c.ID.String(), "the tap id is the click id")
			assert.Equal(t, l.ID, c.LinkID)
			assert.Equal(t, app.LinkDomain, c.Domain, "the link's current domain")
			assert.Equal(t, "spring-sale", c.Slug)
			assert.Equal(t, "push", c.UTMMedium)
		})

		t.Run("an API key gets the data and records nothing", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: key, slug: "spring", query: query})
			require.Equal(t, http.StatusOK, resp.status)
			assert.Equal(t, "spring-sale", resp.resolved(t).Slug)
			assert.Empty(t, h.clicks.take())
		})

		t.Run("another organization's key gets 404", func(t *testing.T) {
			assertError(t, h.resolve(t, resolve{key: h.sdkKey(t, other).raw, slug: "spring", query: query}),
				http.StatusNotFound, errcode.NotFound)
		})

		t.Run("paused, protected and expired links answer as at their own address", func(t *testing.T) {
			require.Equal(t, http.StatusOK, h.post(t, key, linkPath(l.ID)+"/deactivate", "").status)
			assertError(t, h.resolve(t, resolve{key: sdk, slug: "spring", query: query}), http.StatusNotFound, errcode.NotFound)
			require.Equal(t, http.StatusOK, h.post(t, key, linkPath(l.ID)+"/activate", "").status)

			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"password":"open sesame"}`).status)
			resp := h.resolve(t, resolve{key: sdk, slug: "spring", query: query})
			assertError(t, resp, http.StatusForbidden, errcode.PasswordRequired)
			assert.NotContains(t, string(resp.body), "shop.example")
			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"password":null}`).status)

			expires := h.clock.Now().Add(time.Minute).UTC().Format(time.RFC3339)
			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"expires_at":"`+expires+`"}`).status)
			h.clock.Advance(time.Hour)
			assertError(t, h.resolve(t, resolve{key: sdk, slug: "spring", query: query}), http.StatusGone, errcode.Gone)
			assert.Empty(t, h.clicks.take(), "no refusal records a click")
		})
	})
}

func TestOldAddressesOfALink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newMovedHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"spring-sale","app_id":"`+app.ID.String()+`"}`)
		first := h.clock.Now()
		h.moved(t, o, l.ID, "spring")
		h.clock.Advance(time.Hour)
		h.moved(t, o, l.ID, "sale")

		t.Run("GET /links/{id} lists them in redirected_from, oldest first", func(t *testing.T) {
			resp := h.get(t, key, linkPath(l.ID))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var got struct {
				RedirectedFrom []struct {
					URL   string    `json:"url"`
					Since time.Time `json:"since"`
				} `json:"redirected_from"`
			}
			resp.decode(t, &got)
			require.Len(t, got.RedirectedFrom, 2)
			assert.Equal(t, "http://"+oldLinkDomain+":8080/spring", got.RedirectedFrom[0].URL)
			assert.True(t, first.Equal(got.RedirectedFrom[0].Since), "%v", got.RedirectedFrom[0].Since)
			assert.Equal(t, "http://"+oldLinkDomain+":8080/sale", got.RedirectedFrom[1].URL)
			assert.True(t, first.Add(time.Hour).Equal(got.RedirectedFrom[1].Since))
			item := resp.object(t)["redirected_from"].([]any)[0].(map[string]any)
			assert.Len(t, item, 2, "an item carries the old URL and the date only")
		})

		t.Run("list and update responses have no redirected_from", func(t *testing.T) {
			resp := h.get(t, key, "/v1/links")
			require.Equal(t, http.StatusOK, resp.status)
			for _, item := range resp.object(t)["data"].([]any) {
				assert.NotContains(t, item.(map[string]any), "redirected_from")
			}
			resp = h.patch(t, key, linkPath(l.ID), `{"name":"Spring"}`)
			require.Equal(t, http.StatusOK, resp.status)
			assert.NotContains(t, resp.object(t), "redirected_from")
			resp = h.post(t, key, linkPath(l.ID)+"/deactivate", "")
			require.Equal(t, http.StatusOK, resp.status)
			assert.NotContains(t, resp.object(t), "redirected_from")
		})

		t.Run("a new link may not take an old address", func(t *testing.T) {
			resp := h.post(t, key, "/v1/links", `{"destination_url":"https://shop.example/","slug":"spring","domain":"`+oldLinkDomain+`"}`)
			assertError(t, resp, http.StatusConflict, errcode.SlugTaken)
			assert.Equal(t, map[string]any{"slug": "spring", "domain": oldLinkDomain}, details(t, resp))
		})

		t.Run("deleting the link frees its old addresses", func(t *testing.T) {
			resp := h.delete(t, key, linkPath(l.ID))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.NotContains(t, resp.object(t), "redirected_from")
			assert.Equal(t, http.StatusNotFound, h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, nil).status)
			assertError(t, h.resolve(t, resolve{key: h.sdkKey(t, o).raw, slug: "spring", query: "domain=" + oldLinkDomain}),
				http.StatusNotFound, errcode.NotFound)
			h.create(t, key, `{"destination_url":"https://shop.example/","slug":"spring","domain":"`+oldLinkDomain+`"}`)
			resp = h.visit(t, http.MethodGet, oldLinkDomain, "/spring", uaDesktop, nil)
			assert.Equal(t, http.StatusFound, resp.status, "the new link is served at the freed address")
		})
	})
}
