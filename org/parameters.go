package org

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
)

// ParameterStore is the storage of organizations' parameter defaults.
// Implementations wrap errcode.ErrNotFound and errcode.ErrUnavailable.
type ParameterStore interface {
	// OrgParameters returns the parameter defaults of organization orgID, nil
	// when none are set; errcode.ErrNotFound when the organization does not exist.
	OrgParameters(ctx context.Context, orgID uuid.UUID) (*params.OrgConfig, error)
	// SetOrgParameters replaces the parameter defaults of organization orgID
	// and sets its updated_at to now; errcode.ErrNotFound when the
	// organization does not exist.
	SetOrgParameters(ctx context.Context, orgID uuid.UUID, cfg *params.OrgConfig, now time.Time) error
}

// Parameters manages an organization's parameter defaults: the injected
// parameters, forwarding and defaultMode that every link of the organization
// inherits (SPEC.md, LinkParamConfig). This is Hoplink's design; SPEC.md does
// not show the endpoints.
//
// Reading needs the org:read scope (every role). Changing needs the
// links:write scope, because the defaults change every link's redirects, and
// the role action org.write, because they are an organization setting: so
// owners and admins may change them, members may not, and keys without a
// creator are authorized on the scope alone.
type Parameters struct {
	store    ParameterStore
	clock    func() time.Time
	onChange func(orgID uuid.UUID)
}

// ParametersOptions configure a Parameters service. Every zero value means
// the documented default.
type ParametersOptions struct {
	// Clock is time.Now when nil.
	Clock func() time.Time
	// OnChange is called after organization orgID's defaults change, so that
	// a link cache of this process (a linking.Resolver) serves them at once.
	// If nil, nothing is called.
	OnChange func(orgID uuid.UUID)
}

// NewParameters returns the parameter-defaults service over store.
func NewParameters(store ParameterStore, opts ParametersOptions) *Parameters {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Parameters{store: store, clock: opts.Clock, onChange: opts.OnChange}
}

// Get returns the parameter defaults of p's own organization orgID; an
// organization without any gets an empty config (no injected parameters,
// forwarding and defaultMode null). Any other organization is NOT_FOUND.
func (s *Parameters) Get(ctx context.Context, p *auth.Principal, orgID uuid.UUID) (*params.OrgConfig, error) {
	if _, err := p.Authorize(auth.ScopeOrgRead, auth.ActOrgRead); err != nil {
		return nil, err
	}
	if orgID != p.OrgID {
		return nil, errcode.New(errcode.NotFound, "organization not found")
	}
	cfg, err := s.store.OrgParameters(ctx, orgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	if cfg == nil {
		cfg = &params.OrgConfig{}
	}
	if cfg.Injected == nil {
		cfg.Injected = []params.InjectedParam{}
	}
	return cfg, nil
}

// Put replaces the parameter defaults of p's own organization orgID with cfg
// and returns them. cfg is validated (400 VALIDATION_ERROR naming fields from
// the top, such as "injected[0].key", or PARAM_CONFIG_TOO_LARGE). Any other
// organization is NOT_FOUND.
func (s *Parameters) Put(ctx context.Context, p *auth.Principal, orgID uuid.UUID, cfg *params.OrgConfig) (*params.OrgConfig, error) {
	if _, err := p.Authorize(auth.ScopeLinksWrite, auth.ActOrgWrite); err != nil {
		return nil, err
	}
	if orgID != p.OrgID {
		return nil, errcode.New(errcode.NotFound, "organization not found")
	}
	if cfg == nil {
		return nil, errcode.Field("body", "must be a JSON object")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	out := *cfg
	if out.Injected == nil {
		out.Injected = []params.InjectedParam{}
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	if err := s.store.SetOrgParameters(ctx, orgID, &out, now); err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	if s.onChange != nil {
		s.onChange(orgID)
	}
	return &out, nil
}
