package org

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

func TestInvitationTokenIsShownToTeamManagersOfItsOrganization(t *testing.T) {
	s := newSealer(t, 0x42)
	orgID, invID := uuid.New(), uuid.New()
	sealed, err := s.seal("hl_inv_shared", invID)
	require.NoError(t, err)
	inv := &Invitation{ID: invID, OrgID: orgID, TokenSealed: sealed}

	every := auth.NewScopeSet(auth.AllScopes)
	member := func(role auth.Role, scopes auth.ScopeSet, org uuid.UUID) *auth.Principal {
		user := uuid.New()
		return &auth.Principal{OrgID: org, Type: auth.KeyTypeAPI, Scopes: scopes, CreatedBy: &user, Role: role}
	}
	for _, p := range []*auth.Principal{
		member(auth.RoleOwner, every, orgID),
		member(auth.RoleAdmin, every, orgID),
		{OrgID: orgID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeTeamWrite})},
	} {
		token, err := s.Token(p, inv)
		require.NoError(t, err, "role %q", p.Role)
		assert.Equal(t, "hl_inv_shared", token)
	}

	for name, tc := range map[string]struct {
		p    *auth.Principal
		code errcode.Code
	}{
		"a member may not manage the team":  {member(auth.RoleMember, every, orgID), errcode.Forbidden},
		"team:read is not enough":           {member(auth.RoleOwner, auth.NewScopeSet([]auth.Scope{auth.ScopeTeamRead}), orgID), errcode.Forbidden},
		"another organization's invitation": {member(auth.RoleOwner, every, uuid.New()), errcode.NotFound},
	} {
		token, err := s.Token(tc.p, inv)
		assert.Equal(t, tc.code, errcode.CodeOf(err), name)
		assert.Empty(t, token, name)
	}

	_, err = newSealer(t, 0x43).Token(member(auth.RoleOwner, every, orgID), inv)
	assert.Error(t, err, "sealed under another server secret")
}
