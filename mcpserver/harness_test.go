package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/webhook"
)

// start is where every harness clock begins.
var start = time.Date(2030, 1, 1, 0, 0, 10, 0, time.UTC)

const linkDomain = "hop.test"

// corsOrigin is the one browser origin the harness allows (--cors-origins).
const corsOrigin = "https://agent.example"

// storeMemberships reads memberships straight from the store, as
// account.Service.Memberships does.
type storeMemberships struct{ s *store.Store }

func (m storeMemberships) Memberships(ctx context.Context, userID uuid.UUID) ([]account.Membership, error) {
	return m.s.UserMemberships(ctx, userID)
}

// grants is an in-test auth.OAuthTokenVerifier: a token is valid when it
// is in the map and was issued for the resource it is checked against.
type grants struct {
	mu       sync.Mutex
	tokens   map[string]*auth.OAuthGrant
	resource string
	checked  []string // the resources tokens were checked against
	// stalled tokens are checked against a database that stopped
	// answering: the check waits until its context ends.
	stalled map[string]bool
}

func (g *grants) VerifyAccessToken(ctx context.Context, token, resource string) (*auth.OAuthGrant, error) {
	g.mu.Lock()
	if g.stalled[token] {
		g.mu.Unlock()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	defer g.mu.Unlock()
	g.checked = append(g.checked, resource)
	gr, ok := g.tokens[token]
	if !ok || resource != g.resource {
		return nil, auth.ErrInvalidToken
	}
	c := *gr
	return &c, nil
}

// issue makes a token for user with scopes, for one organization or, when
// orgID is nil, for all of the user's organizations.
func (g *grants) issue(user uuid.UUID, orgID *uuid.UUID, scopes ...auth.Scope) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	token := "oat_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	g.tokens[token] = &auth.OAuthGrant{UserID: user, ClientID: "client", ConnectionID: uuid.New(), Scopes: names,
		OrgID: orgID, ExpiresAt: start.Add(time.Hour)}
	return token
}

// harness serves the REST API and the MCP endpoint on one test server, over
// the same services, as `hoplink serve` does on the service host.
type harness struct {
	store   *store.Store
	clock   *testkit.Clock
	keys    *auth.Keys
	orgs    *org.Service
	links   *linking.LinkService
	grants  *grants
	srv     *httptest.Server
	mcp     *mcpserver.Handler
	limiter ratelimit.Limiter
	exports *analytics.Exports
	// webhooks serves the webhook tools.
	webhooks *webhook.Service
}

func newHarness(t *testing.T, s *store.Store) *harness {
	t.Helper()
	c := testkit.NewClock(start)
	quiet := slog.New(slog.DiscardHandler)
	a := auth.NewAuthenticator(s, auth.AuthenticatorOptions{Clock: c.Now, CacheTTL: -1, Logger: quiet})
	h := &harness{
		store:   s,
		clock:   c,
		keys:    auth.NewKeys(s, auth.KeysOptions{Forget: a, Clock: c.Now}),
		orgs:    org.NewService(s, org.ServiceOptions{Forget: a, Clock: c.Now, HashPassword: testkit.HashPassword}),
		grants:  &grants{tokens: map[string]*auth.OAuthGrant{}, stalled: map[string]bool{}},
		limiter: ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: c.Now}),
	}
	h.links = linking.NewLinkService(s, s, s, linking.LinkServiceOptions{DefaultLinkDomain: linkDomain,
		ShortURLBase: "http://{domain}:8080", Clock: c.Now,
		HashPassword: func(pw string) (string, error) { return "fast:" + pw, nil }})
	apps := linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: linkDomain, Forget: a, Clock: c.Now})
	// One Lists for both, as the servers wire it: a cursor of one continues
	// in the other.
	lists := attribution.NewLists(s, h.orgs, attribution.ListsOptions{Clock: c.Now})
	queries := analytics.NewQueries(s, h.orgs, analytics.QueriesOptions{Clock: c.Now})
	mux := http.NewServeMux()
	h.srv = httptest.NewUnstartedServer(mux)
	publicURL := "http://" + h.srv.Listener.Addr().String()
	h.exports = analytics.NewExports(s, h.orgs, analytics.ExportsOptions{Clock: c.Now, PublicURL: publicURL, Logger: quiet})
	webhooks, err := webhook.NewService(s, bytes.Repeat([]byte{7}, 32), webhook.ServiceOptions{AllowPrivate: true, Clock: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	h.webhooks = webhooks
	api := httpapi.New(httpapi.Options{
		Authenticator: a, Keys: h.keys, Orgs: h.orgs, Apps: apps, Links: h.links,
		Attribution: attribution.NewMatcher(s, attribution.MatcherOptions{Clock: c.Now}), Lists: lists,
		Analytics: queries, Exports: h.exports, Webhooks: webhooks, Clock: c.Now, Limiter: h.limiter, Logger: quiet,
	})
	h.grants.resource = publicURL + "/mcp"
	h.mcp = mcpserver.New(mcpserver.Options{
		PublicURL: publicURL, Authenticator: a, Verifier: h.grants, VerifyTimeout: 100 * time.Millisecond,
		Memberships: storeMemberships{s},
		Orgs:        h.orgs, Links: h.links, Apps: apps, Lists: lists, Analytics: queries, Exports: h.exports,
		Webhooks: webhooks,
		Limiter:  h.limiter, Logger: quiet,
		ServiceHosts: []string{"127.0.0.1", "localhost"}, CORSOrigins: []string{corsOrigin},
	})
	mux.Handle("/mcp", h.mcp)
	mux.Handle("/", api)
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	return h
}

// testOrg is an organization with its bootstrap key.
type testOrg struct {
	*org.Organization
	key string
}

func (h *harness) newOrg(t testing.TB, name string) *testOrg {
	t.Helper()
	o, k, err := h.orgs.Create(context.Background(), name, "")
	require.NoError(t, err)
	return &testOrg{Organization: o, key: k.RawKey}
}

// newUser inserts a user with a cheap password hash (testkit.User).
func (h *harness) newUser(t testing.TB) *identity.User {
	t.Helper()
	return testkit.User(t, h.store, "user-"+uuid.NewString()+"@example.com", "correct horse battery", h.clock.Now())
}

func (h *harness) addMember(t testing.TB, o *testOrg, u *identity.User, role auth.Role) {
	t.Helper()
	_, err := h.orgs.AddMember(context.Background(), o.ID, u.Email, role)
	require.NoError(t, err)
}

// key creates a key of o with no creator.
func (h *harness) key(t testing.TB, o *testOrg, in auth.CreateKeyInput) string {
	t.Helper()
	if in.Name == "" {
		in.Name = "key"
	}
	k, err := h.keys.CreateFor(context.Background(), o.ID, nil, "", in)
	require.NoError(t, err)
	return k.RawKey
}

// newApp inserts an app of orgID through the store.
func (h *harness) newApp(t testing.TB, orgID uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	handle := "app-" + strings.ReplaceAll(id.String(), "-", "")
	now := h.clock.Now().UTC().Truncate(time.Millisecond)
	require.NoError(t, h.store.CreateApp(context.Background(), &linking.App{
		ID: id, OrgID: orgID, Name: "app", Handle: handle,
		LinkDomain: handle + "." + linkDomain, DefaultLinkDomain: handle + "." + linkDomain,
		CreatedAt: now, UpdatedAt: now,
	}, 1000))
	return id
}

// bearer is an http.RoundTripper adding a bearer token and, when set, an
// Origin header.
type bearer struct {
	token  string
	origin string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP client session with token over real HTTP, speaking
// protocol version (the SDK's latest when empty).
func (h *harness) connect(t testing.TB, token, version string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: h.srv.URL + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: token}}}
	s, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func (h *harness) session(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	s, err := h.connect(t, token, "")
	require.NoError(t, err)
	return s
}

// call calls tool name with args and returns the result.
func call(t testing.TB, s *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tools/call %s", name)
	return res
}

// ok asserts that res is a success and returns its structuredContent as JSON.
func ok(t testing.TB, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.False(t, res.IsError, "tool error: %s", b)
	require.Len(t, res.Content, 1)
	text, isText := res.Content[0].(*mcp.TextContent)
	require.True(t, isText)
	assert.JSONEq(t, string(b), text.Text, "the text holds the structured content")
	return b
}

// envelope is SPEC.md's error envelope.
type envelope struct {
	Error struct {
		Code    errcode.Code   `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// toolError asserts that res is a tool error whose text is the envelope
// with code, and returns it.
func toolError(t testing.TB, res *mcp.CallToolResult, code errcode.Code) envelope {
	t.Helper()
	require.True(t, res.IsError, "expected a tool error")
	require.Len(t, res.Content, 1)
	text, isText := res.Content[0].(*mcp.TextContent)
	require.True(t, isText)
	var e envelope
	require.NoError(t, json.Unmarshal([]byte(text.Text), &e), "text: %s", text.Text)
	assert.Equal(t, code, e.Error.Code, "text: %s", text.Text)
	assert.NotEmpty(t, e.Error.Message)
	return e
}

// rest sends a REST request with key and returns status and body.
func (h *harness) rest(t testing.TB, method, path, key, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// raw posts a JSON-RPC body to /mcp with headers and returns the response
// and its body.
func (h *harness) raw(t testing.TB, method, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+"/mcp", r)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}
