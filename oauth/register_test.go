package oauth_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/store/storetest"
)

const canonical = "https://hoplink.example/mcp"

func TestValidateRegistration(t *testing.T) {
	t.Parallel()
	refused := []struct {
		name string
		req  oauth.RegistrationRequest
		code string
	}{
		{"redirect_uris is required", oauth.RegistrationRequest{}, "invalid_redirect_uri"},
		{"http is refused off loopback", oauth.RegistrationRequest{RedirectURIs: []string{"http://app.example/cb"}}, "invalid_redirect_uri"},
		{"a private-use scheme is refused for a confidential client", oauth.RegistrationRequest{RedirectURIs: []string{"cursor://callback"}}, "invalid_redirect_uri"},
		{"javascript: is refused", public("javascript://cb/%0aalert(1)"), "invalid_redirect_uri"},
		{"data: is refused", public("data:/text/html,x"), "invalid_redirect_uri"},
		{"file: is refused", public("file:///etc/passwd"), "invalid_redirect_uri"},
		{"an opaque private-use URI is refused", public("com.example.app:cb"), "invalid_redirect_uri"},
		{"a private-use URI with a fragment is refused", public("cursor://callback#x"), "invalid_redirect_uri"},
		{"https without a host is refused", public("https:/cb"), "invalid_redirect_uri"},
		{"a relative URI is refused", oauth.RegistrationRequest{RedirectURIs: []string{"/cb"}}, "invalid_redirect_uri"},
		{"a fragment is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb#x"}}, "invalid_redirect_uri"},
		{"user information is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://u:p@app.example/cb"}}, "invalid_redirect_uri"},
		{"more than ten redirect URIs are refused", oauth.RegistrationRequest{RedirectURIs: []string{
			"https://a.example/1", "https://a.example/2", "https://a.example/3", "https://a.example/4", "https://a.example/5", "https://a.example/6",
			"https://a.example/7", "https://a.example/8", "https://a.example/9", "https://a.example/10", "https://a.example/11"}}, "invalid_redirect_uri"},
		{"an unknown auth method is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, TokenEndpointAuthMethod: "private_key_jwt"}, "invalid_client_metadata"},
		{"the implicit grant is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"implicit"}}, "invalid_client_metadata"},
		{"client_credentials is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"authorization_code", "client_credentials"}}, "invalid_client_metadata"},
		{"refresh alone is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"refresh_token"}}, "invalid_client_metadata"},
		{"response type token is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, ResponseTypes: []string{"token"}}, "invalid_client_metadata"},
		{"an unknown scope is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, Scope: "links:read admin"}, "invalid_client_metadata"},
		{"attribution:write is not requestable", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, Scope: "attribution:write"}, "invalid_client_metadata"},
		{"a control character in the name is refused", oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"}, ClientName: "a\nb"}, "invalid_client_metadata"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := oauth.ValidateRegistration(tt.req, canonical, nil)
			var re *oauth.RegistrationError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tt.code, re.Code)
		})
	}

	accepted := []struct {
		name   string
		uri    string
		method string
	}{
		{"https is accepted", "https://app.example/cb", "client_secret_basic"},
		{"http on 127.0.0.1 is accepted", "http://127.0.0.1:8765/cb", "client_secret_basic"},
		{"http on [::1] is accepted", "http://[::1]:8765/cb", "client_secret_basic"},
		{"http on localhost is accepted", "http://localhost:8765/cb", "client_secret_basic"},
		{"a private-use scheme with a host is accepted for a public client", "cursor://callback", "none"},
		{"a reverse-domain private-use scheme is accepted for a public client", "com.example.app:/oauth2redirect", "none"},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			req := oauth.RegistrationRequest{RedirectURIs: []string{tt.uri}}
			if tt.method == "none" {
				req = public(tt.uri)
			}
			c, err := oauth.ValidateRegistration(req, canonical, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.method, c.TokenEndpointAuthMethod, "the default method is client_secret_basic (RFC 7591)")
			assert.Equal(t, []string{canonical}, c.Audience, "every client has the canonical audience")
			assert.Equal(t, []string{"authorization_code", "refresh_token"}, c.GrantTypes)
			assert.Subset(t, c.Scopes, oauth.ScopesSupported(), "every supported scope by default")
		})
	}

	t.Run("a public client names method none", func(t *testing.T) {
		c, err := oauth.ValidateRegistration(oauth.RegistrationRequest{RedirectURIs: []string{"https://app.example/cb"},
			TokenEndpointAuthMethod: "none", Scope: "links:read links:read"}, canonical, nil)
		require.NoError(t, err)
		assert.True(t, c.Public())
		assert.Equal(t, []string{"links:read", "offline_access"}, c.Scopes)
	})
	t.Run("the scopes offered narrow the default and the request", func(t *testing.T) {
		offered := []string{"links:read", "links:write"}
		c, err := oauth.ValidateRegistration(public("https://app.example/cb"), canonical, offered)
		require.NoError(t, err)
		assert.Equal(t, []string{"links:read", "links:write", "offline_access"}, c.Scopes)
		req := public("https://app.example/cb")
		req.Scope = "links:read org:delete"
		c, err = oauth.ValidateRegistration(req, canonical, offered)
		require.NoError(t, err)
		assert.Equal(t, []string{"links:read", "offline_access"}, c.Scopes, "a Hoplink scope not offered is dropped")
		req.Scope = "org:delete"
		_, err = oauth.ValidateRegistration(req, canonical, offered)
		var re *oauth.RegistrationError
		require.True(t, errors.As(err, &re), "%v", err)
		assert.Equal(t, "invalid_client_metadata", re.Code)
	})
}

// public is the registration of a public client with one redirect URI.
func public(uri string) oauth.RegistrationRequest {
	return oauth.RegistrationRequest{RedirectURIs: []string{uri}, TokenEndpointAuthMethod: "none"}
}

func TestRegisterEndpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)

	t.Run("a public client gets no secret", func(t *testing.T) {
		res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}, "token_endpoint_auth_method": "none",
			"unknown_member": true})
		require.Equal(t, http.StatusCreated, res.status, res.body)
		v := res.json(t)
		assert.NotEmpty(t, v["client_id"])
		assert.NotContains(t, v, "client_secret")
		assert.Equal(t, "none", v["token_endpoint_auth_method"])
		assert.Equal(t, "no-store", res.header.Get("Cache-Control"))
	})
	t.Run("a confidential client gets a secret that does not expire", func(t *testing.T) {
		res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://app.example/cb"}})
		require.Equal(t, http.StatusCreated, res.status, res.body)
		v := res.json(t)
		assert.NotEmpty(t, v["client_secret"])
		assert.Equal(t, float64(0), v["client_secret_expires_at"])
		assert.Equal(t, "client_secret_basic", v["token_endpoint_auth_method"])
	})
	t.Run("a bad redirect URI is invalid_redirect_uri", func(t *testing.T) {
		res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://app.example/cb"}})
		require.Equal(t, http.StatusBadRequest, res.status)
		assert.Equal(t, "invalid_redirect_uri", res.json(t)["error"])
	})
	t.Run("a body that is not JSON metadata is invalid_client_metadata", func(t *testing.T) {
		res := b.postJSON("/oauth/register", []string{"x"})
		require.Equal(t, http.StatusBadRequest, res.status)
		assert.Equal(t, "invalid_client_metadata", res.json(t)["error"])
		res = b.post("/oauth/register", nil)
		require.Equal(t, http.StatusBadRequest, res.status)
		assert.Equal(t, "invalid_client_metadata", res.json(t)["error"])
	})
}

func TestRegisterIsRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	for i := 0; i < oauth.RegisterRule.Limit; i++ {
		res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "token_endpoint_auth_method": "none"})
		require.Equal(t, http.StatusCreated, res.status, "registration %d", i)
	}
	res := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "token_endpoint_auth_method": "none"})
	require.Equal(t, http.StatusTooManyRequests, res.status)
	assert.NotEmpty(t, res.header.Get("Retry-After"))

	h.clock.Advance(oauth.RegisterRule.Window)
	res = b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "token_endpoint_auth_method": "none"})
	assert.Equal(t, http.StatusCreated, res.status, "the next window allows registrations again")
}
