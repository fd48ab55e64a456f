package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/app"
)

// TestAuthServiceServesMCP proves that hoplink-auth mounts POST /mcp, its
// challenge naming the protected-resource metadata of the service host
// used, and
// answers GET /mcp with 405, and serves the authorization server.
func TestAuthServiceServesMCP(t *testing.T) {
	cfg := validConfig(t)
	var h app.Handler
	a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.AuthService()), fx.Populate(&h), fx.NopLogger)
	require.NoError(t, a.Err())
	require.NoError(t, a.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"),
		`Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp", scope="`),
		resp.Header.Get("WWW-Authenticate"))

	resp, err = http.Get(srv.URL + "/mcp")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "POST", resp.Header.Get("Allow"))

	// The authorization server is there too: its metadata, the resource's
	// and registration.
	getJSON := func(path string) map[string]any {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		var v map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&v), path)
		return v
	}
	assert.Equal(t, "http://localhost:8080", getJSON("/.well-known/oauth-authorization-server")["issuer"])
	// The test server is reached as 127.0.0.1, a service host other than
	// the public URL's: the metadata names that host.
	assert.Equal(t, srv.URL+"/mcp", getJSON("/.well-known/oauth-protected-resource/mcp")["resource"])
	assert.Equal(t, srv.URL, getJSON("/.well-known/oauth-protected-resource")["resource"])
	assert.NotContains(t, getJSON("/.well-known/oauth-protected-resource/mcp")["scopes_supported"], "org:delete",
		"only the tools' scopes")
	resp, err = http.Post(srv.URL+"/oauth/register", "application/json",
		strings.NewReader(`{"redirect_uris":["http://127.0.0.1:33418/cb"],"token_endpoint_auth_method":"none"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "registration")
}

// TestCORSPreflights proves that the service host answers preflights of
// the OAuth metadata for any origin, and of /mcp and the token and
// registration endpoints for the origins of --cors-origins only, in both
// binaries that serve them.
func TestCORSPreflights(t *testing.T) {
	const allowed = "https://inspector.example"
	for _, tt := range []struct {
		name    string
		service fx.Option
	}{{"hoplink-auth", app.AuthService()}, {"serve", app.ServeAll(app.BootstrapOptions{})}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(t)
			cfg.CORSOrigins = []string{allowed}
			var h app.Handler
			a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, tt.service), fx.Populate(&h), fx.NopLogger)
			require.NoError(t, a.Err())
			require.NoError(t, a.Start(context.Background()))
			t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			preflight := func(path, origin, method string) *http.Response {
				req, err := http.NewRequest(http.MethodOptions, srv.URL+path, nil)
				require.NoError(t, err)
				req.Header.Set("Origin", origin)
				req.Header.Set("Access-Control-Request-Method", method)
				req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				return resp
			}
			for _, path := range app.OAuthMetadataPaths {
				resp := preflight(path, "https://anyone.example", "GET")
				assert.Equal(t, http.StatusNoContent, resp.StatusCode, path)
				assert.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"), path)
			}
			for _, path := range []string{"/mcp", "/oauth/token", "/oauth/register"} {
				resp := preflight(path, allowed, "POST")
				assert.Equal(t, http.StatusNoContent, resp.StatusCode, path)
				assert.Equal(t, allowed, resp.Header.Get("Access-Control-Allow-Origin"), path)
				assert.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Authorization", path)
				resp = preflight(path, "https://evil.example", "POST")
				assert.Equal(t, http.StatusNoContent, resp.StatusCode, path)
				assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), path)
			}
			assert.Contains(t, preflight("/mcp", allowed, "POST").Header.Get("Access-Control-Allow-Headers"),
				"Mcp-Protocol-Version")

			t.Run("an allowed origin's call to /mcp gets through and may read the challenge", func(t *testing.T) {
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp",
					strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Origin", allowed)
				req.Header.Set("Sec-Fetch-Site", "cross-site")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "not the 403 of a cross-origin request")
				assert.Equal(t, allowed, resp.Header.Get("Access-Control-Allow-Origin"))
				assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate")
			})
		})
	}
}

// TestCORSPathsAreDocumented proves that every path with a CORS rule has
// its preflight (OPTIONS) in openapi.yaml.
func TestCORSPathsAreDocumented(t *testing.T) {
	doc, _, err := httpapi.OpenAPI()
	require.NoError(t, err)
	for _, rule := range app.CORSRules(validConfig(t)) {
		for _, path := range rule.Paths {
			item := doc.Paths.Find(path)
			require.NotNil(t, item, path)
			assert.NotNil(t, item.Options, "%s documents its preflight", path)
		}
	}
}
