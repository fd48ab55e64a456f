package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/store/storetest"
)

// mcpScopes are the MCP tools' scopes, as the servers wire them.
func mcpScopes() []string {
	var out []string
	for _, s := range mcpserver.Scopes() {
		out = append(out, string(s))
	}
	return out
}

func withMCPScopes(o *oauth.Options) { o.Scopes = mcpScopes() }

// TestResourceMetadataNamesTheHostUsed proves that the protected-resource
// metadata of /mcp names the service host the client used (the TypeScript
// SDK checks that the resource is the URL it connected to), that any
// other host gets the canonical resource, and that the root document
// names the origin, not .../mcp (RFC 9728, section 3.3).
func TestResourceMetadataNamesTheHostUsed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	port := h.public[strings.LastIndex(h.public, ":")+1:]
	get := func(path, host string) map[string]any {
		req, err := http.NewRequest(http.MethodGet, h.public+path, nil)
		require.NoError(t, err)
		req.Host = host
		res := b.do(req)
		require.Equal(t, http.StatusOK, res.status, res.body)
		return res.json(t)
	}
	tests := []struct{ name, path, host, resource string }{
		{"the public host", "/.well-known/oauth-protected-resource/mcp", "127.0.0.1:" + port, h.public + "/mcp"},
		{"another service host and its port", "/.well-known/oauth-protected-resource/mcp", "localhost:" + port,
			"http://localhost:" + port + "/mcp"},
		{"a host that is no service host", "/.well-known/oauth-protected-resource/mcp", "other.example", h.public + "/mcp"},
		{"the root document names the origin", "/.well-known/oauth-protected-resource", "127.0.0.1:" + port, h.public},
		{"the root document on another service host", "/.well-known/oauth-protected-resource", "localhost:" + port,
			"http://localhost:" + port},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := get(tt.path, tt.host)
			assert.Equal(t, tt.resource, v["resource"])
			assert.Equal(t, []any{h.public}, v["authorization_servers"], "one issuer whatever the host")
		})
	}
}

// TestResourcesOfEveryServiceHostAreAccepted proves that a client that
// found the endpoint on another service host (or the root document's
// origin) may name that resource at the authorization and token
// endpoints, and gets a token for the canonical resource; a resource on
// another host or path is invalid_target.
func TestResourcesOfEveryServiceHostAreAccepted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	port := h.public[strings.LastIndex(h.public, ":")+1:]
	redirect := "http://127.0.0.1:40000/cb"
	clientID := b.registerPublic(redirect)
	for _, resource := range []string{"http://localhost:" + port + "/mcp", h.public, "http://localhost:" + port} {
		t.Run(resource, func(t *testing.T) {
			p := newPKCE()
			back := b.consent(authorizeQuery(clientID, redirect, resource, p, "links:read"), user.Email, o.ID.String())
			code := back.Query().Get("code")
			require.NotEmpty(t, code, back.String())
			res := b.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
				"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {resource}})
			require.Equal(t, http.StatusOK, res.status, res.body)
			_, err := h.oauth.VerifyAccessToken(context.Background(), res.json(t)["access_token"].(string), h.public+"/mcp")
			assert.NoError(t, err, "the token is for the canonical resource")
		})
	}
	for _, resource := range []string{"http://other.example:" + port + "/mcp", h.public + "/v1", h.public + "/mcp?x=1"} {
		t.Run("refused: "+resource, func(t *testing.T) {
			q := authorizeError(t, b, authorizeQuery(clientID, redirect, resource, newPKCE(), "links:read"))
			assert.Equal(t, "invalid_target", q.Get("error"))
		})
	}
}

// TestScopesAreTheToolsScopes proves that with the MCP tools' scopes the
// metadata, the registration default and the consent cover only them.
func TestScopesAreTheToolsScopes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t), withMCPScopes)
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	want := make([]any, 0)
	for _, s := range mcpScopes() {
		want = append(want, s)
	}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-protected-resource/mcp"} {
		v := b.get(path).json(t)
		assert.Equal(t, want, v["scopes_supported"], path)
		assert.NotContains(t, v["scopes_supported"], "org:delete", path)
	}
	res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://127.0.0.1:40000/cb"},
		"token_endpoint_auth_method": "none"})
	require.Equal(t, http.StatusCreated, res.status, res.body)
	assert.Equal(t, strings.Join(mcpScopes(), " "), res.json(t)["scope"])
	clientID := res.json(t)["client_id"].(string)

	t.Run("a consent without a scope grants the tools' scopes the role allows", func(t *testing.T) {
		back := b.consent(authorizeQuery(clientID, "http://127.0.0.1:40000/cb", "", newPKCE(), ""), user.Email, o.ID.String())
		assert.Equal(t, strings.Join(mcpScopes(), " "), back.Query().Get("scope"))
	})
	t.Run("asking for a scope no tool uses is invalid_scope", func(t *testing.T) {
		q := authorizeError(t, b, authorizeQuery(clientID, "http://127.0.0.1:40000/cb", "", newPKCE(), "links:read org:delete"))
		assert.Equal(t, "invalid_scope", q.Get("error"))
	})
}

// TestNativeClients proves that a public client may use a private-use URI
// scheme redirect (RFC 8252, section 7.1) through the whole flow, and that
// any non-empty state is accepted and returned.
func TestNativeClients(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	for _, redirect := range []string{"cursor://callback", "com.example.app:/oauth2redirect"} {
		t.Run(redirect, func(t *testing.T) {
			clientID := b.registerPublic(redirect)
			p := newPKCE()
			q := authorizeQuery(clientID, redirect, h.public+"/mcp", p, "links:read")
			q.Set("state", "x1")
			back := b.consent(q, user.Email, o.ID.String())
			assert.True(t, strings.HasPrefix(back.String(), redirect+"?"), back.String())
			assert.Equal(t, "x1", back.Query().Get("state"), "a state shorter than 8 characters is returned as sent")
			assert.Equal(t, h.public, back.Query().Get("iss"))
			res := b.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
				"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {p.verifier}})
			require.Equal(t, http.StatusOK, res.status, res.body)
		})
	}
	t.Run("PKCE stays required of a native client", func(t *testing.T) {
		clientID := b.registerPublic("cursor://callback")
		q := authorizeQuery(clientID, "cursor://callback", h.public+"/mcp", newPKCE(), "links:read")
		q.Del("code_challenge")
		q.Del("code_challenge_method")
		res := b.get("/oauth/authorize?" + q.Encode())
		require.Contains(t, []int{http.StatusFound, http.StatusSeeOther}, res.status, res.body)
		assert.Equal(t, "invalid_request", res.location(t).Query().Get("error"))
	})
}
