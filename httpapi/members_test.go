package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func withTeam() option {
	return withAPI(func(h *harness, o *httpapi.Options) {
		o.Team = org.NewTeam(h.store, org.TeamOptions{Forget: h.auth, Clock: h.clock.Now})
	})
}

func memberPath(id uuid.UUID) string { return "/v1/members/" + id.String() }

// teamMember is the TeamMember resource as a test reads it.
type teamMember struct {
	UserID   uuid.UUID `json:"user_id"`
	Email    string    `json:"email"`
	Role     auth.Role `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

func (h *harness) patchMember(t testing.TB, key string, id uuid.UUID, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPatch, path: memberPath(id), key: key, body: body})
}

func TestListMembers(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withTeam())
		o := h.newOrg(t, "Acme")
		var members []*testMember
		for _, role := range []auth.Role{auth.RoleOwner, auth.RoleAdmin, auth.RoleMember} {
			members = append(members, h.newMember(t, o, role))
			h.clock.Advance(time.Second)
		}
		other := h.newOrg(t, "Other")
		h.newMember(t, other, auth.RoleOwner)

		resp := h.get(t, o.key.raw, "/v1/members?limit=2")
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		var page struct {
			Data       []teamMember `json:"data"`
			Pagination struct {
				Total   int  `json:"total"`
				Limit   int  `json:"limit"`
				Offset  int  `json:"offset"`
				HasMore bool `json:"has_more"`
			} `json:"pagination"`
		}
		resp.decode(t, &page)
		require.Len(t, page.Data, 2)
		assert.Equal(t, members[0].id, page.Data[0].UserID, "oldest first")
		assert.Equal(t, members[0].email, page.Data[0].Email)
		assert.Equal(t, auth.RoleOwner, page.Data[0].Role)
		assert.True(t, start.Equal(page.Data[0].JoinedAt), "joined_at %s", page.Data[0].JoinedAt)
		assert.Equal(t, auth.RoleAdmin, page.Data[1].Role)
		assert.Equal(t, 3, page.Pagination.Total)
		assert.True(t, page.Pagination.HasMore)

		resp = h.get(t, o.key.raw, "/v1/members?offset=2")
		resp.decode(t, &page)
		require.Len(t, page.Data, 1)
		assert.Equal(t, members[2].id, page.Data[0].UserID)
		assert.Equal(t, 20, page.Pagination.Limit)
		assert.False(t, page.Pagination.HasMore)

		t.Run("every role reads the team with team:read; other scopes are 403", func(t *testing.T) {
			key := h.memberKey(t, members[2], auth.ScopeTeamRead)
			assert.Equal(t, http.StatusOK, h.get(t, key.raw, "/v1/members").status)
			assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, "/v1/members"), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, h.sdkKey(t, o).raw, "/v1/members"), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		})
		t.Run("400 for bad query parameters", func(t *testing.T) {
			for path, field := range map[string]string{
				"/v1/members?limit=0": "limit", "/v1/members?offset=-1": "offset", "/v1/members?role=owner": "role",
			} {
				e := assertError(t, h.do(t, request{method: http.MethodGet, path: path, key: o.key.raw, off: true}),
					http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, field)
			}
		})
	})
}

func TestUpdateMemberRole(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withTeam())
		o := h.newOrg(t, "Acme")
		owner := h.newMember(t, o, auth.RoleOwner)
		admin := h.newMember(t, o, auth.RoleAdmin)
		member := h.newMember(t, o, auth.RoleMember)
		ownerKey := h.memberKey(t, owner, auth.ScopeTeamWrite, auth.ScopeTeamRead)
		adminKey := h.memberKey(t, admin, auth.ScopeTeamWrite, auth.ScopeTeamRead)

		t.Run("an admin makes a member an admin", func(t *testing.T) {
			h.clock.Advance(time.Minute)
			resp := h.patchMember(t, adminKey.raw, member.id, `{"role":"admin"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var m teamMember
			resp.decode(t, &m)
			assert.Equal(t, auth.RoleAdmin, m.Role)
			assert.Equal(t, member.email, m.Email)
			assert.True(t, start.Equal(m.JoinedAt), "joined_at does not move")
		})
		t.Run("only owners make or change owners", func(t *testing.T) {
			assertError(t, h.patchMember(t, adminKey.raw, member.id, `{"role":"owner"}`), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.patchMember(t, adminKey.raw, owner.id, `{"role":"member"}`), http.StatusForbidden, errcode.Forbidden)
			resp := h.patchMember(t, ownerKey.raw, member.id, `{"role":"owner"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		})
		t.Run("the member's keys follow the new role at once", func(t *testing.T) {
			solo := h.newOrg(t, "Solo")
			boss := h.newMember(t, solo, auth.RoleOwner)
			staff := h.newMember(t, solo, auth.RoleAdmin)
			staffKey := h.memberKey(t, staff, auth.ScopeAppsWrite)
			resp := h.post(t, staffKey.raw, "/v1/apps", `{"name":"Before"}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			bossKey := h.memberKey(t, boss, auth.ScopeTeamWrite)
			require.Equal(t, http.StatusOK, h.patchMember(t, bossKey.raw, staff.id, `{"role":"member"}`).status)
			assertError(t, h.post(t, staffKey.raw, "/v1/apps", `{"name":"After"}`), http.StatusForbidden, errcode.Forbidden)
		})
		t.Run("409 LAST_OWNER: the last owner cannot step down", func(t *testing.T) {
			solo := h.newOrg(t, "Alone")
			only := h.newMember(t, solo, auth.RoleOwner)
			resp := h.patchMember(t, solo.key.raw, only.id, `{"role":"admin"}`)
			assertError(t, resp, http.StatusConflict, errcode.LastOwner)
			second := h.newMember(t, solo, auth.RoleAdmin)
			require.Equal(t, http.StatusOK, h.patchMember(t, solo.key.raw, second.id, `{"role":"owner"}`).status)
			require.Equal(t, http.StatusOK, h.patchMember(t, solo.key.raw, only.id, `{"role":"admin"}`).status, "with a second owner")
		})
		t.Run("400 for a bad body or id; 404 for a non-member", func(t *testing.T) {
			for _, body := range []string{`{}`, `{"role":"boss"}`, `{"role":null}`, `{"role":"admin","x":1}`} {
				resp := h.do(t, request{method: http.MethodPatch, path: memberPath(member.id), key: o.key.raw, body: body, off: true})
				assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
			}
			assertError(t, h.do(t, request{method: http.MethodPatch, path: "/v1/members/x", key: o.key.raw, body: `{"role":"admin"}`, off: true}),
				http.StatusBadRequest, errcode.InvalidID)
			// Users are shared between organizations: the fourth of another
			// organization is none of this one's three.
			elsewhere := h.newOrg(t, "Elsewhere")
			var stranger *testMember
			for range 4 {
				stranger = h.newMember(t, elsewhere, auth.RoleMember)
			}
			assertError(t, h.patchMember(t, o.key.raw, stranger.id, `{"role":"admin"}`), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.patchMember(t, o.key.raw, uuid.New(), `{"role":"admin"}`), http.StatusNotFound, errcode.NotFound)
		})
		t.Run("team:read is not enough", func(t *testing.T) {
			read := h.scopedKey(t, o, auth.ScopeTeamRead)
			assertError(t, h.patchMember(t, read.raw, member.id, `{"role":"member"}`), http.StatusForbidden, errcode.Forbidden)
		})
	})
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withTeam())
		o := h.newOrg(t, "Acme")
		owner := h.newMember(t, o, auth.RoleOwner)
		admin := h.newMember(t, o, auth.RoleAdmin)
		member := h.newMember(t, o, auth.RoleMember)
		adminKey := h.memberKey(t, admin, auth.ScopeTeamWrite)
		memberKey := h.memberKey(t, member, auth.ScopeKeysRead)
		require.Equal(t, http.StatusOK, h.get(t, memberKey.raw, "/v1/keys").status)

		t.Run("an admin removes a member, whose keys then answer 403 at once", func(t *testing.T) {
			resp := h.delete(t, adminKey.raw, memberPath(member.id))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var m teamMember
			resp.decode(t, &m)
			assert.Equal(t, member.id, m.UserID)
			assert.Equal(t, auth.RoleMember, m.Role)
			assertError(t, h.get(t, memberKey.raw, "/v1/keys"), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.delete(t, adminKey.raw, memberPath(member.id)), http.StatusNotFound, errcode.NotFound)
		})
		t.Run("only owners remove owners; the last owner stays", func(t *testing.T) {
			assertError(t, h.delete(t, adminKey.raw, memberPath(owner.id)), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.delete(t, o.key.raw, memberPath(owner.id)), http.StatusConflict, errcode.LastOwner)
			assert.Equal(t, 2, h.count(t, "memberships", o.ID))
		})
		t.Run("an admin may remove themselves", func(t *testing.T) {
			require.Equal(t, http.StatusOK, h.delete(t, adminKey.raw, memberPath(admin.id)).status)
			assertError(t, h.get(t, adminKey.raw, "/v1/members"), http.StatusForbidden, errcode.Forbidden)
		})
	})
}
