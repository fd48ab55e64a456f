package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// testSecret is the server secret of the account harnesses.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// withAccounts gives the API an account.Service over the harness's store
// and clock.
func withAccounts(t *testing.T, svc **account.Service) option {
	return withAPI(func(h *harness, o *httpapi.Options) {
		a, err := account.NewService(h.store, testSecret, account.ServiceOptions{Clock: h.clock.Now, HashPassword: testkit.HashPassword})
		require.NoError(t, err)
		*svc = a
		o.Accounts = a
	})
}

func TestOrganizationSecurityPolicy(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		var accounts *account.Service
		h := newHarness(t, s, withAccounts(t, &accounts))
		o := h.newOrg(t, "Acme")
		other := h.newOrg(t, "Other")
		path := orgPath(o.ID) + "/security"

		resp := h.get(t, o.key.raw, path)
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.JSONEq(t, `{"require_two_factor":false,"session_lifetime_hours":720,"idle_timeout_minutes":10080}`, string(resp.body), "the defaults")

		body := `{"require_two_factor":true,"session_lifetime_hours":24,"idle_timeout_minutes":60}`
		resp = h.do(t, request{method: http.MethodPut, path: path, key: o.key.raw, body: body})
		require.Equal(t, http.StatusOK, resp.status, "the bootstrap key (no creator) may change it: %s", resp.body)
		assert.JSONEq(t, body, string(resp.body))
		resp = h.get(t, o.key.raw, path)
		assert.JSONEq(t, body, string(resp.body), "read back")

		pol, err := accounts.OrgPolicy(t.Context(), o.ID)
		require.NoError(t, err)
		assert.True(t, pol.RequireTwoFactor, "the account service sees the new policy")

		owner := h.memberKey(t, h.newMember(t, o, auth.RoleOwner), auth.ScopeTeamWrite, auth.ScopeOrgRead).raw
		body2 := `{"require_two_factor":false,"session_lifetime_hours":48,"idle_timeout_minutes":30}`
		resp = h.do(t, request{method: http.MethodPut, path: path, key: owner, body: body2})
		require.Equal(t, http.StatusOK, resp.status, "an owner's key may change it: %s", resp.body)
		assert.JSONEq(t, body2, string(resp.body))

		admin := h.memberKey(t, h.newMember(t, o, auth.RoleAdmin), auth.ScopeTeamWrite, auth.ScopeOrgRead).raw
		member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeOrgRead).raw
		resp = h.get(t, member, path)
		require.Equal(t, http.StatusOK, resp.status, "every role reads it")
		assert.JSONEq(t, body2, string(resp.body))

		refusals := []struct {
			name   string
			key    string
			path   string
			body   string
			off    bool
			status int
			code   errcode.Code
			fields []string
		}{
			{"an admin may not change it", admin, path, body, false, 403, errcode.Forbidden, nil},
			{"a member may not change it", member, path, body, false, 403, errcode.Forbidden, nil},
			{"team:write is needed", h.scopedKey(t, o, auth.ScopeOrgRead).raw, path, body, false, 403, errcode.Forbidden, nil},
			{"another organization", o.key.raw, orgPath(other.ID) + "/security", body, false, 404, errcode.NotFound, nil},
			{"an id that is not a UUID", o.key.raw, "/v1/organizations/acme/security", body, false, 400, errcode.InvalidID, nil},
			{"every field is required", o.key.raw, path, `{"require_two_factor":true}`, true, 400, errcode.ValidationError, []string{"session_lifetime_hours", "idle_timeout_minutes"}},
			{"a lifetime under an hour", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":0,"idle_timeout_minutes":5}`, true, 400, errcode.ValidationError, []string{"session_lifetime_hours"}},
			{"a lifetime over 90 days", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":2161,"idle_timeout_minutes":5}`, true, 400, errcode.ValidationError, []string{"session_lifetime_hours"}},
			{"a huge lifetime does not wrap around", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":9223372036854775807,"idle_timeout_minutes":5}`, true, 400, errcode.ValidationError, []string{"session_lifetime_hours"}},
			{"an idle timeout under 5 minutes", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":1,"idle_timeout_minutes":4}`, true, 400, errcode.ValidationError, []string{"idle_timeout_minutes"}},
			{"an idle timeout longer than the lifetime", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":1,"idle_timeout_minutes":61}`, true, 400, errcode.ValidationError, []string{"idle_timeout_minutes"}},
			{"a wrong type", o.key.raw, path, `{"require_two_factor":"yes","session_lifetime_hours":1,"idle_timeout_minutes":5}`, true, 400, errcode.ValidationError, []string{"require_two_factor"}},
			{"an unknown field", o.key.raw, path, `{"require_two_factor":true,"session_lifetime_hours":1,"idle_timeout_minutes":5,"x":1}`, true, 400, errcode.ValidationError, []string{"x"}},
			{"no body", o.key.raw, path, ``, true, 400, errcode.ValidationError, []string{"body"}},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				resp := h.do(t, request{method: http.MethodPut, path: tt.path, key: tt.key, body: tt.body, off: tt.off})
				assertFields(t, assertError(t, resp, tt.status, tt.code), tt.fields...)
			})
		}
		assertError(t, h.get(t, o.key.raw, orgPath(other.ID)+"/security"), 404, errcode.NotFound)
		assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, path), 403, errcode.Forbidden)
		assertError(t, h.get(t, "", path), 401, errcode.Unauthorized)
		assertError(t, h.do(t, request{method: http.MethodGet, path: path + "?x=1", key: o.key.raw, off: true}), 400, errcode.ValidationError)

		resp = h.get(t, o.key.raw, path)
		assert.JSONEq(t, body2, string(resp.body), "the refusals changed nothing")
		resp = h.get(t, other.key.raw, orgPath(other.ID)+"/security")
		assert.JSONEq(t, `{"require_two_factor":false,"session_lifetime_hours":720,"idle_timeout_minutes":10080}`, string(resp.body), "each organization has its own")
	})
}
