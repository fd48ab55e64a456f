package account

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// OrgPolicy returns organization orgID's security policy (DefaultPolicy
// until it sets one); NOT_FOUND when there is no such organization. The
// caller (the API adapter) has already authorized the request.
func (s *Service) OrgPolicy(ctx context.Context, orgID uuid.UUID) (Policy, error) {
	p, err := s.store.OrgSecurityPolicy(ctx, orgID)
	if errors.Is(err, errcode.ErrNotFound) {
		return Policy{}, errcode.New(errcode.NotFound, "organization not found")
	}
	return p, err
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
	if errors.Is(err, errcode.ErrNotFound) {
		return Policy{}, errcode.New(errcode.NotFound, "organization not found")
	}
	if err != nil {
		return Policy{}, err
	}
	return p, nil
}
