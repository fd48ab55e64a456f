package httpapi_test

import (
	"bytes"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// newTeamHarness is a dashboard harness with the team and invitation
// services, its organization on the Growth plan (20 seats).
func newTeamHarness(t *testing.T, s *store.Store) *dashHarness {
	t.Helper()
	h := newDashHarness(t, s, withTeam(), withInvitations())
	_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanGrowth)
	require.NoError(t, err)
	return h
}

func teamPath(orgID uuid.UUID) string { return "/dashboard/o/" + orgID.String() + "/team" }

func memberAction(orgID, userID uuid.UUID, action string) string {
	return teamPath(orgID) + "/members/" + userID.String() + "/" + action
}

func revokePath(orgID uuid.UUID, id string) string {
	return teamPath(orgID) + "/invitations/" + id + "/revoke"
}

var (
	acceptLink  = regexp.MustCompile(`<code id="invite-link">([^<]+)</code>`)
	listedLinks = regexp.MustCompile(`<code id="invite-link-[0-9a-f-]{36}">([^<]+)</code>`)
)

// pendingInvitation returns the id of the organization's pending
// invitation for email, "" when there is none.
func (h *dashHarness) pendingInvitation(t testing.TB, email string) string {
	t.Helper()
	items, _ := h.invitations(t, h.org.key.raw, "")
	for _, it := range items {
		if it["email"] == email {
			return it["id"].(string)
		}
	}
	return ""
}

// teamEvents returns the organization's member.* audit events, newest
// first.
func (h *dashHarness) teamEvents(t testing.TB) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, e := range h.auditEvents(t, h.org.key.raw) {
		if strings.HasPrefix(e.Action, "member.") {
			out = append(out, e)
		}
	}
	return out
}

func TestDashboardTeamInvitations(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newTeamHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		member := h.member(t, auth.RoleMember)
		b := h.signedIn(t, owner, "198.51.100.60")
		team := teamPath(h.org.ID)

		p := b.get(linksPath(h.org.ID))
		assert.Contains(t, p.body, `<a href="`+team+`">Team</a>`, "the navigation offers the team")
		assert.Regexp(t, `>Keys</a></li><li><a href="`+team+`">Team</a>`, p.body, "after the keys")
		p = b.get(team)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `<a href="`+team+`" aria-current="page">Team</a>`)
		assert.Contains(t, p.body, `id="invitations-empty">No pending invitations. Invite someone below`, "the empty state says what to do")
		assert.Contains(t, p.body, `id="f-role-admin" name="role" value="admin"`)
		assert.Contains(t, p.body, `id="f-role-member" name="role" value="member" checked`, "member is the default")
		assert.NotContains(t, p.body, `id="f-role-owner"`, "no invitation makes an owner")
		assert.NotContains(t, p.body, "<script", "no link to copy yet")

		invite := team + "/invitations"
		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			want   []string
		}{
			{"not an email", url.Values{"email": {"someone at example"}, "role": {"admin"}}, http.StatusBadRequest,
				[]string{`id="f-email-error">The email must be an email address`, `value="someone at example"`, `id="f-role-admin" name="role" value="admin" checked`, `id="form-invalid"`}},
			{"no role", url.Values{"email": {"new@example.com"}}, http.StatusBadRequest,
				[]string{`id="f-role-error">The role must be admin or member.`, `value="new@example.com"`}},
			{"an owner", url.Values{"email": {"new@example.com"}, "role": {"owner"}}, http.StatusBadRequest,
				[]string{`id="f-role-error">The role must be admin or member.`}},
			{"a member already", url.Values{"email": {strings.ToUpper(member.email)}, "role": {"member"}}, http.StatusConflict,
				[]string{`id="f-email-error">` + html.EscapeString(member.email) + ` is already a member of this organization.`}},
			{"markup", url.Values{"email": {`"><script>x</script>`}, "role": {"member"}}, http.StatusBadRequest,
				[]string{`value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"`}},
		} {
			b.get(team)
			p = b.post(invite, tc.form)
			assert.Equal(t, tc.status, p.status, tc.name)
			for _, w := range tc.want {
				assert.Contains(t, p.body, w, tc.name)
			}
		}
		assert.Zero(t, h.count(t, "invitations", h.org.ID), "nothing was invited")

		b.get(team)
		p = b.post(invite, url.Values{"email": {"  New.Person@Example.com "}, "role": {"admin"}})
		require.Equal(t, http.StatusCreated, p.status, p.body)
		assert.Equal(t, "no-store", p.header.Get("Cache-Control"), "the page with the link is not cached")
		m := acceptLink.FindStringSubmatch(p.body)
		require.NotNil(t, m, p.body)
		link := html.UnescapeString(m[1])
		assert.True(t, strings.HasPrefix(link, h.srv.URL+"/invitations/"), link)
		assert.Contains(t, p.body, `data-copy="invite-link" hidden>Copy</button>`, "the copy button, shown by the script")
		assert.Contains(t, p.body, `<strong id="invited-email">new.person@example.com</strong>`, "the email as stored")
		assert.Contains(t, p.body, `id="invited-role">admin<`)

		id := h.pendingInvitation(t, "new.person@example.com")
		require.NotEmpty(t, id, "the invitation is pending in the API")
		items, _ := h.invitations(t, h.org.key.raw, "")
		assert.Equal(t, owner.id.String(), items[0]["invited_by"], "the user invited")
		invitee := h.browser(t, "198.51.100.69")
		inv := invitee.get(strings.TrimPrefix(link, h.srv.URL))
		require.Equal(t, http.StatusOK, inv.status, "the link opens the acceptance page")
		assert.Contains(t, inv.body, "Acme")

		p = b.get(team)
		links := listedLinks.FindAllStringSubmatch(p.body, -1)
		require.Len(t, links, 1, "the pending invitation lists its link")
		assert.Equal(t, link, html.UnescapeString(links[0][1]))
		assert.Contains(t, p.body, "<script>", "and the copy button's script")
		assert.Contains(t, p.body, `href="`+revokePath(h.org.ID, id)+`"`)

		b.get(team)
		p = b.post(invite, url.Values{"email": {"new.person@example.com"}, "role": {"member"}})
		assert.Equal(t, http.StatusConflict, p.status)
		assert.Contains(t, p.body, "already has a pending invitation; revoke it to invite again.")

		revoke := revokePath(h.org.ID, id)
		p = b.get(revoke)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `name="confirm"`)
		assert.Contains(t, p.body, "new.person@example.com")
		p = b.post(revoke, url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation")
		assert.Equal(t, id, h.pendingInvitation(t, "new.person@example.com"), "still pending")
		p = b.post(revoke, url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, team+"?done=revoked", p.location())
		assert.Equal(t, org.InvitationRevoked, h.invitationState(t, "new.person@example.com"))
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="notice">The invitation was revoked`)
		assert.NotContains(t, p.body, link, "a revoked invitation is no longer listed")
		assert.Equal(t, http.StatusGone, invitee.get(strings.TrimPrefix(link, h.srv.URL)).status, "and its link is closed")

		p = b.get(revoke)
		assert.Equal(t, http.StatusBadRequest, p.status, "a revoked invitation is not revoked again")
		assert.Contains(t, p.body, "is revoked: only a pending invitation can be revoked.")
		b.get(team)
		assert.Equal(t, http.StatusBadRequest, b.post(revoke, url.Values{"confirm": {"yes"}}).status)

		assert.Empty(t, h.teamEvents(t), "inviting and revoking record nothing, as in the API")
	})
}

func TestDashboardTeamSeatsAndUnreadableLinks(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t), withTeam(), withInvitations())
	owner := h.member(t, auth.RoleOwner)
	b := h.signedIn(t, owner, "198.51.100.61")
	team := teamPath(h.org.ID)

	// The Free plan's two seats: the owner and one invitation.
	b.get(team)
	require.Equal(t, http.StatusCreated, b.post(team+"/invitations", url.Values{"email": {"first@example.com"}, "role": {"member"}}).status)
	b.get(team)
	p := b.post(team+"/invitations", url.Values{"email": {"second@example.com"}, "role": {"member"}})
	assert.Equal(t, http.StatusForbidden, p.status)
	assert.Contains(t, p.body, `id="invite-error">The free plan has 2 seats`, "the service's message on the form")
	assert.Contains(t, p.body, `value="second@example.com"`)
	assert.Equal(t, 1, h.count(t, "invitations", h.org.ID))

	// An invitation whose token was sealed under another server secret is
	// listed without a link, and the page still works.
	_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanStarter)
	require.NoError(t, err)
	other, err := org.NewInvitations(h.store, h.store, bytes.Repeat([]byte{9}, 32), org.InvitationsOptions{Clock: h.clock.Now})
	require.NoError(t, err)
	email, role := "sealed@example.com", auth.RoleMember
	_, err = other.Create(t.Context(), orgPrincipal(h.org), org.CreateInvitationInput{Email: &email, Role: &role})
	require.NoError(t, err)
	p = b.get(team)
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Contains(t, p.body, "It cannot be shown: revoke this invitation and invite again.")
	assert.Len(t, listedLinks.FindAllString(p.body, -1), 1, "the other invitation's link is shown")
}

func TestDashboardTeamOwnerChangesRolesAndRemoves(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newTeamHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		member := h.member(t, auth.RoleMember)
		gone := h.member(t, auth.RoleAdmin)
		goneKey := h.memberKey(t, gone, auth.ScopeLinksRead)
		b := h.signedIn(t, owner, "198.51.100.62")
		team := teamPath(h.org.ID)

		p := b.get(team)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="members-count">3 members`)
		assert.Contains(t, p.body, html.EscapeString(owner.email)+` <span class="muted">(you)</span>`)
		assert.Contains(t, p.body, `id="note-`+owner.id.String()+`">The only owner: make another member owner first.`, "the last owner is offered no change")
		assert.NotContains(t, p.body, memberAction(h.org.ID, owner.id, "role"))
		assert.NotContains(t, p.body, memberAction(h.org.ID, owner.id, "remove"))
		assert.Contains(t, p.body, `<option value="owner">owner</option>`, "an owner makes owners")
		assert.Contains(t, p.body, `action="`+memberAction(h.org.ID, member.id, "role")+`"`)
		assert.Contains(t, p.body, `href="`+memberAction(h.org.ID, gone.id, "remove")+`"`)

		// The last-owner rule, from a hand-made POST: the service's message
		// under the role, the role typed kept, nothing changed.
		p = b.post(memberAction(h.org.ID, owner.id, "role"), url.Values{"role": {"admin"}})
		assert.Equal(t, http.StatusConflict, p.status)
		assert.Contains(t, p.body, `id="error">An organization keeps at least one owner`, "the owner's row has no form, so the page says it")
		assert.Equal(t, auth.RoleOwner, h.role(t, owner.email))
		b.get(team)
		p = b.post(memberAction(h.org.ID, owner.id, "remove"), url.Values{"confirm": {"yes"}})
		assert.Equal(t, http.StatusConflict, p.status)
		assert.Contains(t, p.body, `id="error">An organization keeps at least one owner`)
		assert.Contains(t, p.body, "Leave the organization", "the confirmation, again")
		assert.Equal(t, auth.RoleOwner, h.role(t, owner.email))

		b.get(team)
		p = b.post(memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"emperor"}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="role-`+member.id.String()+`-error">Role must be owner, admin or member.`)
		assert.Contains(t, p.body, `aria-invalid="true" aria-describedby="role-`+member.id.String()+`-error"`)
		assert.Equal(t, auth.RoleMember, h.role(t, member.email))

		b.get(team)
		p = b.post(memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"owner"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, team+"?done=role", p.location())
		assert.Equal(t, auth.RoleOwner, h.role(t, member.email), "the change is visible through the store")
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="notice">The role was changed`)
		assert.Contains(t, p.body, `action="`+memberAction(h.org.ID, owner.id, "role")+`"`, "two owners: either may step down now")
		assert.Contains(t, p.body, `id="remove-`+owner.id.String()+`">Leave</a>`)

		remove := memberAction(h.org.ID, gone.id, "remove")
		p = b.get(remove)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, "Removing "+html.EscapeString(gone.email)+" (admin) from Acme ends their access at once")
		p = b.post(remove, url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation")
		assert.Equal(t, auth.RoleAdmin, h.role(t, gone.email))
		p = b.post(remove, url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, team+"?done=removed", p.location())
		assert.Empty(t, h.role(t, gone.email), "no longer a member")
		assert.Equal(t, http.StatusForbidden, h.get(t, goneKey.raw, "/v1/links").status, "their key is refused")
		assert.Equal(t, http.StatusNotFound, b.get(remove).status, "a member removed is not found")

		events := h.teamEvents(t)
		require.Len(t, events, 2, "the refused changes recorded nothing")
		assert.Equal(t, "member.removed", events[0].Action)
		assert.Equal(t, gone.id.String(), events[0].TargetID)
		assert.Equal(t, "member.role_changed", events[1].Action)
		assert.Equal(t, member.id.String(), events[1].TargetID)
		assert.Equal(t, map[string]string{"role": "owner"}, events[1].Details)
		for _, e := range events {
			assert.Equal(t, "user", e.ActorType, "the user acted")
			require.NotNil(t, e.ActorID)
			assert.Equal(t, owner.id.String(), *e.ActorID)
			assert.Equal(t, "user", e.TargetType)
		}

		// Leaving: the member's own removal goes back to the dashboard.
		b.get(team)
		p = b.post(memberAction(h.org.ID, owner.id, "remove"), url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, "/dashboard", p.location())
		assert.Empty(t, h.role(t, owner.email))
		assert.Equal(t, http.StatusNotFound, b.get(team).status, "the organization's pages are no longer theirs")
	})
}

func TestDashboardTeamAdminMayNotTouchOwners(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newTeamHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		b := h.signedIn(t, admin, "198.51.100.63")
		team := teamPath(h.org.ID)

		p := b.get(team)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="note-`+owner.id.String()+`">Only owners change or remove an owner.`)
		assert.NotContains(t, p.body, memberAction(h.org.ID, owner.id, "role"))
		assert.NotContains(t, p.body, memberAction(h.org.ID, owner.id, "remove"))
		assert.Contains(t, p.body, `action="`+memberAction(h.org.ID, member.id, "role")+`"`)
		assert.NotContains(t, p.body, `<option value="owner">`, "an admin makes no owner")
		assert.Contains(t, p.body, `id="f-role-admin"`, "but may invite an admin")

		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"owner"}}},
			{memberAction(h.org.ID, owner.id, "role"), url.Values{"role": {"member"}}},
			{memberAction(h.org.ID, owner.id, "remove"), url.Values{"confirm": {"yes"}}},
		} {
			b.get(team)
			p = b.post(tc.path, tc.form)
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s %v", tc.path, tc.form)
			assert.Contains(t, p.body, `id="error">`)
		}
		assert.Equal(t, http.StatusForbidden, b.get(memberAction(h.org.ID, owner.id, "remove")).status, "no confirmation either")
		assert.Equal(t, auth.RoleOwner, h.role(t, owner.email))
		assert.Equal(t, auth.RoleMember, h.role(t, member.email))

		b.get(team)
		p = b.post(memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"admin"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, auth.RoleAdmin, h.role(t, member.email))
		b.get(team)
		p = b.post(team+"/invitations", url.Values{"email": {"another.admin@example.com"}, "role": {"admin"}})
		assert.Equal(t, http.StatusCreated, p.status, p.body)
		assert.Len(t, h.teamEvents(t), 1, "the role change alone")
	})
}

func TestDashboardTeamMemberSeesItReadOnly(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newTeamHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		inv := h.invite(t, h.org.key.raw, "pending@example.com", auth.RoleAdmin)
		b := h.signedIn(t, member, "198.51.100.64")
		team := teamPath(h.org.ID)

		p := b.get(team)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="read-only">Your role sees the team.`)
		assert.Contains(t, p.body, html.EscapeString(owner.email))
		assert.Contains(t, p.body, `<span id="role-`+admin.id.String()+`">admin</span>`)
		assert.Contains(t, p.body, "pending@example.com", "the pending invitations, as the API lets every role read them")
		assert.Contains(t, p.body, `id="links-hidden"`)
		assert.NotContains(t, p.body, inv.Token, "but not their links: a token is a credential")
		assert.NotContains(t, p.body, `method="post" action="`+team, "no form")
		assert.NotContains(t, p.body, "/remove", "no removal")
		assert.NotContains(t, p.body, "/revoke", "no revocation")
		assert.NotContains(t, p.body, `id="invite"`, "no invitation")
		assert.NotContains(t, p.body, "<script", "nothing to copy")

		// The underlying POSTs, with the member's cookies and a valid CSRF
		// token, are refused and change nothing.
		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{team + "/invitations", url.Values{"email": {"sneaky@example.com"}, "role": {"admin"}}},
			{memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"admin"}}},
			{memberAction(h.org.ID, admin.id, "role"), url.Values{"role": {"member"}}},
			{memberAction(h.org.ID, admin.id, "remove"), url.Values{"confirm": {"yes"}}},
			{memberAction(h.org.ID, member.id, "remove"), url.Values{"confirm": {"yes"}}},
			{revokePath(h.org.ID, inv.ID.String()), url.Values{"confirm": {"yes"}}},
		} {
			b.get(team)
			p = b.post(tc.path, tc.form)
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s", tc.path)
			assert.Contains(t, p.body, `id="error">Your role may not invite people, change roles or remove members`, "POST %s", tc.path)
		}
		for _, path := range []string{memberAction(h.org.ID, admin.id, "remove"), revokePath(h.org.ID, inv.ID.String())} {
			assert.Equal(t, http.StatusForbidden, b.get(path).status, "GET %s", path)
		}
		assert.Equal(t, auth.RoleAdmin, h.role(t, admin.email))
		assert.Equal(t, auth.RoleMember, h.role(t, member.email))
		assert.Equal(t, inv.ID.String(), h.pendingInvitation(t, "pending@example.com"))
		assert.Equal(t, 1, h.count(t, "invitations", h.org.ID))
		assert.Empty(t, h.teamEvents(t))
	})
}

func TestDashboardTeamIsolationAndCSRF(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newTeamHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		member := h.member(t, auth.RoleMember)
		inv := h.invite(t, h.org.key.raw, "pending@example.com", auth.RoleMember)
		other := h.newOrg(t, "Beta")
		stranger := testkit.User(t, h.store, "stranger-"+uuid.NewString()+"@example.com", testPassword, h.clock.Now())
		_, err := h.orgs.AddMember(t.Context(), other.ID, stranger.Email, auth.RoleMember)
		require.NoError(t, err)
		foreign := h.invite(t, other.key.raw, "beta@example.com", auth.RoleMember)
		b := h.signedIn(t, owner, "198.51.100.65")
		team := teamPath(h.org.ID)

		for _, path := range []string{
			memberAction(h.org.ID, stranger.ID, "remove"), memberAction(h.org.ID, uuid.New(), "remove"),
			team + "/members/not-an-id/remove",
			revokePath(h.org.ID, foreign.ID.String()), revokePath(h.org.ID, uuid.NewString()), revokePath(h.org.ID, "not-an-id"),
		} {
			assert.Equal(t, http.StatusNotFound, b.get(path).status, "GET %s", path)
			b.get(team)
			assert.Equal(t, http.StatusNotFound, b.post(path, url.Values{"confirm": {"yes"}}).status, "POST %s", path)
		}
		for _, path := range []string{memberAction(h.org.ID, stranger.ID, "role"), team + "/members/not-an-id/role"} {
			b.get(team)
			assert.Equal(t, http.StatusNotFound, b.post(path, url.Values{"role": {"admin"}}).status, "POST %s", path)
		}
		assert.Equal(t, http.StatusNotFound, b.get(teamPath(other.ID)).status, "another organization's team page")
		otherMembers, err := h.orgs.Members(t.Context(), other.ID)
		require.NoError(t, err)
		assert.Len(t, otherMembers, 1, "another organization's member stays")
		items, _ := h.invitations(t, other.key.raw, "")
		assert.Len(t, items, 1, "and its invitation is pending")

		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{team + "/invitations", url.Values{"email": {"csrf@example.com"}, "role": {"member"}}},
			{memberAction(h.org.ID, member.id, "role"), url.Values{"role": {"admin"}}},
			{memberAction(h.org.ID, member.id, "remove"), url.Values{"confirm": {"yes"}}},
			{revokePath(h.org.ID, inv.ID.String()), url.Values{"confirm": {"yes"}}},
		} {
			b.get(team)
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, tc.path, tc.form, nil).status, "POST %s without a token", tc.path)
			tc.form.Set(httpapi.AccountCSRFField, b.csrf())
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, tc.path, tc.form, map[string]string{"Sec-Fetch-Site": "cross-site"}).status,
				"POST %s from another site", tc.path)
		}
		assert.Equal(t, auth.RoleMember, h.role(t, member.email))
		assert.Equal(t, inv.ID.String(), h.pendingInvitation(t, "pending@example.com"))
		assert.Equal(t, 1, h.count(t, "invitations", h.org.ID))

		anon := h.browser(t, "198.51.100.66")
		p := anon.get(team)
		assert.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/login?"+url.Values{"return_to": {team}}.Encode(), p.location())
		p = anon.do(http.MethodPost, memberAction(h.org.ID, member.id, "remove"), url.Values{"confirm": {"yes"}}, nil)
		assert.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, auth.RoleMember, h.role(t, member.email))
	})
}

func TestDashboardTeamQueryAndPages(t *testing.T) {
	t.Parallel()
	h := newTeamHarness(t, storetest.SQLite(t))
	_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanScale)
	require.NoError(t, err)
	owner := h.member(t, auth.RoleOwner)
	b := h.signedIn(t, owner, "198.51.100.67")
	team := teamPath(h.org.ID)

	for _, q := range []string{"?page=0", "?page=1001", "?page=two", "?page=1&page=2", "?sort=email"} {
		p := b.get(team + q)
		assert.Equal(t, http.StatusBadRequest, p.status, q)
		assert.Contains(t, p.body, `id="error">`, q)
	}
	p := b.get(team + "?page=2")
	require.Equal(t, http.StatusOK, p.status)
	assert.Contains(t, p.body, `id="members-empty">No members on this page`, "past the last page: the empty state")
	assert.Contains(t, p.body, `<a href="`+team+`">Go to the first page</a>`)

	// 101 members: the second page holds the last one, an owner, so the
	// first page's owner is not the only one.
	for range 99 {
		h.member(t, auth.RoleMember)
	}
	h.clock.Advance(time.Second)
	second := h.member(t, auth.RoleOwner)
	p = b.get(team)
	assert.Contains(t, p.body, `id="members-count">1 to 100 of 101 members`)
	assert.Contains(t, p.body, `<a href="`+team+`?page=2" rel="next">Next page</a>`)
	assert.NotContains(t, p.body, html.EscapeString(second.email))
	assert.Contains(t, p.body, `action="`+memberAction(h.org.ID, owner.id, "role")+`"`, "the owner on the next page counts")
	p = b.get(team + "?page=2")
	assert.Contains(t, p.body, `id="members-count">101 to 101 of 101 members`)
	assert.Contains(t, p.body, html.EscapeString(second.email))
	assert.Contains(t, p.body, `<a href="`+team+`?page=1" rel="prev">Previous page</a>`)
	assert.Contains(t, p.body, `action="`+memberAction(h.org.ID, second.id, "role")+`"`)
}
