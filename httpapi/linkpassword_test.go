package httpapi_test

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// pwHarness serves the link-domain handler with the password options set:
// a limiter on the harness clock, loopback as a trusted proxy, and the
// fast test hashes of the link service ("fast:" + password) checked in
// constant time.
type pwHarness struct {
	*domainHarness
	server *httptest.Server

	mu     sync.Mutex
	events []httpapi.RedirectEvent
	// forms are the bodies of every form page seen, for the leak check.
	forms []string
}

func newPWHarness(t *testing.T, s *store.Store) *pwHarness {
	t.Helper()
	return newPWHarnessWith(t, s, nil)
}

// newPWHarnessWith is newPWHarness counting wrong passwords per link in
// lockout (an in-process one when nil).
func newPWHarnessWith(t *testing.T, s *store.Store, lockout ratelimit.Lockout) *pwHarness {
	t.Helper()
	h := &pwHarness{domainHarness: newDomainHarness(t, s)}
	h.server = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver:        h.resolver,
		Clock:           h.clock.Now,
		TrustedProxies:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
		Secret:          []byte(strings.Repeat("s", 32)),
		Limiter:         ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: h.clock.Now}),
		PasswordLockout: lockout,
		VerifyPassword: func(hash, password string) (bool, error) {
			want, ok := strings.CutPrefix(hash, "fast:")
			if !ok {
				return false, identity.ErrBadHash
			}
			return subtle.ConstantTimeCompare([]byte(want), []byte(password)) == 1, nil
		},
		OnRedirect: func(_ context.Context, ev httpapi.RedirectEvent) {
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.mu.Unlock()
		},
	}))
	t.Cleanup(h.server.Close)
	return h
}

func (h *pwHarness) eventCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.events)
}

// pwRequest is one request to a protected link.
type pwRequest struct {
	method  string // GET when empty; POST when form is set
	path    string // "/" + slug, with any query
	ua      string
	form    url.Values
	cookies []*http.Cookie
	headers map[string]string
}

func (h *pwHarness) send(t testing.TB, req pwRequest) *response {
	t.Helper()
	method, body := req.method, io.Reader(nil)
	if req.form != nil {
		method, body = http.MethodPost, strings.NewReader(req.form.Encode())
	}
	if method == "" {
		method = http.MethodGet
	}
	r, err := http.NewRequest(method, h.server.URL+req.path, body)
	require.NoError(t, err)
	r.Host = linkDomain
	if req.form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.Header.Set("User-Agent", req.ua)
	for k, v := range req.headers {
		r.Header.Set(k, v)
	}
	for _, c := range req.cookies {
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := &response{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.Contains(string(b), `name="password"`) {
		h.mu.Lock()
		h.forms = append(h.forms, string(b))
		h.mu.Unlock()
	}
	return out
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// token returns the CSRF token of a form page.
func token(t testing.TB, r *response) string {
	t.Helper()
	m := csrfInput.FindSubmatch(r.body)
	require.NotNil(t, m, "a CSRF token in %s", r.body)
	return string(m[1])
}

// form fetches the form at path and returns the fields of a submission of
// password with its token.
func (h *pwHarness) form(t testing.TB, path, password string) url.Values {
	t.Helper()
	resp := h.send(t, pwRequest{path: path, ua: uaDesktop})
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	return url.Values{"password": {password}, httpapi.PasswordCSRFField: {token(t, resp)}}
}

func passwordCookie(t testing.TB, r *response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == httpapi.PasswordCookieName {
			return c
		}
	}
	require.Fail(t, "no password cookie", "headers: %v", r.header)
	return nil
}

// assertForm checks a password form page: status, message and headers.
func assertForm(t testing.TB, r *response, status int, message string) {
	t.Helper()
	assert.Equal(t, status, r.status, "body: %s", r.body)
	assert.Empty(t, r.header.Get("Location"))
	assert.Empty(t, r.header.Values("Set-Cookie"))
	body := string(r.body)
	assert.Contains(t, body, `name="password"`)
	assert.Contains(t, body, `<label for="password">`)
	assert.Contains(t, body, `autocomplete="current-password"`)
	assert.Contains(t, body, `name="csrf_token"`)
	assert.NotContains(t, body, "<script")
	if message != "" {
		assert.Contains(t, body, message)
	} else {
		assert.NotContains(t, body, `class="error"`)
	}
	hd := r.header
	assert.Equal(t, "text/html; charset=utf-8", hd.Get("Content-Type"))
	assert.Equal(t, "no-store", hd.Get("Cache-Control"))
	assert.Equal(t, "no-referrer", hd.Get("Referrer-Policy"))
	assert.Equal(t, "DENY", hd.Get("X-Frame-Options"))
	csp := hd.Get("Content-Security-Policy")
	assert.Equal(t, httpapi.PasswordPageCSP, csp)
	assert.True(t, strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-"), csp)
	assert.Contains(t, csp, "frame-ancestors 'none'")
}

func TestLinkPasswordFlow(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		key := o.key.raw
		const fields = `"destination_url":"https://shop.example/p?id=1","ios_url":"https://shop.example/ios",
			"utm_source":"newsletter","og_title":"Secret title","og_description":"Secret description"`
		h.create(t, key, `{"slug":"open",`+fields+`}`)
		secret := h.create(t, key, `{"slug":"secret","password":"open sesame",`+fields+`}`)
		h.create(t, key, `{"slug":"other","password":"open sesame",`+fields+`}`)

		t.Run("GET shows the form, to bots too, with nothing of the link", func(t *testing.T) {
			for _, ua := range []string{uaDesktop, uaIPhone, uaAndroid, uaTwitter, uaFacebook} {
				resp := h.send(t, pwRequest{path: "/secret", ua: ua})
				assertForm(t, resp, http.StatusOK, "")
				for _, leak := range []string{"Secret title", "Secret description", "og:", "newsletter"} {
					assert.NotContains(t, string(resp.body), leak)
				}
			}
			assert.Zero(t, h.eventCount(), "the form records nothing")
		})

		t.Run("the form posts to the short URL with its query", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret?utm_term=shoes&x=%3Cb%3E", ua: uaDesktop})
			assertForm(t, resp, http.StatusOK, "")
			assert.Contains(t, string(resp.body), `action="/secret?utm_term=shoes&amp;x=%3Cb%3E"`)
		})

		t.Run("CSRF: a missing, forged, other link's or expired token is refused with 403", func(t *testing.T) {
			good := h.form(t, "/secret", "open sesame")
			forged := []byte(good.Get(httpapi.PasswordCSRFField))
			forged[len(forged)-2] ^= 1
			otherLink := h.form(t, "/other", "open sesame").Get(httpapi.PasswordCSRFField)
			for name, tok := range map[string]string{
				"missing": "", "garbage": "abc", "forged": string(forged), "for another link": otherLink,
			} {
				t.Run(name, func(t *testing.T) {
					form := url.Values{"password": {"open sesame"}}
					if tok != "" {
						form.Set(httpapi.PasswordCSRFField, tok)
					}
					resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: form})
					assertForm(t, resp, http.StatusForbidden, "This form has expired")
				})
			}
			t.Run("expired after an hour", func(t *testing.T) {
				h.clock.Advance(httpapi.PasswordCSRFMaxAge)
				resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: good})
				assertForm(t, resp, http.StatusForbidden, "This form has expired")
			})
			assert.Zero(t, h.eventCount())
		})

		t.Run("a wrong password is 401 with the form again", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame!")})
			assertForm(t, resp, http.StatusUnauthorized, "That password is not correct.")
			resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "")})
			assertForm(t, resp, http.StatusUnauthorized, "That password is not correct.")
			assert.Zero(t, h.eventCount(), "a wrong password records nothing")
		})

		t.Run("a bot's POST gets the form and no redirect", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaTwitter, form: h.form(t, "/secret", "open sesame")})
			assertForm(t, resp, http.StatusOK, "")
			assert.Zero(t, h.eventCount())
		})

		t.Run("the right password redirects as the unprotected link does, and the cookie opens it again", func(t *testing.T) {
			for _, ua := range []string{uaIPhone, uaDesktop} {
				open := h.send(t, pwRequest{path: "/open?utm_term=shoes", ua: ua})
				require.Equal(t, http.StatusFound, open.status)
				before := h.eventCount()
				form := h.form(t, "/secret?utm_term=shoes", "open sesame")
				resp := h.send(t, pwRequest{path: "/secret?utm_term=shoes", ua: ua, form: form})
				require.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
				assert.Equal(t, open.header.Get("Location"), resp.header.Get("Location"))
				assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
				assert.Equal(t, httpapi.ReferrerPolicy, resp.header.Get("Referrer-Policy"))
				require.Equal(t, before+1, h.eventCount(), "OnRedirect fires once")
				h.mu.Lock()
				ev := h.events[len(h.events)-1]
				h.mu.Unlock()
				assert.Equal(t, secret.ID, ev.Link.ID)
				assert.Equal(t, resp.header.Get("Location"), ev.Location)

				c := passwordCookie(t, resp)
				assert.True(t, c.HttpOnly)
				assert.Equal(t, http.SameSiteLaxMode, c.SameSite)
				assert.Equal(t, "/secret", c.Path)
				assert.Equal(t, 3600, c.MaxAge)
				assert.False(t, c.Secure, "plain HTTP without a proxy's word")

				again := h.send(t, pwRequest{path: "/secret", ua: ua, cookies: []*http.Cookie{c}})
				require.Equal(t, http.StatusFound, again.status, "body: %s", again.body)
				assert.Equal(t, h.send(t, pwRequest{path: "/open", ua: ua}).header.Get("Location"), again.header.Get("Location"))
				assert.Empty(t, again.header.Values("Set-Cookie"))

				bot := h.send(t, pwRequest{path: "/secret", ua: uaTwitter, cookies: []*http.Cookie{c}})
				assertForm(t, bot, http.StatusOK, "")
			}
		})

		t.Run("the cookie is Secure when a trusted proxy says the request came over HTTPS", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame"),
				headers: map[string]string{"X-Forwarded-Proto": "https"}})
			require.Equal(t, http.StatusFound, resp.status)
			assert.True(t, passwordCookie(t, resp).Secure)
		})

		t.Run("a cookie for another link, a tampered one, an expired one or one from before a password change is ignored", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/other", ua: uaDesktop, form: h.form(t, "/other", "open sesame")})
			require.Equal(t, http.StatusFound, resp.status)
			other := passwordCookie(t, resp)
			resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame")})
			require.Equal(t, http.StatusFound, resp.status)
			good := passwordCookie(t, resp)

			exp, mac, _ := strings.Cut(good.Value, ".")
			n, err := strconv.ParseInt(exp, 10, 64)
			require.NoError(t, err)
			later := strconv.FormatInt(n+3600, 10) + "." + mac
			flipped := []byte(good.Value)
			flipped[len(flipped)-3] ^= 1
			for name, value := range map[string]string{
				"another link's":  other.Value,
				"a forged MAC":    string(flipped),
				"a moved expiry":  later,
				"not a cookie":    "x",
				"an empty MAC":    exp + ".",
				"an empty cookie": "",
			} {
				t.Run(name, func(t *testing.T) {
					resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop,
						cookies: []*http.Cookie{{Name: httpapi.PasswordCookieName, Value: value}}})
					assertForm(t, resp, http.StatusOK, "")
				})
			}

			before := h.eventCount()
			t.Run("after an hour", func(t *testing.T) {
				h.clock.Advance(httpapi.PasswordCookieMaxAge)
				resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, cookies: []*http.Cookie{good}})
				assertForm(t, resp, http.StatusOK, "")
			})
			t.Run("after the password changed", func(t *testing.T) {
				resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame")})
				require.Equal(t, http.StatusFound, resp.status)
				fresh := passwordCookie(t, resp)
				require.Equal(t, http.StatusFound, h.send(t, pwRequest{path: "/secret", ua: uaDesktop,
					cookies: []*http.Cookie{fresh}}).status)
				require.Equal(t, http.StatusOK, h.patch(t, key, linkPath(secret.ID), `{"password":"new secret"}`).status)
				resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, cookies: []*http.Cookie{fresh}})
				assertForm(t, resp, http.StatusOK, "")
			})
			assert.Equal(t, before+2, h.eventCount(), "only the password and the fresh cookie redirected")
		})

		t.Run("no form page ever shows the destination", func(t *testing.T) {
			h.mu.Lock()
			defer h.mu.Unlock()
			require.NotEmpty(t, h.forms)
			for _, body := range h.forms {
				assert.NotContains(t, body, "shop.example")
				assert.NotContains(t, body, "Secret title")
			}
		})
	})
}

func TestLinkPasswordRateLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"other","password":"open sesame"}`)
		from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

		for i := range httpapi.DefaultPasswordRule.Limit {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "guess"), headers: from("203.0.113.7")})
			require.Equal(t, http.StatusUnauthorized, resp.status, "attempt %d", i+1)
		}
		resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame"), headers: from("203.0.113.7")})
		assertForm(t, resp, http.StatusTooManyRequests, "Too many attempts.")
		retry, err := strconv.Atoi(resp.header.Get("Retry-After"))
		require.NoError(t, err)
		assert.Positive(t, retry)
		assert.LessOrEqual(t, retry, int(httpapi.DefaultPasswordRule.Window/time.Second))
		assert.Zero(t, h.eventCount(), "even the right password waits")

		t.Run("other addresses and other links keep their own count", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "guess"), headers: from("203.0.113.8")})
			assert.Equal(t, http.StatusUnauthorized, resp.status)
			resp = h.send(t, pwRequest{path: "/other", ua: uaDesktop, form: h.form(t, "/other", "guess"), headers: from("203.0.113.7")})
			assert.Equal(t, http.StatusUnauthorized, resp.status)
		})
		t.Run("the form itself is not limited", func(t *testing.T) {
			assertForm(t, h.send(t, pwRequest{path: "/secret", ua: uaDesktop, headers: from("203.0.113.7")}), http.StatusOK, "")
		})
		t.Run("the next window allows attempts again", func(t *testing.T) {
			h.clock.Advance(httpapi.DefaultPasswordRule.Window)
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame"), headers: from("203.0.113.7")})
			assert.Equal(t, http.StatusFound, resp.status)
		})
	})
}

func TestLinkPasswordMethods(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPWHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"open"}`)
		h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"secret","password":"open sesame"}`)

		t.Run("POST to an unprotected link is 405", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: "/open", ua: uaDesktop, form: url.Values{"password": {"x"}},
				headers: map[string]string{"Accept": "application/json"}})
			assertError(t, resp, http.StatusMethodNotAllowed, errcode.MethodNotAllowed)
			assert.Equal(t, "GET, HEAD", resp.header.Get("Allow"))
		})
		t.Run("POST of an association file is 405", func(t *testing.T) {
			resp := h.send(t, pwRequest{path: httpapi.AASAPath, form: url.Values{}})
			assert.Equal(t, http.StatusMethodNotAllowed, resp.status)
		})
		t.Run("a body over 4 KiB is refused", func(t *testing.T) {
			form := h.form(t, "/secret", strings.Repeat("a", 5000))
			resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: form})
			assertForm(t, resp, http.StatusBadRequest, "The form could not be read.")
		})
		t.Run("HEAD of a protected link has the form's headers", func(t *testing.T) {
			resp := h.send(t, pwRequest{method: http.MethodHead, path: "/secret", ua: uaDesktop})
			assert.Equal(t, http.StatusOK, resp.status)
			assert.Equal(t, "DENY", resp.header.Get("X-Frame-Options"))
		})
		assert.Zero(t, h.eventCount())
	})
}

// stubResolver serves one link, for the test of the real argon2id check.
type stubResolver struct{ res *linking.Resolved }

func (s stubResolver) Resolve(_ context.Context, _, slug string) (*linking.Resolved, error) {
	if slug != s.res.Link.Slug {
		return nil, errcode.New(errcode.NotFound, "link not found")
	}
	return s.res, nil
}

func (s stubResolver) ResolveAddress(ctx context.Context, domain, slug string) (*linking.Resolved, bool, error) {
	res, err := s.Resolve(ctx, domain, slug)
	return res, false, err
}

func (s stubResolver) AppForDomain(context.Context, string) (*linking.App, error) {
	return nil, errcode.New(errcode.NotFound, "no app")
}

func TestLinkPasswordArgon2idByDefault(t *testing.T) {
	t.Parallel()
	hash, err := identity.HashPassword("open sesame")
	require.NoError(t, err)
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), Slug: "secret", Domain: linkDomain,
		DestinationURL: "https://shop.example/", IsActive: true, PasswordHash: &hash}
	res := &linking.Resolved{Link: l, Route: linking.RouteLink{DestinationURL: l.DestinationURL}}
	srv := httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: stubResolver{res}}))
	t.Cleanup(srv.Close)
	h := &pwHarness{server: srv}

	resp := h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesam")})
	assertForm(t, resp, http.StatusUnauthorized, "That password is not correct.")
	resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, form: h.form(t, "/secret", "open sesame")})
	require.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
	assert.Equal(t, "https://shop.example/", resp.header.Get("Location"))
	c := passwordCookie(t, resp)
	resp = h.send(t, pwRequest{path: "/secret", ua: uaDesktop, cookies: []*http.Cookie{c}})
	assert.Equal(t, http.StatusFound, resp.status)
}
