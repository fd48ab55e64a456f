package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestTeamAndDomainRoutesRefuseMissingKeys proves SPEC.md's Endpoints rule
// (401 for a missing key) and Authentication rules 2 and 4 on every route of
// the custom domains, invitations and team: no key or an unknown key is 401
// UNAUTHORIZED, an SDK key 403 SDK_KEY_ROUTE_FORBIDDEN, and none of them
// changes anything.
func TestTeamAndDomainRoutesRefuseMissingKeys(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s, withInvitations(), withTeam())
		o := h.planOrg(t, "Acme", org.PlanScale)
		h.newMember(t, o, auth.RoleOwner)
		member := h.newMember(t, o, auth.RoleMember)
		d := h.addDomain(t, o.key.raw, "links.acme.example")
		inv := h.invite(t, o.key.raw, "new@acme.example", auth.RoleMember)
		sdk := h.sdkKey(t, o).raw
		unknown := "svc_live_" + "0123456789abcdefghijABCDEFGHIJkl"

		routes := []struct {
			name string
			req  request
		}{
			{"POST /domains", request{method: http.MethodPost, path: "/v1/domains", body: `{"domain":"other.acme.example"}`}},
			{"GET /domains", request{method: http.MethodGet, path: "/v1/domains"}},
			{"GET /domains/{id}", request{method: http.MethodGet, path: domainPath(d.ID)}},
			{"DELETE /domains/{id}", request{method: http.MethodDelete, path: domainPath(d.ID)}},
			{"POST /domains/{id}/verify", request{method: http.MethodPost, path: domainPath(d.ID) + "/verify"}},
			{"POST /invitations", request{method: http.MethodPost, path: "/v1/invitations", body: `{"email":"x@acme.example","role":"member"}`}},
			{"GET /invitations", request{method: http.MethodGet, path: "/v1/invitations"}},
			{"DELETE /invitations/{id}", request{method: http.MethodDelete, path: invitationPath(inv.ID)}},
			{"GET /members", request{method: http.MethodGet, path: "/v1/members"}},
			{"PATCH /members/{user_id}", request{method: http.MethodPatch, path: memberPath(member.id), body: `{"role":"admin"}`}},
			{"DELETE /members/{user_id}", request{method: http.MethodDelete, path: memberPath(member.id)}},
		}
		for _, route := range routes {
			t.Run(route.name, func(t *testing.T) {
				for _, tt := range []struct {
					who    string
					key    string
					status int
					code   errcode.Code
				}{
					{"no key", "", http.StatusUnauthorized, errcode.Unauthorized},
					{"an unknown key", unknown, http.StatusUnauthorized, errcode.Unauthorized},
					{"an SDK key", sdk, http.StatusForbidden, errcode.SDKKeyRouteForbidden},
				} {
					req := route.req
					req.key = tt.key
					assertError(t, h.do(t, req), tt.status, tt.code)
				}
			})
		}

		assert.Equal(t, 1, h.count(t, "domains", o.ID), "no domain was added or deleted")
		assert.Equal(t, 1, h.count(t, "invitations", o.ID), "no invitation was added")
		assert.Equal(t, 2, h.count(t, "memberships", o.ID), "no member was removed")
		items, _ := h.invitations(t, o.key.raw, "")
		if assert.Len(t, items, 1) {
			assert.Nil(t, items[0]["revoked_at"], "the invitation is still pending")
		}
		members := h.get(t, o.key.raw, "/v1/members")
		assert.Contains(t, string(members.body), `"role":"member"`, "the member's role is unchanged")
	})
}

// TestRemoveMemberRefusesABadID proves SPEC.md's INVALID_ID rule on DELETE
// /members/{user_id}: an id that is not a UUID is 400 INVALID_ID, and one
// that names nobody in the organization is 404.
func TestRemoveMemberRefusesABadID(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withTeam())
		o := h.newOrg(t, "Acme")
		h.newMember(t, o, auth.RoleOwner)
		assertError(t, h.do(t, request{method: http.MethodDelete, path: "/v1/members/not-a-uuid", key: o.key.raw, off: true}),
			http.StatusBadRequest, errcode.InvalidID)
		assertError(t, h.delete(t, o.key.raw, memberPath(uuid.New())), http.StatusNotFound, errcode.NotFound)
		assert.Equal(t, 1, h.count(t, "memberships", o.ID))
	})
}
