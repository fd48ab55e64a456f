package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestInitializeDeclaresWhatIsServed proves that initialize declares tools,
// prompts and resources without listChanged (a stateless server never
// sends a notification), that the declared prompts and resources are served
// as empty lists, and that undeclared features answer method-not-found.
func TestInitializeDeclaresWhatIsServed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	s := h.session(t, o.key)
	caps := s.InitializeResult().Capabilities
	require.NotNil(t, caps.Tools)
	assert.False(t, caps.Tools.ListChanged, "no tools/list_changed is ever sent")
	require.NotNil(t, caps.Prompts)
	assert.False(t, caps.Prompts.ListChanged)
	require.NotNil(t, caps.Resources)
	assert.False(t, caps.Resources.ListChanged)
	assert.False(t, caps.Resources.Subscribe)
	assert.Nil(t, caps.Completions)

	prompts, err := s.ListPrompts(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, prompts.Prompts)
	resources, err := s.ListResources(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, resources.Resources)
	templates, err := s.ListResourceTemplates(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, templates.ResourceTemplates)

	t.Run("the initialize answer carries no listChanged", func(t *testing.T) {
		resp, body := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{`+
			`"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, v0618(o.key))
		require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
		assert.NotContains(t, string(body), "listChanged")
		assert.Contains(t, string(body), `"prompts":{}`)
	})
	t.Run("undeclared methods are method-not-found", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"hoplink://x"}}`,
		} {
			resp, b := h.raw(t, http.MethodPost, body, v0618(o.key))
			require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", b)
			assert.Contains(t, string(b), `"code":-32601`, "body: %s", b)
		}
	})
}

// TestScopesComeFromTheTools proves that the scopes asked for are exactly
// the union of the tools' scopes, so no consent covers org:delete,
// keys:write or team:write, which no tool uses.
func TestScopesComeFromTheTools(t *testing.T) {
	var union []auth.Scope
	for _, name := range mcpserver.ToolNames() {
		for _, s := range mcpserver.ToolScopes(name) {
			if !slices.Contains(union, s) {
				union = append(union, s)
			}
		}
	}
	assert.ElementsMatch(t, union, mcpserver.Scopes())
	for _, s := range []auth.Scope{auth.ScopeOrgDelete, auth.ScopeKeysWrite, auth.ScopeTeamWrite, auth.ScopeAppsWrite} {
		assert.NotContains(t, mcpserver.Scopes(), s)
	}
}

// TestChallengeNamesTheHostUsed proves that a client that reaches the
// endpoint on another service host (localhost while the public URL names
// 127.0.0.1) is pointed at that host's protected-resource metadata, and
// that any other host gets the canonical one.
func TestChallengeNamesTheHostUsed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	port := h.srv.URL[strings.LastIndex(h.srv.URL, ":")+1:]
	challenge := func(host string) string {
		req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp", strings.NewReader(callBody("list_links", `{}`)))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		return resp.Header.Get("WWW-Authenticate")
	}
	tests := []struct{ name, host, metadata string }{
		{"the public URL's host", "127.0.0.1:" + port, h.srv.URL},
		{"another service host, with the port it used", "localhost:" + port, "http://localhost:" + port},
		{"a host that is not a service host gets the canonical one", "evil.example", h.srv.URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, `Bearer resource_metadata="`+tt.metadata+`/.well-known/oauth-protected-resource/mcp", scope="`+
				mcpScopes+`"`, challenge(tt.host))
		})
	}
	r, err := http.NewRequest(http.MethodPost, "http://localhost:"+port+"/mcp", nil)
	require.NoError(t, err)
	assert.Equal(t, "http://localhost:"+port+"/mcp", h.mcp.ResourceFor(r))
	assert.Equal(t, h.srv.URL+"/mcp", h.mcp.Resource(), "tokens are checked against the canonical resource")
}

// TestAllowedOriginsMayCall proves that an origin listed in CORSOrigins
// passes the cross-origin check that refuses every other.
func TestAllowedOriginsMayCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	hd := v0618(o.key)
	hd["Origin"] = corsOrigin
	hd["Sec-Fetch-Site"] = "cross-site"
	resp, body := h.raw(t, http.MethodPost, callBody("list_links", `{}`), hd)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
}

// TestArgumentErrorsSayWhatIsWrong proves the messages of arguments that
// are missing, of the wrong shape or null where null is refused, and the
// error of create_link in an organization without an app.
func TestArgumentErrorsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	empty := h.newOrg(t, "Empty")
	h.newApp(t, o.ID)
	s := h.session(t, o.key)
	link := object(t, ok(t, call(t, s, "create_link", map[string]any{"destination_url": "https://example.com"})))

	fieldMessage := func(t *testing.T, e envelope, field string) string {
		t.Helper()
		for _, f := range e.Error.Details["fields"].([]any) {
			if m := f.(map[string]any); m["field"] == field {
				return m["message"].(string)
			}
		}
		require.FailNow(t, "no field "+field, "%+v", e)
		return ""
	}
	for _, tool := range []string{"get_link", "update_link", "delete_link", "get_app"} {
		t.Run("a missing id is required in "+tool, func(t *testing.T) {
			e := toolError(t, call(t, s, tool, map[string]any{}), errcode.ValidationError)
			assert.Equal(t, "is required", fieldMessage(t, e, "id"))
		})
	}
	t.Run("a missing destination_url is required", func(t *testing.T) {
		e := toolError(t, call(t, s, "create_link", map[string]any{"name": "x"}), errcode.ValidationError)
		assert.Equal(t, "is required", fieldMessage(t, e, "destination_url"))
	})
	t.Run("array arguments name what they are", func(t *testing.T) {
		e := toolError(t, call(t, s, "list_links", []any{"limit", 10}), errcode.ValidationError)
		msg := fieldMessage(t, e, "arguments")
		assert.Contains(t, msg, "must be a JSON object")
		assert.Contains(t, msg, "not an array")
	})
	t.Run("destination_url cannot be cleared: null is refused and the schema says so", func(t *testing.T) {
		e := toolError(t, call(t, s, "update_link", map[string]any{"id": link["id"], "destination_url": nil}),
			errcode.ValidationError)
		assert.Equal(t, "must not be null", fieldMessage(t, e, "destination_url"))
		tools, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err)
		props := schemaOf(t, toolByName(t, tools.Tools, "update_link"))["properties"].(map[string]any)
		assert.Equal(t, "string", props["destination_url"].(map[string]any)["type"])
		assert.Equal(t, []any{"string", "null"}, props["name"].(map[string]any)["type"], "name can be cleared")
	})
	t.Run("create_link says that the organization needs an app and where to make one", func(t *testing.T) {
		e := toolError(t, call(t, h.session(t, empty.key), "create_link",
			map[string]any{"destination_url": "https://example.com"}), errcode.AppRequired)
		assert.Contains(t, e.Error.Message, "create an app first")
		assert.Contains(t, e.Error.Message, "POST /v1/apps")
		tools, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err)
		assert.Contains(t, toolByName(t, tools.Tools, "create_link").Description, "needs an app first")
	})
}
