package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef-oauth-tests")

const testPassword = "correct horse battery staple"

// serviceHosts are the harness's --service-host names.
var serviceHosts = []string{"127.0.0.1", "localhost"}

// harness is the service host as hoplink serve mounts it: the API with
// the sign-in pages, the authorization server and the MCP endpoint, over
// real HTTP on loopback.
type harness struct {
	store    *store.Store
	clock    *testkit.Clock
	orgs     *org.Service
	accounts *account.Service
	oauth    *oauth.Server
	srv      *httptest.Server
	public   string
}

// newHarness returns the harness; each of opts may change the
// authorization server's options before it is built.
func newHarness(t *testing.T, s *store.Store, opts ...func(*oauth.Options)) *harness {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := testkit.NewClock(time.Now().UTC().Truncate(time.Millisecond))
	h := &harness{store: s, clock: c}
	a := auth.NewAuthenticator(s, auth.AuthenticatorOptions{Clock: c.Now, CacheTTL: -1, Logger: quiet})
	h.orgs = org.NewService(s, org.ServiceOptions{Forget: a, Clock: c.Now, HashPassword: testkit.HashPassword})
	accounts, err := account.NewService(s, testSecret, account.ServiceOptions{Clock: c.Now, HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	h.accounts = accounts
	links := linking.NewLinkService(s, s, s, linking.LinkServiceOptions{DefaultLinkDomain: "hop.localhost",
		ShortURLBase: "http://{domain}:8080", Clock: c.Now,
		HashPassword: func(pw string) (string, error) { return "fast:" + pw, nil }})
	apps := linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: "hop.localhost", Forget: a, Clock: c.Now})
	limiter := ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: c.Now})

	var handler http.Handler
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	h.public = "http://" + h.srv.Listener.Addr().String()
	publicURL, err := url.Parse(h.public)
	require.NoError(t, err)
	pages := httpapi.AccountPagesOptions{Secret: testSecret, PublicURL: publicURL, Clock: c.Now}
	o := oauth.Options{PublicURL: publicURL, Secret: testSecret,
		Store: s.OAuth(c.Now, oauth.RefreshGracePeriod), Sessions: httpapi.NewPageSessions(accounts, pages),
		Members: accounts, Limiter: limiter, Clock: c.Now, Logger: quiet, ServiceHosts: serviceHosts}
	for _, f := range opts {
		f(&o)
	}
	h.oauth, err = oauth.New(o)
	require.NoError(t, err)
	var routes []httpapi.Route
	for _, rt := range h.oauth.Routes() {
		routes = append(routes, httpapi.Route{Method: rt.Method, Path: rt.Path, Handler: rt.Handler})
	}
	lists := attribution.NewLists(s, h.orgs, attribution.ListsOptions{Clock: c.Now})
	mcp := mcpserver.New(mcpserver.Options{PublicURL: h.public, Authenticator: a, Verifier: h.oauth,
		Memberships: accounts, Orgs: h.orgs, Links: links, Apps: apps, Lists: lists, Logger: quiet,
		ServiceHosts: serviceHosts})
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		routes = append(routes, httpapi.Route{Method: m, Path: "/mcp", Handler: mcp})
	}
	handler = httpapi.New(httpapi.Options{Authenticator: a, Orgs: h.orgs, Apps: apps, Links: links,
		Accounts: accounts, AccountPages: &pages, Clock: c.Now, Limiter: limiter, Logger: quiet, Routes: routes})
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	return h
}

// member creates a user with testPassword, cheaply hashed (testkit.User), in
// a new organization with role.
func (h *harness) member(t testing.TB, orgName string, role auth.Role) (*identity.User, *org.Organization) {
	t.Helper()
	ctx := context.Background()
	o, _, err := h.orgs.Create(ctx, orgName, "")
	require.NoError(t, err)
	u := testkit.User(t, h.store, "user-"+uuid.NewString()+"@example.com", testPassword, h.clock.Now())
	_, err = h.orgs.AddMember(ctx, o.ID, u.Email, role)
	require.NoError(t, err)
	return u, o
}

// response is an HTTP answer read whole.
type response struct {
	status int
	header http.Header
	body   string
}

func (r response) location(t testing.TB) *url.URL {
	t.Helper()
	u, err := url.Parse(r.header.Get("Location"))
	require.NoError(t, err)
	return u
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &v), r.body)
	return v
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, so that each step can be checked.
type browser struct {
	t      testing.TB
	client *http.Client
	base   string
}

func (h *harness) browser(t testing.TB) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, base: h.public, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(req *http.Request) response {
	b.t.Helper()
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

// get fetches target, a path or an absolute URL.
func (b *browser) get(target string) response {
	b.t.Helper()
	if strings.HasPrefix(target, "/") {
		target = b.base + target
	}
	req, err := http.NewRequest(http.MethodGet, target, nil)
	require.NoError(b.t, err)
	return b.do(req)
}

// post posts form to path as a browser form of this site does.
func (b *browser) post(path string, form url.Values, header ...string) response {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

func (b *browser) postJSON(path string, body any) response {
	b.t.Helper()
	data, err := json.Marshal(body)
	require.NoError(b.t, err)
	req, err := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(string(data)))
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", "application/json")
	return b.do(req)
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hiddenFields returns the hidden inputs of page.
func hiddenFields(page string) url.Values {
	out := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		out.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return out
}

// signIn answers the login page that res redirected to and returns the
// answer to the POST.
func (b *browser) signIn(loginURL *url.URL, email string) response {
	b.t.Helper()
	page := b.get(loginURL.RequestURI())
	require.Equal(b.t, http.StatusOK, page.status, page.body)
	form := hiddenFields(page.body)
	form.Set("email", email)
	form.Set("password", testPassword)
	form.Set("return_to", loginURL.Query().Get("return_to"))
	return b.post("/login", form)
}

// pkce is a PKCE verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	v := base64.RawURLEncoding.EncodeToString([]byte(uuid.NewString() + uuid.NewString()))
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// registerPublic registers a public client with redirect and returns its id.
func (b *browser) registerPublic(redirect string) string {
	b.t.Helper()
	res := b.postJSON("/oauth/register", map[string]any{"client_name": "Test Desktop", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	require.Equal(b.t, http.StatusCreated, res.status, res.body)
	return res.json(b.t)["client_id"].(string)
}

// authorizeQuery returns the authorization request's query.
func authorizeQuery(clientID, redirect, resource string, p pkce, scope string) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"state": {"state-" + uuid.NewString()}, "code_challenge": {p.challenge}, "code_challenge_method": {"S256"}}
	if resource != "" {
		q.Set("resource", resource)
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	return q
}

// consent signs the user in (when needed) through the authorization
// request q, allows it for orgChoice and returns the redirect to the client.
func (b *browser) consent(q url.Values, email, orgChoice string) *url.URL {
	b.t.Helper()
	res := b.get("/oauth/authorize?" + q.Encode())
	if res.status == http.StatusSeeOther && res.location(b.t).Path == "/login" {
		back := b.signIn(res.location(b.t), email)
		require.Equal(b.t, http.StatusSeeOther, back.status, back.body)
		res = b.get(back.location(b.t).RequestURI())
	}
	require.Equal(b.t, http.StatusOK, res.status, res.body)
	form := hiddenFields(res.body)
	form.Set("org_id", orgChoice)
	form.Set("decision", "allow")
	out := b.post("/oauth/authorize", form)
	require.Equal(b.t, http.StatusSeeOther, out.status, out.body)
	return out.location(b.t)
}

// tokens posts form to the token endpoint.
func (b *browser) tokens(form url.Values) response {
	b.t.Helper()
	return b.post("/oauth/token", form)
}

type storeT = store.Store

// connection is a finished authorization of a public client.
type connection struct {
	clientID, redirect, access, refresh string
}

// connect registers a public client, signs user in with b, consents for
// orgChoice with scope and exchanges the code.
func (h *harness) connect(t testing.TB, b *browser, email, orgChoice, scope string) connection {
	t.Helper()
	redirect := "http://127.0.0.1:40000/cb"
	clientID := b.registerPublic(redirect)
	p := newPKCE()
	back := b.consent(authorizeQuery(clientID, redirect, h.public+"/mcp", p, scope), email, orgChoice)
	code := back.Query().Get("code")
	require.NotEmpty(t, code, back.String())
	res := b.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {p.verifier}})
	require.Equal(t, http.StatusOK, res.status, res.body)
	v := res.json(t)
	return connection{clientID: clientID, redirect: redirect, access: v["access_token"].(string), refresh: v["refresh_token"].(string)}
}
