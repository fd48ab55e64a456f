package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyTransport adds a bearer token to every request.
type keyTransport struct{ key string }

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// assertServesMCP connects to the running server's /mcp with the go-sdk
// client and key, and checks that list_organizations answers orgID.
func assertServesMCP(t *testing.T, srv *server, key, orgID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + srv.addr + "/mcp",
		MaxRetries: -1, HTTPClient: &http.Client{Transport: keyTransport{key: key}}}, nil)
	require.NoError(t, err, "serve answers MCP on the service host")
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "list_organizations"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var got struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got.Data, 1)
	assert.Equal(t, orgID, got.Data[0].ID)

	status, _ := srv.get(t, "localhost", "/mcp", key)
	assert.Equal(t, http.StatusMethodNotAllowed, status, "GET /mcp is 405")
	status, _ = srv.get(t, "hop.localhost", "/mcp", key)
	assert.Equal(t, http.StatusNotFound, status, "a link domain has no MCP endpoint")
}
