package main

import (
	"encoding/json"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertServesOAuth checks that the running server's service host serves
// the authorization server's metadata and the connections page, and that a
// link domain does not.
func assertServesOAuth(t *testing.T, srv *server) {
	t.Helper()
	status, body := srv.get(t, "localhost", "/.well-known/oauth-authorization-server", "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var meta map[string]any
	require.NoError(t, json.Unmarshal(body, &meta))
	_, port, err := net.SplitHostPort(srv.addr)
	require.NoError(t, err)
	publicURL := "http://localhost:" + port
	assert.Equal(t, publicURL, meta["issuer"], "the issuer is --public-url, whose default follows --addr")
	// The protected resource names the host the client asked, port and
	// all, as a client of the public URL sends it.
	status, body = srv.get(t, "localhost:"+port, "/.well-known/oauth-protected-resource/mcp", "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Contains(t, string(body), `"resource":"`+publicURL+`/mcp"`)
	status, body = srv.get(t, "localhost", "/account/connections", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(body), `action="/login"`, "the connections page asks to sign in first")
	status, _ = srv.get(t, "hop.localhost", "/.well-known/oauth-authorization-server", "")
	assert.Equal(t, http.StatusNotFound, status, "a link domain has no authorization server")
}
