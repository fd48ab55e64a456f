package httpapi_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

// newWebhookHarness serves /v1/webhooks; allowPrivate is the operator's
// --webhook-allow-private.
func newWebhookHarness(t *testing.T, allowPrivate bool) *harness {
	t.Helper()
	return newHarness(t, storetest.SQLite(t), withAPI(func(h *harness, o *httpapi.Options) {
		svc, err := webhook.NewService(h.store, cursorSecret, webhook.ServiceOptions{AllowPrivate: allowPrivate, Clock: h.clock.Now})
		require.NoError(t, err)
		o.Webhooks = svc
	}))
}

type webhookBody struct {
	ID                      string   `json:"id"`
	URL                     string   `json:"url"`
	Events                  []string `json:"events"`
	Enabled                 bool     `json:"enabled"`
	Secret                  string   `json:"secret"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
}

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	h := newWebhookHarness(t, true)
	o := h.newOrg(t, "Acme")
	key := o.key.raw

	r := h.post(t, key, "/v1/webhooks", `{"url":"https://hooks.example.com/in","events":["link.created","install.attributed"],"description":"crm"}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var created webhookBody
	r.decode(t, &created)
	assert.True(t, strings.HasPrefix(created.Secret, "whsec_"), "the secret, once")
	assert.Equal(t, []string{"install.attributed", "link.created"}, created.Events)
	path := "/v1/webhooks/" + created.ID

	r = h.get(t, key, path)
	require.Equal(t, http.StatusOK, r.status)
	assert.NotContains(t, string(r.body), "secret\"", "never read back")
	r = h.get(t, key, "/v1/webhooks")
	require.Equal(t, http.StatusOK, r.status)
	var list struct{ Data []webhookBody }
	r.decode(t, &list)
	assert.Len(t, list.Data, 1)

	r = h.do(t, request{method: http.MethodPatch, path: path, key: key, body: `{"enabled":false,"link_ids":null}`})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var patched webhookBody
	r.decode(t, &patched)
	assert.False(t, patched.Enabled)

	r = h.post(t, key, path+"/rotate-secret", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var rotated webhookBody
	r.decode(t, &rotated)
	assert.NotEqual(t, created.Secret, rotated.Secret)
	assert.NotNil(t, rotated.PreviousSecretExpiresAt)

	r = h.post(t, key, path+"/test", "")
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	var ping struct {
		ID        string `json:"id"`
		EventType string `json:"event_type"`
		Status    string `json:"status"`
	}
	r.decode(t, &ping)
	assert.Equal(t, "ping", ping.EventType)
	assert.Equal(t, "pending", ping.Status)

	r = h.get(t, key, path+"/deliveries?limit=1")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = h.post(t, key, path+"/deliveries/"+ping.ID+"/retry", "")
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)

	r = h.delete(t, key, path)
	require.Equal(t, http.StatusOK, r.status)
	assertError(t, h.get(t, key, path), http.StatusNotFound, errcode.NotFound)
}

func TestWebhookEndpointErrors(t *testing.T) {
	t.Parallel()
	h := newWebhookHarness(t, false)
	o := h.newOrg(t, "Acme")
	other := h.newOrg(t, "Other")
	member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeWebhooksRead).raw
	r := h.post(t, o.key.raw, "/v1/webhooks", `{"url":"https://203.0.113.9/in","events":["link.created"]}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var hook webhookBody
	r.decode(t, &hook)
	path := "/v1/webhooks/" + hook.ID

	tests := []struct {
		name   string
		req    request
		status int
		code   errcode.Code
		fields []string
	}{
		{"a loopback URL is refused without the flag", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw,
			body: `{"url":"https://127.0.0.1/in","events":["link.created"]}`}, 400, errcode.ValidationError, []string{"url"}},
		{"the metadata address is refused", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw,
			body: `{"url":"https://169.254.169.254/latest","events":["link.created"]}`}, 400, errcode.ValidationError, []string{"url"}},
		{"plain http is refused without the flag", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw,
			body: `{"url":"http://203.0.113.9/in","events":["link.created"]}`}, 400, errcode.ValidationError, []string{"url"}},
		{"missing fields", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw, body: `{}`, off: true},
			400, errcode.ValidationError, []string{"url", "events"}},
		{"an unknown event type", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw, off: true,
			body: `{"url":"https://203.0.113.9/in","events":["link.exploded"]}`}, 400, errcode.ValidationError, []string{"events"}},
		{"an unknown field", request{method: http.MethodPost, path: "/v1/webhooks", key: o.key.raw, off: true,
			body: `{"url":"https://203.0.113.9/in","events":["link.created"],"secret":"mine"}`}, 400, errcode.ValidationError, nil},
		{"a malformed id", request{method: http.MethodGet, path: "/v1/webhooks/nope", key: o.key.raw}, 400, errcode.InvalidID, nil},
		{"a malformed delivery id", request{method: http.MethodPost, path: path + "/deliveries/nope/retry", key: o.key.raw},
			400, errcode.InvalidID, nil},
		{"another organization's webhook", request{method: http.MethodGet, path: path, key: other.key.raw}, 404, errcode.NotFound, nil},
		{"another organization's deliveries", request{method: http.MethodGet, path: path + "/deliveries", key: other.key.raw},
			404, errcode.NotFound, nil},
		{"an unknown delivery", request{method: http.MethodPost, path: path + "/deliveries/" + hook.ID + "/retry", key: o.key.raw},
			404, errcode.NotFound, nil},
		{"a member may not create", request{method: http.MethodPost, path: "/v1/webhooks", key: member,
			body: `{"url":"https://203.0.113.9/in","events":["link.created"]}`}, 403, errcode.Forbidden, nil},
		{"a member may not rotate", request{method: http.MethodPost, path: path + "/rotate-secret", key: member}, 403, errcode.Forbidden, nil},
		{"a bad cursor", request{method: http.MethodGet, path: path + "/deliveries?cursor=abc", key: o.key.raw}, 400, errcode.CursorInvalid, nil},
		{"an unknown query parameter", request{method: http.MethodGet, path: path + "/deliveries?page=2", key: o.key.raw, off: true},
			400, errcode.ValidationError, []string{"page"}},
		{"a limit out of range", request{method: http.MethodGet, path: path + "/deliveries?limit=0", key: o.key.raw, off: true},
			400, errcode.ValidationError, []string{"limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := assertError(t, h.do(t, tt.req), tt.status, tt.code)
			assertFields(t, e, tt.fields...)
		})
	}
	r = h.get(t, member, "/v1/webhooks")
	assert.Equal(t, http.StatusOK, r.status, "members read")
}

// The events of changes made through the API reach a real receiver, once
// each, signed with the secret the create answered.
func TestChangesThroughTheAPIAreDeliveredSigned(t *testing.T) {
	t.Parallel()
	type received struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var got []received
	receiver := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Clone(), body})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	pool := x509.NewCertPool()
	pool.AddCert(receiver.Certificate())

	var worker *webhook.Worker
	h := newHarness(t, storetest.SQLite(t), withAPI(func(h *harness, o *httpapi.Options) {
		o.Links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain, ShortURLBase: "http://{domain}:8080", Clock: h.clock.Now})
		svc, err := webhook.NewService(h.store, cursorSecret, webhook.ServiceOptions{AllowPrivate: true, Clock: h.clock.Now})
		require.NoError(t, err)
		o.Webhooks = svc
		worker, err = webhook.NewWorker(h.store, cursorSecret, webhook.WorkerOptions{Clock: h.clock.Now,
			Client: webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, TLS: &tls.Config{RootCAs: pool}})})
		require.NoError(t, err)
	}))
	o := h.newOrg(t, "Acme")
	h.newApp(t, o.ID)
	key := o.key.raw
	r := h.post(t, key, "/v1/webhooks", bodyJSON(t, map[string]any{"url": receiver.URL,
		"events": []string{"link.created", "link.updated", "link.deleted"}}))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var hook webhookBody
	r.decode(t, &hook)

	r = h.post(t, key, "/v1/links", `{"destination_url":"https://example.com/","slug":"spring"}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var link struct {
		ID       string `json:"id"`
		ShortURL string `json:"short_url"`
	}
	r.decode(t, &link)
	r = h.do(t, request{method: http.MethodPatch, path: "/v1/links/" + link.ID, key: key, body: `{"name":"Spring sale"}`})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Equal(t, http.StatusOK, h.delete(t, key, "/v1/links/"+link.ID).status)

	h.clock.Advance(24 * time.Hour) // every event is due, whatever the store's clock said
	for {
		n, err := worker.RunOnce(t.Context())
		require.NoError(t, err)
		if n == 0 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 3, "one delivery per change")
	var types []string
	ids := map[string]bool{}
	for _, g := range got {
		require.NoError(t, webhook.VerifyAt(hook.Secret, g.header, g.body, h.clock.Now()))
		var body struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal(g.body, &body))
		types = append(types, body.Type)
		assert.Equal(t, link.ID, body.Data["id"])
		ids[g.header.Get("webhook-id")] = true
		if body.Type == "link.created" {
			assert.Equal(t, link.ShortURL, body.Data["short_url"])
		}
	}
	assert.ElementsMatch(t, []string{"link.created", "link.updated", "link.deleted"}, types)
	assert.Len(t, ids, 3, "each event has its own id")
}
