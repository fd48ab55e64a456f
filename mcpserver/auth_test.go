package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store/storetest"
)

// mcpScopes is the scope parameter of the 401 challenge: the scopes the
// tools use, as the metadata's scopes_supported lists them; no tool uses
// apps:write, keys:*, domains:*, org:delete or team:*.
const mcpScopes = "links:read links:write apps:read analytics:read org:read webhooks:read"

func mustAtoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "%q", s)
	return n
}

func callBody(tool string, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// v0618 is the protocol header of a stateless 2025-06-18 call.
func v0618(token string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2025-06-18"}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return h
}

func assertEnvelope(t testing.TB, body []byte, code errcode.Code) {
	t.Helper()
	var e envelope
	require.NoError(t, json.Unmarshal(body, &e), "body: %s", body)
	assert.Equal(t, code, e.Error.Code, "body: %s", body)
	assert.NotEmpty(t, e.Error.Message)
}

// TestChallenges proves the HTTP answers of the authentication layer:
// 401 challenges with the exact WWW-Authenticate text, invalid_token,
// insufficient_scope naming the tool's scopes, and SDK keys refused.
func TestChallenges(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	u := h.newUser(t)
	h.addMember(t, o, u, auth.RoleOwner)
	metadata := h.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	challenge := `Bearer resource_metadata="` + metadata + `", scope="` + mcpScopes + `"`
	readLinks := h.grants.issue(u.ID, &o.ID, auth.ScopeLinksRead)
	appsOnly := h.grants.issue(u.ID, &o.ID, auth.ScopeAppsRead)
	writer := h.grants.issue(u.ID, &o.ID, auth.ScopeLinksWrite)
	sdk := h.key(t, o, auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
	revoked := h.grants.issue(u.ID, &o.ID, auth.ScopeLinksRead)
	delete(h.grants.tokens, revoked)

	tests := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		header  string
		code    errcode.Code
	}{
		{name: "no credentials: 401 with the resource metadata and every scope",
			headers: v0618(""), body: callBody("list_links", `{}`),
			status: http.StatusUnauthorized, header: challenge, code: errcode.Unauthorized},
		{name: "a scheme that is not Bearer is invalid_token",
			headers: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, body: callBody("list_links", `{}`),
			status: http.StatusUnauthorized, header: challenge + `, error="invalid_token"`, code: errcode.Unauthorized},
		{name: "an unknown API key is invalid_token",
			headers: v0618("svc_live_0123456789abcdefghijklmnopqrstuv"), body: callBody("list_links", `{}`),
			status: http.StatusUnauthorized, header: challenge + `, error="invalid_token"`, code: errcode.Unauthorized},
		{name: "an unknown OAuth token is invalid_token",
			headers: v0618("not-a-token"), body: callBody("list_links", `{}`),
			status: http.StatusUnauthorized, header: challenge + `, error="invalid_token"`, code: errcode.Unauthorized},
		{name: "a revoked or expired OAuth token is invalid_token",
			headers: v0618(revoked), body: callBody("list_links", `{}`),
			status: http.StatusUnauthorized, header: challenge + `, error="invalid_token"`, code: errcode.Unauthorized},
		{name: "an OAuth token without the tool's scope is insufficient_scope naming that scope",
			headers: v0618(readLinks), body: callBody("create_link", `{"destination_url":"https://example.com"}`),
			status: http.StatusForbidden,
			header: `Bearer resource_metadata="` + metadata + `", scope="links:write", error="insufficient_scope"`,
			code:   errcode.Forbidden},
		{name: "insufficient_scope names every scope that would do for the installs list",
			headers: v0618(appsOnly), body: callBody("list_installs", `{}`),
			status: http.StatusForbidden,
			header: `Bearer resource_metadata="` + metadata + `", scope="analytics:read links:read", error="insufficient_scope"`,
			code:   errcode.Forbidden},
		{name: "insufficient_scope is checked in a batch too",
			headers: v0618(readLinks), body: `[` + callBody("list_links", `{}`) + `,` + callBody("delete_link", `{"id":"x"}`) + `]`,
			status: http.StatusForbidden,
			header: `Bearer resource_metadata="` + metadata + `", scope="links:write", error="insufficient_scope"`,
			code:   errcode.Forbidden},
		{name: "an SDK key is 403 SDK_KEY_ROUTE_FORBIDDEN",
			headers: v0618(sdk), body: callBody("list_links", `{}`),
			status: http.StatusForbidden, code: errcode.SDKKeyRouteForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := h.raw(t, http.MethodPost, tt.body, tt.headers)
			assert.Equal(t, tt.status, resp.StatusCode, "body: %s", body)
			assert.Equal(t, tt.header, resp.Header.Get("WWW-Authenticate"))
			assertEnvelope(t, body, tt.code)
		})
	}

	t.Run("a token with the scope gets through, links:write including links:read", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(writer))
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.Empty(t, resp.Header.Get("WWW-Authenticate"))
		assert.Contains(t, string(body), `"pagination"`)
	})
	t.Run("the token is checked against the canonical resource", func(t *testing.T) {
		assert.Contains(t, h.grants.checked, h.srv.URL+"/mcp")
		assert.Equal(t, h.srv.URL+"/mcp", h.mcp.Resource())
	})
	t.Run("an API key's call counts against the key's REST rate limit", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(o.key))
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.Equal(t, "60", resp.Header.Get("X-RateLimit-Limit"))
		before := resp.Header.Get("X-RateLimit-Remaining")
		status, _ := h.rest(t, http.MethodGet, "/v1/links", o.key, "")
		require.Equal(t, http.StatusOK, status)
		resp, _ = h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(o.key))
		assert.NotEqual(t, before, resp.Header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, "57", resp.Header.Get("X-RateLimit-Remaining"), "MCP and REST share one allowance")
	})
	t.Run("notifications do not count against the allowance", func(t *testing.T) {
		resp, _ := h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(o.key))
		before := resp.Header.Get("X-RateLimit-Remaining")
		for range 3 {
			resp, body := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, v0618(o.key))
			require.Less(t, resp.StatusCode, 300, "body: %s", body)
			assert.Empty(t, resp.Header.Get("X-RateLimit-Remaining"), "not counted")
		}
		resp, _ = h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(o.key))
		assert.Equal(t, mustAtoi(t, before)-1, mustAtoi(t, resp.Header.Get("X-RateLimit-Remaining")))
	})
	t.Run("past the key's allowance a tool call is a tool error saying when to retry", func(t *testing.T) {
		var resp *http.Response
		var body []byte
		for range 60 {
			resp, body = h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(o.key))
			if resp.Header.Get("Retry-After") != "" {
				break
			}
		}
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.NotEmpty(t, resp.Header.Get("Retry-After"))
		assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
		var rpc struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(body, &rpc), "body: %s", body)
		require.True(t, rpc.Result.IsError, "body: %s", body)
		require.Len(t, rpc.Result.Content, 1)
		var e envelope
		require.NoError(t, json.Unmarshal([]byte(rpc.Result.Content[0].Text), &e))
		assert.Equal(t, errcode.RateLimitExceeded, e.Error.Code)
		assert.Contains(t, e.Error.Message, "retry this call after "+resp.Header.Get("Retry-After")+" seconds")
		assert.EqualValues(t, mustAtoi(t, resp.Header.Get("Retry-After")), e.Error.Details["retry_after_seconds"])
	})
	t.Run("past the allowance any other request is 429 with Retry-After", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, v0618(o.key))
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.NotEmpty(t, resp.Header.Get("Retry-After"))
		assertEnvelope(t, body, errcode.RateLimitExceeded)
		resp, body = h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, v0618(o.key))
		assert.Less(t, resp.StatusCode, 300, "a notification still goes through: %s", body)
	})
	t.Run("the SDK client sees the 401 when it connects without credentials", func(t *testing.T) {
		_, err := h.connect(t, "", "2025-11-25")
		require.Error(t, err)
	})
}

// TestMethodsAndOrigins proves 405 with Allow: POST on GET and DELETE, and
// that a browser page on another site cannot drive the endpoint.
func TestMethodsAndOrigins(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		t.Run(method+" is 405", func(t *testing.T) {
			resp, body := h.raw(t, method, "", v0618(o.key))
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
			assert.Equal(t, "POST", resp.Header.Get("Allow"))
			assertEnvelope(t, body, errcode.MethodNotAllowed)
			assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
			assert.Equal(t, "60", resp.Header.Get("X-RateLimit-Limit"), "limited per client IP like REST's 405")
		})
	}
	cross := []map[string]string{
		{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
		{"Origin": "https://evil.example"},
	}
	for _, headers := range cross {
		t.Run("a cross-origin browser request is refused", func(t *testing.T) {
			hd := v0618(o.key)
			for k, v := range headers {
				hd[k] = v
			}
			resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), hd)
			assert.Equal(t, http.StatusForbidden, resp.StatusCode, "body: %s", body)
			assertEnvelope(t, body, errcode.Forbidden)
		})
	}
	t.Run("a same-origin browser request is served", func(t *testing.T) {
		hd := v0618(o.key)
		hd["Origin"] = h.srv.URL
		hd["Sec-Fetch-Site"] = "same-origin"
		resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), hd)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
	})
}

// TestOrganizationResolution is the org resolution matrix: API keys are
// bound to their organization, single-organization OAuth connections to
// theirs, all-organizations connections need org, and membership and role
// are read on every call.
func TestOrganizationResolution(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	a := h.newOrg(t, "Alpha")
	b := h.newOrg(t, "Beta")
	c := h.newOrg(t, "Gamma")
	h.newApp(t, a.ID)
	h.newApp(t, b.ID)
	u := h.newUser(t)
	h.addMember(t, a, u, auth.RoleOwner)
	h.addMember(t, b, u, auth.RoleMember)
	all := []auth.Scope{auth.ScopeLinksWrite, auth.ScopeAppsRead, auth.ScopeAnalyticsRead, auth.ScopeOrgRead}
	aLink := object(t, ok(t, call(t, h.session(t, a.key), "create_link", map[string]any{"destination_url": "https://a.example"})))
	bLink := object(t, ok(t, call(t, h.session(t, b.key), "create_link", map[string]any{"destination_url": "https://b.example"})))

	single := h.session(t, h.grants.issue(u.ID, &a.ID, all...))
	multi := h.session(t, h.grants.issue(u.ID, nil, all...))
	key := h.session(t, a.key)

	t.Run("an API key acts for its organization with org empty or equal", func(t *testing.T) {
		got := object(t, ok(t, call(t, key, "get_link", map[string]any{"id": aLink["id"]})))
		assert.Equal(t, aLink["id"], got["id"])
		ok(t, call(t, key, "get_link", map[string]any{"id": aLink["id"], "org": a.ID.String()}))
	})
	t.Run("an API key naming another organization is refused", func(t *testing.T) {
		toolError(t, call(t, key, "list_links", map[string]any{"org": b.ID.String()}), errcode.Forbidden)
	})
	t.Run("a single-organization connection acts for its organization", func(t *testing.T) {
		got := object(t, ok(t, call(t, single, "get_link", map[string]any{"id": aLink["id"]})))
		assert.Equal(t, aLink["id"], got["id"])
		ok(t, call(t, single, "list_links", map[string]any{"org": a.ID.String()}))
		toolError(t, call(t, single, "list_links", map[string]any{"org": b.ID.String()}), errcode.Forbidden)
		toolError(t, call(t, single, "get_link", map[string]any{"id": bLink["id"]}), errcode.NotFound)
	})
	t.Run("an all-organizations connection without org lists the organizations", func(t *testing.T) {
		e := toolError(t, call(t, multi, "list_links", map[string]any{}), errcode.ValidationError)
		assert.Contains(t, e.Error.Message, "Alpha ("+a.ID.String()+")")
		assert.Contains(t, e.Error.Message, "Beta ("+b.ID.String()+")")
		orgs := e.Error.Details["organizations"].([]any)
		require.Len(t, orgs, 2)
		assert.Equal(t, map[string]any{"id": a.ID.String(), "name": "Alpha", "role": "owner"}, orgs[0])
	})
	t.Run("an all-organizations connection acts for the org named", func(t *testing.T) {
		got := object(t, ok(t, call(t, multi, "get_link", map[string]any{"id": bLink["id"], "org": b.ID.String()})))
		assert.Equal(t, bLink["id"], got["id"])
		toolError(t, call(t, multi, "get_link", map[string]any{"id": bLink["id"], "org": a.ID.String()}), errcode.NotFound)
	})
	t.Run("an organization the user is not a member of is refused", func(t *testing.T) {
		e := toolError(t, call(t, multi, "list_links", map[string]any{"org": c.ID.String()}), errcode.ValidationError)
		assert.Len(t, e.Error.Details["organizations"], 2)
	})
	t.Run("the role applies: a member changes only their own links and reads no attempts", func(t *testing.T) {
		toolError(t, call(t, multi, "update_link", map[string]any{"id": bLink["id"], "org": b.ID.String(), "name": "x"}),
			errcode.Forbidden)
		toolError(t, call(t, multi, "list_attribution_attempts", map[string]any{"org": b.ID.String()}), errcode.Forbidden)
		own := object(t, ok(t, call(t, multi, "create_link", map[string]any{"org": b.ID.String(),
			"destination_url": "https://mine.example"})))
		ok(t, call(t, multi, "update_link", map[string]any{"id": own["id"], "org": b.ID.String(), "name": "mine"}))
		ok(t, call(t, multi, "list_attribution_attempts", map[string]any{"org": a.ID.String()}))
	})
	t.Run("list_organizations lists every organization of an all-organizations connection", func(t *testing.T) {
		got := object(t, ok(t, call(t, multi, "list_organizations", nil)))
		var ids []string
		for _, o := range got["data"].([]any) {
			ids = append(ids, o.(map[string]any)["id"].(string))
		}
		assert.ElementsMatch(t, []string{a.ID.String(), b.ID.String()}, ids)
		got = object(t, ok(t, call(t, single, "list_organizations", nil)))
		assert.Len(t, got["data"], 1)
	})
	t.Run("a removed member loses access at once", func(t *testing.T) {
		require.NoError(t, h.orgs.RemoveMember(context.Background(), a.ID, u.Email))
		toolError(t, call(t, single, "list_links", map[string]any{}), errcode.Forbidden)
		e := toolError(t, call(t, multi, "list_links", map[string]any{"org": a.ID.String()}), errcode.ValidationError)
		assert.Len(t, e.Error.Details["organizations"], 1, "only Beta is left")
		got := object(t, ok(t, call(t, multi, "list_organizations", nil)))
		assert.Len(t, got["data"], 1)
	})
}

// An access token checked against a database that stopped answering is
// 503 at the check's deadline, not a hang and not a 401.
func TestStalledTokenCheckIs503(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	u := h.newUser(t)
	h.addMember(t, o, u, auth.RoleMember)
	token := h.grants.issue(u.ID, &o.ID, auth.ScopeLinksRead)
	h.grants.mu.Lock()
	h.grants.stalled[token] = true
	h.grants.mu.Unlock()

	resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), v0618(token))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "body: %s", body)
	assertEnvelope(t, body, errcode.ServiceUnavailable)
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
}
