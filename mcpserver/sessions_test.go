package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store/storetest"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` +
	`"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// inSession returns the headers of a 2025-11-25 request of key in session id.
func inSession(key, id string) map[string]string {
	return map[string]string{"MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer " + key, "Mcp-Session-Id": id}
}

// TestSessions proves that a client that initializes gets a session
// (Mcp-Session-Id), that concurrent requests in it are all answered, that
// each is authenticated and counted for its own caller, that a session is
// bound to the key that opened it, and that a session this process does
// not hold is served without one instead of 404, so no client is tied to
// one replica.
func TestSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	other := h.newOrg(t, "Beta")

	resp, body := h.raw(t, http.MethodPost, initializeBody, map[string]string{"Authorization": "Bearer " + o.key})
	require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id, "initialize opens a session")
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))

	resp, body = h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, inSession(o.key, id))
	require.Less(t, resp.StatusCode, 300, "body: %s", body)
	assert.Empty(t, resp.Header.Get("X-RateLimit-Remaining"), "a notification in a session is not counted")

	t.Run("concurrent requests in one session are all answered", func(t *testing.T) {
		var wg sync.WaitGroup
		statuses := make([]int, 3)
		bodies := make([][]byte, 3)
		errs := make([]error, 3)
		for i := range 3 {
			wg.Go(func() {
				body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(1000+i) + `,"method":"tools/list"}`
				req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp", strings.NewReader(body))
				if err != nil {
					errs[i] = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "text/event-stream, application/json")
				for k, v := range inSession(o.key, id) {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs[i] = err
					return
				}
				defer resp.Body.Close()
				statuses[i] = resp.StatusCode
				bodies[i], errs[i] = io.ReadAll(resp.Body)
			})
		}
		wg.Wait()
		for i := range 3 {
			require.NoError(t, errs[i])
			require.Equal(t, http.StatusOK, statuses[i], "body: %s", bodies[i])
			var rpc struct {
				Result struct {
					Tools []json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(bodies[i], &rpc), "body: %s", bodies[i])
			assert.NotEmpty(t, rpc.Result.Tools)
		}
	})
	t.Run("a tool in a session acts for the caller of its own request", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, callBody("list_organizations", `{}`), inSession(o.key, id))
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.Contains(t, string(body), o.ID.String())
		assert.NotContains(t, string(body), other.ID.String())
		assert.NotEmpty(t, resp.Header.Get("X-RateLimit-Remaining"), "a request in a session is counted")
	})
	t.Run("another key cannot use the session", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, callBody("list_organizations", `{}`), inSession(other.key, id))
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "body: %s", body)
		assertEnvelope(t, body, errcode.Forbidden)
		assert.NotContains(t, string(body), o.ID.String())
		resp, body = h.raw(t, http.MethodPost, callBody("list_organizations", `{}`), inSession(o.key, id))
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the session still serves its own key: %s", body)
	})
	t.Run("a session this process does not hold is served without one", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, callBody("list_organizations", `{}`), inSession(other.key, "issued-by-another-replica"))
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.Contains(t, string(body), other.ID.String())
		assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	})
	t.Run("credentials are still required in a session", func(t *testing.T) {
		hd := inSession(o.key, id)
		delete(hd, "Authorization")
		resp, body := h.raw(t, http.MethodPost, callBody("list_organizations", `{}`), hd)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assertEnvelope(t, body, errcode.Unauthorized)
	})
	t.Run("DELETE does not end a session: 405", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodDelete, "", inSession(o.key, id))
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		assertEnvelope(t, body, errcode.MethodNotAllowed)
		resp, body = h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, inSession(o.key, id))
		assert.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
	})
	t.Run("past the allowance a tool call in a session is a tool error", func(t *testing.T) {
		var body []byte
		for range 61 {
			_, body = h.raw(t, http.MethodPost, callBody("list_links", `{}`), inSession(o.key, id))
		}
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
	})
}
