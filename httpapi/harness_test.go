package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/httpapi/apitest"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

// start is where every harness clock begins: ten seconds into a minute, so
// that the first rate-limit window has 50 seconds left (X-RateLimit-Reset: 50).
var start = time.Date(2030, 1, 1, 0, 0, 10, 0, time.UTC)

// defaultLinkDomain is the harness's {default_link_domain}.
const defaultLinkDomain = "hop.test"

// loopback is the proxy every harness trusts, so that a test can choose its
// client IP with X-Forwarded-For.
var loopback = netip.MustParsePrefix("127.0.0.0/8")

// config is what a harness is built from; options change it.
type config struct {
	clock    *testkit.Clock
	keyStore func(*store.Store) auth.KeyStore
	cacheTTL time.Duration
	// keyTimeout is AuthenticatorOptions.StoreTimeout: generous by default,
	// so that a test machine under load does not turn a slow key lookup
	// into a 503.
	keyTimeout time.Duration
	limiter    func(*testkit.Clock) ratelimit.Limiter
	api        []func(*harness, *httpapi.Options)
}

type option func(*config)

// withAPI lets change add to the API's options (services the harness does
// not build) before the server starts.
func withAPI(change func(h *harness, o *httpapi.Options)) option {
	return func(cfg *config) { cfg.api = append(cfg.api, change) }
}

// withClock makes the harness share c, as replicas share time.
func withClock(c *testkit.Clock) option { return func(cfg *config) { cfg.clock = c } }

// withKeyStore gives the Authenticator and Keys the key store wrap returns
// instead of the store itself, so that a test can make it fail.
func withKeyStore(wrap func(*store.Store) auth.KeyStore) option {
	return func(cfg *config) { cfg.keyStore = wrap }
}

// withCacheTTL sets AuthenticatorOptions.CacheTTL; -1 disables the cache.
func withCacheTTL(d time.Duration) option { return func(cfg *config) { cfg.cacheTTL = d } }

// withKeyTimeout sets AuthenticatorOptions.StoreTimeout.
func withKeyTimeout(d time.Duration) option { return func(cfg *config) { cfg.keyTimeout = d } }

// withLimiter replaces the in-memory limiter.
func withLimiter(l ratelimit.Limiter) option {
	return func(cfg *config) { cfg.limiter = func(*testkit.Clock) ratelimit.Limiter { return l } }
}

// harness is one API server over a store, with the services behind it and a
// client whose every /v1 request and response is checked against the
// OpenAPI document.
type harness struct {
	store   *store.Store
	clock   *testkit.Clock
	auth    *auth.Authenticator
	keys    *auth.Keys
	orgs    *org.Service
	apps    *linking.AppService
	limiter ratelimit.Limiter
	srv     *httptest.Server
	v       *apitest.Validator

	// appListeners are told of every app write and planListener of every
	// plan change, as the server's wiring tells its caches and the
	// custom-domain service; harness options set them before the server
	// starts.
	appListeners []func(orgID uuid.UUID)
	planListener org.PlanListener

	// users are reused across organizations, as a person may belong to
	// many: each harness creates only as many users as its largest
	// organization has members.
	mu    sync.Mutex
	users []*identity.User
	taken map[uuid.UUID]int // organization id -> users of the pool in it
}

// newHarness starts an API server over s: a real Authenticator, Keys and
// org.Service (which forgets through the Authenticator), an in-memory rate
// limiter on the same clock, /readyz pinging s, and 127.0.0.0/8 trusted as a
// proxy. The server is closed when t ends, before s is.
func newHarness(t *testing.T, s *store.Store, opts ...option) *harness {
	t.Helper()
	cfg := config{
		keyStore:   func(s *store.Store) auth.KeyStore { return s },
		keyTimeout: time.Minute,
		limiter: func(c *testkit.Clock) ratelimit.Limiter {
			return ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: c.Now})
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = testkit.NewClock(start)
	}
	quiet := slog.New(slog.DiscardHandler)
	ks := cfg.keyStore(s)
	a := auth.NewAuthenticator(ks, auth.AuthenticatorOptions{
		Clock:        cfg.clock.Now,
		CacheTTL:     cfg.cacheTTL,
		StoreTimeout: cfg.keyTimeout,
		Logger:       quiet,
	})
	h := &harness{
		store:   s,
		clock:   cfg.clock,
		auth:    a,
		keys:    auth.NewKeys(ks, auth.KeysOptions{Forget: a, Clock: cfg.clock.Now}),
		limiter: cfg.limiter(cfg.clock),
		v:       apitest.NewValidator(t),
		taken:   map[uuid.UUID]int{},
	}
	h.orgs = org.NewService(s, org.ServiceOptions{Forget: a, PlanListener: h, Clock: cfg.clock.Now,
		HashPassword: testkit.HashPassword})
	h.apps = linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: defaultLinkDomain, Forget: a, CustomDomains: s,
		OnAppChange: h.appChanged, Clock: cfg.clock.Now})
	apiOpts := httpapi.Options{
		Authenticator:  h.auth,
		Keys:           h.keys,
		Orgs:           h.orgs,
		Apps:           h.apps,
		Limiter:        h.limiter,
		Ready:          s.Ping,
		TrustedProxies: []netip.Prefix{loopback},
		Logger:         quiet,
	}
	for _, change := range cfg.api {
		change(h, &apiOpts)
	}
	h.srv = httptest.NewServer(httpapi.New(apiOpts))
	t.Cleanup(h.srv.Close)
	return h
}

// appChanged tells every app listener of a write to orgID's apps.
func (h *harness) appChanged(orgID uuid.UUID) {
	for _, l := range h.appListeners {
		l(orgID)
	}
}

// PlanChanged implements org.PlanListener: it tells the plan listener, if
// an option set one.
func (h *harness) PlanChanged(ctx context.Context, orgID uuid.UUID, plan org.Plan) error {
	if h.planListener == nil {
		return nil
	}
	return h.planListener.PlanChanged(ctx, orgID, plan)
}

// testOrg is an organization with its bootstrap key (every requestable
// scope, no creator).
type testOrg struct {
	*org.Organization
	key testKey
}

// testKey is a key with its raw value.
type testKey struct {
	id  uuid.UUID
	raw string
}

// testMember is a user who is a member of an organization.
type testMember struct {
	id    uuid.UUID
	email string
	role  auth.Role
	org   *testOrg
}

// newOrg creates an organization through org.Service.Create.
func (h *harness) newOrg(t testing.TB, name string) *testOrg {
	t.Helper()
	o, k, err := h.orgs.Create(context.Background(), name, "")
	require.NoError(t, err)
	return &testOrg{Organization: o, key: testKey{id: k.ID, raw: k.RawKey}}
}

// userFor returns a user who is not yet a member of o, inserted with a
// cheap password hash (testkit.User) when every user of the pool is.
func (h *harness) userFor(t testing.TB, o *testOrg) *identity.User {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.taken[o.ID]
	if i == len(h.users) {
		u := testkit.User(t, h.store, "user-"+uuid.NewString()+"@example.com", "correct horse battery", h.clock.Now())
		h.users = append(h.users, u)
	}
	h.taken[o.ID] = i + 1
	return h.users[i]
}

// newMember adds a user to o with role (org.Service.AddMember).
func (h *harness) newMember(t testing.TB, o *testOrg, role auth.Role) *testMember {
	t.Helper()
	u := h.userFor(t, o)
	_, err := h.orgs.AddMember(context.Background(), o.ID, u.Email, role)
	require.NoError(t, err)
	return &testMember{id: u.ID, email: u.Email, role: role, org: o}
}

// memberKey creates an API key created by m, with m's role, as the
// dashboard would.
func (h *harness) memberKey(t testing.TB, m *testMember, scopes ...auth.Scope) testKey {
	t.Helper()
	k, err := h.keys.CreateFor(context.Background(), m.org.ID, &m.id, m.role,
		auth.CreateKeyInput{Name: "member key", Scopes: scopes})
	require.NoError(t, err)
	return testKey{id: k.ID, raw: k.RawKey}
}

// orgKey creates a key of o with no creator, as the CLI would.
func (h *harness) orgKey(t testing.TB, o *testOrg, in auth.CreateKeyInput) testKey {
	t.Helper()
	if in.Name == "" {
		in.Name = "operator key"
	}
	k, err := h.keys.CreateFor(context.Background(), o.ID, nil, "", in)
	require.NoError(t, err)
	return testKey{id: k.ID, raw: k.RawKey}
}

// scopedKey creates a key of o with no creator and the given scopes.
func (h *harness) scopedKey(t testing.TB, o *testOrg, scopes ...auth.Scope) testKey {
	t.Helper()
	return h.orgKey(t, o, auth.CreateKeyInput{Scopes: scopes})
}

// sdkKey creates an SDK key of o with no creator.
func (h *harness) sdkKey(t testing.TB, o *testOrg) testKey {
	t.Helper()
	return h.orgKey(t, o, auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
}

// newApp inserts an app of organization orgID through the store, whatever
// the organization's plan allows.
func (h *harness) newApp(t testing.TB, orgID uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	now := h.clock.Now().UTC().Truncate(time.Millisecond)
	handle := "app-" + strings.ReplaceAll(id.String(), "-", "")
	err := h.store.CreateApp(context.Background(), &linking.App{
		ID: id, OrgID: orgID, Name: "app", Handle: handle,
		LinkDomain: handle + "." + defaultLinkDomain, DefaultLinkDomain: handle + "." + defaultLinkDomain,
		CreatedAt: now, UpdatedAt: now,
	}, 1000)
	require.NoError(t, err)
	return id
}

// count returns how many rows of table have org_id orgID.
func (h *harness) count(t testing.TB, table string, orgID uuid.UUID) int {
	t.Helper()
	n, err := h.store.DB().NewSelect().Table(table).Where("org_id = ?", orgID).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// request is one HTTP request of a test.
type request struct {
	method  string
	path    string
	key     string // sent as "Authorization: Bearer <key>" when not empty
	body    string // sent as application/json when not empty
	headers map[string]string
	// off marks a request that is outside the OpenAPI document on purpose
	// (apitest.OffContract): only the answer is checked.
	off bool
}

// response is what came back.
type response struct {
	status int
	header http.Header
	body   []byte
}

// send sends req through the validating client, reporting mismatches with
// the document to t. It does not follow redirects, so that a redirect shows.
// It is safe to call from any goroutine.
func (h *harness) send(t testing.TB, req request) (*response, error) {
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	r, err := http.NewRequest(req.method, h.srv.URL+req.path, body)
	if err != nil {
		return nil, err
	}
	if req.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.key != "" {
		r.Header.Set("Authorization", "Bearer "+req.key)
	}
	for k, v := range req.headers {
		r.Header.Set(k, v)
	}
	if req.off {
		r = apitest.OffContract(r)
	}
	client := h.v.For(t).Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// do sends req and fails t at once when no response comes back.
func (h *harness) do(t testing.TB, req request) *response {
	t.Helper()
	resp, err := h.send(t, req)
	require.NoError(t, err, "%s %s", req.method, req.path)
	return resp
}

func (h *harness) get(t testing.TB, key, path string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodGet, path: path, key: key})
}

func (h *harness) post(t testing.TB, key, path, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPost, path: path, key: key, body: body})
}

func (h *harness) delete(t testing.TB, key, path string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodDelete, path: path, key: key})
}

// decode unmarshals the body into v, failing t when it is not JSON.
func (r *response) decode(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), "body: %s", r.body)
}

// object returns the body as a JSON object.
func (r *response) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// apiKey is the ApiKey resource, with raw_key when the response has one.
type apiKey struct {
	ID         uuid.UUID    `json:"id"`
	Type       string       `json:"type"`
	Name       string       `json:"name"`
	AppID      *uuid.UUID   `json:"app_id"`
	KeyPrefix  string       `json:"key_prefix"`
	Scopes     []auth.Scope `json:"scopes"`
	CreatedBy  *uuid.UUID   `json:"created_by"`
	LastUsedAt *time.Time   `json:"last_used_at"`
	ExpiresAt  *time.Time   `json:"expires_at"`
	CreatedAt  time.Time    `json:"created_at"`
	UpdatedAt  time.Time    `json:"updated_at"`
	RawKey     string       `json:"raw_key"`
}

// key decodes an ApiKey body.
func (r *response) key(t testing.TB) apiKey {
	t.Helper()
	var k apiKey
	r.decode(t, &k)
	return k
}

// envelope is SPEC.md's error envelope.
type envelope struct {
	Error struct {
		Code    errcode.Code `json:"code"`
		Message string       `json:"message"`
		Details *struct {
			Fields []errcode.FieldError `json:"fields"`
		} `json:"details"`
	} `json:"error"`
}

// fields returns the names in details.fields.
func (e envelope) fields() []string {
	if e.Error.Details == nil {
		return nil
	}
	var names []string
	for _, f := range e.Error.Details.Fields {
		names = append(names, f.Field)
	}
	return names
}

// assertError asserts that r is the error envelope with status and code, a
// JSON body with the single member "error" holding a code and a non-empty
// message, and returns the envelope.
func assertError(t testing.TB, r *response, status int, code errcode.Code) envelope {
	t.Helper()
	var e envelope
	if !assert.Equal(t, status, r.status, "status; body: %s", r.body) {
		return e
	}
	assert.True(t, strings.HasPrefix(r.header.Get("Content-Type"), "application/json"), "Content-Type %q", r.header.Get("Content-Type"))
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.body, &top), "body: %s", r.body)
	assert.Len(t, top, 1, "the envelope has only the member error: %s", r.body)
	r.decode(t, &e)
	assert.Equal(t, code, e.Error.Code, "code; body: %s", r.body)
	assert.NotEmpty(t, e.Error.Message, "message")
	return e
}

// assertFields asserts that the validation error names exactly the fields
// want, in any order.
func assertFields(t testing.TB, e envelope, want ...string) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	require.NotNil(t, e.Error.Details, "details")
	for _, f := range e.Error.Details.Fields {
		assert.NotEmpty(t, f.Message, "message of field %s", f.Field)
	}
	assert.ElementsMatch(t, want, e.fields())
}

// bodyJSON marshals v for a request body.
func bodyJSON(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.NewEncoder(&b).Encode(v))
	return b.String()
}

func keyPath(id uuid.UUID) string { return "/v1/keys/" + id.String() }

func orgPath(id uuid.UUID) string { return "/v1/organizations/" + id.String() }
