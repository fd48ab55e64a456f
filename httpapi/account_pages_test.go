package httpapi_test

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"html"
	"image/png"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// testPassword is the password of every harness user.
const testPassword = "correct horse battery"

// pagesHarness is an API harness with the account service, the audit log
// and the sign-in pages.
type pagesHarness struct {
	*harness
	accounts *account.Service
	org      *testOrg
}

func newPagesHarness(t *testing.T, s *store.Store, opts ...option) *pagesHarness {
	t.Helper()
	ph := &pagesHarness{}
	opts = append(opts, withAccounts(t, &ph.accounts), withAudit(t), withAPI(func(h *harness, o *httpapi.Options) {
		if o.AccountPages == nil {
			o.AccountPages = &httpapi.AccountPagesOptions{}
		}
		o.AccountPages.Secret = testSecret
		o.AccountPages.Clock = h.clock.Now
	}))
	ph.harness = newHarness(t, s, opts...)
	ph.org = ph.newOrg(t, "Acme")
	return ph
}

// browser is one browser: its own cookies, user agent and client IP.
type browser struct {
	t      testing.TB
	h      *pagesHarness
	client *http.Client
	ip     string
	// last is the body of the last page read, where forms come from.
	last string
	// base is the server the browser visits; the harness's when empty.
	base string
}

func (h *pagesHarness) browser(t testing.TB, ip string) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, h: h, ip: ip, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is an answer of the pages.
type page struct {
	status int
	header http.Header
	body   string
}

func (p page) location() string { return p.header.Get("Location") }

func (b *browser) do(method, path string, form url.Values, headers map[string]string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	base := b.h.srv.URL
	if b.base != "" {
		base = b.base
	}
	req, err := http.NewRequest(method, base+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", "pages-test/"+b.ip)
	req.Header.Set("X-Forwarded-For", b.ip)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	p := page{status: resp.StatusCode, header: resp.Header, body: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		b.last = p.body
	}
	return p
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do(http.MethodGet, path, nil, nil) }

// post sends form to path with the CSRF token of the last page read.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	form.Set(httpapi.AccountCSRFField, b.csrf())
	return b.do(http.MethodPost, path, form, nil)
}

var (
	csrfField    = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	pendingField = regexp.MustCompile(`name="pending" value="([^"]+)"`)
	secretText   = regexp.MustCompile(`<code id="totp-secret" class="secret">([A-Z2-7 ]+)</code>`)
	qrImage      = regexp.MustCompile(`<img class="qr" src="data:image/png;base64,([^"]+)"`)
	backupCode   = regexp.MustCompile(`<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>`)
)

func (b *browser) csrf() string {
	b.t.Helper()
	m := csrfField.FindStringSubmatch(b.last)
	require.NotNil(b.t, m, "a CSRF token on the last page: %s", b.last)
	return m[1]
}

// signIn signs in with email and password from the login form and returns
// the answer to the POST.
func (b *browser) signIn(email, password, returnTo string) page {
	b.t.Helper()
	path := "/login"
	if returnTo != "" {
		path += "?return_to=" + url.QueryEscape(returnTo)
	}
	if p := b.get(path); p.status != http.StatusOK {
		// Signed in already: any page gives a token for this browser.
		require.Equal(b.t, http.StatusSeeOther, p.status)
		b.get("/account")
	}
	form := url.Values{"email": {email}, "password": {password}}
	if returnTo != "" {
		form.Set("return_to", returnTo)
	}
	return b.post("/login", form)
}

// member is a user of the harness's organization.
func (h *pagesHarness) member(t testing.TB, role auth.Role) *testMember {
	return h.newMember(t, h.org, role)
}

// code returns the TOTP code of secret now. The page shows the secret in
// groups of four; the spaces are dropped.
func (h *pagesHarness) code(t testing.TB, secret string) string {
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ReplaceAll(secret, " ", ""))
	require.NoError(t, err)
	return account.TOTPCode(key, account.TOTPStep(h.clock.Now()))
}

// auditActions returns the actions of the organization's audit log, oldest first.
func (h *pagesHarness) auditActions(t testing.TB) []string {
	events := h.auditEvents(t, h.org.key.raw)
	out := make([]string, len(events))
	for i, e := range events {
		out[len(events)-1-i] = e.Action
	}
	return out
}

func TestSafeReturnTo(t *testing.T) {
	t.Parallel()
	accepted := []string{"/account", "/", "/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fx", "/account/2fa"}
	for _, s := range accepted {
		assert.Equal(t, s, httpapi.SafeReturnTo(s), "accepted: %q", s)
	}
	refused := map[string]string{
		"empty":                          "",
		"a relative path":                "account",
		"a scheme-relative URL":          "//evil.example",
		"a backslash after the slash":    "/\\evil.example",
		"a backslash anywhere":           "/a\\..\\\\evil.example",
		"an absolute URL":                "https://evil.example/",
		"a javascript URL":               "javascript:alert(1)",
		"a tab browsers drop":            "/\t/evil.example",
		"a newline":                      "/\n/evil.example",
		"a space":                        "/ /evil.example",
		"a fragment":                     "/account#x",
		"a scheme with one slash":        "http:/evil.example",
		"an encoded double slash start":  "/%2F%2Fevil.example",
		"an encoded backslash start":     "/%5Cevil.example",
		"user information":               "//user@evil.example",
		"three slashes":                  "///evil.example",
		"a very long path":               "/" + strings.Repeat("a", 3000),
		"a non-ASCII control (DEL)":      "/\x7f/evil.example",
		"a data URL":                     "data:text/html,hi",
		"an absolute URL without scheme": "evil.example/account",
	}
	for name, s := range refused {
		assert.Empty(t, httpapi.SafeReturnTo(s), "%s: %q", name, s)
	}
}

func TestLoginPage(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		b := h.browser(t, "198.51.100.1")
		p := b.get("/login?return_to=%2Faccount%2F2fa")
		require.Equal(t, http.StatusOK, p.status)
		assert.Equal(t, "text/html; charset=utf-8", p.header.Get("Content-Type"))
		assert.Equal(t, "DENY", p.header.Get("X-Frame-Options"))
		assert.Equal(t, "nosniff", p.header.Get("X-Content-Type-Options"))
		assert.Equal(t, "no-store", p.header.Get("Cache-Control"))
		assert.Equal(t, "same-origin", p.header.Get("Referrer-Policy"), "not no-referrer, which makes browsers send Origin: null")
		assert.Equal(t, httpapi.AccountPageCSP, p.header.Get("Content-Security-Policy"))
		for _, directive := range []string{"default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
			assert.Contains(t, httpapi.AccountPageCSP, directive)
		}
		assert.NotContains(t, httpapi.AccountPageCSP, "script-src", "no script at all")
		assert.NotContains(t, p.body, "<script", "the pages work without JavaScript")
		for _, field := range []string{`name="email"`, `name="password"`, `name="csrf_token"`, `name="return_to" value="/account/2fa"`, `<label for="email">`} {
			assert.Contains(t, p.body, field)
		}
		cookie := setCookie(p, httpapi.CSRFCookieName)
		require.NotNil(t, cookie, "the CSRF cookie is set")
		assert.True(t, cookie.HttpOnly)

		p = b.get("/login?return_to=%2F%2Fevil.example")
		assert.NotContains(t, p.body, "evil.example", "a refused return_to is dropped from the form")
		assert.Equal(t, http.StatusOK, b.do(http.MethodHead, "/login", nil, nil).status, "HEAD")
		assert.Equal(t, http.StatusMethodNotAllowed, b.do(http.MethodPut, "/login", url.Values{}, nil).status)
	})
}

// setCookie returns the Set-Cookie of p named name, nil when none.
func setCookie(p page, name string) *http.Cookie {
	for _, line := range p.header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err == nil && c.Name == name {
			return c
		}
	}
	return nil
}

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleAdmin)
		other := h.newOrg(t, "Beta")
		_, err := h.orgs.AddMember(t.Context(), other.ID, m.email, auth.RoleMember)
		require.NoError(t, err)
		b := h.browser(t, "198.51.100.2")

		p := b.get("/account")
		require.Equal(t, http.StatusSeeOther, p.status, "signed out: to the sign-in page")
		assert.Equal(t, "/login?return_to=%2Faccount", p.location())

		p = b.signIn(m.email, testPassword, "/account")
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/account", p.location())
		c := setCookie(p, httpapi.SessionCookieName)
		require.NotNil(t, c, "the session cookie has the plain name on http")
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, c.SameSite)
		assert.Equal(t, "/", c.Path)
		assert.False(t, c.Secure)
		assert.Len(t, c.Value, 43, "32 random bytes")

		p = b.get("/account")
		require.Equal(t, http.StatusOK, p.status, "body: %s", p.body)
		assert.Contains(t, p.body, html.EscapeString(m.email))
		assert.Regexp(t, `<td data-label="Organization">Acme</td><td data-label="Role">admin</td>`, p.body, "organizations and roles")
		assert.Regexp(t, `<td data-label="Organization">Beta</td><td data-label="Role">member</td>`, p.body)
		assert.Contains(t, p.body, "(this browser)")
		assert.Contains(t, p.body, `id="two-factor-status">Off.`)
		assert.Equal(t, "DENY", p.header.Get("X-Frame-Options"))
		assert.Contains(t, p.body, `id="dashboard-note">This page holds your account settings: there is no dashboard`,
			"the page says what it is, and where links and apps are managed")
		assert.Contains(t, p.body, `<a href="/v1/openapi.json" id="api-description">`, "this server serves the API's description")

		p = b.get("/login?return_to=%2Faccount%2F2fa")
		assert.Equal(t, http.StatusSeeOther, p.status, "a signed-in browser skips the form")
		assert.Equal(t, "/account/2fa", p.location())

		b.get("/account")
		p = b.post("/logout", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/login", p.location())
		cleared := setCookie(p, httpapi.SessionCookieName)
		require.NotNil(t, cleared)
		assert.Equal(t, -1, cleared.MaxAge, "the cookie is cleared")
		assert.Equal(t, http.StatusSeeOther, b.get("/account").status, "signed out")

		assert.Equal(t, []string{"sign_in.succeeded", "sign_out"}, h.auditActions(t))
		events := h.auditEvents(t, other.key.raw)
		require.Len(t, events, 2, "the user's events reach each of the user's organizations")
		e := events[1]
		assert.Equal(t, "user", e.ActorType)
		require.NotNil(t, e.ActorID)
		assert.Equal(t, m.id.String(), *e.ActorID)
		assert.Equal(t, "198.51.100.2", e.IP)
		assert.Equal(t, "pages-test/198.51.100.2", e.UserAgent)
		assert.Equal(t, "password", e.Details["factor"])
	})
}

func TestSecureCookiesOverHTTPS(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s, withAPI(func(_ *harness, o *httpapi.Options) {
			o.AccountPages = &httpapi.AccountPagesOptions{PublicURL: &url.URL{Scheme: "https", Host: "hoplink.example"}}
		}))
		m := h.member(t, auth.RoleMember)
		b := h.browser(t, "198.51.100.3")
		p := b.get("/login")
		csrf := setCookie(p, httpapi.SecureCSRFCookieName)
		require.NotNil(t, csrf, "__Host- prefixed over HTTPS")
		assert.True(t, csrf.Secure)
		assert.Equal(t, "/", csrf.Path)
		assert.Empty(t, csrf.Domain)
		// The test client speaks plain HTTP, so it would not send a Secure
		// cookie back: send it by hand.
		form := url.Values{"email": {m.email}, "password": {testPassword}, httpapi.AccountCSRFField: {b.csrf()}}
		p = b.do(http.MethodPost, "/login", form, map[string]string{"Cookie": csrf.Name + "=" + csrf.Value, "Origin": "https://evil.example"})
		assert.Equal(t, http.StatusForbidden, p.status, "another origin")
		// Behind a proxy that rewrites Host, the browser's Origin is the
		// public URL's.
		p = b.do(http.MethodPost, "/login", form, map[string]string{"Cookie": csrf.Name + "=" + csrf.Value, "Origin": "https://hoplink.example"})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		c := setCookie(p, httpapi.SecureSessionCookieName)
		require.NotNil(t, c)
		assert.True(t, c.Secure)
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, c.SameSite)
		assert.Equal(t, "/", c.Path)
		assert.Empty(t, c.Domain)
		assert.Nil(t, setCookie(p, httpapi.SessionCookieName), "no plain cookie")
	})
}

func TestSignInRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleMember)

		t.Run("CSRF", func(t *testing.T) {
			b := h.browser(t, "198.51.100.10")
			b.get("/login")
			good := b.csrf()
			form := func(token string) url.Values {
				return url.Values{"email": {m.email}, "password": {testPassword}, httpapi.AccountCSRFField: {token}}
			}
			stranger := h.browser(t, "198.51.100.11")
			stranger.get("/login")
			cases := []struct {
				name    string
				form    url.Values
				headers map[string]string
			}{
				{"no token", url.Values{"email": {m.email}, "password": {testPassword}}, nil},
				{"a forged token", form(strings.Repeat("A", 54)), nil},
				{"another browser's token", form(stranger.csrf()), nil},
				{"a cross-site Origin", form(good), map[string]string{"Origin": "https://evil.example"}},
				{"a cross-site fetch", form(good), map[string]string{"Sec-Fetch-Site": "cross-site"}},
				{"an opaque Origin", form(good), map[string]string{"Origin": "null"}},
				{"a fetch from a sibling subdomain", form(good), map[string]string{"Sec-Fetch-Site": "same-site"}},
			}
			for _, tt := range cases {
				t.Run(tt.name, func(t *testing.T) {
					p := b.do(http.MethodPost, "/login", tt.form, tt.headers)
					assert.Equal(t, http.StatusForbidden, p.status)
					assert.Contains(t, p.body, "did not come from this site")
					assert.Nil(t, setCookie(p, httpapi.SessionCookieName), "no session")
				})
			}
			p := b.do(http.MethodPost, "/login", form(good), map[string]string{"Origin": h.srv.URL, "Sec-Fetch-Site": "same-origin"})
			assert.Equal(t, http.StatusSeeOther, p.status, "the same token from this site works: %s", p.body)
			h.clock.Advance(httpapi.AccountCSRFMaxAge)
			b.get("/account")
			token := b.csrf()
			h.clock.Advance(httpapi.AccountCSRFMaxAge)
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, "/logout", url.Values{httpapi.AccountCSRFField: {token}}, nil).status, "an expired token")
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, "/logout", url.Values{}, nil).status, "logout needs a token too")
		})

		t.Run("a wrong password and an unknown email get the same answer", func(t *testing.T) {
			b := h.browser(t, "198.51.100.12")
			wrong := b.signIn(m.email, "wrong password!", "")
			unknown := b.signIn("nobody-"+m.email, testPassword, "")
			for _, p := range []page{wrong, unknown} {
				assert.Equal(t, http.StatusUnauthorized, p.status)
				assert.Contains(t, p.body, "The email or password is incorrect.")
				assert.Nil(t, setCookie(p, httpapi.SessionCookieName))
			}
		})

		t.Run("return_to only goes to paths on this host", func(t *testing.T) {
			for _, back := range []string{"//evil.example", "/\\evil.example", "https://evil.example/", "/\t/evil.example", "javascript:alert(1)"} {
				b := h.browser(t, "198.51.100.13")
				b.get("/login")
				p := b.post("/login", url.Values{"email": {m.email}, "password": {testPassword}, "return_to": {back}})
				require.Equal(t, http.StatusSeeOther, p.status)
				assert.Equal(t, "/account", p.location(), "return_to %q is refused", back)
			}
			b := h.browser(t, "198.51.100.13")
			p := b.signIn(m.email, testPassword, "/oauth/authorize?client_id=x")
			assert.Equal(t, "/oauth/authorize?client_id=x", p.location(), "a path on this host is kept")
		})
		actions := h.auditActions(t)
		assert.Contains(t, actions, "sign_in.failed", "the failure of a known user reaches the organization")
	})
}

func TestSignInLockout(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleMember)
		b := h.browser(t, "198.51.100.20")
		for i := range account.AccountLockout.Threshold {
			p := b.signIn(m.email, "wrong password!", "")
			require.Equal(t, http.StatusUnauthorized, p.status, "failure %d", i+1)
		}
		p := b.signIn(m.email, testPassword, "")
		assert.Equal(t, http.StatusTooManyRequests, p.status, "locked: even the right password is refused")
		assert.Equal(t, "900", p.header.Get("Retry-After"))
		assert.Contains(t, p.body, "Too many attempts")
		elsewhere := h.browser(t, "2001:db8:77::1")
		assert.Equal(t, http.StatusSeeOther, elsewhere.signIn(m.email, testPassword, "").status,
			"the lock holds for the guessing network only: the user signs in from their own")

		h.clock.Advance(account.AccountLockout.Base)
		p = b.signIn(m.email, testPassword, "")
		require.Equal(t, http.StatusSeeOther, p.status, "the lock ends: %s", p.body)
		assert.Equal(t, http.StatusUnauthorized, b.signIn(m.email, "wrong password!", "").status, "a success resets the count")

		actions := h.auditActions(t)
		failed := 0
		for _, a := range actions {
			if a == "sign_in.failed" {
				failed++
			}
		}
		assert.Equal(t, account.AccountLockout.Threshold+2, failed, "every refusal is recorded, lockouts included")
	})
}

func TestTwoFactorPages(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleOwner)
		b := h.browser(t, "198.51.100.30")
		require.Equal(t, http.StatusSeeOther, b.signIn(m.email, testPassword, "").status)

		p := b.get("/account/2fa")
		require.Equal(t, http.StatusOK, p.status)
		secret := secretText.FindStringSubmatch(p.body)
		require.NotNil(t, secret)
		assert.Regexp(t, `^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$`, secret[1], "the secret in groups of four")
		assert.Contains(t, p.body, `href="otpauth://totp/Hoplink:`+url.PathEscape(m.email)+`?secret=`+strings.ReplaceAll(secret[1], " ", "")+`&amp;issuer=Hoplink"`)
		qr := qrImage.FindStringSubmatch(p.body)
		require.NotNil(t, qr, "a QR code image")
		raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(qr[1]))
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(raw))
		require.NoError(t, err, "a PNG")
		assert.Greater(t, img.Bounds().Dx(), 100)
		again := secretText.FindStringSubmatch(b.get("/account/2fa").body)
		assert.Equal(t, secret[1], again[1], "reloading shows the same secret")

		p = b.post("/account/2fa", url.Values{"action": {"confirm"}, "otp": {"000000"}})
		assert.Equal(t, http.StatusBadRequest, p.status, "a wrong code")
		assert.Contains(t, p.body, "That code is incorrect")
		assert.Equal(t, secret[1], secretText.FindStringSubmatch(p.body)[1], "the same secret again")
		b.get("/account/2fa")
		confirm := url.Values{"action": {"confirm"}, "otp": {h.code(t, secret[1])}, "return_to": {"/account"}}
		p = b.post("/account/2fa", confirm)
		require.Equal(t, http.StatusOK, p.status, "body: %s", p.body)
		codes := backupCode.FindAllStringSubmatch(p.body, -1)
		require.Len(t, codes, 10, "ten backup codes, shown once")
		// Refreshing the codes' page sends its form again (same token):
		// a page in the layout says why no codes come, not a bare 403.
		resent := b.do(http.MethodPost, "/account/2fa", confirm, nil)
		assert.Equal(t, http.StatusConflict, resent.status)
		assert.Contains(t, resent.body, "<title>Backup codes shown already · Hoplink</title>")
		assert.Contains(t, resent.body, "Your backup codes were shown once, when you turned it on, and cannot be shown again.")
		assert.NotContains(t, resent.body, codes[0][1])
		h.clock.Advance(account.TOTPPeriod)
		p = b.get("/account/2fa")
		assert.NotContains(t, p.body, codes[0][1], "never shown again")
		assert.Contains(t, p.body, "Turn it off")
		assert.Contains(t, b.get("/account").body, `id="two-factor-status">On.`)

		b.get("/account")
		require.Equal(t, http.StatusSeeOther, b.post("/logout", url.Values{}).status)

		// Second step: a TOTP code.
		p = b.signIn(m.email, testPassword, "/account")
		require.Equal(t, http.StatusOK, p.status, "the code form")
		require.Regexp(t, pendingField, p.body)
		assert.Nil(t, setCookie(p, httpapi.SessionCookieName), "no session before the code")
		assert.NotContains(t, p.body, `name="password"`)
		pending := pendingField.FindStringSubmatch(p.body)[1]
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {"123456"}, "return_to": {"/account"}})
		assert.Equal(t, http.StatusUnauthorized, p.status, "a wrong code")
		assert.Contains(t, p.body, "That code is incorrect")
		code := h.code(t, secret[1])
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {code}, "return_to": {"/account"}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/account", p.location())
		b.get("/account")
		require.Equal(t, http.StatusSeeOther, b.post("/logout", url.Values{}).status)

		p = b.signIn(m.email, testPassword, "")
		pending = pendingField.FindStringSubmatch(p.body)[1]
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {code}})
		assert.Equal(t, http.StatusUnauthorized, p.status, "a code works once")

		// Second step: a backup code, used up.
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {strings.ToUpper(codes[3][1])}})
		require.Equal(t, http.StatusSeeOther, p.status, "a backup code, in any case: %s", p.body)
		b.get("/account")
		require.Equal(t, http.StatusSeeOther, b.post("/logout", url.Values{}).status)
		p = b.signIn(m.email, testPassword, "")
		pending = pendingField.FindStringSubmatch(p.body)[1]
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {codes[3][1]}})
		assert.Equal(t, http.StatusUnauthorized, p.status, "a backup code works once")

		p = b.post("/login", url.Values{"pending": {"expired-or-forged"}, "otp": {codes[4][1]}})
		assert.Equal(t, http.StatusUnauthorized, p.status)
		assert.Contains(t, p.body, "enter your email and password again")
		assert.Contains(t, p.body, `name="password"`, "back to the first step")

		// Turning it off needs the password and a code.
		h.clock.Advance(account.TOTPPeriod)
		p = b.signIn(m.email, testPassword, "")
		pending = pendingField.FindStringSubmatch(p.body)[1]
		require.Equal(t, http.StatusSeeOther, b.post("/login", url.Values{"pending": {pending}, "otp": {codes[5][1]}}).status)
		b.get("/account/2fa")
		p = b.post("/account/2fa", url.Values{"action": {"disable"}, "password": {"wrong password!"}, "otp": {h.code(t, secret[1])}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "The password is incorrect.")
		p = b.post("/account/2fa", url.Values{"action": {"disable"}, "password": {testPassword}, "otp": {"000000"}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "The code is incorrect")
		p = b.post("/account/2fa", url.Values{"action": {"disable"}, "password": {testPassword}, "otp": {h.code(t, secret[1])}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Contains(t, b.get("/account").body, `id="two-factor-status">Off.`)
		p = b.post("/account/2fa", url.Values{"action": {"unknown"}})
		assert.Equal(t, http.StatusBadRequest, p.status)

		assert.Equal(t, []string{
			"sign_in.succeeded", "two_factor.enrolled", "sign_out",
			"sign_in.failed", "sign_in.succeeded", "sign_out",
			"sign_in.failed", "sign_in.succeeded", "two_factor.backup_code_used", "sign_out",
			"sign_in.failed",
			"sign_in.succeeded", "two_factor.backup_code_used", "two_factor.disabled",
		}, h.auditActions(t))
	})
}

func TestPolicyEnforcementOnPages(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleMember)
		resp := h.do(t, request{method: http.MethodPut, path: orgPath(h.org.ID) + "/security", key: h.org.key.raw,
			body: `{"require_two_factor":true,"session_lifetime_hours":1,"idle_timeout_minutes":10}`})
		require.Equal(t, http.StatusOK, resp.status)

		b := h.browser(t, "198.51.100.40")
		p := b.signIn(m.email, testPassword, "/oauth/authorize?x=1")
		require.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/account/2fa?return_to=%2Foauth%2Fauthorize%3Fx%3D1", p.location(), "required two-factor: enrol first")
		p = b.get("/account")
		assert.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/account/2fa", p.location(), "every page sends the user to enrol")
		p = b.get("/account/2fa?return_to=%2Foauth%2Fauthorize%3Fx%3D1")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, "requires two-factor authentication")
		secret := secretText.FindStringSubmatch(p.body)[1]
		p = b.post("/account/2fa", url.Values{"action": {"confirm"}, "otp": {h.code(t, secret)}, "return_to": {"/oauth/authorize?x=1"}})
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `href="/oauth/authorize?x=1" id="continue"`, "then on to where the user was going")
		assert.Equal(t, http.StatusOK, b.get("/account").status, "enrolled: the account page opens")

		// Idle timeout and lifetime from the policy.
		h.clock.Advance(9 * time.Minute)
		assert.Equal(t, http.StatusOK, b.get("/account").status, "used within the idle timeout")
		h.clock.Advance(10 * time.Minute)
		p = b.get("/account")
		assert.Equal(t, http.StatusSeeOther, p.status, "idle for the timeout: signed out")
		assert.Equal(t, "/login?return_to=%2Faccount", p.location())

		h.clock.Advance(account.TOTPPeriod)
		p = b.signIn(m.email, testPassword, "")
		pending := pendingField.FindStringSubmatch(p.body)[1]
		require.Equal(t, http.StatusSeeOther, b.post("/login", url.Values{"pending": {pending}, "otp": {h.code(t, secret)}}).status)
		for range 6 {
			h.clock.Advance(9 * time.Minute)
			require.Equal(t, http.StatusOK, b.get("/account").status)
		}
		h.clock.Advance(7 * time.Minute)
		assert.Equal(t, http.StatusSeeOther, b.get("/account").status, "past the one-hour lifetime, however active")
	})
}

func TestSessionsAndPasswordPages(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleMember)
		laptop := h.browser(t, "198.51.100.50")
		phone := h.browser(t, "198.51.100.51")
		require.Equal(t, http.StatusSeeOther, laptop.signIn(m.email, testPassword, "").status)
		require.Equal(t, http.StatusSeeOther, phone.signIn(m.email, testPassword, "").status)

		p := laptop.get("/account")
		assert.Contains(t, p.body, `title="pages-test/198.51.100.51">Other client</span>`, "the other session is listed")
		ids := regexp.MustCompile(`name="session_id" value="([0-9a-f-]{36})"`).FindAllStringSubmatch(p.body, -1)
		require.Len(t, ids, 2)
		sessions, err := h.accounts.Sessions(t.Context(), m.id)
		require.NoError(t, err)
		var phoneSession string
		for _, s := range sessions {
			if s.IP == "198.51.100.51" {
				phoneSession = s.ID.String()
			}
		}
		require.NotEmpty(t, phoneSession)

		p = laptop.post("/account/sessions/revoke", url.Values{"session_id": {"0190b7a3-0f1e-7d2c-8b3a-495867a6b5c4"}})
		assert.Equal(t, http.StatusNotFound, p.status, "an unknown session")
		p = laptop.post("/account/sessions/revoke", url.Values{"session_id": {"not-a-uuid"}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		p = laptop.post("/account/sessions/revoke", url.Values{"session_id": {phoneSession}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/account", p.location())
		assert.Equal(t, http.StatusSeeOther, phone.get("/account").status, "the revoked browser is signed out")
		assert.Equal(t, http.StatusOK, laptop.get("/account").status)

		// Another user cannot revoke this user's sessions.
		stranger := h.browser(t, "198.51.100.52")
		other := h.member(t, auth.RoleMember)
		require.Equal(t, http.StatusSeeOther, stranger.signIn(other.email, testPassword, "").status)
		stranger.get("/account")
		sessions, err = h.accounts.Sessions(t.Context(), m.id)
		require.NoError(t, err)
		require.Len(t, sessions, 1)
		p = stranger.post("/account/sessions/revoke", url.Values{"session_id": {sessions[0].ID.String()}})
		assert.Equal(t, http.StatusNotFound, p.status)
		assert.Equal(t, http.StatusOK, laptop.get("/account").status, "still signed in")

		// Password change.
		require.Equal(t, http.StatusSeeOther, phone.signIn(m.email, testPassword, "").status)
		laptop.get("/account")
		p = laptop.post("/account/password", url.Values{"current_password": {"wrong password!"}, "password": {"a brand new passphrase"}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "The password is incorrect.")
		p = laptop.post("/account/password", url.Values{"current_password": {testPassword}, "password": {"short"}})
		assert.Equal(t, http.StatusBadRequest, p.status, "the password policy")
		assert.Contains(t, p.body, "New password")
		p = laptop.post("/account/password", url.Values{"current_password": {testPassword}, "password": {"a brand new passphrase"}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		require.NotNil(t, setCookie(p, httpapi.SessionCookieName), "a new session for this browser")
		assert.Equal(t, "/account?changed=password", p.location())
		p = laptop.get(p.location())
		require.Equal(t, http.StatusOK, p.status, "this browser stays signed in")
		assert.Contains(t, p.body, "Your password has been changed")
		assert.Equal(t, http.StatusSeeOther, phone.get("/account").status, "every other session ends")
		assert.Equal(t, http.StatusUnauthorized, phone.signIn(m.email, testPassword, "").status, "the old password no longer works")
		assert.Equal(t, http.StatusSeeOther, phone.signIn(m.email, "a brand new passphrase", "").status)

		// Revoking the current session signs this browser out.
		laptop.get("/account")
		sessions, err = h.accounts.Sessions(t.Context(), m.id)
		require.NoError(t, err)
		var current string
		for _, s := range sessions {
			if s.IP == "198.51.100.50" {
				current = s.ID.String()
			}
		}
		p = laptop.post("/account/sessions/revoke", url.Values{"session_id": {current}})
		require.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/login", p.location())
		assert.Equal(t, http.StatusSeeOther, laptop.get("/account").status)

		actions := h.auditActions(t)
		for _, want := range []string{"session.revoked", "password.changed"} {
			assert.Contains(t, actions, want)
		}
	})
}

func TestSignedOutPostsGoToSignIn(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		b := h.browser(t, "198.51.100.60")
		b.get("/login")
		for _, path := range []string{"/account/password", "/account/sessions/revoke", "/account/2fa"} {
			p := b.post(path, url.Values{})
			assert.Equal(t, http.StatusSeeOther, p.status, path)
			assert.Equal(t, "/login?return_to=%2Faccount", p.location(), path)
		}
		assert.Equal(t, http.StatusSeeOther, b.get("/account/2fa").status)
	})
}

func TestSignInRotatesTheSession(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newPagesHarness(t, s)
		m := h.member(t, auth.RoleMember)
		b := h.browser(t, "198.51.100.70")
		first := b.signIn(m.email, testPassword, "")
		require.Equal(t, http.StatusSeeOther, first.status)
		old := setCookie(first, httpapi.SessionCookieName)
		require.NotNil(t, old)
		second := b.signIn(m.email, testPassword, "")
		require.Equal(t, http.StatusSeeOther, second.status, "signing in again while signed in")
		fresh := setCookie(second, httpapi.SessionCookieName)
		require.NotNil(t, fresh)
		assert.NotEqual(t, old.Value, fresh.Value, "a new session id")
		sessions, err := h.accounts.Sessions(t.Context(), m.id)
		require.NoError(t, err)
		assert.Len(t, sessions, 1, "the session the browser presented is gone")
		_, err = h.accounts.Authenticate(t.Context(), old.Value)
		assert.Error(t, err, "the old id no longer signs in")
	})
}

// The account page links to the OAuth connections page where this server
// has one, and not elsewhere.
func TestAccountPageLinksToConnections(t *testing.T) {
	t.Parallel()
	connections := httpapi.Route{Method: http.MethodGet, Path: "/account/connections",
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })}
	for _, tt := range []struct {
		name   string
		routes []httpapi.Route
		want   bool
	}{
		{"with the authorization server", []httpapi.Route{connections}, true},
		{"without it", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newPagesHarness(t, storetest.SQLite(t), withAPI(func(_ *harness, o *httpapi.Options) {
				o.Routes = tt.routes
			}))
			m := h.member(t, auth.RoleMember)
			b := h.browser(t, "198.51.100.9")
			require.Equal(t, http.StatusSeeOther, b.signIn(m.email, testPassword, "/account").status)
			p := b.get("/account")
			require.Equal(t, http.StatusOK, p.status, "body: %s", p.body)
			if tt.want {
				assert.Contains(t, p.body, `<a href="/account/connections" id="connections-link">`)
			} else {
				assert.NotContains(t, p.body, "/account/connections")
			}
		})
	}
}

func TestSessionsNameTheBrowser(t *testing.T) {
	t.Parallel()
	h := newPagesHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleMember)
	b := h.browser(t, "198.51.100.52")
	require.Equal(t, http.StatusSeeOther, b.signIn(m.email, testPassword, "").status)
	for _, tt := range []struct{ name, ua, want string }{
		{"desktop Firefox", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"},
		{"iPhone Safari", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari on iOS"},
		{"Chrome on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on Windows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			other := h.browser(t, "198.51.100.53")
			p := other.do(http.MethodGet, "/login", nil, nil)
			require.Equal(t, http.StatusOK, p.status)
			form := url.Values{"email": {m.email}, "password": {testPassword}}
			form.Set(httpapi.AccountCSRFField, other.csrf())
			p = other.do(http.MethodPost, "/login", form, map[string]string{"User-Agent": tt.ua})
			require.Equal(t, http.StatusSeeOther, p.status)
			body := b.get("/account").body
			assert.Contains(t, body, `title="`+html.EscapeString(tt.ua)+`">`+tt.want+`</span>`,
				"a name people read, the raw agent only as a tooltip")
		})
	}
}

func TestServiceRootSendsBrowsersToSignIn(t *testing.T) {
	t.Parallel()
	h := newPagesHarness(t, storetest.SQLite(t))
	b := h.browser(t, "198.51.100.54")
	for _, tt := range []struct {
		name, method, accept string
		status               int
		location             string
	}{
		{"a browser", http.MethodGet, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", http.StatusSeeOther, "/login"},
		{"a browser's HEAD", http.MethodHead, "text/html", http.StatusSeeOther, "/login"},
		{"an API client", http.MethodGet, "application/json", http.StatusNotFound, ""},
		{"JSON ranked above HTML", http.MethodGet, "text/html;q=0.5, application/json", http.StatusNotFound, ""},
		{"curl", http.MethodGet, "*/*", http.StatusNotFound, ""},
		{"no Accept", http.MethodGet, "", http.StatusNotFound, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := b.do(tt.method, "/", nil, map[string]string{"Accept": tt.accept})
			assert.Equal(t, tt.status, p.status, "body: %s", p.body)
			assert.Equal(t, tt.location, p.location())
			if tt.status == http.StatusNotFound && tt.method == http.MethodGet {
				assert.Contains(t, p.body, `"code":"NOT_FOUND"`, "API clients keep the JSON 404")
			}
		})
	}
	p := b.do(http.MethodGet, "/elsewhere", nil, map[string]string{"Accept": "text/html"})
	assert.Equal(t, http.StatusNotFound, p.status, "only the root is a way in")
}

// TestPagesOnlyServiceLinksNoAPIDescription proves that a service host with
// the pages but no REST API (hoplink-auth's) does not link an OpenAPI
// description it does not serve, while its account page still says where
// links and apps are managed.
func TestPagesOnlyServiceLinksNoAPIDescription(t *testing.T) {
	t.Parallel()
	h := newPagesHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleMember)
	only := httptest.NewServer(httpapi.NewPages(httpapi.PagesOptions{Accounts: h.accounts,
		AccountPages: httpapi.AccountPagesOptions{Secret: testSecret, Clock: h.clock.Now}}))
	t.Cleanup(only.Close)
	b := h.browser(t, "198.51.100.55")
	b.base = only.URL
	require.Equal(t, http.StatusSeeOther, b.signIn(m.email, testPassword, "").status)
	p := b.get("/account")
	require.Equal(t, http.StatusOK, p.status, "body: %s", p.body)
	assert.Contains(t, p.body, `id="dashboard-note"`)
	assert.NotContains(t, p.body, "/v1/openapi.json")
	assert.Equal(t, http.StatusSeeOther, b.do(http.MethodGet, "/", nil, map[string]string{"Accept": "text/html"}).status,
		"GET / sends a browser to sign in here too")
}
