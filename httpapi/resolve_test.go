package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// sink keeps what it is given, for a test to take, safely across
// goroutines.
type sink[T any] struct {
	mu    sync.Mutex
	items []T
}

func (s *sink[T]) add(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, v)
}

// take returns what was added since the last take.
func (s *sink[T]) take() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.items
	s.items = nil
	return out
}

// clickSink is a ClickRecorder that keeps every click it is given.
type clickSink struct {
	sink[analytics.Click]
}

func (c *clickSink) Record(cl analytics.Click) bool {
	c.add(cl)
	return true
}

// resolveHarness serves the resolve endpoint and the link-domain handler
// over one Resolver, as hoplink serve does, with the clicks of resolves
// kept in a sink.
type resolveHarness struct {
	*linkHarness
	resolver *linking.Resolver
	clicks   *clickSink
	domain   *httptest.Server
}

func newResolveHarness(t *testing.T, s *store.Store) *resolveHarness {
	t.Helper()
	rh := &resolveHarness{linkHarness: &linkHarness{}, clicks: &clickSink{}}
	lh := rh.linkHarness
	lh.harness = newHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		rh.resolver = linking.NewResolver(h.store, linking.ResolverOptions{
			DefaultLinkDomain: linkDomain, Clock: h.clock.Now,
		})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { rh.resolver.InvalidateAll() })
		lh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:             rh.resolver,
		})
		o.Links = lh.links
		o.Resolver = rh.resolver
		o.DefaultLinkDomain = linkDomain
		o.Clicks = rh.clicks
		o.Clock = h.clock.Now
	}))
	rh.domain = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: rh.resolver, Clock: rh.clock.Now,
	}))
	t.Cleanup(rh.domain.Close)
	return rh
}

// resolveBody is the answer of a resolve.
type resolveBody struct {
	ID                 uuid.UUID         `json:"id"`
	Slug               string            `json:"slug"`
	Domain             string            `json:"domain"`
	DestinationURL     string            `json:"destination_url"`
	IOSURL             *string           `json:"ios_url"`
	IOSFallbackURL     *string           `json:"ios_fallback_url"`
	AndroidURL         *string           `json:"android_url"`
	AndroidFallbackURL *string           `json:"android_fallback_url"`
	CustomParams       map[string]string `json:"custom_params"`
	CreatedAt          time.Time         `json:"created_at"`
}

// resolve is one resolve request.
type resolve struct {
	key     string
	slug    string
	query   string // raw query, without "?"
	method  string
	tap     string
	ua      string
	headers map[string]string
	off     bool
}

func (h *resolveHarness) resolve(t testing.TB, r resolve) *response {
	t.Helper()
	path := "/v1/links/resolve/" + r.slug
	if r.query != "" {
		path += "?" + r.query
	}
	headers := map[string]string{}
	for k, v := range r.headers {
		headers[k] = v
	}
	if r.tap != "" {
		headers[httpapi.TapIDHeader] = r.tap
	}
	if r.ua != "" {
		headers["User-Agent"] = r.ua
	}
	if r.method == "" {
		r.method = http.MethodGet
	}
	return h.do(t, request{method: r.method, path: path, key: r.key, headers: headers, off: r.off})
}

// redirectLocation is where the link-domain handler sends a visitor with
// user agent ua for the short URL on host with query.
func (h *resolveHarness) redirectLocation(t testing.TB, host, slug, query, ua string) string {
	t.Helper()
	target := h.domain.URL + "/" + slug
	if query != "" {
		target += "?" + query
	}
	req, err := http.NewRequest(http.MethodGet, target, nil)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("User-Agent", ua)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusFound, resp.StatusCode)
	return resp.Header.Get("Location")
}

func (r *response) resolved(t testing.TB) resolveBody {
	t.Helper()
	var b resolveBody
	r.decode(t, &b)
	return b
}

func TestResolveLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newResolveHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		appID := app.ID.String()

		full := h.create(t, key, `{"destination_url":"https://shop.example/p?id=42&color=red","slug":"spring",
			"ios_url":"https://shop.example/ios?screen=p","ios_fallback_url":"https://shop.example/ios-fb",
			"android_url":"shopapp://product/42","android_fallback_url":"https://shop.example/and-fb",
			"utm_source":"newsletter","utm_campaign":"spring",
			"parameters":{"injected":[{"key":"ref","value":"hop","mode":"always"}],"forwarding":null,
			"defaultMode":null,"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`)
		bare := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"bare"}`)
		onApp := h.create(t, key, `{"destination_url":"https://shop.example/app","slug":"in-app","app_id":"`+appID+`"}`)
		require.Equal(t, linkDomain, full.Domain)
		require.Equal(t, app.LinkDomain, onApp.Domain)

		t.Run("the link's fields with params applied as the redirect applies them", func(t *testing.T) {
			query := "utm_source=twitter&utm_term=shoes&ref=visitor&other=1"
			resp := h.resolve(t, resolve{key: sdk, slug: "spring", query: "params=" + url.QueryEscape(query)})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.resolved(t)
			assert.Equal(t, full.ID, got.ID)
			assert.Equal(t, "spring", got.Slug)
			assert.Equal(t, linkDomain, got.Domain)
			assert.True(t, full.CreatedAt.Equal(got.CreatedAt))
			assert.Equal(t, "https://shop.example/p?id=42&color=red&ref=hop&utm_source=twitter&utm_campaign=spring&utm_term=shoes",
				got.DestinationURL)
			assert.Equal(t, h.redirectLocation(t, linkDomain, "spring", query, uaDesktop), got.DestinationURL,
				"the desktop redirect goes to the same URL")
			require.NotNil(t, got.IOSURL)
			assert.Equal(t, h.redirectLocation(t, linkDomain, "spring", query, uaIPhone), *got.IOSURL,
				"the iPhone redirect goes to the same ios_url")
			require.NotNil(t, got.IOSFallbackURL)
			assert.Equal(t, "https://shop.example/ios-fb?ref=hop&utm_source=twitter&utm_campaign=spring&utm_term=shoes", *got.IOSFallbackURL)
			require.NotNil(t, got.AndroidURL)
			assert.Equal(t, "shopapp://product/42?ref=hop", *got.AndroidURL, "no UTM key on a custom scheme")
			require.NotNil(t, got.AndroidFallbackURL)
			assert.True(t, strings.HasPrefix(*got.AndroidFallbackURL, "https://shop.example/and-fb?ref=hop"))
		})

		t.Run("custom_params hold the stored destination's own parameters", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "spring"})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			got := resp.resolved(t)
			assert.Equal(t, map[string]string{"id": "42", "color": "red", "ref": "hop",
				"utm_source": "newsletter", "utm_campaign": "spring"}, got.CustomParams)
		})

		t.Run("custom_params are an empty object for a destination without a query", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "bare"})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Contains(t, string(resp.body), `"custom_params":{}`)
			got := resp.resolved(t)
			assert.Equal(t, bare.ID, got.ID)
			assert.Nil(t, got.IOSURL)
			assert.Nil(t, got.IOSFallbackURL)
			assert.Nil(t, got.AndroidURL)
			assert.Nil(t, got.AndroidFallbackURL)
		})

		t.Run("domain defaults to the default link domain; another domain is named", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "in-app"})
			assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			resp = h.resolve(t, resolve{key: sdk, slug: "in-app", query: "domain=" + app.LinkDomain})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, onApp.ID, resp.resolved(t).ID)
			resp = h.resolve(t, resolve{key: sdk, slug: "bare", query: "domain=" + strings.ToUpper(linkDomain) + "."})
			require.Equal(t, http.StatusOK, resp.status, "the domain is normalized: body: %s", resp.body)
		})

		t.Run("slugs match without regard to ASCII case, as redirects do", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "Spring"})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, "spring", resp.resolved(t).Slug)
		})

		t.Run("an API key with links:read receives the link too", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: h.scopedKey(t, o, auth.ScopeLinksRead).raw, slug: "spring"})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		})

		t.Run("a member's key reads every link", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			resp := h.resolve(t, resolve{key: h.memberKey(t, m, auth.ScopeLinksRead).raw, slug: "spring"})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		})
	})
}

func TestResolveLinkErrors(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newResolveHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		other, _ := h.linkOrg(t, "Other")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		expires := h.clock.Now().Add(time.Hour).Format(time.RFC3339)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"live"}`)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"expiring","expires_at":"`+expires+`"}`)
		h.create(t, key, `{"destination_url":"https://shop.example/secret?code=1","slug":"secret","password":"open sesame",
			"ios_url":"https://shop.example/ios"}`)
		paused := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"paused"}`)
		deleted := h.create(t, key, `{"destination_url":"https://shop.example/","slug":"deleted"}`)
		h.create(t, other.key.raw, `{"destination_url":"https://other.example/","slug":"theirs"}`)
		require.Equal(t, http.StatusOK, h.post(t, key, linkPath(paused.ID)+"/deactivate", "").status)
		require.Equal(t, http.StatusOK, h.delete(t, key, linkPath(deleted.ID)).status)

		t.Run("a password-protected link is 403 PASSWORD_REQUIRED without any URL", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "secret"})
			assertError(t, resp, http.StatusForbidden, errcode.PasswordRequired)
			assert.NotContains(t, string(resp.body), "shop.example")
		})

		t.Run("missing, deleted, paused and another organization's links are 404 alike", func(t *testing.T) {
			for _, slug := range []string{"nothing", "deleted", "paused", "theirs"} {
				resp := h.resolve(t, resolve{key: sdk, slug: slug})
				assertError(t, resp, http.StatusNotFound, errcode.NotFound)
			}
		})

		t.Run("an expired link is 410 GONE", func(t *testing.T) {
			require.Equal(t, http.StatusOK, h.resolve(t, resolve{key: sdk, slug: "expiring"}).status)
			require.Len(t, h.clicks.take(), 1, "the resolve before the expiry")
			h.clock.Advance(time.Hour)
			resp := h.resolve(t, resolve{key: sdk, slug: "expiring"})
			assertError(t, resp, http.StatusGone, errcode.Gone)
		})

		t.Run("invalid requests are 400 VALIDATION_ERROR naming the field", func(t *testing.T) {
			tests := []struct {
				name   string
				slug   string
				query  string
				fields []string
			}{
				{"an unknown query parameter", "live", "slug=live", []string{"slug"}},
				{"a repeated domain", "live", "domain=" + linkDomain + "&domain=" + linkDomain, []string{"domain"}},
				{"a repeated params", "live", "params=a%3D1&params=b%3D2", []string{"params"}},
				{"an empty domain", "live", "domain=", []string{"domain"}},
				{"a domain of 256 characters", "live", "domain=" + strings.Repeat("a", 256), []string{"domain"}},
				{"a slug of 101 characters", strings.Repeat("a", 101), "", []string{"slug"}},
				{"a slug with two hyphens in a row", "a--b", "", []string{"slug"}},
				{"a slug ending in a hyphen", "ab-", "", []string{"slug"}},
				{"a slug with an underscore", "a_b", "", []string{"slug"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := h.resolve(t, resolve{key: sdk, slug: tt.slug, query: tt.query, off: true})
					e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
					assertFields(t, e, tt.fields...)
				})
			}
		})

		t.Run("a domain of 255 characters is valid and finds nothing", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "live", query: "domain=" + strings.Repeat("a", 255)})
			assertError(t, resp, http.StatusNotFound, errcode.NotFound)
		})

		t.Run("a slug of one character is valid", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "x"})
			assertError(t, resp, http.StatusNotFound, errcode.NotFound)
		})

		t.Run("without a key: 401", func(t *testing.T) {
			resp := h.resolve(t, resolve{slug: "live", off: true})
			assertError(t, resp, http.StatusUnauthorized, errcode.Unauthorized)
		})

		t.Run("an API key without links:read: 403 FORBIDDEN", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: h.scopedKey(t, o, auth.ScopeAppsRead).raw, slug: "live"})
			assertError(t, resp, http.StatusForbidden, errcode.Forbidden)
		})

		assert.Empty(t, h.clicks.take(), "no refusal records a click")
	})
}

func TestResolveRecordsClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newResolveHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		sdk := h.sdkKey(t, o).raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p?id=1","slug":"spring","app_id":"`+app.ID.String()+`",
			"utm_source":"newsletter"}`)
		h.create(t, key, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
		tap := uuid.NewString()

		t.Run("an SDK resolve records one app_open click whose id is the tap id", func(t *testing.T) {
			resp := h.resolve(t, resolve{key: sdk, slug: "spring", query: "domain=" + app.LinkDomain + "&params=utm_medium%3Dpush",
				tap: tap, ua: uaIPhone, headers: map[string]string{"X-Forwarded-For": "203.0.113.7", "Accept-Language": "de-DE"}})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			clicks := h.clicks.take()
			require.Len(t, clicks, 1)
			c := clicks[0]
			assert.Equal(t, analytics.SourceAppOpen, c.Source)
			assert.Equal(t, tap, c.ID.String())
			require.NotNil(t, c.TapID)
			assert.Equal(t, tap, c.TapID.String())
			assert.Equal(t, o.ID, c.OrgID)
			assert.Equal(t, l.ID, c.LinkID)
			require.NotNil(t, c.AppID)
			assert.Equal(t, app.ID, *c.AppID)
			assert.Equal(t, app.LinkDomain, c.Domain)
			assert.Equal(t, "spring", c.Slug)
			assert.Equal(t, "203.0.113.7", c.IP)
			assert.Equal(t, "ios", c.Platform)
			assert.Equal(t, "de-DE", c.AcceptLanguage)
			assert.Equal(t, "newsletter", c.UTMSource)
			assert.Equal(t, "push", c.UTMMedium)
			assert.True(t, h.clock.Now().Equal(c.OccurredAt))
		})

		t.Run("a retry of the tap is the same click", func(t *testing.T) {
			upper := strings.ToUpper(tap)
			require.Equal(t, http.StatusOK, h.resolve(t, resolve{key: sdk, slug: "spring", query: "domain=" + app.LinkDomain, tap: upper}).status)
			clicks := h.clicks.take()
			require.Len(t, clicks, 1)
			assert.Equal(t, tap, clicks[0].ID.String())
		})

		t.Run("a malformed tap id is ignored: the click gets its own id", func(t *testing.T) {
			for _, bad := range []string{"not-a-uuid", "00000000-0000-0000-0000-000000000000",
				strings.ReplaceAll(tap, "-", ""), "{" + tap + "}"} {
				require.Equal(t, http.StatusOK, h.resolve(t, resolve{key: sdk, slug: "spring", query: "domain=" + app.LinkDomain, tap: bad}).status)
				clicks := h.clicks.take()
				require.Len(t, clicks, 1, bad)
				assert.Nil(t, clicks[0].TapID, bad)
				assert.Equal(t, uuid.Nil, clicks[0].ID, "%s: the recorder gives it a UUIDv7", bad)
			}
		})

		t.Run("nothing else records a click", func(t *testing.T) {
			domain := "domain=" + app.LinkDomain
			for name, r := range map[string]resolve{
				"an API key from a server script":            {key: key, slug: "spring", query: domain, tap: tap},
				"a known bot":                                {key: sdk, slug: "spring", query: domain, tap: tap, ua: uaTwitter},
				"a HEAD request, which returns no link data": {key: sdk, slug: "spring", query: domain, tap: tap, method: http.MethodHead, off: true},
			} {
				resp := h.resolve(t, r)
				require.Equal(t, http.StatusOK, resp.status, name)
				assert.Empty(t, h.clicks.take(), name)
			}
			for name, r := range map[string]resolve{
				"a missing link":   {key: sdk, slug: "nothing", tap: tap},
				"a password":       {key: sdk, slug: "secret", tap: tap},
				"a bad request":    {key: sdk, slug: "spring", query: "nope=1", tap: tap, off: true},
				"an unknown key":   {key: "svc_live_" + strings.Repeat("x", 32), slug: "spring", tap: tap},
				"a key lacking it": {key: h.scopedKey(t, o, auth.ScopeAppsRead).raw, slug: "spring", tap: tap},
			} {
				resp := h.resolve(t, r)
				require.NotEqual(t, http.StatusOK, resp.status, name)
				assert.Empty(t, h.clicks.take(), name)
			}
		})
	})
}

// TestResolveOneClickPerTap sends the clicks of repeated resolves through
// the real store: every retry of one tap is one stored, counted click.
func TestResolveOneClickPerTap(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newResolveHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		sdk := h.sdkKey(t, o).raw
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"spring"}`)
		tap, other := uuid.NewString(), uuid.NewString()
		for _, r := range []string{tap, tap, other, tap, ""} {
			require.Equal(t, http.StatusOK, h.resolve(t, resolve{key: sdk, slug: "spring", tap: r}).status)
		}
		clicks := h.clicks.take()
		require.Len(t, clicks, 5)
		ctx := context.Background()
		// Retries land in one batch and in later batches alike.
		n, err := s.InsertClicks(ctx, clicks[:3])
		require.NoError(t, err)
		assert.Equal(t, 2, n, "one click for the tap, one for the other tap")
		n, err = s.InsertClicks(ctx, clicks[3:])
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the third retry is skipped; the resolve without a tap id is stored")
		assert.Equal(t, 3, h.count(t, "clicks", o.ID))
	})
}

// lateResolver finds the resolver when a request comes, for harnesses that
// build theirs after the API's options.
type lateResolver func() *linking.Resolver

func (f lateResolver) Resolve(ctx context.Context, domain, slug string) (*linking.Resolved, error) {
	return f().Resolve(ctx, domain, slug)
}

func (f lateResolver) ResolveAddress(ctx context.Context, domain, slug string) (*linking.Resolved, bool, error) {
	return f().ResolveAddress(ctx, domain, slug)
}

func (f lateResolver) AppForDomain(ctx context.Context, domain string) (*linking.App, error) {
	return f().AppForDomain(ctx, domain)
}

func TestResolveOnSuspendedCustomDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		var h *customHarness
		h = newCustomHarness(t, s, withAPI(func(_ *harness, o *httpapi.Options) {
			o.Resolver = lateResolver(func() *linking.Resolver { return h.resolver })
			o.DefaultLinkDomain = linkDomain
		}))
		o, _ := h.linkOrg(t, "Acme")
		h.setPlan(t, o, org.PlanStarter)
		live := h.liveDomain(t, o.key.raw, "go.acme.example")
		h.create(t, o.key.raw, `{"destination_url":"https://acme.example/spring","slug":"spring","domain":"go.acme.example"}`)
		sdk := h.sdkKey(t, o).raw
		path := "/v1/links/resolve/spring?domain=" + live.Domain

		resp := h.get(t, sdk, path)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		h.setPlan(t, o, org.PlanFree)
		assertError(t, h.get(t, sdk, path), http.StatusNotFound, errcode.NotFound)
		h.setPlan(t, o, org.PlanStarter)
		assert.Equal(t, http.StatusOK, h.get(t, sdk, path).status, "the upgrade restores the domain")
	})
}

// TestSDKRoutesLimitedPerKeyAndIP proves the resolve is an SDK route: 60
// requests per minute per key per client IP (SPEC.md, Limits), each IP with
// its own allowance.
func TestSDKRoutesLimitedPerKeyAndIP(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newResolveHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"spring"}`)
		sdk := h.sdkKey(t, o).raw
		from := func(ip string) *response {
			return h.resolve(t, resolve{key: sdk, slug: "spring", headers: map[string]string{"X-Forwarded-For": ip}})
		}
		for i := range ratelimit.SDKRule.Limit {
			require.Equal(t, http.StatusOK, from("203.0.113.1").status, "request %d", i+1)
		}
		resp := from("203.0.113.1")
		assertError(t, resp, http.StatusTooManyRequests, errcode.RateLimitExceeded)
		assert.NotEmpty(t, resp.header.Get("Retry-After"))
		assert.Equal(t, http.StatusOK, from("203.0.113.2").status, "another client IP has its own allowance")

		t.Run("an IPv6 /64 is one client", func(t *testing.T) {
			for i := range ratelimit.SDKRule.Limit {
				require.Equal(t, http.StatusOK, from(fmt.Sprintf("2001:db8:4:4::%x", i+1)).status, "request %d", i+1)
			}
			assertError(t, from("2001:db8:4:4:ffff::1"), http.StatusTooManyRequests, errcode.RateLimitExceeded)
			assert.Equal(t, http.StatusOK, from("2001:db8:4:5::1").status, "the neighbouring /64 has its own allowance")
		})
	})
}
