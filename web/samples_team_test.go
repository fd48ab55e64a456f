package web_test

import (
	"github.com/hoplink/hoplink/web"
)

// teamSamples has every state of the team pages.
func teamSamples() []sample {
	const team = "/dashboard/o/1/team"
	roles := func(owner bool) []web.Option {
		out := []web.Option{{Value: "admin", Label: "admin"}, {Value: "member", Label: "member"}}
		if owner {
			out = append([]web.Option{{Value: "owner", Label: "owner"}}, out...)
		}
		return out
	}
	inviteRoles := []web.Option{
		{Value: "admin", Label: "Admin: manages links, apps, domains, keys and the team, but not owners, the security policy or the organization's deletion"},
		{Value: "member", Label: "Member: reads the organization, creates links and changes only their own"},
	}
	link := "http://localhost:8080/invitations/WsCRLxwa9jrtw40pO3vyTAEOTiLSbyISKRosTMNSAPQ"
	members := []web.MemberRow{
		{UserID: "u1", Email: longEmail, Role: "owner", Joined: "2030-01-02", You: true,
			RoleForm: &web.RoleForm{Action: team + "/members/u1/role", Role: "owner", Options: roles(true)}, RemovePath: team + "/members/u1/remove"},
		{UserID: "u2", Email: "second.owner@example.com", Role: "owner", Joined: "2030-01-03",
			RoleForm: &web.RoleForm{Action: team + "/members/u2/role", Role: "member", Options: roles(true),
				Error: "An organization keeps at least one owner; make another member owner first."},
			RemovePath: team + "/members/u2/remove"},
		{UserID: "u3", Email: unbroken + "@example.com", Role: "member", Joined: "2030-02-01",
			RoleForm: &web.RoleForm{Action: team + "/members/u3/role", Role: "member", Options: roles(true)}, RemovePath: team + "/members/u3/remove"},
	}
	invitations := []web.InvitationRow{
		{ID: "i1", Email: longEmail, Role: "admin", Expires: "2030-01-09 10:00 UTC", Link: link, RevokePath: team + "/invitations/i1/revoke"},
		{ID: "i2", Email: "new.person@example.com", Role: "member", Expires: "2030-01-10 11:00 UTC", RevokePath: team + "/invitations/i2/revoke"},
	}

	owner := shell("Team")
	owner.Notice = "The role was changed: it applies from the member's next request, to their keys too."
	owner.Team = &web.TeamView{Path: team, Manage: true, Members: members, MembersTotal: 203, From: 101, To: 103,
		Prev: team + "?page=1", Next: team + "?page=3", Invitations: true, PendingInvitations: invitations, PendingTotal: 2,
		Invite: &web.InviteForm{Action: team + "/invitations", Email: unbroken + "@", Role: "owner", Roles: inviteRoles, Invalid: true,
			EmailError: "The email must be an email address of at most 255 characters.", RoleError: "The role must be admin or member."}}

	admin := shell("Team")
	admin.Team = &web.TeamView{Path: team, Manage: true, MembersTotal: 2, From: 1, To: 2, Invitations: true,
		Members: []web.MemberRow{
			{UserID: "u1", Email: longEmail, Role: "owner", Joined: "2030-01-02", Note: "Only owners change or remove an owner."},
			{UserID: "u4", Email: "admin@example.com", Role: "admin", Joined: "2030-01-04", You: true,
				RoleForm: &web.RoleForm{Action: team + "/members/u4/role", Role: "admin", Options: roles(false)}, RemovePath: team + "/members/u4/remove"},
		},
		Invite: &web.InviteForm{Action: team + "/invitations", Email: "new.person@example.com", Role: "member", Roles: inviteRoles,
			Error: "The free plan has 2 seats, counting members and pending invitations; remove one or upgrade the plan."}}

	lastOwner := shell("Team")
	lastOwner.Team = &web.TeamView{Path: team, Manage: true, MembersTotal: 1, From: 1, To: 1, Invitations: true,
		Members: []web.MemberRow{{UserID: "u1", Email: longEmail, Role: "owner", Joined: "2030-01-02", You: true,
			Note: "The only owner: make another member owner first."}},
		Invite: &web.InviteForm{Action: team + "/invitations", Role: "member", Roles: inviteRoles}}

	readOnly := shell("Team")
	readOnly.Team = &web.TeamView{Path: team, Members: []web.MemberRow{
		{UserID: "u1", Email: longEmail, Role: "owner", Joined: "2030-01-02"},
		{UserID: "u5", Email: "member@example.com", Role: "member", Joined: "2030-01-05", You: true},
	}, MembersTotal: 2, From: 1, To: 2, Invitations: true, PendingTotal: 250, PendingInvitations: []web.InvitationRow{
		{ID: "i1", Email: longEmail, Role: "admin", Expires: "2030-01-09 10:00 UTC"},
	}}

	readOnlyEmpty := shell("Team")
	readOnlyEmpty.Team = &web.TeamView{Path: team, Members: readOnly.Team.Members, MembersTotal: 2, From: 1, To: 2, Invitations: true}

	pastTheEnd := shell("Team")
	pastTheEnd.Team = &web.TeamView{Path: team, MembersTotal: 2, Prev: team + "?page=6"}

	created := shell("Invitation created")
	created.NewInvitation = &web.NewInvitation{Email: longEmail, Role: "admin", Expires: "2030-01-09 10:00 UTC", Link: link, TeamPath: team}

	return []sample{
		{"dashboard team, owner", web.PageDashboardTeam, owner},
		{"dashboard team, admin, seats taken, no invitations", web.PageDashboardTeam, admin},
		{"dashboard team, last owner", web.PageDashboardTeam, lastOwner},
		{"dashboard team, read only", web.PageDashboardTeam, readOnly},
		{"dashboard team, read only, no invitations", web.PageDashboardTeam, readOnlyEmpty},
		{"dashboard team, past the last page", web.PageDashboardTeam, pastTheEnd},
		{"dashboard invitation created", web.PageDashboardInvitationCreated, created},
	}
}
