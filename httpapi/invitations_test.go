package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
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

func withInvitations() option {
	return withAPI(func(h *harness, o *httpapi.Options) {
		inv, err := org.NewInvitations(h.store, h.store, bytes.Repeat([]byte{7}, 32), org.InvitationsOptions{Clock: h.clock.Now})
		if err != nil {
			panic(err)
		}
		o.Invitations = inv
	})
}

func invitationPath(id uuid.UUID) string { return "/v1/invitations/" + id.String() }

// invitationBody is the Invitation resource as a test reads it.
type invitationBody struct {
	ID         uuid.UUID  `json:"id"`
	OrgID      uuid.UUID  `json:"org_id"`
	Email      string     `json:"email"`
	Role       auth.Role  `json:"role"`
	InvitedBy  *uuid.UUID `json:"invited_by"`
	Token      string     `json:"token"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"accepted_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

func (h *harness) invite(t testing.TB, key, email string, role auth.Role) invitationBody {
	t.Helper()
	resp := h.post(t, key, "/v1/invitations", bodyJSON(t, map[string]string{"email": email, "role": string(role)}))
	require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
	var inv invitationBody
	resp.decode(t, &inv)
	return inv
}

func (h *harness) invitations(t testing.TB, key, query string) ([]map[string]any, map[string]any) {
	t.Helper()
	resp := h.get(t, key, "/v1/invitations"+query)
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	var page struct {
		Data       []map[string]any `json:"data"`
		Pagination map[string]any   `json:"pagination"`
	}
	resp.decode(t, &page)
	return page.Data, page.Pagination
}

func TestCreateInvitation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withInvitations())

		t.Run("201 with a token, valid for 7 days, invited_by null for a key without a creator", func(t *testing.T) {
			o := h.newOrg(t, "Acme")
			resp := h.post(t, o.key.raw, "/v1/invitations", `{"email":"  New.Person@Example.COM ","role":"admin"}`)
			require.Equal(t, http.StatusCreated, resp.status, "body: %s", resp.body)
			assert.ElementsMatch(t, []string{"id", "org_id", "email", "role", "invited_by", "token", "expires_at",
				"accepted_at", "revoked_at", "created_at", "updated_at", "accept_url"}, keysOf(resp.object(t)))
			var inv invitationBody
			resp.decode(t, &inv)
			var created struct {
				AcceptURL string `json:"accept_url"`
			}
			resp.decode(t, &created)
			assert.Equal(t, h.srv.URL+"/invitations/"+inv.Token, created.AcceptURL, "the page to send to the invited person")
			assert.Equal(t, o.ID, inv.OrgID)
			assert.Equal(t, "new.person@example.com", inv.Email)
			assert.Equal(t, auth.RoleAdmin, inv.Role)
			assert.Nil(t, inv.InvitedBy)
			assert.GreaterOrEqual(t, len(inv.Token), 40)
			assert.True(t, h.clock.Now().Add(7*24*time.Hour).Equal(inv.ExpiresAt), "expires_at %s", inv.ExpiresAt)
			assert.Nil(t, inv.AcceptedAt)
			assert.Nil(t, inv.RevokedAt)

			var hash, sealed string
			err := s.DB().NewSelect().Table("invitations").Column("token_hash", "token_sealed").Where("id = ?", inv.ID).
				Scan(context.Background(), &hash, &sealed)
			require.NoError(t, err)
			assert.Equal(t, org.HashInvitationToken(inv.Token), hash, "the token is found by its hash")
			assert.NotContains(t, sealed, inv.Token, "and kept only encrypted")
		})
		t.Run("invited_by is the member whose key invites", func(t *testing.T) {
			o := h.newOrg(t, "Members")
			admin := h.newMember(t, o, auth.RoleAdmin)
			key := h.memberKey(t, admin, auth.ScopeTeamWrite)
			inv := h.invite(t, key.raw, "someone@example.com", auth.RoleMember)
			require.NotNil(t, inv.InvitedBy)
			assert.Equal(t, admin.id, *inv.InvitedBy)
		})
		t.Run("400 naming every bad field", func(t *testing.T) {
			o := h.newOrg(t, "Bad")
			for _, tt := range []struct {
				body   string
				fields []string
			}{
				{`{}`, []string{"email", "role"}},
				{`{"email":"not an email","role":"member"}`, []string{"email"}},
				{`{"email":"` + strings.Repeat("a", 250) + `@example.com","role":"member"}`, []string{"email"}},
				{`{"email":"a@example.com","role":"owner"}`, []string{"role"}},
				{`{"email":"a@example.com","role":"boss"}`, []string{"role"}},
				{`{"email":null,"role":null}`, []string{"email", "role"}},
				{`{"email":"a@example.com","role":"member","x":1}`, []string{"x"}},
			} {
				resp := h.do(t, request{method: http.MethodPost, path: "/v1/invitations", key: o.key.raw, body: tt.body, off: true})
				e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, tt.fields...)
			}
			assert.Zero(t, h.count(t, "invitations", o.ID))
		})
		t.Run("409 ALREADY_MEMBER, whatever the case", func(t *testing.T) {
			o := h.newOrg(t, "Team")
			m := h.newMember(t, o, auth.RoleMember)
			resp := h.post(t, o.key.raw, "/v1/invitations", bodyJSON(t, map[string]string{"email": strings.ToUpper(m.email), "role": "member"}))
			assertError(t, resp, http.StatusConflict, errcode.AlreadyMember)
		})
		t.Run("409 DUPLICATE_INVITATION while one is pending; free again once revoked or expired", func(t *testing.T) {
			o := h.scaleTeamOrg(t, "Dup")
			first := h.invite(t, o.key.raw, "dup@example.com", auth.RoleMember)
			resp := h.post(t, o.key.raw, "/v1/invitations", `{"email":"DUP@example.com","role":"admin"}`)
			assertError(t, resp, http.StatusConflict, errcode.DuplicateInvitation)
			require.Equal(t, http.StatusOK, h.delete(t, o.key.raw, invitationPath(first.ID)).status)
			second := h.invite(t, o.key.raw, "dup@example.com", auth.RoleMember)
			h.clock.Advance(org.InvitationValidity)
			third := h.invite(t, o.key.raw, "dup@example.com", auth.RoleMember)
			assert.NotEqual(t, second.ID, third.ID)
		})
		t.Run("403 SEAT_LIMIT_EXCEEDED counting members and pending invitations", func(t *testing.T) {
			o := h.newOrg(t, "Free team") // Free: 2 seats
			h.newMember(t, o, auth.RoleOwner)
			pending := h.invite(t, o.key.raw, "second@example.com", auth.RoleMember)
			resp := h.post(t, o.key.raw, "/v1/invitations", `{"email":"third@example.com","role":"member"}`)
			assertError(t, resp, http.StatusForbidden, errcode.SeatLimitExceeded)
			require.Equal(t, http.StatusOK, h.delete(t, o.key.raw, invitationPath(pending.ID)).status)
			h.invite(t, o.key.raw, "third@example.com", auth.RoleMember)
		})
		t.Run("scopes and roles", func(t *testing.T) {
			o := h.newOrg(t, "Scopes")
			read := h.scopedKey(t, o, auth.ScopeTeamRead)
			assertError(t, h.post(t, read.raw, "/v1/invitations", `{"email":"x@example.com","role":"member"}`), http.StatusForbidden, errcode.Forbidden)
			member := h.memberKey(t, h.newMember(t, o, auth.RoleMember), auth.ScopeTeamRead)
			assertError(t, h.post(t, member.raw, "/v1/invitations", `{"email":"x@example.com","role":"member"}`), http.StatusForbidden, errcode.Forbidden)
			h.invitations(t, member.raw, "")
			assertError(t, h.get(t, h.sdkKey(t, o).raw, "/v1/invitations"), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		})
	})
}

// scaleTeamOrg creates an organization on the Scale plan (100 seats).
func (h *harness) scaleTeamOrg(t testing.TB, name string) *testOrg {
	t.Helper()
	o := h.newOrg(t, name)
	_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanScale)
	require.NoError(t, err)
	return o
}

func TestListAndRevokeInvitations(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s, withInvitations())
		o := h.scaleTeamOrg(t, "Acme")
		expired := h.invite(t, o.key.raw, "expired@example.com", auth.RoleMember)
		h.clock.Advance(org.InvitationValidity)
		accepted := h.invite(t, o.key.raw, "accepted@example.com", auth.RoleMember)
		_, err := s.DB().NewUpdate().Table("invitations").Set("accepted_at = ?", h.clock.Now()).Where("id = ?", accepted.ID).Exec(context.Background())
		require.NoError(t, err)
		h.clock.Advance(time.Second)
		revoked := h.invite(t, o.key.raw, "revoked@example.com", auth.RoleMember)
		h.clock.Advance(time.Second)
		pending := h.invite(t, o.key.raw, "pending@example.com", auth.RoleAdmin)
		h.clock.Advance(time.Second)
		newest := h.invite(t, o.key.raw, "newest@example.com", auth.RoleMember)

		t.Run("DELETE revokes a pending invitation and returns it with its token", func(t *testing.T) {
			h.clock.Advance(time.Minute)
			resp := h.delete(t, o.key.raw, invitationPath(revoked.ID))
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			var inv invitationBody
			resp.decode(t, &inv)
			assert.Equal(t, revoked.Token, inv.Token, "the same token, decrypted")
			require.NotNil(t, inv.RevokedAt)
			assert.True(t, h.clock.Now().Equal(*inv.RevokedAt))
			assert.Equal(t, *inv.RevokedAt, inv.UpdatedAt)
		})
		t.Run("400 for every other state, and nothing changes", func(t *testing.T) {
			for _, tt := range []struct {
				id   uuid.UUID
				code errcode.Code
			}{
				{revoked.ID, errcode.InvitationAlreadyRevoked},
				{accepted.ID, errcode.InvitationAlreadyAccepted},
				{expired.ID, errcode.InvitationExpired},
			} {
				assertError(t, h.delete(t, o.key.raw, invitationPath(tt.id)), http.StatusBadRequest, tt.code)
			}
			all, _ := h.invitations(t, o.key.raw, "?status=all")
			for _, item := range all {
				if item["id"] == expired.ID.String() || item["id"] == accepted.ID.String() {
					assert.Nil(t, item["revoked_at"])
				}
			}
		})
		t.Run("404 and 400 INVALID_ID", func(t *testing.T) {
			other := h.scaleTeamOrg(t, "Other")
			theirs := h.invite(t, other.key.raw, "theirs@example.com", auth.RoleMember)
			assertError(t, h.delete(t, o.key.raw, invitationPath(theirs.ID)), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.do(t, request{method: http.MethodDelete, path: "/v1/invitations/x", key: o.key.raw, off: true}),
				http.StatusBadRequest, errcode.InvalidID)
		})
		t.Run("the list: pending by default, newest first, no tokens", func(t *testing.T) {
			data, pagination := h.invitations(t, o.key.raw, "")
			require.Len(t, data, 2)
			assert.Equal(t, newest.ID.String(), data[0]["id"])
			assert.Equal(t, pending.ID.String(), data[1]["id"])
			for _, item := range data {
				assert.NotContains(t, item, "token")
			}
			assert.EqualValues(t, 2, pagination["total"])
		})
		t.Run("each status filter", func(t *testing.T) {
			for status, want := range map[string][]uuid.UUID{
				"pending":  {newest.ID, pending.ID},
				"accepted": {accepted.ID},
				"revoked":  {revoked.ID},
				"expired":  {expired.ID},
				"all":      {newest.ID, pending.ID, revoked.ID, accepted.ID, expired.ID},
			} {
				data, _ := h.invitations(t, o.key.raw, "?status="+status)
				var got []uuid.UUID
				for _, item := range data {
					got = append(got, uuid.MustParse(item["id"].(string)))
				}
				assert.Equal(t, want, got, status)
			}
			data, pagination := h.invitations(t, o.key.raw, "?status=all&limit=2&offset=1")
			require.Len(t, data, 2)
			assert.Equal(t, pending.ID.String(), data[0]["id"])
			assert.Equal(t, true, pagination["has_more"])
		})
		t.Run("400 for a bad status or parameter", func(t *testing.T) {
			for path, field := range map[string]string{
				"/v1/invitations?status=open": "status", "/v1/invitations?limit=0": "limit", "/v1/invitations?x=1": "x",
			} {
				e := assertError(t, h.do(t, request{method: http.MethodGet, path: path, key: o.key.raw, off: true}),
					http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, field)
			}
		})
	})
}
