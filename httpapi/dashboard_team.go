package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's team page, under /dashboard/o/{org_id}/team:
//
//   - GET  /team                            the members, the pending
//     invitations and the invite form
//   - POST /team/invitations                invites a person and shows the
//     accept link
//   - GET  /team/invitations/{id}/revoke    the confirmation; POST with
//     confirm=yes revokes
//   - POST /team/members/{user_id}/role     changes a member's role
//   - GET  /team/members/{user_id}/remove   the confirmation; POST with
//     confirm=yes removes (or, for the member's own row, leaves)
//
// They call org.Team and org.Invitations as /v1/members and /v1/invitations
// do, with the member's principal, so that the role matrix, the rule that
// only owners make, change or remove owners, and the last-owner rule are
// the services' own. They record what the API records, with the user as
// the actor: member.role_changed and member.removed; inviting and revoking
// record nothing, as in the API. Only owners and admins see the accept
// links: a token is a credential, which the API's list never carries.
func (d *dashboard) teamRoutes(root routes) {
	if d.a.opts.Team == nil {
		return
	}
	const base = "/dashboard/o/:org/team"
	root.handle(http.MethodGet, base, d.orgPage(d.teamPage))
	root.handle(http.MethodPost, base+"/members/:user_id/role", d.orgPage(d.changeDashRole))
	root.handle(http.MethodGet, base+"/members/:user_id/remove", d.orgPage(d.confirmRemoveMember))
	root.handle(http.MethodPost, base+"/members/:user_id/remove", d.orgPage(d.removeDashMember))
	if d.a.opts.Invitations != nil {
		root.handle(http.MethodPost, base+"/invitations", d.orgPage(d.createDashInvitation))
		root.handle(http.MethodGet, base+"/invitations/:id/revoke", d.orgPage(d.confirmRevokeInvitation))
		root.handle(http.MethodPost, base+"/invitations/:id/revoke", d.orgPage(d.revokeDashInvitation))
	}
}

// hasTeam reports whether c's member is offered the team page.
func (d *dashboard) hasTeam(c *dashCtx) bool {
	if d.a.opts.Team == nil {
		return false
	}
	return c.may(auth.ScopeTeamRead, auth.ActTeamRead)
}

// mayManageTeam reports whether c's member may invite, change roles and
// remove members (team:write); mayManageOwners whether also owners.
func mayManageTeam(c *dashCtx) bool {
	return c.may(auth.ScopeTeamWrite, auth.ActTeamWrite)
}

func mayManageOwners(c *dashCtx) bool {
	return c.may(auth.ScopeTeamWrite, auth.ActOwnersManage)
}

// Pages of the member list: memberPageSize members a page (the API's
// largest page), at most maxMemberPage pages.
const (
	memberPageSize = 100
	maxMemberPage  = 1000
)

// teamPageParams are the query parameters GET /team knows.
var teamPageParams = []string{"page", "done"}

// inviteRoles are the roles an invitation may give (org.Invitations).
var inviteRoles = []web.Option{
	{Value: string(auth.RoleAdmin), Label: "Admin: manages links, apps, domains, keys and the team, but not owners, the security policy or the organization's deletion"},
	{Value: string(auth.RoleMember), Label: "Member: reads the organization, creates links and changes only their own"},
}

// teamPath is the team page of c's organization.
func (c *dashCtx) teamPath() string { return c.base + "/team" }

// teamState is what a team page shows beside the lists: the page of
// members, a confirmation, the invite form as typed, and a role change
// refused.
type teamState struct {
	page   int
	notice string
	invite *web.InviteForm
	// roleOf is the member whose role change was refused, with the role
	// chosen and the service's message.
	roleOf            uuid.UUID
	roleTyped, roleEr string
}

// teamPage answers GET /team. A bad query is a 400 page.
func (d *dashboard) teamPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	q := r.URL.Query()
	st := teamState{page: 1, notice: teamNotice(q.Get("done"))}
	if err := strictValues(q, teamPageParams...).err(); err != nil {
		_, msg, _ := dashboardError(err)
		return d.badTeamQuery(w, r, c, msg)
	}
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxMemberPage {
			return d.badTeamQuery(w, r, c, "The page must be a number from 1 to "+strconv.Itoa(maxMemberPage)+".")
		}
		st.page = n
	}
	return d.showTeam(w, r, c, http.StatusOK, st)
}

// badTeamQuery writes the 400 page of a query GET /team refuses: the
// message and a way back, no lists.
func (d *dashboard) badTeamQuery(w http.ResponseWriter, r *http.Request, c *dashCtx, msg string) error {
	return d.message(w, r, c, http.StatusBadRequest, "Team", msg, c.teamPath(), "Back to the team")
}

// teamNotice is the confirmation of an action that redirected to the team
// page (its done parameter); "" for any other value.
func teamNotice(done string) string {
	switch done {
	case "role":
		return "The role was changed: it applies from the member's next request, to their keys too."
	case "removed":
		return "The member was removed: the dashboard and the keys they created refuse them from now on."
	case "revoked":
		return "The invitation was revoked: its link no longer works."
	}
	return ""
}

// showTeam writes the team page in state st with status.
func (d *dashboard) showTeam(w http.ResponseWriter, r *http.Request, c *dashCtx, status int, st teamState) error {
	tv := &web.TeamView{Path: c.teamPath(), Manage: mayManageTeam(c)}
	v := web.DashboardView{Frame: web.Frame{Title: "Team", Notice: st.notice}, Nav: c.nav("Team"), Team: tv}
	if err := d.fillMembers(r.Context(), c, tv, &st); err != nil {
		return d.teamError(w, r, c, err)
	}
	if st.roleEr != "" {
		// The refused change's member is on another page than the one shown.
		v.Error = st.roleEr
	}
	if d.a.opts.Invitations != nil {
		if err := d.fillInvitations(r, c, tv); err != nil {
			return d.teamError(w, r, c, err)
		}
		if tv.Manage {
			tv.Invite = st.invite
			if tv.Invite == nil {
				tv.Invite = &web.InviteForm{Role: string(auth.RoleMember)}
			}
			tv.Invite.Action, tv.Invite.Roles = c.teamPath()+"/invitations", inviteRoles
		}
	}
	return d.render(w, r, c, status, web.PageDashboardTeam, v)
}

// fillMembers lists page st.page of the members into tv, each with the
// changes c's member may make to it; the row of st.roleOf gets the refused
// role change, which st.roleEr then no longer carries.
func (d *dashboard) fillMembers(ctx context.Context, c *dashCtx, tv *web.TeamView, st *teamState) error {
	limit, offset := memberPageSize, (st.page-1)*memberPageSize
	page, err := d.a.opts.Team.List(ctx, c.p, &limit, &offset)
	if err != nil {
		return err
	}
	owners := 0
	if tv.Manage {
		if owners, err = d.countOwners(ctx, c, page, offset); err != nil {
			return err
		}
	}
	manageOwners := mayManageOwners(c)
	for _, m := range page.Data {
		row := web.MemberRow{UserID: m.UserID.String(), Email: m.Email, Role: string(m.Role),
			Joined: m.JoinedAt.UTC().Format(time.DateOnly), You: m.UserID == c.who.User.ID}
		if tv.Manage {
			memberOffers(c, &row, m, manageOwners, owners)
		}
		if row.RoleForm != nil && m.UserID == st.roleOf {
			row.RoleForm.Role, row.RoleForm.Error = st.roleTyped, st.roleEr
			st.roleEr = ""
		}
		tv.Members = append(tv.Members, row)
	}
	tv.MembersTotal = page.Pagination.Total
	if len(tv.Members) > 0 {
		tv.From, tv.To = offset+1, offset+len(tv.Members)
	}
	pageURL := func(n int) string { return c.teamPath() + "?" + url.Values{"page": {strconv.Itoa(n)}}.Encode() }
	if st.page > 1 {
		tv.Prev = pageURL(st.page - 1)
	}
	if page.Pagination.HasMore && st.page < maxMemberPage {
		tv.Next = pageURL(st.page + 1)
	}
	return nil
}

// memberOffers sets what a manager (c's member) is offered for member m:
// the roles they may give and the removal, or a note saying why nothing is
// offered. Only owners change or remove an owner or make one
// (manageOwners); the organization's last owner (owners is how many it
// has) can be neither demoted nor removed. The services refuse all of this
// anyway; the page only leaves out what would be refused.
func memberOffers(c *dashCtx, row *web.MemberRow, m *org.TeamMember, manageOwners bool, owners int) {
	switch {
	case m.Role == auth.RoleOwner && !manageOwners:
		row.Note = msgNotOwner
		return
	case m.Role == auth.RoleOwner && owners <= 1:
		row.Note = "The only owner: make another member owner first."
		return
	}
	roles := []auth.Role{auth.RoleAdmin, auth.RoleMember}
	if manageOwners {
		roles = append([]auth.Role{auth.RoleOwner}, roles...)
	}
	f := &web.RoleForm{Action: c.teamPath() + "/members/" + m.UserID.String() + "/role", Role: string(m.Role)}
	for _, role := range roles {
		f.Options = append(f.Options, web.Option{Value: string(role), Label: string(role)})
	}
	row.RoleForm = f
	row.RemovePath = c.teamPath() + "/members/" + m.UserID.String() + "/remove"
}

// countOwners returns how many owners the organization has: those of page
// (read at offset) when it holds every member, else those of every page.
// A team of more than maxOwnerCountPages pages is not read through: it
// counts as having owners enough, so that its owners are offered the
// changes, and the service refuses the last owner's anyway.
func (d *dashboard) countOwners(ctx context.Context, c *dashCtx, page *org.MemberPage, offset int) (int, error) {
	count := func(ms []*org.TeamMember) (n int) {
		for _, m := range ms {
			if m.Role == auth.RoleOwner {
				n++
			}
		}
		return n
	}
	if offset == 0 && !page.Pagination.HasMore {
		return count(page.Data), nil
	}
	if page.Pagination.Total > maxOwnerCountPages*memberPageSize {
		return page.Pagination.Total, nil
	}
	n := 0
	for i := range maxOwnerCountPages {
		limit, off := memberPageSize, i*memberPageSize
		p, err := d.a.opts.Team.List(ctx, c.p, &limit, &off)
		if err != nil {
			return 0, err
		}
		n += count(p.Data)
		if !p.Pagination.HasMore {
			break
		}
	}
	return n, nil
}

// maxOwnerCountPages bounds the pages countOwners reads.
const maxOwnerCountPages = 10

// maxInvitationsShown is how many pending invitations the page lists, the
// newest first (the API's largest page; the seats of the largest plan).
const maxInvitationsShown = 100

// fillInvitations lists the pending invitations into tv, with their accept
// links and revocations when c's member manages the team.
func (d *dashboard) fillInvitations(r *http.Request, c *dashCtx, tv *web.TeamView) error {
	tv.Invitations = true
	limit, offset := maxInvitationsShown, 0
	page, err := d.a.opts.Invitations.List(r.Context(), c.p, nil, &limit, &offset)
	if err != nil {
		return err
	}
	tv.PendingTotal = page.Pagination.Total
	for _, inv := range page.Data {
		row := web.InvitationRow{ID: inv.ID.String(), Email: inv.Email, Role: string(inv.Role),
			Expires: inv.ExpiresAt.UTC().Format(dashDate)}
		if tv.Manage {
			row.RevokePath = c.teamPath() + "/invitations/" + inv.ID.String() + "/revoke"
			token, err := d.a.opts.Invitations.Token(c.p, inv)
			if err != nil {
				// A token sealed under another server secret: the row
				// says to invite again rather than the page failing.
				d.a.log.WarnContext(r.Context(), "opening an invitation's token", "invitation", inv.ID, "err", err)
			} else {
				row.Link = d.a.invitationURL(r, token)
			}
		}
		tv.PendingInvitations = append(tv.PendingInvitations, row)
	}
	return nil
}

// teamError writes the message page of a service error on a team page, or
// returns an unexpected one.
func (d *dashboard) teamError(w http.ResponseWriter, r *http.Request, c *dashCtx, err error) error {
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	title := "That did not work"
	switch status {
	case http.StatusForbidden:
		title = "Not allowed"
	case http.StatusNotFound:
		title = "Not found"
	}
	return d.message(w, r, c, status, title, msg, c.teamPath(), "Back to the team")
}

// Messages of the team page's refusals.
const (
	msgNotTeamManager = "Your role may not invite people, change roles or remove members: owners and admins do."
	msgNotOwner       = "Only owners change or remove an owner."
)

// refuse writes the 403 page with msg.
func (d *dashboard) refuse(w http.ResponseWriter, r *http.Request, c *dashCtx, msg string) error {
	return d.message(w, r, c, http.StatusForbidden, "Not allowed", msg, c.teamPath(), "Back to the team")
}

// fullStop returns s ending in a full stop, its first letter kept: the
// team's messages may begin with an email address.
func fullStop(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// maxTypedEmail bounds the email the invite form shows back: longer than
// any the service takes, short enough for a page.
const maxTypedEmail = 320

// createDashInvitation answers POST /team/invitations: email and role. The
// answer is the page with the accept link (201); a refused form is the
// team page with the form as typed and the service's messages.
func (d *dashboard) createDashInvitation(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !mayManageTeam(c) {
		return d.refuse(w, r, c, msgNotTeamManager)
	}
	f := &web.InviteForm{Email: r.PostForm.Get("email"), Role: r.PostForm.Get("role")}
	if len(f.Email) > maxTypedEmail {
		f.Email = f.Email[:maxTypedEmail]
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	in := org.CreateInvitationInput{Email: &email}
	if f.Role != "" {
		role := auth.Role(f.Role)
		in.Role = &role
	}
	inv, err := d.a.opts.Invitations.Create(r.Context(), c.p, in)
	if err != nil {
		e, coded := errcode.As(err)
		if !coded {
			return err
		}
		switch e.Code {
		case errcode.ValidationError:
			for _, fe := range e.Fields {
				if fe.Field == "role" {
					f.RoleError += sentence("The role " + fe.Message)
				} else {
					f.EmailError += sentence("The email " + fe.Message)
				}
			}
		case errcode.AlreadyMember, errcode.DuplicateInvitation:
			f.EmailError = fullStop(e.Message)
		case errcode.SeatLimitExceeded:
			f.Error = sentence(e.Message)
		default:
			return d.teamError(w, r, c, err)
		}
		f.Invalid = f.EmailError != "" || f.RoleError != ""
		return d.showTeam(w, r, c, httperr.StatusOf(e.Code), teamState{page: 1, invite: f})
	}
	return d.render(w, r, c, http.StatusCreated, web.PageDashboardInvitationCreated, web.DashboardView{
		Frame: web.Frame{Title: "Invitation created"}, Nav: c.nav("Team"),
		NewInvitation: &web.NewInvitation{Email: inv.Email, Role: string(inv.Role), Expires: inv.ExpiresAt.UTC().Format(dashDate),
			Link: d.a.invitationURL(r, inv.Token), TeamPath: c.teamPath()}})
}

// dashInvitation reads invitation id of the path for a revocation, writing
// the 404 page (another organization's invitation, or none), the 403 page
// (a role that may not revoke) or the 400 page (an invitation no longer
// pending) and returning nil.
func (d *dashboard) dashInvitation(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*org.Invitation, error) {
	r := req.Request
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return nil, d.invitationNotFound(w, r, c)
	}
	inv, err := d.a.opts.Invitations.Get(r.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.invitationNotFound(w, r, c)
	}
	if err != nil {
		return nil, d.teamError(w, r, c, err)
	}
	if !mayManageTeam(c) {
		return nil, d.refuse(w, r, c, msgNotTeamManager)
	}
	if state := inv.State(d.p.clock()); state != org.InvitationPending {
		return nil, d.message(w, r, c, http.StatusBadRequest, "Not pending", "The invitation for "+inv.Email+" is "+state+
			": only a pending invitation can be revoked.", c.teamPath(), "Back to the team")
	}
	return inv, nil
}

func (d *dashboard) invitationNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such invitation in this organization.", c.teamPath(), "Back to the team")
}

// confirmRevokeInvitation answers GET /team/invitations/{id}/revoke.
func (d *dashboard) confirmRevokeInvitation(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	inv, err := d.dashInvitation(w, req, c)
	if inv == nil || err != nil {
		return err
	}
	return d.showConfirmRevokeInvitation(w, req.Request, c, inv, http.StatusOK, "")
}

func (d *dashboard) showConfirmRevokeInvitation(w http.ResponseWriter, r *http.Request, c *dashCtx, inv *org.Invitation, status int, msg string) error {
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: "Revoke the invitation for " + inv.Email + "?", Error: msg}, Nav: c.nav("Team"),
		Confirm: &web.Confirm{Action: c.teamPath() + "/invitations/" + inv.ID.String() + "/revoke", Cancel: c.teamPath(),
			Question: "Revoking the invitation of " + inv.Email + " as " + string(inv.Role) + " makes its link stop working: opening it then says that it was withdrawn. You can invite the same email again afterwards.",
			Check:    "I understand that the link stops working", Button: "Revoke the invitation"}})
}

// revokeDashInvitation answers POST /team/invitations/{id}/revoke, which
// needs confirm=yes.
func (d *dashboard) revokeDashInvitation(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	inv, err := d.dashInvitation(w, req, c)
	if inv == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmRevokeInvitation(w, req.Request, c, inv, http.StatusBadRequest, "Tick the box to confirm that the invitation is to be revoked.")
	}
	if _, err := d.a.opts.Invitations.Revoke(req.Context(), c.p, inv.ID); err != nil {
		return d.teamError(w, req.Request, c, err)
	}
	seeOther(w, c.teamPath()+"?done=revoked")
	return nil
}

// pathMember returns the member of the path's user_id, writing the 404
// page (not a member of the organization, or no user id) and returning nil.
func (d *dashboard) pathMember(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*org.TeamMember, error) {
	r := req.Request
	id, err := uuid.Parse(req.Param("user_id"))
	if err != nil {
		return nil, d.memberNotFound(w, r, c)
	}
	m, err := d.a.opts.Team.Get(r.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.memberNotFound(w, r, c)
	}
	if err != nil {
		return nil, d.teamError(w, r, c, err)
	}
	return m, nil
}

func (d *dashboard) memberNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such member in this organization.", c.teamPath(), "Back to the team")
}

// changeDashRole answers POST /team/members/{user_id}/role: role. A change
// the service refuses for its value (an unknown role, the last owner) is
// the team page with the message under the member's role; one the role
// may not make is the 403 page.
func (d *dashboard) changeDashRole(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	m, err := d.pathMember(w, req, c)
	if m == nil || err != nil {
		return err
	}
	if !mayManageTeam(c) {
		return d.refuse(w, r, c, msgNotTeamManager)
	}
	typed := r.PostForm.Get("role")
	var in org.UpdateMemberInput
	if typed != "" {
		role := auth.Role(typed)
		in.Role = &role
	}
	updated, err := d.a.opts.Team.UpdateRole(r.Context(), c.p, m.UserID, in)
	if err != nil {
		e, coded := errcode.As(err)
		if !coded || (e.Code != errcode.ValidationError && e.Code != errcode.LastOwner) {
			return d.teamError(w, r, c, err)
		}
		_, msg, _ := dashboardError(err)
		return d.showTeam(w, r, c, httperr.StatusOf(e.Code), teamState{page: 1, roleOf: m.UserID, roleTyped: typed, roleEr: msg})
	}
	e := idEvent(audit.RoleChanged, "user", m.UserID)
	e.Details = map[string]string{"role": string(updated.Role)}
	d.recordUserEvent(r, c, e)
	seeOther(w, c.teamPath()+"?done=role")
	return nil
}

// removable reads the member of the path for a removal, writing the 404
// page or, when c's member may not remove them, the 403 page, and
// returning nil.
func (d *dashboard) removable(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*org.TeamMember, error) {
	m, err := d.pathMember(w, req, c)
	if m == nil || err != nil {
		return nil, err
	}
	switch {
	case !mayManageTeam(c):
		return nil, d.refuse(w, req.Request, c, msgNotTeamManager)
	case m.Role == auth.RoleOwner && !mayManageOwners(c):
		return nil, d.refuse(w, req.Request, c, msgNotOwner)
	}
	return m, nil
}

// confirmRemoveMember answers GET /team/members/{user_id}/remove.
func (d *dashboard) confirmRemoveMember(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	m, err := d.removable(w, req, c)
	if m == nil || err != nil {
		return err
	}
	return d.showConfirmRemove(w, req.Request, c, m, http.StatusOK, "")
}

func (d *dashboard) showConfirmRemove(w http.ResponseWriter, r *http.Request, c *dashCtx, m *org.TeamMember, status int, msg string) error {
	cf := &web.Confirm{Action: c.teamPath() + "/members/" + m.UserID.String() + "/remove", Cancel: c.teamPath(),
		Question: "Removing " + m.Email + " (" + string(m.Role) + ") from " + c.m.OrgName + " ends their access at once: " +
			"the dashboard refuses them and every key they created is refused from its next use. An invitation brings them back.",
		Check: "I understand that they lose access at once", Button: "Remove the member"}
	title := "Remove " + m.Email + "?"
	if m.UserID == c.who.User.ID {
		title = "Leave " + c.m.OrgName + "?"
		cf.Question = "Leaving " + c.m.OrgName + " ends your access at once: its dashboard refuses you and every key you created is refused from its next use. Only an invitation brings you back."
		cf.Check, cf.Button = "I understand that I lose access at once", "Leave the organization"
	}
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: title, Error: msg}, Nav: c.nav("Team"), Confirm: cf})
}

// removeDashMember answers POST /team/members/{user_id}/remove, which
// needs confirm=yes. A member who removed themselves goes to /dashboard,
// as the organization's pages are no longer theirs.
func (d *dashboard) removeDashMember(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	m, err := d.removable(w, req, c)
	if m == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmRemove(w, r, c, m, http.StatusBadRequest, "Tick the box to confirm the removal.")
	}
	if _, err := d.a.opts.Team.Remove(r.Context(), c.p, m.UserID); err != nil {
		if errcode.CodeOf(err) == errcode.LastOwner {
			_, msg, _ := dashboardError(err)
			return d.showConfirmRemove(w, r, c, m, http.StatusConflict, msg)
		}
		return d.teamError(w, r, c, err)
	}
	d.recordUserEvent(r, c, idEvent(audit.MemberRemoved, "user", m.UserID))
	if m.UserID == c.who.User.ID {
		seeOther(w, "/dashboard")
		return nil
	}
	seeOther(w, c.teamPath()+"?done=removed")
	return nil
}
