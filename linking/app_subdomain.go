package linking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// FieldDefaultDomain is the field of PUT /apps/{id}/default-link-domain.
const FieldDefaultDomain = "domain"

// AppSubdomainStore is the storage of an app's link domains beyond AppStore:
// its default link domain and its subdomain's rename. An AppService whose
// AppStore also implements it (as store.Store does) serves the subdomain
// endpoints; with any other AppStore they fail with an internal error.
type AppSubdomainStore interface {
	// SetAppDefaultLinkDomain sets default_link_domain and updated_at of app
	// id of orgID and returns the app; errcode.ErrNotFound when there is
	// none in orgID.
	SetAppDefaultLinkDomain(ctx context.Context, orgID, id uuid.UUID, domain string, now time.Time) (*App, error)
}

// DefaultLinkDomainInput is the body of PUT /apps/{id}/default-link-domain.
type DefaultLinkDomainInput struct {
	// Domain is required: a domain name, or null for the app's subdomain.
	Domain apitype.Optional[string] `json:"domain"`
}

// subdomainStore returns the store of app subdomains, or an internal error
// when the service's AppStore is not one.
func (s *AppService) subdomainStore() (AppSubdomainStore, error) {
	ss, ok := s.store.(AppSubdomainStore)
	if !ok {
		return nil, errors.New("linking: the app store does not store app subdomains (AppSubdomainStore)")
	}
	return ss, nil
}

// SetDefaultLinkDomain sets the default link domain of app id of p's
// organization (domain rule 1: where its links go when a request names no
// domain) and returns the app. The domain must be one of the domains the
// app's links may use (DomainsForApp): its subdomain, the service's default
// link domain when the app is legacy, or a live custom domain of the
// organization; never its previous subdomain. Null sets the app's
// subdomain. Errors: 403 FORBIDDEN (scope apps:write, owners and admins),
// 404 NOT_FOUND, 400 VALIDATION_ERROR (domain absent, empty or too long),
// 422 INVALID_DOMAIN with details.domain and details.allowed_link_domains.
//
// A custom domain saved here that later stops being live (unverified,
// suspended, deleted) stays saved: POST /links naming no domain then
// answers 409 DEFAULT_DOMAIN_UNAVAILABLE (rule 9) until the default is set
// again or the domain is live again.
func (s *AppService) SetDefaultLinkDomain(ctx context.Context, p *auth.Principal, id uuid.UUID, in DefaultLinkDomainInput) (*App, error) {
	if _, err := p.Authorize(auth.ScopeAppsWrite, auth.ActAppsWrite); err != nil {
		return nil, err
	}
	ss, err := s.subdomainStore()
	if err != nil {
		return nil, err
	}
	app, err := s.store.AppByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	s.fill(app)
	switch {
	case !in.Domain.Set:
		return nil, errcode.Validation(errcode.FieldError{Field: FieldDefaultDomain, Message: "is required: a domain, or null for the app's subdomain"})
	case in.Domain.Null:
	case strings.TrimSpace(in.Domain.Value) == "":
		return nil, errcode.Validation(errcode.FieldError{Field: FieldDefaultDomain, Message: "must not be empty; send null for the app's subdomain"})
	case utf8.RuneCountInString(in.Domain.Value) > MaxDomainLength:
		return nil, errcode.Validation(errcode.FieldError{Field: FieldDefaultDomain, Message: fmt.Sprintf("must be at most %d characters", MaxDomainLength)})
	}
	domain := app.LinkDomain
	if !in.Domain.Null {
		custom, err := s.domains.LiveCustomDomains(ctx, p.OrgID)
		if err != nil {
			return nil, err
		}
		ld := LinkDomains{Default: s.defaultLinkDomain, Custom: custom}
		domain = NormalizeDomain(in.Domain.Value)
		allowed := DomainsForApp(app.Domains(), ld)
		if !slices.Contains(allowed, domain) {
			return nil, invalidDomain(domain, app.Domains(), s.defaultLinkDomain, allowed)
		}
	}
	a, err := ss.SetAppDefaultLinkDomain(ctx, p.OrgID, id, domain, s.now())
	s.changed(p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	return s.fill(a), nil
}
