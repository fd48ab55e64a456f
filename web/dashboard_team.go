package web

import "strconv"

// The team pages of the dashboard, one file per page in templates/.
const (
	// PageDashboardTeam is the members, the pending invitations and the
	// invite form (DashboardView.Team).
	PageDashboardTeam = "dashboard-team"
	// PageDashboardInvitationCreated shows an invitation just made, with
	// its accept link (DashboardView.NewInvitation).
	PageDashboardInvitationCreated = "dashboard-invitation-created"
)

// TeamView fills PageDashboardTeam.
type TeamView struct {
	// Path is the page's own path, its first page of members.
	Path string
	// Manage says that the member may manage the team: without it the page
	// is read-only and says who can change it.
	Manage bool
	// Members are one page of the organization's members, oldest first.
	Members []MemberRow
	// MembersTotal is how many members there are; From and To number the
	// rows shown; Prev and Next are the neighbouring pages ("" when none).
	MembersTotal, From, To int
	Prev, Next             string
	// Invitations says that the organization's invitations are served: the
	// section is shown (PendingInvitations may still be empty).
	Invitations bool
	// PendingInvitations are the pending invitations, newest first, at most
	// a page; PendingTotal is how many are pending in all.
	PendingInvitations []InvitationRow
	PendingTotal       int
	// Invite is the invite form; nil when the member may not invite.
	Invite *InviteForm
}

// MoreInvitations says that more invitations are pending than are listed.
func (v *TeamView) MoreInvitations() bool { return v.PendingTotal > len(v.PendingInvitations) }

// CopiesLinks says that some invitation's accept link is shown, with its
// copy button: the page carries the button's script.
func (v *TeamView) CopiesLinks() bool {
	for _, r := range v.PendingInvitations {
		if r.Link != "" && v.Manage {
			return true
		}
	}
	return false
}

// MemberRow is one member of the list.
type MemberRow struct {
	// UserID names the row (its elements' ids); Email, Role and Joined are
	// as shown.
	UserID, Email, Role, Joined string
	// You marks the signed-in member's own row.
	You bool
	// RoleForm changes the member's role; nil when the signed-in member may
	// not change it.
	RoleForm *RoleForm
	// RemovePath is the removal's confirmation; "" when the signed-in
	// member may not remove this member.
	RemovePath string
	// Note says why a manager is offered no change here (the last owner,
	// an owner whom only owners change); "" when there is nothing to say.
	Note string
}

// RoleForm is the role change form of one member.
type RoleForm struct {
	Action string
	// Role is the role chosen: the member's, or the one typed when the
	// change was refused.
	Role string
	// Options are the roles the signed-in member may give.
	Options []Option
	// Error says why the change was refused; "" when it was not.
	Error string
}

// InvitationRow is one pending invitation of the list.
type InvitationRow struct {
	// ID names the row (its elements' ids).
	ID, Email, Role, Expires string
	// Link is the accept link to send the invited person; "" when the
	// member may not see it (the token is a credential).
	Link string
	// RevokePath is the revocation's confirmation; "" when the member may
	// not revoke.
	RevokePath string
}

// LinkID is the element id of the row's accept link, which its copy
// button names.
func (r InvitationRow) LinkID() string { return "invite-link-" + r.ID }

// InviteForm is the form that invites a person: the values typed and an
// error per field ("" when none).
type InviteForm struct {
	Action     string
	Email      string
	Role       string
	Roles      []Option
	EmailError string
	RoleError  string
	// Error is a refusal that is of no one field (the seats are taken, the
	// email is a member already).
	Error string
	// Invalid says that some field has an error.
	Invalid bool
}

// NewInvitation fills PageDashboardInvitationCreated: an invitation just
// made, with the link to send.
type NewInvitation struct {
	Email, Role, Expires, Link string
	// TeamPath is the team page.
	TeamPath string
}

// MembersRange says which members are shown, such as "1 to 50 of 120
// members".
func (v *TeamView) MembersRange() string {
	noun := " members"
	if v.MembersTotal == 1 {
		noun = " member"
	}
	if v.From == 1 && v.To == v.MembersTotal {
		return strconv.Itoa(v.MembersTotal) + noun
	}
	return strconv.Itoa(v.From) + " to " + strconv.Itoa(v.To) + " of " + strconv.Itoa(v.MembersTotal) + noun
}
