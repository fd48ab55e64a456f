package testkit

import (
	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
)

// Principal returns the principal of an API key of orgID that has no
// creator and holds scopes: the authorization layers reduce to the scope
// check (auth.Principal.Authorize). Its KeyID is zero.
func Principal(orgID uuid.UUID, scopes ...auth.Scope) *auth.Principal {
	return &auth.Principal{OrgID: orgID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet(scopes)}
}

// MemberPrincipal returns the principal of an API key of orgID created by
// the member creator, who holds role in orgID ("" when the creator has left
// the organization), and holding scopes.
func MemberPrincipal(orgID, creator uuid.UUID, role auth.Role, scopes ...auth.Scope) *auth.Principal {
	p := Principal(orgID, scopes...)
	p.CreatedBy, p.Role = &creator, role
	return p
}
