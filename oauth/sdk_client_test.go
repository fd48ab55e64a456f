package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestGoSDKOAuthClient lets the go-sdk's own OAuth client
// (auth.AuthorizationCodeHandler) do everything a desktop client does:
// react to the 401, read both metadata documents, register, build the
// authorization URL with PKCE and the resource, check iss and exchange the
// code. Only the browser (sign-in and consent) is played by the test.
func TestGoSDKOAuthClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	redirect := "http://127.0.0.1:48123/callback"

	var authorizeURL *url.URL
	handler, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "SDK Desktop", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, err
			}
			authorizeURL = u
			back := b.consent(u.Query(), user.Email, o.ID.String())
			if back.Query().Get("code") == "" {
				return nil, errors.New("no code: " + back.String())
			}
			return &sdkauth.AuthorizationResult{Code: back.Query().Get("code"), State: back.Query().Get("state"), Iss: back.Query().Get("iss")}, nil
		},
	})
	require.NoError(t, err)

	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-oauth", Version: "1.0.0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: h.public + "/mcp", MaxRetries: -1,
		DisableStandaloneSSE: true, OAuthHandler: handler, HTTPClient: &http.Client{}}, nil)
	require.NoError(t, err)
	defer session.Close()

	require.NotNil(t, authorizeURL, "the client went through the browser")
	q := authorizeURL.Query()
	assert.Equal(t, h.public+"/mcp", q.Get("resource"), "the client sends the resource from the metadata")
	assert.Equal(t, "S256", q.Get("code_challenge_method"))

	tools, err := session.ListTools(t.Context(), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, tools.Tools)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_links", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.False(t, res.IsError, "%+v", res.Content)

	page := b.get("/account/connections")
	assert.Contains(t, page.body, "SDK Desktop")
}
