package apitest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/httpapi/apitest"
)

// recorder is a testing.TB that records Errorf calls instead of failing, so
// that a test can assert what the Validator reports.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func (r *recorder) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

const (
	keyID = "0190b7a4-6d1e-7a3b-8c2d-4e5f6a7b8c9d"
	orgID = "0190b7a3-0f1e-7d2c-8b3a-495867a6b5c4"
)

const validKey = `{"id":"` + keyID + `","type":"api","name":"CI","app_id":null,"key_prefix":"svc_live_",` +
	`"scopes":["links:read","links:write"],"created_by":null,"last_used_at":null,"expires_at":null,` +
	`"created_at":"2026-03-01T12:00:00.000Z","updated_at":"2026-03-01T12:00:00.000Z"}`

// answer is what the fake server sends back.
type answer struct {
	status  int
	headers map[string]string
	body    string
}

// serve starts a server that answers every request with a, adding the
// headers the document says every /v1 response carries unless a overrides them.
func serve(t *testing.T, a answer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("X-Request-Id", "req-1")
		h.Set("X-RateLimit-Limit", "60")
		h.Set("X-RateLimit-Remaining", "59")
		h.Set("X-RateLimit-Reset", "30")
		if a.body != "" {
			h.Set("Content-Type", "application/json; charset=utf-8")
		}
		for k, v := range a.headers {
			if v == "" {
				h.Del(k)
				continue
			}
			h.Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type call struct {
	method  string
	path    string
	body    string
	headers map[string]string
	off     bool
}

func (c call) request(t *testing.T, base string) *http.Request {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer svc_test_abcdefghijklmnopqrstuvwxyz012345")
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.off {
		req = apitest.OffContract(req)
	}
	return req
}

func TestValidatorReportsDrift(t *testing.T) {
	getKeys := call{method: http.MethodGet, path: "/v1/keys"}
	unauthorized := `{"error":{"code":"UNAUTHORIZED","message":"missing or invalid API key"}}`
	badRequest := `{"error":{"code":"VALIDATION_ERROR","message":"name: is required","details":{"fields":[{"field":"name","message":"is required"}]}}}`
	notFound := `{"error":{"code":"NOT_FOUND","message":"no such resource"}}`

	tests := []struct {
		name   string
		call   call
		answer answer
		// want is a fragment of the one report expected; empty for none.
		want string
	}{
		{
			name:   "a conforming key list passes",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[` + validKey + `]}`},
		},
		{
			name:   "an empty key list passes",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[]}`},
		},
		{
			name:   "rate-limit headers may be absent",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[]}`, headers: map[string]string{"X-RateLimit-Limit": "", "X-RateLimit-Remaining": "", "X-RateLimit-Reset": ""}},
		},
		{
			name:   "a key list without data fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{}`},
			want:   `property "data" is missing`,
		},
		{
			name:   "a key with a field the document lacks fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[` + strings.Replace(validKey, `"name":"CI"`, `"name":"CI","hash":"x"`, 1) + `]}`},
			want:   `"hash"`,
		},
		{
			name:   "a key without a nullable field fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[` + strings.Replace(validKey, `"created_by":null,`, ``, 1) + `]}`},
			want:   `property "created_by" is missing`,
		},
		{
			name:   "a key id that is not a UUID fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[` + strings.Replace(validKey, keyID, "42", 1) + `]}`},
			want:   "uuid",
		},
		{
			name:   "a time that is not RFC 3339 fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[` + strings.Replace(validKey, "2026-03-01T12:00:00.000Z", "2026-03-01 12:00", 1) + `]}`},
			want:   "date-time",
		},
		{
			name:   "a status the operation does not document fails",
			call:   getKeys,
			answer: answer{status: 409, body: `{"error":{"code":"SLUG_TAKEN","message":"taken"}}`},
			want:   "status is not supported",
		},
		{
			name:   "an error envelope without a code fails",
			call:   getKeys,
			answer: answer{status: 401, body: `{"error":{"message":"no"}}`},
			want:   `property "code" is missing`,
		},
		{
			name:   "an error code outside the list fails",
			call:   getKeys,
			answer: answer{status: 401, body: `{"error":{"code":"NOPE","message":"no"}}`},
			want:   "NOPE",
		},
		{
			name:   "an error that is not JSON fails",
			call:   getKeys,
			answer: answer{status: 401, body: "unauthorized", headers: map[string]string{"Content-Type": "text/plain"}},
			want:   "Content-Type",
		},
		{
			name:   "a 429 without Retry-After fails",
			call:   getKeys,
			answer: answer{status: 429, body: `{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"slow down"}}`},
			want:   `"Retry-After" missing`,
		},
		{
			name:   "a 429 with Retry-After passes",
			call:   getKeys,
			answer: answer{status: 429, body: `{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"slow down"}}`, headers: map[string]string{"Retry-After": "12"}},
		},
		{
			name:   "a 503 without Retry-After fails",
			call:   getKeys,
			answer: answer{status: 503, body: `{"error":{"code":"SERVICE_UNAVAILABLE","message":"later"}}`},
			want:   `"Retry-After" missing`,
		},
		{
			name:   "a rate-limit header that is not an integer fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[]}`, headers: map[string]string{"X-RateLimit-Remaining": "many"}},
			want:   "X-RateLimit-Remaining",
		},
		{
			name:   "a response without X-Request-Id fails",
			call:   getKeys,
			answer: answer{status: 200, body: `{"data":[]}`, headers: map[string]string{"X-Request-Id": ""}},
			want:   `"X-Request-Id" missing`,
		},
		{
			name:   "a created key with its raw value passes",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":"CI","scopes":["links:write"]}`},
			answer: answer{status: 201, body: strings.TrimSuffix(validKey, "}") + `,"raw_key":"svc_live_abcdefghijklmnopqrstuvwxyz012345"}`},
		},
		{
			name:   "a created key without its raw value fails",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":"CI","scopes":["links:write"]}`},
			answer: answer{status: 201, body: validKey},
			want:   `property "raw_key" is missing`,
		},
		{
			name:   "an SDK key request without scopes is on the contract",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":"iOS","type":"sdk","app_id":"` + orgID + `"}`},
			answer: answer{status: 400, body: `{"error":{"code":"VALIDATION_ERROR","message":"app_id: is not an app of this organization"}}`},
		},
		{
			name:   "a request body the document refuses fails",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"scopes":[]}`},
			answer: answer{status: 400, body: badRequest},
			want:   "request does not match",
		},
		{
			name:   "a request body with an unknown scope fails",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":"CI","scopes":["links:admin"]}`},
			answer: answer{status: 400, body: badRequest},
			want:   "request does not match",
		},
		{
			name:   "an off-contract request body is not checked",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":`, off: true},
			answer: answer{status: 400, body: badRequest},
		},
		{
			name:   "the answer to an off-contract request is still checked",
			call:   call{method: http.MethodPost, path: "/v1/keys", body: `{"name":`, off: true},
			answer: answer{status: 400, body: `{"code":"VALIDATION_ERROR"}`},
			want:   "response does not match",
		},
		{
			name:   "a body where the operation takes none fails",
			call:   call{method: http.MethodDelete, path: "/v1/keys/" + keyID, body: `{}`},
			answer: answer{status: 204},
			want:   "request body not allowed",
		},
		{
			name:   "a revoked key's 204 passes",
			call:   call{method: http.MethodDelete, path: "/v1/keys/" + keyID},
			answer: answer{status: 204},
		},
		{
			name:   "an undeclared query parameter fails",
			call:   call{method: http.MethodGet, path: "/v1/keys?limit=5"},
			answer: answer{status: 400, body: badRequest},
			want:   `query parameter "limit" is not declared`,
		},
		{
			name:   "an off-contract undeclared query parameter is not checked",
			call:   call{method: http.MethodGet, path: "/v1/keys?limit=5", off: true},
			answer: answer{status: 400, body: badRequest},
		},
		{
			name:   "a malformed path id reaches the server",
			call:   call{method: http.MethodGet, path: "/v1/keys/not-a-uuid"},
			answer: answer{status: 400, body: `{"error":{"code":"INVALID_ID","message":"id is not a valid UUID"}}`},
		},
		{
			name:   "deleting an organization without X-Confirmation-Name is on the contract",
			call:   call{method: http.MethodDelete, path: "/v1/organizations/" + orgID},
			answer: answer{status: 400, body: `{"error":{"code":"MISSING_CONFIRMATION","message":"send the name"}}`},
		},
		{
			name: "a deleted organization passes",
			call: call{method: http.MethodDelete, path: "/v1/organizations/" + orgID, headers: map[string]string{"X-Confirmation-Name": "Acme"}},
			answer: answer{status: 200, body: `{"id":"` + orgID + `","name":"Acme","slug":"acme","plan":"free","monthly_click_limit":10000,` +
				`"billing_period_start":"2026-03-01T00:00:00Z","created_at":"2026-03-01T00:00:00Z","updated_at":"2026-03-01T00:00:00Z"}`},
		},
		{
			name:   "an organization with an unknown plan fails",
			call:   call{method: http.MethodGet, path: "/v1/organizations/" + orgID},
			answer: answer{status: 200, body: `{"id":"` + orgID + `","name":"Acme","slug":"acme","plan":"gold","monthly_click_limit":10000,` + `"billing_period_start":"2026-03-01T00:00:00Z","created_at":"2026-03-01T00:00:00Z","updated_at":"2026-03-01T00:00:00Z"}`},
			want:   "gold",
		},
		{
			name:   "an SDK validation answer passes",
			call:   call{method: http.MethodGet, path: "/v1/sdk/validate"},
			answer: answer{status: 200, body: `{"valid":true,"org_id":"` + orgID + `"}`},
		},
		{
			name:   "a request the document has no operation for fails",
			call:   call{method: http.MethodGet, path: "/v1/nope"},
			answer: answer{status: 404, body: notFound},
			want:   "no operation GET /v1/nope",
		},
		{
			name:   "an unsupported method fails",
			call:   call{method: http.MethodPut, path: "/v1/keys"},
			answer: answer{status: 405, body: `{"error":{"code":"METHOD_NOT_ALLOWED","message":"no"}}`, headers: map[string]string{"Allow": "POST, GET"}},
			want:   "no operation PUT /v1/keys",
		},
		{
			name:   "an off-contract unknown path with an error envelope passes",
			call:   call{method: http.MethodGet, path: "/v1/nope", off: true},
			answer: answer{status: 404, body: notFound},
		},
		{
			name:   "an off-contract unknown path with a bare error fails",
			call:   call{method: http.MethodGet, path: "/v1/nope", off: true},
			answer: answer{status: 404, body: `{"message":"not found"}`},
			want:   `property "error" is missing`,
		},
		{
			name:   "an off-contract 405 with Allow passes",
			call:   call{method: http.MethodPut, path: "/v1/keys", off: true},
			answer: answer{status: 405, body: `{"error":{"code":"METHOD_NOT_ALLOWED","message":"no"}}`, headers: map[string]string{"Allow": "POST, GET, HEAD"}},
		},
		{
			name:   "an off-contract 405 with an empty Allow fails",
			call:   call{method: http.MethodPost, path: "/v1/openapi.json", off: true},
			answer: answer{status: 405, body: `{"error":{"code":"METHOD_NOT_ALLOWED","message":"no"}}`, headers: map[string]string{"Allow": " "}},
			want:   `"Allow"`,
		},
		{
			name:   "an off-contract error of another status is checked against the envelope",
			call:   call{method: http.MethodGet, path: "/v1/nope", off: true},
			answer: answer{status: 409, body: `{"error":{"code":"SLUG_TAKEN"}}`},
			want:   `property "message" is missing`,
		},
		{
			name:   "the document itself needs no key",
			call:   call{method: http.MethodGet, path: "/v1/openapi.json"},
			answer: answer{status: 200, body: `{"openapi":"3.0.3","info":{},"paths":{}}`},
		},
		{
			name:   "requests outside /v1 are not checked",
			call:   call{method: http.MethodGet, path: "/healthz"},
			answer: answer{status: 418, body: "teapot", headers: map[string]string{"Content-Type": "text/plain"}},
		},
		{
			name:   "unauthorized is documented on every key route",
			call:   call{method: http.MethodGet, path: "/v1/keys/" + keyID},
			answer: answer{status: 401, body: unauthorized},
		},
	}
	validator := apitest.NewValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.answer)
			rec := &recorder{TB: t}
			client := validator.For(rec).Client()
			resp, err := client.Do(tt.call.request(t, srv.URL))
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, tt.answer.status, resp.StatusCode)
			assert.Equal(t, tt.answer.body, string(body), "the caller reads the body the server sent")

			reports := rec.reports()
			if tt.want == "" {
				assert.Empty(t, reports)
				return
			}
			require.Len(t, reports, 1)
			assert.Contains(t, reports[0], tt.want)
			assert.Contains(t, reports[0], tt.call.method+" "+strings.Split(tt.call.path, "?")[0])
			assert.Contains(t, reports[0], fmt.Sprintf("-> %d", tt.answer.status))
		})
	}
}

func TestTransportSendsTheBodyUnchanged(t *testing.T) {
	const sent = `{"name":"CI","scopes":["links:read"]}`
	var got string
	var gotLength int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, gotLength = string(b), r.ContentLength
		w.Header().Set("X-Request-Id", "req-1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":"FORBIDDEN","message":"no"}}`)
	}))
	defer srv.Close()

	rec := &recorder{TB: t}
	client := apitest.NewValidator(rec).Client()
	req := call{method: http.MethodPost, path: "/v1/keys", body: sent}.request(t, srv.URL)
	resp, err := client.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, sent, got)
	assert.Equal(t, int64(len(sent)), gotLength)
	assert.Empty(t, rec.reports())
}

func TestTransportIsSafeForConcurrentUse(t *testing.T) {
	srv := serve(t, answer{status: 200, body: `{"data":[` + validKey + `]}`})
	rec := &recorder{TB: t}
	client := apitest.NewValidator(rec).Client()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 8 {
				resp, err := client.Do(call{method: http.MethodGet, path: "/v1/keys"}.request(t, srv.URL))
				if !assert.NoError(t, err) {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
	wg.Wait()
	assert.Empty(t, rec.reports())
}

// noKeys is a key store that is never asked: the requests below need no key.
type noKeys struct{ auth.KeyStore }

// The served document passes its own validator: GET /v1/openapi.json needs
// no key and no service, so the real handler can answer it here.
func TestServedDocumentMatchesItself(t *testing.T) {
	authn := auth.NewAuthenticator(noKeys{}, auth.AuthenticatorOptions{})
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Authenticator: authn}))
	defer srv.Close()
	rec := &recorder{TB: t}
	client := apitest.NewValidator(rec).Client()

	resp, err := client.Get(srv.URL + "/v1/openapi.json")
	require.NoError(t, err)
	var served map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&served))
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "3.0.3", served["openapi"])

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/no-such-path", nil)
	require.NoError(t, err)
	resp, err = client.Do(apitest.OffContract(req))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	assert.Empty(t, rec.reports())
}

func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, served, err := httpapi.OpenAPI()
	require.NoError(t, err, "httpapi.OpenAPI loads and validates openapi.yaml")
	require.NotEmpty(t, served)
	return doc
}

func TestOpenAPIDocumentLoadsAndValidates(t *testing.T) {
	doc := loadDocument(t)
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	assert.Equal(t, "1.0.0", doc.Info.Version)
	var servers []string
	for _, s := range doc.Servers {
		servers = append(servers, s.URL)
	}
	assert.Equal(t, []string{"http://localhost:8080/v1", "https://api.example.com/v1"}, servers)
	require.NotNil(t, doc.Components.SecuritySchemes["bearerAuth"])
	assert.Equal(t, "bearer", doc.Components.SecuritySchemes["bearerAuth"].Value.Scheme)

	// The operations the server has today.
	for _, op := range []struct{ method, path string }{
		{http.MethodPost, "/apps"},
		{http.MethodGet, "/apps"},
		{http.MethodGet, "/apps/{id}"},
		{http.MethodPatch, "/apps/{id}"},
		{http.MethodDelete, "/apps/{id}"},
		{http.MethodPost, "/keys"},
		{http.MethodGet, "/keys"},
		{http.MethodGet, "/keys/{id}"},
		{http.MethodDelete, "/keys/{id}"},
		{http.MethodGet, "/organizations/{id}"},
		{http.MethodDelete, "/organizations/{id}"},
		{http.MethodGet, "/sdk/validate"},
		{http.MethodGet, "/openapi.json"},
	} {
		item := doc.Paths.Value(op.path)
		if assert.NotNil(t, item, op.path) {
			assert.NotNil(t, item.GetOperation(op.method), "%s %s", op.method, op.path)
		}
	}
}

// A malformed id must reach the server, which answers 400 INVALID_ID, and a
// missing X-Confirmation-Name must too (400 MISSING_CONFIRMATION).
func TestParametersLetTheServerAnswer(t *testing.T) {
	doc := loadDocument(t)
	id := doc.Components.Parameters["Id"].Value
	assert.Equal(t, "id", id.Name)
	assert.Empty(t, id.Schema.Value.Format, "a path id has no format, so a malformed one reaches the server")
	confirm := doc.Components.Parameters["ConfirmationName"].Value
	assert.False(t, confirm.Required, "X-Confirmation-Name is not required in the document")
}

func TestErrorCodesAreErrcodeCodes(t *testing.T) {
	doc := loadDocument(t)
	var codes []errcode.Code
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		codes = append(codes, errcode.Code(v.(string)))
	}
	assert.Equal(t, errcode.Codes, codes)
}

func TestScopesAreAuthScopes(t *testing.T) {
	doc := loadDocument(t)
	var scopes []auth.Scope
	for _, v := range doc.Components.Schemas["Scope"].Value.Enum {
		scopes = append(scopes, auth.Scope(v.(string)))
	}
	assert.Equal(t, auth.AllScopes, scopes)
}

// ApiKeyWithRaw repeats ApiKey's properties (see the comment in
// openapi.yaml): they must stay the same.
func TestApiKeyWithRawIsApiKeyPlusRawKey(t *testing.T) {
	doc := loadDocument(t)
	key := doc.Components.Schemas["ApiKey"].Value
	withRaw := doc.Components.Schemas["ApiKeyWithRaw"].Value

	assert.Equal(t, append(slices.Clone(key.Required), "raw_key"), withRaw.Required)
	assert.Len(t, withRaw.Properties, len(key.Properties)+1)
	for name, prop := range key.Properties {
		want, err := json.Marshal(prop)
		require.NoError(t, err)
		got, err := json.Marshal(withRaw.Properties[name])
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "property %s", name)
	}
	require.Contains(t, withRaw.Properties, "raw_key")
	assert.False(t, withRaw.AdditionalProperties.Has == nil || *withRaw.AdditionalProperties.Has)
}

// Every documented /v1 response carries the headers every /v1 response has,
// and every /v1 error response is the Error envelope of a status some code
// maps to. Paths with servers of their own live outside /v1 (the OAuth
// endpoints answer in RFC 6749's error format); they are left out, except
// that such a path must say which servers it is on.
func TestResponsesDocumentTheCommonHeaders(t *testing.T) {
	doc := loadDocument(t)
	statuses := map[int]bool{}
	for _, code := range errcode.Codes {
		statuses[httperr.StatusOf(code)] = true
	}
	outside := 0
	for path, item := range doc.Paths.Map() {
		if len(item.Servers) > 0 {
			outside++
			for _, srv := range item.Servers {
				assert.False(t, strings.HasSuffix(srv.URL, "/v1"), "%s: a path with servers of its own lives outside /v1", path)
			}
			continue
		}
		for method, op := range item.Operations() {
			for status, ref := range op.Responses.Map() {
				where := method + " " + path + " " + status
				resp := ref.Value
				for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"} {
					if assert.Contains(t, resp.Headers, h, where) {
						assert.Equal(t, "#/components/headers/"+h, resp.Headers[h].Ref, where)
					}
				}
				var code int
				_, err := fmt.Sscan(status, &code)
				require.NoError(t, err, where)
				if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
					if assert.Contains(t, resp.Headers, "Retry-After", where) {
						assert.True(t, resp.Headers["Retry-After"].Value.Required, where)
					}
				}
				if code >= 400 {
					assert.True(t, statuses[code], "%s: no error code has status %d", where, code)
					assert.Equal(t, "#/components/schemas/Error", resp.Content.Get("application/json").Schema.Ref, where)
				}
			}
		}
	}
	assert.NotZero(t, outside, "the OAuth and MCP endpoints are documented outside /v1")
	allow := doc.Components.Responses["MethodNotAllowed"].Value.Headers["Allow"]
	require.NotNil(t, allow)
	assert.True(t, allow.Value.Required)
}

// A webhook body is checked against the WebhookEvent schema of its type:
// a body as the document describes it passes; one whose fields drift from
// the document is reported.
func TestWebhookBodyReportsDrift(t *testing.T) {
	t.Parallel()
	const member = `{"user_id":"` + keyID + `","email":"ana@acme.test","role":"member"}`
	tests := []struct {
		name, body string
		drift      bool
	}{
		{"as documented", `{"type":"member.joined","timestamp":"2026-03-01T12:00:00.000Z","data":` + member + `}`, false},
		{"ping", `{"type":"ping","timestamp":"2026-03-01T12:00:00.000Z","data":{"webhook_id":"` + keyID + `"}}`, false},
		{"an undocumented field", `{"type":"member.joined","timestamp":"2026-03-01T12:00:00.000Z","data":` +
			`{"user_id":"` + keyID + `","email":"ana@acme.test","role":"member","ip":"203.0.113.9"}}`, true},
		{"a missing field", `{"type":"member.removed","timestamp":"2026-03-01T12:00:00.000Z","data":` +
			`{"user_id":"` + keyID + `","role":"member"}}`, true},
		{"a wrong format", `{"type":"member.joined","timestamp":"yesterday","data":` + member + `}`, true},
		{"the data of another type", `{"type":"domain.verified","timestamp":"2026-03-01T12:00:00.000Z","data":` + member + `}`, true},
		{"an undocumented type", `{"type":"member.promoted","timestamp":"2026-03-01T12:00:00.000Z","data":` + member + `}`, true},
		{"not JSON", `{"type":`, true},
	}
	v := apitest.NewValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			v.For(rec).WebhookBody([]byte(tt.body))
			if tt.drift {
				assert.Len(t, rec.reports(), 1)
			} else {
				assert.Empty(t, rec.reports())
			}
		})
	}
}
