package auth_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

func TestMatrix(t *testing.T) {
	tests := []struct {
		name   string
		role   auth.Role
		action auth.Action
		want   auth.Reach
	}{
		{"owner may delete the organization", auth.RoleOwner, auth.ActOrgDelete, auth.All},
		{"admin may not delete the organization", auth.RoleAdmin, auth.ActOrgDelete, auth.None},
		{"admin may not change the security policy", auth.RoleAdmin, auth.ActOrgSecurity, auth.None},
		{"admin may not change owners", auth.RoleAdmin, auth.ActOwnersManage, auth.None},
		{"admin may manage the team", auth.RoleAdmin, auth.ActTeamWrite, auth.All},
		{"member reads links", auth.RoleMember, auth.ActLinksRead, auth.All},
		{"member creates links", auth.RoleMember, auth.ActLinksCreate, auth.All},
		{"member changes only own links", auth.RoleMember, auth.ActLinksWrite, auth.Own},
		{"member reads apps", auth.RoleMember, auth.ActAppsRead, auth.All},
		{"member may not write apps", auth.RoleMember, auth.ActAppsWrite, auth.None},
		{"member reads domains", auth.RoleMember, auth.ActDomainsRead, auth.All},
		{"member reads the team", auth.RoleMember, auth.ActTeamRead, auth.All},
		{"member reads the organization", auth.RoleMember, auth.ActOrgRead, auth.All},
		{"member reads installs of own links only", auth.RoleMember, auth.ActInstallsRead, auth.Own},
		{"member never reads attempts", auth.RoleMember, auth.ActAttemptsRead, auth.None},
		{"member manages own keys only", auth.RoleMember, auth.ActKeysWrite, auth.Own},
		{"admin writes webhooks", auth.RoleAdmin, auth.ActWebhooksWrite, auth.All},
		{"member reads webhooks", auth.RoleMember, auth.ActWebhooksRead, auth.All},
		{"member may not write webhooks", auth.RoleMember, auth.ActWebhooksWrite, auth.None},
		{"unknown role may do nothing", auth.Role("guest"), auth.ActLinksRead, auth.None},
		{"unknown action is refused", auth.RoleOwner, auth.Action("nuke"), auth.None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, auth.ReachOf(tt.role, tt.action))
		})
	}
}

func TestOwnerMayDoEverything(t *testing.T) {
	for _, a := range auth.Actions() {
		assert.Equal(t, auth.All, auth.ReachOf(auth.RoleOwner, a), a)
	}
}

func TestRoleGrants(t *testing.T) {
	for _, s := range auth.AllScopes {
		assert.True(t, auth.RoleGrants(auth.RoleOwner, s), s)
	}
	for _, s := range auth.AllScopes {
		assert.Equal(t, s != auth.ScopeOrgDelete, auth.RoleGrants(auth.RoleAdmin, s), s)
	}
	memberMay := map[auth.Scope]bool{"links:read": true, "links:write": true, "apps:read": true,
		"analytics:read": true, "attribution:write": true, "keys:read": true, "keys:write": true,
		"domains:read": true, "org:read": true, "team:read": true, "webhooks:read": true}
	for _, s := range auth.AllScopes {
		assert.Equal(t, memberMay[s], auth.RoleGrants(auth.RoleMember, s), s)
	}
	assert.False(t, auth.RoleGrants("", auth.ScopeLinksRead))
}

func TestAuthorize(t *testing.T) {
	creator := uuid.New()
	scoped := auth.NewScopeSet([]auth.Scope{auth.ScopeLinksRead, auth.ScopeLinksWrite, auth.ScopeOrgDelete})
	tests := []struct {
		name  string
		p     auth.Principal
		scope auth.Scope
		act   auth.Action
		reach auth.Reach
		code  errcode.Code
	}{
		{"missing scope is forbidden", auth.Principal{Scopes: scoped}, auth.ScopeAppsRead, auth.ActAppsRead, auth.None, errcode.Forbidden},
		{"no creator is authorized on scope alone", auth.Principal{Scopes: scoped}, auth.ScopeOrgDelete, auth.ActOrgDelete, auth.All, ""},
		{"creator who left is forbidden", auth.Principal{Scopes: scoped, CreatedBy: &creator}, auth.ScopeLinksRead, auth.ActLinksRead, auth.None, errcode.Forbidden},
		{"role too low is forbidden", auth.Principal{Scopes: scoped, CreatedBy: &creator, Role: auth.RoleAdmin}, auth.ScopeOrgDelete, auth.ActOrgDelete, auth.None, errcode.Forbidden},
		{"member reaches own links", auth.Principal{Scopes: scoped, CreatedBy: &creator, Role: auth.RoleMember}, auth.ScopeLinksWrite, auth.ActLinksWrite, auth.Own, ""},
		{"owner reaches all", auth.Principal{Scopes: scoped, CreatedBy: &creator, Role: auth.RoleOwner}, auth.ScopeOrgDelete, auth.ActOrgDelete, auth.All, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reach, err := tt.p.Authorize(tt.scope, tt.act)
			assert.Equal(t, tt.reach, reach)
			if tt.code == "" {
				require.NoError(t, err)
				return
			}
			assert.Equal(t, tt.code, errcode.CodeOf(err))
		})
	}
}

func TestOwns(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	p := auth.Principal{CreatedBy: &a}
	assert.True(t, p.Owns(&a))
	assert.False(t, p.Owns(&b))
	assert.False(t, p.Owns(nil))
	assert.False(t, (&auth.Principal{}).Owns(&a))
}

func TestCheckCreator(t *testing.T) {
	creator := uuid.New()
	assert.NoError(t, (&auth.Principal{}).CheckCreator(), "a key without a creator")
	assert.NoError(t, (&auth.Principal{CreatedBy: &creator, Role: auth.RoleMember}).CheckCreator())
	err := (&auth.Principal{CreatedBy: &creator}).CheckCreator()
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "the creator left the organization")
}
