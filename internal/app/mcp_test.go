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

	"github.com/hoplink/hoplink/internal/app"
)

// TestAuthServiceServesMCP proves that hoplink-auth mounts POST /mcp, its
// challenge naming the protected-resource metadata of --public-url, and
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
		`Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/mcp", scope="`),
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
	assert.Equal(t, "http://localhost:8080/mcp", getJSON("/.well-known/oauth-protected-resource/mcp")["resource"])
	assert.Equal(t, "http://localhost:8080/mcp", getJSON("/.well-known/oauth-protected-resource")["resource"])
	resp, err = http.Post(srv.URL+"/oauth/register", "application/json",
		strings.NewReader(`{"redirect_uris":["http://127.0.0.1:33418/cb"],"token_endpoint_auth_method":"none"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "registration")
}
