package account

import (
	"context"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// OrgPolicy returns organization orgID's security policy (DefaultPolicy
// until it sets one); NOT_FOUND when there is no such organization. The
// caller (the API adapter) has already authorized the request.
func (s *Service) OrgPolicy(ctx context.Context, orgID uuid.UUID) (Policy, error) {
	p, err := s.store.OrgSecurityPolicy(ctx, orgID)
	return p, errcode.NotFoundAs(err, "organization not found")
}

// SetOrgPolicy validates p (Policy.Validate) and makes it orgID's security
// policy. It applies at once: Authenticate checks every session against the
// policy in force. Only owners may change it (auth.ActOrgSecurity); the
// caller has already authorized the request.
func (s *Service) SetOrgPolicy(ctx context.Context, orgID uuid.UUID, p Policy) (Policy, error) {
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	err := s.store.SetOrgSecurityPolicy(ctx, orgID, p, s.now())
	if err != nil {
		return Policy{}, errcode.NotFoundAs(err, "organization not found")
	}
	return p, nil
}

// PolicyFor returns the security policy of p's own organization orgID, for
// GET /v1/organizations/{id}/security: the org:read scope and the org.read
// role action (every role). Any other organization is NOT_FOUND.
func (s *Service) PolicyFor(ctx context.Context, p *auth.Principal, orgID uuid.UUID) (Policy, error) {
	if _, err := p.Authorize(auth.ScopeOrgRead, auth.ActOrgRead); err != nil {
		return Policy{}, err
	}
	if orgID != p.OrgID {
		return Policy{}, errcode.New(errcode.NotFound, "organization not found")
	}
	return s.OrgPolicy(ctx, orgID)
}

// SetPolicyFor replaces the security policy of p's own organization orgID,
// for PUT /v1/organizations/{id}/security. It needs the team:write scope,
// because the policy governs how every member signs in, and the role action
// org.security, which only owners hold: a key created by an owner, or a key
// without a creator (the bootstrap key). Any other organization is
// NOT_FOUND; the authorization is checked first, so a refused key learns
// nothing about other organizations.
func (s *Service) SetPolicyFor(ctx context.Context, p *auth.Principal, orgID uuid.UUID, pol Policy) (Policy, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActOrgSecurity); err != nil {
		return Policy{}, err
	}
	if orgID != p.OrgID {
		return Policy{}, errcode.New(errcode.NotFound, "organization not found")
	}
	return s.SetOrgPolicy(ctx, orgID, pol)
}
