package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	buildversion "github.com/hoplink/hoplink/version"
)

// object decodes a JSON object.
func object(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "body: %s", b)
	return m
}

// TestEveryToolMatchesItsRESTTwin calls every tool with an API key and with
// an OAuth token, in every protocol revision the endpoint serves, and checks that each returns what
// its REST twin returns for the same request.
func TestEveryToolMatchesItsRESTTwin(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		appID := h.newApp(t, o.ID)
		sdk := h.key(t, o, auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK})
		status, body := h.rest(t, http.MethodPost, "/v1/attribution/match", sdk,
			`{"platform":"android","fingerprint_version":"basic","sdk_version":"1.0.0"}`)
		require.Equal(t, http.StatusOK, status, "body: %s", body)
		h.clock.Advance(time.Second) // the lists' window ends before now

		owner := h.newUser(t)
		h.addMember(t, o, owner, auth.RoleOwner)
		oauth := h.grants.issue(owner.ID, &o.ID, auth.ScopeLinksWrite, auth.ScopeAppsRead, auth.ScopeAnalyticsRead,
			auth.ScopeOrgRead)
		credentials := []struct{ name, token string }{{"API key", o.key}, {"OAuth token", oauth}}

		for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
			for _, cred := range credentials {
				t.Run(version+" "+cred.name, func(t *testing.T) {
					h.clock.Advance(time.Minute) // a fresh rate-limit window
					session, err := h.connect(t, cred.token, version)
					require.NoError(t, err)
					assert.Equal(t, buildversion.Get().String(), session.InitializeResult().ServerInfo.Version,
						"serverInfo.version is the running build")
					if version != "2026-07-28" {
						assert.Equal(t, version, session.InitializeResult().ProtocolVersion)
					}

					created := ok(t, call(t, session, "create_link", map[string]any{
						"destination_url": "https://example.com/spring", "tags": []string{"spring"}, "app_id": appID.String(),
					}))
					link := object(t, created)
					id := link["id"].(string)
					assert.Equal(t, "https://example.com/spring", link["destination_url"])

					status, body := h.rest(t, http.MethodGet, "/v1/links/"+id, o.key, "")
					require.Equal(t, http.StatusOK, status)
					assert.JSONEq(t, string(body), string(ok(t, call(t, session, "get_link", map[string]any{"id": id}))))

					status, body = h.rest(t, http.MethodGet, "/v1/links?limit=5&tag=spring", o.key, "")
					require.Equal(t, http.StatusOK, status)
					assert.JSONEq(t, string(body), string(ok(t, call(t, session, "list_links",
						map[string]any{"limit": 5, "tag": "spring"}))))

					updated := ok(t, call(t, session, "update_link", map[string]any{"id": id, "name": "Spring",
						"utm_source": nil}))
					assert.Equal(t, "Spring", object(t, updated)["name"])
					status, body = h.rest(t, http.MethodPatch, "/v1/links/"+id, o.key, `{"og_title":"Spring sale"}`)
					require.Equal(t, http.StatusOK, status)
					status, got := h.rest(t, http.MethodGet, "/v1/links/"+id, o.key, "")
					require.Equal(t, http.StatusOK, status)
					assert.Equal(t, "Spring", object(t, got)["name"], "the REST read sees the tool's change")
					_ = body

					status, body = h.rest(t, http.MethodGet, "/v1/apps", o.key, "")
					require.Equal(t, http.StatusOK, status)
					assert.JSONEq(t, string(body), string(ok(t, call(t, session, "list_apps", nil))))
					status, body = h.rest(t, http.MethodGet, "/v1/apps/"+appID.String(), o.key, "")
					require.Equal(t, http.StatusOK, status)
					detail := object(t, ok(t, call(t, session, "get_app", map[string]any{"id": appID.String()})))
					assert.Nil(t, detail["rename_period"], "no rename period open")
					assert.Equal(t, map[string]any{"moving": 0.0, "waiting": 0.0, "kept": 0.0}, detail["previous_links"])
					delete(detail, "rename_period")
					delete(detail, "previous_links")
					assert.Equal(t, object(t, body), detail, "the app as GET /v1/apps/{id} answers, with the subdomain state")

					status, body = h.rest(t, http.MethodGet, "/v1/installs?link_id="+id, o.key, "")
					require.Equal(t, http.StatusOK, status)
					assert.JSONEq(t, string(body), string(ok(t, call(t, session, "list_installs",
						map[string]any{"link_id": id}))))
					status, body = h.rest(t, http.MethodGet, "/v1/attribution/attempts?matched=false&limit=10", o.key, "")
					require.Equal(t, http.StatusOK, status)
					attempts := ok(t, call(t, session, "list_attribution_attempts",
						map[string]any{"matched": false, "limit": 10}))
					assert.JSONEq(t, string(body), string(attempts))
					assert.Len(t, object(t, attempts)["data"], 1, "the unmatched attempt is listed")

					status, body = h.rest(t, http.MethodGet, "/v1/organizations/"+o.ID.String(), o.key, "")
					require.Equal(t, http.StatusOK, status)
					orgs := object(t, ok(t, call(t, session, "list_organizations", nil)))
					require.Len(t, orgs["data"], 1)
					want := object(t, body)
					assert.Equal(t, want, orgs["data"].([]any)[0])

					deleted := ok(t, call(t, session, "delete_link", map[string]any{"id": id}))
					assert.Equal(t, id, object(t, deleted)["id"])
					status, _ = h.rest(t, http.MethodGet, "/v1/links/"+id, o.key, "")
					assert.Equal(t, http.StatusNotFound, status, "the link is gone")
				})
			}
		}
	})
}

// TestToolErrorsCarryTheirCodes proves that a refused call is a tool error
// whose text is the SPEC.md envelope, with REST's validation.
func TestToolErrorsCarryTheirCodes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	other := h.newOrg(t, "Other")
	h.newApp(t, o.ID)
	h.newApp(t, other.ID)
	readOnly := h.key(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeLinksRead}})
	session := h.session(t, o.key)
	link := object(t, ok(t, call(t, h.session(t, other.key), "create_link",
		map[string]any{"destination_url": "https://example.com"})))

	tests := []struct {
		name   string
		token  string
		tool   string
		args   map[string]any
		code   errcode.Code
		fields []any
	}{
		{name: "a bad slug is VALIDATION_ERROR naming the field", tool: "create_link",
			args: map[string]any{"destination_url": "https://example.com", "slug": "Not A Slug"},
			code: errcode.ValidationError, fields: []any{"slug"}},
		{name: "an unknown argument is VALIDATION_ERROR, as an unknown body field", tool: "create_link",
			args: map[string]any{"destination_url": "https://example.com", "colour": "red"},
			code: errcode.ValidationError, fields: []any{"colour"}},
		{name: "a wrongly typed argument is VALIDATION_ERROR", tool: "list_links",
			args: map[string]any{"limit": "ten"}, code: errcode.ValidationError, fields: []any{"limit"}},
		{name: "a limit out of range is VALIDATION_ERROR", tool: "list_links",
			args: map[string]any{"limit": 101}, code: errcode.ValidationError, fields: []any{"limit"}},
		{name: "a malformed id is INVALID_ID", tool: "get_link", args: map[string]any{"id": "nope"},
			code: errcode.InvalidID},
		{name: "another organization's link is NOT_FOUND", tool: "get_link",
			args: map[string]any{"id": link["id"]}, code: errcode.NotFound},
		{name: "a slug in an update is IMMUTABLE_FIELD", tool: "update_link",
			args: map[string]any{"id": link["id"], "slug": "new"}, code: errcode.ImmutableField},
		{name: "a key without links:write is FORBIDDEN", token: readOnly, tool: "create_link",
			args: map[string]any{"destination_url": "https://example.com"}, code: errcode.Forbidden},
		{name: "from not before to is VALIDATION_ERROR", tool: "list_installs",
			args: map[string]any{"from": "2030-01-01T00:00:00Z", "to": "2029-12-31T00:00:00Z"},
			code: errcode.ValidationError, fields: []any{"to"}},
		{name: "a cursor that is not one is CURSOR_INVALID", tool: "list_attribution_attempts",
			args: map[string]any{"cursor": "garbage"}, code: errcode.CursorInvalid},
		{name: "a limit of the plan is refused with its code: Free reads 30 days back", tool: "list_installs",
			args: map[string]any{"from": start.AddDate(0, 0, -60).Format(time.RFC3339)}, code: errcode.LookbackExceeded},
		{name: "an org that is not a UUID is VALIDATION_ERROR", tool: "list_links",
			args: map[string]any{"org": "acme"}, code: errcode.ValidationError, fields: []any{"org"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := session
			if tt.token != "" {
				s = h.session(t, tt.token)
			}
			e := toolError(t, call(t, s, tt.tool, tt.args), tt.code)
			if tt.fields != nil {
				var names []any
				for _, f := range e.Error.Details["fields"].([]any) {
					names = append(names, f.(map[string]any)["field"])
				}
				assert.Equal(t, tt.fields, names)
			}
		})
	}
}

// TestToolSchemas proves that tools/list offers every tool with an input
// schema inferred from its Go type, every property described.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	res, err := h.session(t, o.key).ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &s))
		assert.Equal(t, "object", s.Type, tool.Name)
		require.Contains(t, s.Properties, "org", "%s takes org", tool.Name)
		for name, p := range s.Properties {
			assert.NotEmpty(t, p.Description, "%s.%s has a description", tool.Name, name)
		}
	}
	assert.ElementsMatch(t, []string{"get_link", "list_links", "create_link", "update_link", "delete_link",
		"list_apps", "get_app", "list_installs", "list_attribution_attempts", "get_analytics", "export_clicks", "list_organizations",
		"list_webhooks", "list_webhook_deliveries"}, names)
	assert.ElementsMatch(t, mcpserver.ToolNames(), names)

	create := toolByName(t, res.Tools, "create_link")
	assert.Equal(t, []any{"destination_url"}, schemaOf(t, create)["required"])
	update := schemaOf(t, toolByName(t, res.Tools, "update_link"))
	assert.NotContains(t, update["properties"], "slug", "a link's slug never changes")
	assert.Contains(t, update["properties"], "name")
}

func toolByName(t testing.TB, tools []*mcp.Tool, name string) *mcp.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			return tool
		}
	}
	require.FailNow(t, "no tool "+name)
	return nil
}

func schemaOf(t testing.TB, tool *mcp.Tool) map[string]any {
	t.Helper()
	b, err := json.Marshal(tool.InputSchema)
	require.NoError(t, err)
	return object(t, b)
}

// The webhook tools answer what GET /v1/webhooks and GET
// /v1/webhooks/{id}/deliveries answer, and need webhooks:read.
func TestWebhookToolsMatchTheirRESTTwins(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	status, body := h.rest(t, http.MethodPost, "/v1/webhooks", o.key,
		`{"url":"https://hooks.example.com/in","events":["install.attributed"]}`)
	require.Equal(t, http.StatusCreated, status, "body: %s", body)
	id := object(t, body)["id"].(string)
	status, body = h.rest(t, http.MethodPost, "/v1/webhooks/"+id+"/test", o.key, "")
	require.Equal(t, http.StatusAccepted, status, "body: %s", body)

	session := h.session(t, o.key)
	status, body = h.rest(t, http.MethodGet, "/v1/webhooks", o.key, "")
	require.Equal(t, http.StatusOK, status)
	listed := ok(t, call(t, session, "list_webhooks", nil))
	assert.JSONEq(t, string(body), string(listed))
	assert.NotContains(t, string(listed), "whsec_", "no secret")

	status, body = h.rest(t, http.MethodGet, "/v1/webhooks/"+id+"/deliveries?limit=10", o.key, "")
	require.Equal(t, http.StatusOK, status)
	deliveries := ok(t, call(t, session, "list_webhook_deliveries", map[string]any{"id": id, "limit": 10}))
	assert.JSONEq(t, string(body), string(deliveries))
	assert.Len(t, object(t, deliveries)["data"], 1, "the ping")

	readOnly := h.key(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeLinksRead}})
	toolError(t, call(t, h.session(t, readOnly), "list_webhooks", nil), errcode.Forbidden)
	toolError(t, call(t, session, "list_webhook_deliveries", map[string]any{"id": "nope"}), errcode.InvalidID)
	toolError(t, call(t, session, "list_webhook_deliveries", map[string]any{"id": o.ID.String()}), errcode.NotFound)
}
