package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// User agents of the link-domain tests.
const (
	uaIPhone   = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
	uaAndroid  = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
	uaDesktop  = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
	uaTwitter  = "Twitterbot/1.0"
	uaFacebook = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
	uaSlack    = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
)

// testFingerprint is a SHA-256 certificate fingerprint.
var testFingerprint = strings.TrimSuffix(strings.Repeat("AB:", 32), ":")

// domainHarness is a link harness whose services tell a Resolver of their
// writes, with the link-domain handler served beside the API.
type domainHarness struct {
	*linkHarness
	resolver *linking.Resolver
	domain   *httptest.Server

	mu     sync.Mutex
	events []httpapi.RedirectEvent
}

func newDomainHarness(t *testing.T, s *store.Store) *domainHarness {
	t.Helper()
	dh := &domainHarness{linkHarness: &linkHarness{}}
	lh := dh.linkHarness
	lh.harness = newHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		// A generous deadline: a loaded test machine must not turn a slow
		// read into a 503.
		dh.resolver = linking.NewResolver(h.store, linking.ResolverOptions{
			DefaultLinkDomain: linkDomain, Clock: h.clock.Now, StoreTimeout: time.Minute,
		})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { dh.resolver.InvalidateAll() })
		lh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:             dh.resolver,
		})
		o.Links = lh.links
		o.Parameters = org.NewParameters(h.store, org.ParametersOptions{Clock: h.clock.Now,
			OnChange: func(uuid.UUID) { dh.resolver.InvalidateAll() }})
	}))
	dh.domain = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: dh.resolver,
		Ready:    s.Ping,
		Clock:    dh.clock.Now,
		OnRedirect: func(_ context.Context, ev httpapi.RedirectEvent) {
			dh.mu.Lock()
			dh.events = append(dh.events, ev)
			dh.mu.Unlock()
		},
	}))
	t.Cleanup(dh.domain.Close)
	return dh
}

// visit is one request to a link domain.
type visit struct {
	method string // GET when empty
	host   string
	path   string
	ua     string
	accept string
}

// visit sends v to the link-domain server without following redirects.
func (h *domainHarness) visit(t testing.TB, v visit) *response {
	t.Helper()
	if v.method == "" {
		v.method = http.MethodGet
	}
	r, err := http.NewRequest(v.method, h.domain.URL+v.path, nil)
	require.NoError(t, err)
	r.Host = v.host
	if v.ua != "" {
		r.Header.Set("User-Agent", v.ua)
	}
	if v.accept != "" {
		r.Header.Set("Accept", v.accept)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

// fullApp creates an app through POST /v1/apps with every iOS and Android field.
func (h *domainHarness) fullApp(t testing.TB, o *testOrg, paths string) *linking.App {
	t.Helper()
	resp := h.post(t, o.key.raw, "/v1/apps", fmt.Sprintf(`{"name":"Shop %s","ios_bundle_id":"com.example.shop",
		"ios_team_id":"ABCDE12345","ios_app_store_url":"https://apps.apple.com/app/id123",
		"ios_universal_link_paths":%s,"android_package_name":"com.example.shop",
		"android_sha256_fingerprints":[%q],"android_play_store_url":"https://play.google.com/store/apps/details?id=com.example.shop"}`,
		o.Name, paths, testFingerprint))
	require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
	var a linking.App
	resp.decode(t, &a)
	require.NotEmpty(t, a.LinkDomain)
	return &a
}

func TestLinkDomainRedirects(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		app := h.fullApp(t, o, "null")
		key := o.key.raw
		create := func(body string) linkBody {
			return h.create(t, key, body)
		}
		appID := app.ID.String()
		full := create(`{"destination_url":"https://shop.example/p?id=1","slug":"full","app_id":"` + appID + `",
			"ios_url":"https://shop.example/ios","android_url":"myapp://product/42",
			"android_fallback_url":"https://shop.example/android","utm_source":"newsletter","utm_campaign":"spring"}`)
		stores := create(`{"destination_url":"https://shop.example/","slug":"stores","app_id":"` + appID + `"}`)
		fallbacks := create(`{"destination_url":"https://shop.example/","slug":"fallbacks","app_id":"` + appID + `",
			"ios_url":"myapp://x","ios_fallback_url":"https://shop.example/ios-fb","android_fallback_url":"https://shop.example/and-fb"}`)
		web := create(`{"destination_url":"https://shop.example/p?id=1","slug":"web","utm_source":"newsletter",
			"utm_medium":"email","utm_campaign":"spring"}`)

		tests := []struct {
			name   string
			link   linkBody
			query  string
			ua     string
			want   string // exact Location, or a prefix ending in "*"
			checks func(t *testing.T, loc *url.URL)
		}{
			{name: "iPhone: an https ios_url wins", link: full, ua: uaIPhone,
				want: "https://shop.example/ios?utm_source=newsletter&utm_campaign=spring"},
			{name: "iPhone: an app-scheme ios_url is skipped for ios_fallback_url", link: fallbacks, ua: uaIPhone,
				want: "https://shop.example/ios-fb"},
			{name: "iPhone: no iOS URLs: the app's App Store page, without UTM", link: stores, ua: uaIPhone,
				want: "https://apps.apple.com/app/id123"},
			{name: "Android: an app scheme becomes an intent with the app's package and fallback", link: full, ua: uaAndroid,
				want: "intent://product/42#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=*"},
			{name: "Android: android_fallback_url", link: fallbacks, ua: uaAndroid,
				want: "https://shop.example/and-fb"},
			{name: "Android: the Play Store carries the click id in its referrer", link: stores, ua: uaAndroid,
				want: "https://play.google.com/store/apps/details?id=com.example.shop&referrer=hop_click_id%3D*",
				checks: func(t *testing.T, loc *url.URL) {
					id, ok := linking.ClickIDFromReferrer(loc.Query().Get("referrer"))
					assert.True(t, ok, "a click id in %s", loc)
					assert.Len(t, id, 36)
				}},
			{name: "desktop: the destination with the link's UTM fields", link: web, ua: uaDesktop,
				want: "https://shop.example/p?id=1&utm_source=newsletter&utm_medium=email&utm_campaign=spring"},
			{name: "desktop: the visitor's UTM values are forwarded and win over the link fields", link: web, ua: uaDesktop,
				query: "?utm_source=twitter&utm_term=shoes&other=1",
				want:  "https://shop.example/p?id=1&utm_source=twitter&utm_medium=email&utm_campaign=spring&utm_term=shoes"},
			{name: "an unknown agent goes to the destination", link: stores, ua: "",
				want: "https://shop.example/"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.visit(t, visit{host: tt.link.Domain, path: "/" + tt.link.Slug + tt.query, ua: tt.ua})
				require.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
				loc := resp.header.Get("Location")
				if prefix, ok := strings.CutSuffix(tt.want, "*"); ok {
					assert.True(t, strings.HasPrefix(loc, prefix), "Location %s, want prefix %s", loc, prefix)
				} else {
					assert.Equal(t, tt.want, loc)
				}
				assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
				assert.Equal(t, httpapi.ReferrerPolicy, resp.header.Get("Referrer-Policy"))
				assert.Contains(t, string(resp.body), `href="`)
				assert.NotContains(t, string(resp.body), "og:title", "real visitors never see the preview")
				if tt.checks != nil {
					u, err := url.Parse(loc)
					require.NoError(t, err)
					tt.checks(t, u)
				}
			})
		}

		t.Run("every redirect reaches the OnRedirect hook with its click id", func(t *testing.T) {
			h.mu.Lock()
			h.events = nil
			h.mu.Unlock()
			resp := h.visit(t, visit{host: stores.Domain, path: "/stores", ua: uaAndroid})
			require.Equal(t, http.StatusFound, resp.status)
			h.mu.Lock()
			defer h.mu.Unlock()
			require.Len(t, h.events, 1)
			ev := h.events[0]
			assert.Equal(t, stores.ID, ev.Link.ID)
			assert.Equal(t, app.ID, ev.App.ID)
			assert.Equal(t, linking.RoutePlayStore, ev.Route.Kind)
			assert.Equal(t, resp.header.Get("Location"), ev.Location)
			assert.Contains(t, ev.Location, ev.ClickID.String())
			assert.Equal(t, linking.PlatformAndroid, ev.Device.Platform)
		})

		t.Run("HEAD answers as GET without a body", func(t *testing.T) {
			resp := h.visit(t, visit{method: http.MethodHead, host: web.Domain, path: "/web", ua: uaDesktop})
			assert.Equal(t, http.StatusFound, resp.status)
			assert.NotEmpty(t, resp.header.Get("Location"))
			assert.Empty(t, resp.body)
		})

		t.Run("slugs match without regard to case", func(t *testing.T) {
			resp := h.visit(t, visit{host: strings.ToUpper(web.Domain), path: "/WeB", ua: uaDesktop})
			assert.Equal(t, http.StatusFound, resp.status)
			assert.True(t, strings.HasPrefix(resp.header.Get("Location"), "https://shop.example/p?id=1"))
		})

		t.Run("a link on another domain is not found", func(t *testing.T) {
			resp := h.visit(t, visit{host: "other.example", path: "/web", ua: uaDesktop})
			assert.Equal(t, http.StatusNotFound, resp.status)
		})
	})
}

func TestLinkDomainPreviewsForBots(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		l := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/p?a=1&b=2","slug":"promo",
			"og_title":"Sale <script>alert(1)</script> & \"more\"","og_description":"Up to 50% off",
			"og_image_url":"https://cdn.example/s.png"}`)
		plain := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"plain","name":"Plain"}`)

		for _, ua := range []string{uaTwitter, uaFacebook, uaSlack} {
			t.Run(ua, func(t *testing.T) {
				resp := h.visit(t, visit{host: l.Domain, path: "/promo", ua: ua})
				require.Equal(t, http.StatusOK, resp.status)
				assert.Empty(t, resp.header.Get("Location"))
				assert.Equal(t, "text/html; charset=utf-8", resp.header.Get("Content-Type"))
				body := string(resp.body)
				assert.NotContains(t, body, "<script>", "og_title is escaped")
				title := "Sale &lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;more&#34;"
				for _, want := range []string{
					`<meta property="og:title" content="` + title + `">`,
					`<meta property="og:description" content="Up to 50% off">`,
					`<meta property="og:image" content="https://cdn.example/s.png">`,
					`<meta property="og:url" content="https://shop.example/p?a=1&amp;b=2">`,
					`<meta name="twitter:card" content="summary_large_image">`,
					`<meta name="twitter:title" content="` + title + `">`,
					`<meta name="twitter:description" content="Up to 50% off">`,
					`<meta name="twitter:image" content="https://cdn.example/s.png">`,
					`<link rel="canonical" href="https://shop.example/p?a=1&amp;b=2">`,
					`<meta name="robots" content="noindex">`,
				} {
					assert.Contains(t, body, want)
				}
			})
		}

		t.Run("without an image the card is a summary and the name is the title", func(t *testing.T) {
			resp := h.visit(t, visit{host: plain.Domain, path: "/plain", ua: uaTwitter})
			require.Equal(t, http.StatusOK, resp.status)
			body := string(resp.body)
			assert.Contains(t, body, `<meta name="twitter:card" content="summary">`)
			assert.Contains(t, body, `<meta property="og:title" content="Plain">`)
			assert.NotContains(t, body, "og:image")
		})

		t.Run("bots get no redirect event", func(t *testing.T) {
			h.mu.Lock()
			defer h.mu.Unlock()
			assert.Empty(t, h.events)
		})
	})
}

func TestLinkDomainStates(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		key := o.key.raw
		paused := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"paused"}`)
		require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(paused.ID), `{"is_active":false}`).status)
		deleted := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"deleted"}`)
		// Visited once, so that the cache holds it when it is deleted.
		require.Equal(t, http.StatusFound, h.visit(t, visit{host: linkDomain, path: "/deleted"}).status)
		require.Equal(t, http.StatusOK, h.delete(t, key, linkPath(deleted.ID)).status)
		expires := h.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"expiring","expires_at":"`+expires+`"}`)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame",
			"og_title":"Secret title","og_description":"Secret description"}`)
		require.Equal(t, http.StatusFound, h.visit(t, visit{host: linkDomain, path: "/expiring"}).status)
		h.clock.Advance(time.Hour)

		tests := []struct {
			name   string
			path   string
			accept string
			ua     string
			status int
		}{
			{"a paused link is not found", "/paused", "", uaDesktop, http.StatusNotFound},
			{"a deleted link is not found", "/deleted", "", uaDesktop, http.StatusNotFound},
			{"an unknown slug is not found", "/nothing-here", "", uaDesktop, http.StatusNotFound},
			{"the root of a link domain is not found", "/", "", uaDesktop, http.StatusNotFound},
			{"a path of two segments is not found", "/paused/more", "", uaDesktop, http.StatusNotFound},
			{"a link at its expiry is gone", "/expiring", "", uaDesktop, http.StatusGone},
			{"a bot gets the 404 too", "/paused", "", uaTwitter, http.StatusNotFound},
			{"browsers get HTML", "/expiring", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", uaDesktop, http.StatusGone},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.visit(t, visit{host: linkDomain, path: tt.path, ua: tt.ua, accept: tt.accept})
				assert.Equal(t, tt.status, resp.status)
				assert.Equal(t, "text/html; charset=utf-8", resp.header.Get("Content-Type"))
				assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
				assert.Contains(t, string(resp.body), "<h1>")
				assert.Empty(t, resp.header.Get("Location"))
			})
		}

		t.Run("a client that prefers JSON gets the envelope", func(t *testing.T) {
			resp := h.visit(t, visit{host: linkDomain, path: "/paused", accept: "application/json"})
			assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			resp = h.visit(t, visit{host: linkDomain, path: "/expiring", accept: "text/html;q=0.5, application/json"})
			assertError(t, resp, http.StatusGone, errcode.Gone)
		})

		t.Run("a protected link shows a form with nothing of the link, to bots too", func(t *testing.T) {
			for _, ua := range []string{uaDesktop, uaIPhone, uaTwitter} {
				resp := h.visit(t, visit{host: linkDomain, path: "/secret", ua: ua})
				assert.Equal(t, http.StatusOK, resp.status)
				assert.Empty(t, resp.header.Get("Location"))
				body := string(resp.body)
				assert.Contains(t, body, `name="password"`)
				for _, leak := range []string{"shop.example", "Secret title", "Secret description", "og:"} {
					assert.NotContains(t, body, leak)
				}
			}
		})

		t.Run("other methods are 405", func(t *testing.T) {
			resp := h.visit(t, visit{method: http.MethodDelete, host: linkDomain, path: "/paused", accept: "application/json"})
			assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
			assert.Equal(t, "GET, HEAD", resp.header.Get("Allow"))
		})

		t.Run("health checks answer on every host", func(t *testing.T) {
			assert.Equal(t, http.StatusOK, h.visit(t, visit{host: linkDomain, path: "/healthz"}).status)
			assert.Equal(t, http.StatusOK, h.visit(t, visit{host: "any.example", path: "/readyz"}).status)
		})
	})
}

func TestLinkDomainCache(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		app := h.fullApp(t, o, "null")
		key := o.key.raw
		location := func(slug string) string {
			t.Helper()
			resp := h.visit(t, visit{host: linkDomain, path: "/" + slug, ua: uaDesktop})
			if resp.status != http.StatusFound {
				return fmt.Sprint(resp.status)
			}
			return resp.header.Get("Location")
		}

		t.Run("a negative entry is dropped when the link is created in this process", func(t *testing.T) {
			assert.Equal(t, "404", location("later"))
			h.create(t, key, `{"destination_url":"https://shop.example/later","slug":"later"}`)
			assert.Equal(t, "https://shop.example/later", location("later"))
		})

		l := h.create(t, key, `{"destination_url":"https://shop.example/one","slug":"cached"}`)
		require.Equal(t, "https://shop.example/one", location("cached"))

		t.Run("a change through the service is seen at once", func(t *testing.T) {
			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"destination_url":"https://shop.example/two"}`).status)
			assert.Equal(t, "https://shop.example/two", location("cached"))
			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"is_active":false}`).status)
			assert.Equal(t, "404", location("cached"), "paused at once")
			require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(l.ID), `{"is_active":true}`).status)
			assert.Equal(t, "https://shop.example/two", location("cached"), "active again at once")
		})

		t.Run("a change made elsewhere is seen within the TTL", func(t *testing.T) {
			stored, err := h.store.LinkByID(context.Background(), o.ID, l.ID)
			require.NoError(t, err)
			stored.DestinationURL = "https://shop.example/three"
			require.NoError(t, h.store.UpdateLink(context.Background(), stored))
			assert.Equal(t, "https://shop.example/two", location("cached"), "the cached entry still serves")
			h.clock.Advance(linking.DefaultResolveTTL - time.Millisecond)
			assert.Equal(t, "https://shop.example/two", location("cached"), "until the TTL ends")
			h.clock.Advance(time.Millisecond)
			assert.Equal(t, "https://shop.example/three", location("cached"))
		})

		t.Run("a change of the organization's parameter defaults is seen at once", func(t *testing.T) {
			require.Equal(t, "https://shop.example/three", location("cached"))
			resp := h.do(t, request{method: http.MethodPut, path: "/v1/organizations/" + o.ID.String() + "/parameters", key: key,
				body: `{"injected":[{"key":"ref","value":"hop","mode":"always"}],"forwarding":null,"defaultMode":null}`})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "https://shop.example/three?ref=hop", location("cached"))
			resp = h.do(t, request{method: http.MethodPut, path: "/v1/organizations/" + o.ID.String() + "/parameters", key: key,
				body: `{"injected":[],"forwarding":null,"defaultMode":null}`})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "https://shop.example/three", location("cached"))
		})

		t.Run("an app change reaches its links at once", func(t *testing.T) {
			al := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"app-link","app_id":"`+app.ID.String()+`"}`)
			visitAndroid := func() string {
				resp := h.visit(t, visit{host: al.Domain, path: "/app-link", ua: uaAndroid})
				require.Equal(t, http.StatusFound, resp.status)
				return resp.header.Get("Location")
			}
			require.True(t, strings.HasPrefix(visitAndroid(), "https://play.google.com/"))
			resp := h.do(t, request{method: http.MethodPatch, path: "/v1/apps/" + app.ID.String(), key: key,
				body: `{"android_play_store_url":null}`})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "https://shop.example/", visitAndroid())
		})
	})
}

func TestLinkDomainAssociationFiles(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		full := h.fullApp(t, o, `["/products/*","/offers/*"]`)
		allPaths := h.fullApp(t, h.newOrg(t, "Beta"), "null")
		gamma := h.newOrg(t, "Gamma")
		bare, err := h.apps.Create(context.Background(), principalOf(gamma), linking.AppInput{Name: apitype.Some("Bare")})
		require.NoError(t, err)

		t.Run("apple-app-site-association, field by field", func(t *testing.T) {
			resp := h.visit(t, visit{host: full.LinkDomain, path: httpapi.AASAPath})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "application/json", resp.header.Get("Content-Type"))
			assert.Empty(t, resp.header.Get("Location"))
			var doc struct {
				AppLinks struct {
					Details []struct {
						AppIDs     []string            `json:"appIDs"`
						Components []map[string]string `json:"components"`
					} `json:"details"`
				} `json:"applinks"`
				WebCredentials struct {
					Apps []string `json:"apps"`
				} `json:"webcredentials"`
			}
			resp.decode(t, &doc)
			require.Len(t, doc.AppLinks.Details, 1)
			d := doc.AppLinks.Details[0]
			assert.Equal(t, []string{"ABCDE12345.com.example.shop"}, d.AppIDs)
			assert.Equal(t, []map[string]string{{"/": "/products/*"}, {"/": "/offers/*"}}, d.Components)
			assert.Equal(t, []string{"ABCDE12345.com.example.shop"}, doc.WebCredentials.Apps)
			assert.JSONEq(t, `{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shop"],
				"components":[{"/":"/products/*"},{"/":"/offers/*"}]}]},
				"webcredentials":{"apps":["ABCDE12345.com.example.shop"]}}`, string(resp.body))

			resp = h.visit(t, visit{host: allPaths.LinkDomain, path: httpapi.AASAPath})
			require.Equal(t, http.StatusOK, resp.status)
			assert.Contains(t, string(resp.body), `"components":[{"/":"/*"}]`, "no paths: every path")
		})

		t.Run("assetlinks.json, field by field", func(t *testing.T) {
			resp := h.visit(t, visit{host: full.LinkDomain, path: httpapi.AssetLinksPath})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "application/json", resp.header.Get("Content-Type"))
			var doc []struct {
				Relation []string `json:"relation"`
				Target   struct {
					Namespace    string   `json:"namespace"`
					PackageName  string   `json:"package_name"`
					Fingerprints []string `json:"sha256_cert_fingerprints"`
				} `json:"target"`
			}
			resp.decode(t, &doc)
			require.Len(t, doc, 1)
			assert.Equal(t, []string{"delegate_permission/common.handle_all_urls"}, doc[0].Relation)
			assert.Equal(t, "android_app", doc[0].Target.Namespace)
			assert.Equal(t, "com.example.shop", doc[0].Target.PackageName)
			assert.Equal(t, []string{testFingerprint}, doc[0].Target.Fingerprints)
			var raw []map[string]json.RawMessage
			resp.decode(t, &raw)
			assert.Len(t, raw[0], 2, "relation and target only")
		})

		t.Run("404 when the app lacks the fields, on the default domain and on unknown hosts", func(t *testing.T) {
			for _, tt := range []struct{ host, path string }{
				{bare.LinkDomain, httpapi.AASAPath},
				{bare.LinkDomain, httpapi.AssetLinksPath},
				{linkDomain, httpapi.AASAPath},
				{linkDomain, httpapi.AssetLinksPath},
				{"nobody." + linkDomain, httpapi.AASAPath},
				{"unknown.example", httpapi.AssetLinksPath},
			} {
				resp := h.visit(t, visit{host: tt.host, path: tt.path, accept: "application/json"})
				assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			}
		})

		t.Run("a missing field is named in a JSON 404, whatever Accept says", func(t *testing.T) {
			_, err := h.apps.Update(context.Background(), principalOf(gamma), bare.ID, linking.AppInput{
				IOSBundleID: apitype.Some("com.example.bare"),
			})
			require.NoError(t, err)
			for _, tt := range []struct {
				path, accept string
				missing      []any
			}{
				{httpapi.AASAPath, "text/html,application/xhtml+xml,*/*;q=0.8", []any{"ios_team_id"}},
				{httpapi.AASAPath, "", []any{"ios_team_id"}},
				{httpapi.AssetLinksPath, "text/html", []any{"android_package_name", "android_sha256_fingerprints"}},
			} {
				resp := h.visit(t, visit{host: bare.LinkDomain, path: tt.path, accept: tt.accept})
				e := assertError(t, resp, http.StatusNotFound, errcode.NotFound)
				assert.Contains(t, e.Error.Message, tt.missing[0].(string), "the message names the field")
				var raw struct {
					Error struct {
						Details map[string]any `json:"details"`
					} `json:"error"`
				}
				resp.decode(t, &raw)
				assert.Equal(t, tt.missing, raw.Error.Details["missing_fields"])
				assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
			}
		})

		t.Run("an app that gains the fields serves them at once", func(t *testing.T) {
			_, err := h.apps.Update(context.Background(), principalOf(gamma), bare.ID, linking.AppInput{
				AndroidPackageName:        apitype.Some("com.example.bare"),
				AndroidSHA256Fingerprints: apitype.Some([]string{testFingerprint}),
			})
			require.NoError(t, err)
			resp := h.visit(t, visit{host: bare.LinkDomain, path: httpapi.AssetLinksPath})
			assert.Equal(t, http.StatusOK, resp.status)
			assert.Contains(t, string(resp.body), "com.example.bare")
		})
	})
}

// principalOf is a principal of o with every requestable scope and no creator.
func principalOf(o *testOrg) *auth.Principal {
	return testkit.Principal(o.ID, auth.RequestableScopes...)
}

// TestLinkDomainHeadRecordsNoClick checks that HEAD gets what GET gets,
// status and headers, and that only GET records a click.
func TestLinkDomainHeadRecordsNoClick(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		app := h.fullApp(t, o, "null")
		web := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"web","og_title":"Sale"}`)
		appLink := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"app-link","app_id":"`+app.ID.String()+`"}`)
		// A body over net/http's 2 KiB response buffer, which the handler
		// gives its Content-Length as it does for HEAD.
		long := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/`+strings.Repeat("p", 1500)+`","slug":"long"}`)
		events := func() int {
			h.mu.Lock()
			defer h.mu.Unlock()
			return len(h.events)
		}
		// The click id in a Play Store referrer differs from one request to
		// the next; everything else must not.
		clickID := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
		headers := func(r *response) http.Header {
			hd := r.header.Clone()
			hd.Del("Date")
			if loc := hd.Get("Location"); loc != "" {
				hd.Set("Location", clickID.ReplaceAllString(loc, "{click}"))
			}
			return hd
		}

		tests := []struct {
			name   string
			link   linkBody
			ua     string
			status int
			clicks int // recorded by GET
		}{
			{"a redirect", web, uaDesktop, http.StatusFound, 1},
			{"a redirect with a long body", long, uaDesktop, http.StatusFound, 1},
			{"a bot preview", web, uaTwitter, http.StatusOK, 0},
			{"an app link to the Play Store", appLink, uaAndroid, http.StatusFound, 1},
			{"an app link to the App Store", appLink, uaIPhone, http.StatusFound, 1},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v := visit{host: tt.link.Domain, path: "/" + tt.link.Slug, ua: tt.ua}
				before := events()
				get := h.visit(t, v)
				require.Equal(t, tt.status, get.status, "body: %s", get.body)
				assert.Equal(t, before+tt.clicks, events(), "GET records %d click(s)", tt.clicks)
				assert.Equal(t, strconv.Itoa(len(get.body)), get.header.Get("Content-Length"), "the body's length, not chunked")
				assert.Empty(t, get.header.Get("Transfer-Encoding"))

				v.method = http.MethodHead
				before = events()
				head := h.visit(t, v)
				assert.Equal(t, before, events(), "HEAD records no click")
				assert.Equal(t, get.status, head.status)
				assert.Equal(t, headers(get), headers(head))
				assert.Empty(t, head.body)
			})
		}
	})
}
