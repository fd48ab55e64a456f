package oauth_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
)

// bearer adds an access token to every request, as an MCP client does
// after the OAuth flow.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

var resourceMetadata = regexp.MustCompile(`resource_metadata="([^"]+)"`)

// TestEndToEndAsAnMCPClient drives the whole flow as a desktop MCP client
// does: the 401 of /mcp names the protected-resource metadata, which names
// the authorization server, whose metadata gives the endpoints; the client
// registers itself, sends the browser to the authorization endpoint with
// PKCE and the resource, the user signs in and consents, the client
// exchanges the code, lists and calls tools with the go-sdk client, and
// refreshes its token.
func TestEndToEndAsAnMCPClient(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *storeT) {
		h := newHarness(t, s)
		user, o := h.member(t, "Acme", auth.RoleOwner)
		b := h.browser(t)

		// Discovery from the 401.
		res := b.post("/mcp", url.Values{})
		require.Equal(t, http.StatusUnauthorized, res.status)
		m := resourceMetadata.FindStringSubmatch(res.header.Get("WWW-Authenticate"))
		require.NotNil(t, m, res.header.Get("WWW-Authenticate"))
		assert.Equal(t, h.public+"/.well-known/oauth-protected-resource/mcp", m[1])
		prm := b.get(m[1])
		require.Equal(t, http.StatusOK, prm.status)
		prmDoc := prm.json(t)
		resource := prmDoc["resource"].(string)
		assert.Equal(t, h.public+"/mcp", resource)
		issuer := prmDoc["authorization_servers"].([]any)[0].(string)
		assert.Equal(t, h.public, issuer)
		meta := b.get(issuer + "/.well-known/oauth-authorization-server").json(t)
		assert.Equal(t, issuer, meta["issuer"])
		assert.Equal(t, []any{"S256"}, meta["code_challenge_methods_supported"])
		assert.Equal(t, true, meta["authorization_response_iss_parameter_supported"])
		require.Equal(t, issuer+"/oauth/register", meta["registration_endpoint"])
		require.Equal(t, issuer+"/oauth/authorize", meta["authorization_endpoint"])
		require.Equal(t, issuer+"/oauth/token", meta["token_endpoint"])

		// Registration with a loopback redirect; the authorization request
		// uses another port, as a desktop client's listener does.
		clientID := b.registerPublic("http://127.0.0.1:33418/callback")
		redirect := "http://127.0.0.1:50123/callback"
		p := newPKCE()
		q := authorizeQuery(clientID, redirect, resource, p, "links:read links:write org:read")

		// Sign-in, consent, back to the client with code, state and iss.
		back := b.consent(q, user.Email, o.ID.String())
		assert.Equal(t, "127.0.0.1:50123", back.Host)
		assert.Equal(t, q.Get("state"), back.Query().Get("state"))
		assert.Equal(t, issuer, back.Query().Get("iss"))
		code := back.Query().Get("code")
		require.NotEmpty(t, code, back.String())

		// Code exchange.
		tok := b.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {resource}})
		require.Equal(t, http.StatusOK, tok.status, tok.body)
		tokens := tok.json(t)
		access := tokens["access_token"].(string)
		refresh := tokens["refresh_token"].(string)
		require.NotEmpty(t, refresh, "a refresh token without offline_access")
		assert.Equal(t, "links:read links:write org:read", tokens["scope"])

		grant, err := h.oauth.VerifyAccessToken(t.Context(), access, resource)
		require.NoError(t, err)
		assert.Equal(t, user.ID, grant.UserID)
		require.NotNil(t, grant.OrgID)
		assert.Equal(t, o.ID, *grant.OrgID)

		// tools/list and tools/call with the go-sdk client.
		sdkClient := func(token string) (*mcp.ClientSession, error) {
			c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1.0.0"}, nil)
			return c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: resource, MaxRetries: -1, DisableStandaloneSSE: true,
				HTTPClient: &http.Client{Transport: &bearer{token: token, next: http.DefaultTransport}}}, nil)
		}
		session, err := sdkClient(access)
		require.NoError(t, err)
		tools, err := session.ListTools(t.Context(), nil)
		require.NoError(t, err)
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
		}
		assert.Contains(t, names, "create_link")
		call, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_organizations", Arguments: map[string]any{}})
		require.NoError(t, err)
		assert.False(t, call.IsError, "%+v", call.Content)
		require.NoError(t, session.Close())

		// Refresh: a new pair; the new access token works.
		ref := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}, "resource": {resource}})
		require.Equal(t, http.StatusOK, ref.status, ref.body)
		refreshed := ref.json(t)
		assert.NotEqual(t, refresh, refreshed["refresh_token"], "the refresh token rotates")
		session, err = sdkClient(refreshed["access_token"].(string))
		require.NoError(t, err)
		_, err = session.ListTools(t.Context(), nil)
		require.NoError(t, err)
		require.NoError(t, session.Close())

		// The connection is listed on the account page.
		page := b.get("/account/connections")
		require.Equal(t, http.StatusOK, page.status)
		assert.Contains(t, page.body, "Test Desktop")
		assert.Contains(t, page.body, "Acme")
		assert.Contains(t, page.body, "links:read links:write org:read")
		assert.NotContains(t, page.body, "<td>never</td>", "the last use is recorded")

		// Revoking the connection there ends the token at /mcp at once.
		fresh := refreshed["access_token"].(string)
		g, err := h.oauth.VerifyAccessToken(t.Context(), fresh, resource)
		require.NoError(t, err)
		rev := b.post("/account/connections/revoke", url.Values{"csrf_token": {hiddenFields(page.body).Get("csrf_token")}, "id": {g.ConnectionID.String()}})
		require.Equal(t, http.StatusSeeOther, rev.status, rev.body)
		req, err := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+fresh)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res = b.do(req)
		require.Equal(t, http.StatusUnauthorized, res.status, res.body)
		assert.Contains(t, res.header.Get("WWW-Authenticate"), `error="invalid_token"`)
	})
}
