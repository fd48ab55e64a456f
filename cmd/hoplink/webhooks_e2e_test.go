package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi/apitest"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/webhook"
)

// delivered is one request a webhook receiver got.
type delivered struct {
	header http.Header
	body   []byte
	typ    string
	data   map[string]any
}

// hookReceiver is a plain-HTTP webhook receiver on loopback that records
// every request and answers 204 (500 to the first failFirst requests).
type hookReceiver struct {
	*httptest.Server
	failFirst int
	mu        sync.Mutex
	got       []delivered
	grew      chan struct{} // closed, and replaced, on every request
}

func newHookReceiver(t *testing.T) *hookReceiver { return newFailingHookReceiver(t, 0) }

// newFailingHookReceiver returns a receiver that answers 500 to its first
// failFirst requests, then 204.
func newFailingHookReceiver(t *testing.T, failFirst int) *hookReceiver {
	t.Helper()
	rc := &hookReceiver{failFirst: failFirst, grew: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		d := delivered{header: r.Header.Clone(), body: body}
		var env struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if json.Unmarshal(body, &env) == nil {
			d.typ, d.data = env.Type, env.Data
		}
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		fail := len(rc.got) <= rc.failFirst
		close(rc.grew)
		rc.grew = make(chan struct{})
		rc.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *hookReceiver) snapshot() ([]delivered, <-chan struct{}) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivered(nil), rc.got...), rc.grew
}

// waitFor returns the first delivery of type typ, waiting for it within
// processLimit.
func (rc *hookReceiver) waitFor(t *testing.T, srv *server, typ string) delivered {
	t.Helper()
	limit := time.NewTimer(processLimit)
	defer limit.Stop()
	for {
		got, grew := rc.snapshot()
		for _, d := range got {
			if d.typ == typ {
				return d
			}
		}
		select {
		case <-grew:
		case <-srv.exited:
			t.Fatalf("hoplink exited before delivering %s\nstderr: %s", typ, srv.stderr)
		case <-limit.C:
			t.Fatalf("no %s delivered within %v; got %d deliveries\nstderr: %s", typ, processLimit, len(got), srv.stderr)
		}
	}
}

// standardSignature checks header against the Standard Webhooks scheme,
// computed here from the specification rather than by package webhook:
// webhook-signature holds "v1," and the base64 HMAC-SHA256, keyed with the
// base64-decoded secret after "whsec_", of "{webhook-id}.{webhook-timestamp}.{body}".
func standardSignature(t *testing.T, secret string, header http.Header, body []byte) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(header.Get("webhook-id") + "." + header.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	assert.Contains(t, strings.Fields(header.Get("webhook-signature")), want, "signed per Standard Webhooks")
}

// ipv4 finds anything that looks like an IPv4 address in a payload.
var ipv4 = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// Every event type reaches a real receiver from a `hoplink serve` process,
// each caused by a change made through the HTTP API (or, where the
// operator makes it, the CLI on the same database): one delivery per
// change, signed as Standard Webhooks says, each body valid against its
// WebhookEvent schema of the OpenAPI document, none carrying an IP
// address or a user agent.
func TestEveryEventTypeIsDeliveredOnceSigned(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the hoplink binary; skipped with -short")
	}
	clearEnv(t)
	bin := buildHoplink(t)
	dns := dnstest.Start(t)
	dns.SetCNAME("links.acme.test", "cname.hop.localhost") // the default --cname-target
	rc := newHookReceiver(t)
	validator := apitest.NewValidator(t)

	db := filepath.Join(t.TempDir(), "hoplink.db")
	out, errOut, code := runBinary(t, bin, "org", "create", "--db", db, "--name", "Acme", "--plan", "growth", "--json")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	var created struct {
		Organization struct {
			ID string `json:"id"`
		} `json:"organization"`
		APIKey struct {
			RawKey string `json:"raw_key"`
		} `json:"api_key"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	orgID, key := created.Organization.ID, created.APIKey.RawKey
	user := ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "ann@acme.test", "--password-stdin", "--json")
	userID := requireUUID(t, user["id"])

	srv := startServe(t, bin, "--db", db, "--no-bootstrap", "--dns-server", dns.Addr,
		"--trusted-proxies", "127.0.0.1/32", "--webhook-allow-private")
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	types := make([]string, 0, len(webhook.Types()))
	for _, typ := range webhook.Types() {
		types = append(types, string(typ))
	}
	hookBody, err := json.Marshal(map[string]any{"url": rc.URL + "/hoplink", "events": types})
	require.NoError(t, err)
	srv.call(t, key, http.MethodPost, "/v1/webhooks", string(hookBody), http.StatusCreated, &hook)

	// link.created, link.updated
	var app struct {
		ID string `json:"id"`
	}
	srv.call(t, key, http.MethodPost, "/v1/apps", `{"name":"Acme Shop","android_package_name":"com.acme.shop",`+
		`"android_play_store_url":"https://play.google.com/store/apps/details?id=com.acme.shop"}`, http.StatusCreated, &app)
	var link struct {
		ID       string `json:"id"`
		Domain   string `json:"domain"`
		ShortURL string `json:"short_url"`
	}
	srv.call(t, key, http.MethodPost, "/v1/links", `{"destination_url":"https://shop.example/spring","slug":"spring","app_id":"`+app.ID+`"}`,
		http.StatusCreated, &link)
	srv.call(t, key, http.MethodPatch, "/v1/links/"+link.ID, `{"name":"Spring sale"}`, http.StatusOK, nil)

	// link.clicked: a visitor on Android, whose address and user agent the
	// click stores and no payload may carry.
	const visitorIP = "198.51.100.23"
	const visitorUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
	req, err := http.NewRequest(http.MethodGet, "http://"+srv.addr+"/spring", nil)
	require.NoError(t, err)
	req.Host = link.Domain
	req.Header.Set("User-Agent", visitorUA)
	req.Header.Set("X-Forwarded-For", visitorIP)
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := noRedirect.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	playStore, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	clickID, found := strings.CutPrefix(playStore.Query().Get("referrer"), "hop_click_id=")
	require.True(t, found, "the Play Store target names the click: %s", playStore)
	clicked := rc.waitFor(t, srv, "link.clicked") // the click is stored: attribution can read it

	// install.attributed, install.unattributed
	var sdk struct {
		RawKey string `json:"raw_key"`
	}
	srv.call(t, key, http.MethodPost, "/v1/keys", `{"name":"android","type":"sdk"}`, http.StatusCreated, &sdk)
	match := func(body string, into any) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://"+srv.addr+"/v1/attribution/match", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+sdk.RawKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Service-App-Id", "com.acme.shop")
		req.Header.Set("User-Agent", visitorUA)
		req.Header.Set("X-Forwarded-For", visitorIP)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
		require.NoError(t, json.Unmarshal(b, into), "%s", b)
	}
	var matched struct {
		Matched   bool   `json:"matched"`
		InstallID string `json:"install_id"`
	}
	match(`{"platform":"android","fingerprint_version":"basic","sdk_version":"1.0.0","referrer":"hop_click_id=`+clickID+`"}`, &matched)
	require.True(t, matched.Matched, "the referrer's click matches")
	var unmatched struct {
		Matched bool `json:"matched"`
	}
	match(`{"platform":"ios","fingerprint_version":"basic","sdk_version":"1.0.0"}`, &unmatched)
	require.False(t, unmatched.Matched, "no iOS click to match")

	// domain.verified
	var domain struct {
		ID       string `json:"id"`
		Verified bool   `json:"verified"`
	}
	srv.call(t, key, http.MethodPost, "/v1/domains", `{"domain":"links.acme.test"}`, http.StatusCreated, &domain)
	srv.call(t, key, http.MethodPost, "/v1/domains/"+domain.ID+"/verify", "", http.StatusOK, &domain)
	require.True(t, domain.Verified)

	// member.joined (the operator's CLI), member.removed (the API)
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "ann@acme.test", "--role", "member", "--json")
	srv.call(t, key, http.MethodDelete, "/v1/members/"+userID, "", http.StatusOK, nil)

	// link.deleted
	srv.call(t, key, http.MethodDelete, "/v1/links/"+link.ID, "", http.StatusOK, nil)

	// domain.suspended, domain.restored: the operator moves the
	// organization to a plan without custom domains, and back.
	ok(t, "", "org", "set-plan", orgID, "free", "--db", db, "--json")
	ok(t, "", "org", "set-plan", orgID, "growth", "--db", db, "--json")

	// ping
	srv.call(t, key, http.MethodPost, "/v1/webhooks/"+hook.ID+"/test", "", http.StatusAccepted, nil)

	byType := map[string]delivered{}
	for _, typ := range append(types, "ping") {
		byType[typ] = rc.waitFor(t, srv, typ)
	}

	// Every delivery recorded as one successful attempt: none will be sent
	// again, so what the receiver holds now is all it gets.
	var deliveries struct {
		Data []struct {
			EventID   string `json:"event_id"`
			EventType string `json:"event_type"`
			Status    string `json:"status"`
			Attempts  int    `json:"attempts"`
		} `json:"data"`
	}
	deadline := time.Now().Add(processLimit)
	for {
		srv.call(t, key, http.MethodGet, "/v1/webhooks/"+hook.ID+"/deliveries?limit=100", "", http.StatusOK, &deliveries)
		done := len(deliveries.Data) > 0
		for _, d := range deliveries.Data {
			done = done && d.Status == "succeeded"
		}
		if done || time.Now().After(deadline) {
			break
		}
		select { // the worker records each outcome after the receiver answers
		case <-srv.exited:
			t.Fatalf("hoplink exited\nstderr: %s", srv.stderr)
		case <-time.After(100 * time.Millisecond):
		}
	}
	got, _ := rc.snapshot()
	require.Len(t, deliveries.Data, len(types)+1, "one delivery per change: %+v", deliveries.Data)
	require.Len(t, got, len(types)+1, "each delivered once")
	seen := map[string]bool{}
	for _, d := range deliveries.Data {
		assert.Equal(t, "succeeded", d.Status, "%s", d.EventType)
		assert.Equal(t, 1, d.Attempts, "%s", d.EventType)
		assert.False(t, seen[d.EventType], "one %s", d.EventType)
		seen[d.EventType] = true
	}

	for _, d := range got {
		t.Run(d.typ, func(t *testing.T) {
			standardSignature(t, hook.Secret, d.header, d.body)
			require.NoError(t, webhook.Verify(hook.Secret, d.header, d.body))
			validator.For(t).WebhookBody(d.body)
			assert.Empty(t, ipv4.FindAllString(string(d.body), -1), "no IP address: %s", d.body)
			for _, ua := range []string{visitorUA, "Mozilla", "Android 14", "Chrome/", "user_agent"} {
				assert.NotContains(t, string(d.body), ua, "no user agent")
			}
		})
	}

	// What each payload is about.
	clicks, _ := clicked.data["clicks"].([]any)
	require.Len(t, clicks, 1, "one click, one link.clicked")
	assert.Equal(t, clickID, clicks[0].(map[string]any)["click_id"])
	assert.Equal(t, matched.InstallID, byType["install.attributed"].data["install_id"])
	assert.Equal(t, clickID, byType["install.attributed"].data["click_id"])
	assert.Equal(t, "android", byType["install.attributed"].data["platform"])
	assert.Equal(t, "ios", byType["install.unattributed"].data["platform"])
	for _, typ := range []string{"link.created", "link.updated", "link.deleted"} {
		assert.Equal(t, link.ID, byType[typ].data["id"], typ)
	}
	assert.Equal(t, "Spring sale", byType["link.updated"].data["name"])
	for _, typ := range []string{"domain.verified", "domain.suspended", "domain.restored"} {
		assert.Equal(t, domain.ID, byType[typ].data["id"], typ)
	}
	assert.NotNil(t, byType["domain.suspended"].data["suspended_at"])
	assert.Nil(t, byType["domain.restored"].data["suspended_at"])
	for _, typ := range []string{"member.joined", "member.removed"} {
		assert.Equal(t, userID, byType[typ].data["user_id"], typ)
		assert.Equal(t, "ann@acme.test", byType[typ].data["email"], typ)
	}
	assert.Equal(t, hook.ID, byType["ping"].data["webhook_id"])
}
