package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// withAudit gives the API an audit.Service over the harness's store and clock.
func withAudit(t *testing.T) option {
	return withAPI(func(h *harness, o *httpapi.Options) {
		a, err := audit.NewService(h.store, testSecret, audit.ServiceOptions{Clock: h.clock.Now})
		require.NoError(t, err)
		o.Audit = a
	})
}

// auditEvent is the AuditEvent resource.
type auditEvent struct {
	ID         string            `json:"id"`
	OccurredAt string            `json:"occurred_at"`
	Action     string            `json:"action"`
	ActorType  string            `json:"actor_type"`
	ActorID    *string           `json:"actor_id"`
	TargetType string            `json:"target_type"`
	TargetID   string            `json:"target_id"`
	IP         string            `json:"ip"`
	UserAgent  string            `json:"user_agent"`
	Details    map[string]string `json:"details"`
}

type auditPage struct {
	Data       []auditEvent `json:"data"`
	Pagination struct {
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	} `json:"pagination"`
}

// auditEvents reads every event of key's organization, newest first.
func (h *harness) auditEvents(t testing.TB, key string) []auditEvent {
	t.Helper()
	var all []auditEvent
	path := "/v1/audit-events?limit=100"
	for {
		resp := h.get(t, key, path)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		var page auditPage
		resp.decode(t, &page)
		all = append(all, page.Data...)
		if !page.Pagination.HasMore {
			return all
		}
		path = "/v1/audit-events?limit=100&cursor=" + url.QueryEscape(*page.Pagination.NextCursor)
	}
}

func TestAPIActionsWriteAuditEvents(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		var accounts *account.Service
		h := newHarness(t, s, withAccounts(t, &accounts), withAudit(t), withTeam())
		o := h.newOrg(t, "Acme")
		headers := map[string]string{"User-Agent": "audit-test/1.0", "X-Forwarded-For": "198.51.100.7"}

		resp := h.do(t, request{method: http.MethodPost, path: "/v1/keys", key: o.key.raw, headers: headers,
			body: `{"name":"ci","scopes":["links:read"]}`})
		require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
		k := resp.key(t)
		resp = h.do(t, request{method: http.MethodDelete, path: keyPath(k.ID), key: o.key.raw, headers: headers})
		require.Equal(t, http.StatusNoContent, resp.status)
		resp = h.do(t, request{method: http.MethodPut, path: orgPath(o.ID) + "/security", key: o.key.raw, headers: headers,
			body: `{"require_two_factor":true,"session_lifetime_hours":24,"idle_timeout_minutes":60}`})
		require.Equal(t, http.StatusOK, resp.status)

		events := h.auditEvents(t, o.key.raw)
		require.Len(t, events, 3, "one event per action: %+v", events)
		want := []struct {
			action, targetType, targetID string
		}{
			{"security_policy.changed", "organization", o.ID.String()},
			{"key.revoked", "key", k.ID.String()},
			{"key.created", "key", k.ID.String()},
		}
		for i, w := range want {
			e := events[i]
			assert.Equal(t, w.action, e.Action)
			assert.Equal(t, "key", e.ActorType, "the key acted")
			require.NotNil(t, e.ActorID)
			assert.Equal(t, o.key.id.String(), *e.ActorID)
			assert.Equal(t, w.targetType, e.TargetType)
			assert.Equal(t, w.targetID, e.TargetID)
			assert.Equal(t, "198.51.100.7", e.IP, "the client's IP")
			assert.Equal(t, "audit-test/1.0", e.UserAgent)
			assert.NotEmpty(t, e.OccurredAt)
		}
		assert.Equal(t, map[string]string{"name": "ci", "type": "api", "scopes": "links:read"}, events[2].Details)
		assert.Equal(t, map[string]string{"require_two_factor": "true", "session_lifetime_hours": "24", "idle_timeout_minutes": "60"}, events[0].Details)

		refused := h.do(t, request{method: http.MethodPut, path: orgPath(o.ID) + "/security", key: h.scopedKey(t, o, auth.ScopeOrgRead).raw,
			body: `{"require_two_factor":false,"session_lifetime_hours":24,"idle_timeout_minutes":60}`})
		require.Equal(t, http.StatusForbidden, refused.status)
		assert.Len(t, h.auditEvents(t, o.key.raw), 3, "a refused request writes nothing")

		// Team changes through the API.
		m := h.newMember(t, o, auth.RoleMember)
		resp = h.do(t, request{method: http.MethodPatch, path: "/v1/members/" + m.id.String(), key: o.key.raw, headers: headers, body: `{"role":"admin"}`})
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		resp = h.do(t, request{method: http.MethodDelete, path: "/v1/members/" + m.id.String(), key: o.key.raw, headers: headers})
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		events = h.auditEvents(t, o.key.raw)
		require.Len(t, events, 5)
		for i, w := range []string{"member.removed", "member.role_changed"} {
			assert.Equal(t, w, events[i].Action)
			assert.Equal(t, "user", events[i].TargetType)
			assert.Equal(t, m.id.String(), events[i].TargetID)
			assert.Equal(t, "key", events[i].ActorType)
		}
		assert.Equal(t, map[string]string{"role": "admin"}, events[1].Details)

		// Deleting the organization is recorded, and the event outlives it.
		resp = h.do(t, request{method: http.MethodDelete, path: orgPath(o.ID), key: o.key.raw, headers: map[string]string{"X-Confirmation-Name": o.Name}})
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		n, err := s.DB().NewSelect().Table("audit_events").Where("org_id = ? AND action = ?", o.ID, "organization.deleted").
			Where("actor_id = ? AND target_id = ?", o.key.id, o.ID.String()).Count(t.Context())
		require.NoError(t, err)
		assert.EqualValues(t, 1, n, "organization.deleted is recorded")
	})
}

func TestListAuditEvents(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		var accounts *account.Service
		h := newHarness(t, s, withAccounts(t, &accounts), withAudit(t))
		o := h.newOrg(t, "Acme")
		other := h.newOrg(t, "Other")
		for range 3 {
			resp := h.post(t, o.key.raw, "/v1/keys", `{"name":"k","scopes":["links:read"]}`)
			require.Equal(t, http.StatusCreated, resp.status)
			h.clock.Advance(time.Second)
		}
		resp := h.get(t, o.key.raw, "/v1/audit-events?limit=2")
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		var page auditPage
		resp.decode(t, &page)
		require.Len(t, page.Data, 2)
		require.True(t, page.Pagination.HasMore)
		cursor := *page.Pagination.NextCursor
		resp = h.get(t, o.key.raw, "/v1/audit-events?limit=2&cursor="+url.QueryEscape(cursor))
		require.Equal(t, http.StatusOK, resp.status)
		resp.decode(t, &page)
		require.Len(t, page.Data, 1, "the last page")
		assert.False(t, page.Pagination.HasMore)
		assert.Nil(t, page.Pagination.NextCursor, "null on the last page")

		resp = h.get(t, other.key.raw, "/v1/audit-events")
		require.Equal(t, http.StatusOK, resp.status)
		assert.JSONEq(t, `{"data":[],"pagination":{"next_cursor":null,"has_more":false}}`, string(resp.body), "each organization sees its own")

		admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeOrgRead).raw
		assert.Len(t, h.auditEvents(t, admin), 3, "admins read the log")

		refusals := []struct {
			name   string
			key    string
			query  string
			off    bool
			status int
			code   errcode.Code
			fields []string
		}{
			{"a member may not read it", h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeOrgRead).raw, "", false, 403, errcode.Forbidden, nil},
			{"org:read is needed", h.scopedKey(t, o, auth.ScopeLinksRead).raw, "", false, 403, errcode.Forbidden, nil},
			{"no key", "", "", false, 401, errcode.Unauthorized, nil},
			{"an SDK key", h.sdkKey(t, o).raw, "", false, 403, errcode.SDKKeyRouteForbidden, nil},
			{"another organization's cursor", other.key.raw, "?limit=2&cursor=" + url.QueryEscape(cursor), false, 400, errcode.CursorInvalid, nil},
			{"the cursor with other filters", o.key.raw, "?limit=2&from=2000-01-01T00:00:00Z&cursor=" + url.QueryEscape(cursor), false, 400, errcode.CursorInvalid, nil},
			{"a cursor changed by hand", o.key.raw, "?cursor=" + url.QueryEscape(changed(cursor)), false, 400, errcode.CursorInvalid, nil},
			{"from not before to", o.key.raw, "?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00%2B00:00", false, 400, errcode.ValidationError, []string{"from"}},
			{"an instant without an offset", o.key.raw, "?from=2030-01-02T00:00:00", true, 400, errcode.ValidationError, []string{"from"}},
			{"a limit of 0", o.key.raw, "?limit=0", true, 400, errcode.ValidationError, []string{"limit"}},
			{"a limit over 100", o.key.raw, "?limit=101", true, 400, errcode.ValidationError, []string{"limit"}},
			{"an unknown parameter", o.key.raw, "?action=key.created", true, 400, errcode.ValidationError, []string{"action"}},
			{"a repeated parameter", o.key.raw, "?limit=1&limit=2", true, 400, errcode.ValidationError, []string{"limit"}},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodGet, path: "/v1/audit-events" + tt.query, key: tt.key, off: tt.off})
				assertFields(t, assertError(t, resp, tt.status, tt.code), tt.fields...)
			})
		}

		resp = h.get(t, o.key.raw, "/v1/audit-events?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z")
		require.Equal(t, http.StatusOK, resp.status)
		resp.decode(t, &page)
		assert.Empty(t, page.Data, "the window keeps events inside it")
	})
}

// changed returns s with its middle character replaced by another.
func changed(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'x' {
		b[i] = 'y'
	} else {
		b[i] = 'x'
	}
	return string(b)
}
