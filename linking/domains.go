package linking

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

// DefaultVerifyTimeout bounds the DNS lookup of one verification.
const DefaultVerifyTimeout = 5 * time.Second

// CreateDomainInput is the body of POST /domains.
type CreateDomainInput struct {
	// Domain is the name to add; required.
	Domain apitype.Optional[string] `json:"domain"`
}

// DomainPage is one page of GET /domains, oldest first.
type DomainPage struct {
	Data       []*Domain          `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

// DNSCheck is the dns object of an unsuccessful verification (SPEC.md, POST
// /domains/{id}/verify).
type DNSCheck struct {
	// ExpectedCNAME is the name the domain's CNAME must point at.
	ExpectedCNAME string `json:"expected_cname"`
	// CurrentCNAME is where the CNAME points now; nil when there is none
	// (or the lookup failed).
	CurrentCNAME *string `json:"current_cname"`
	// Message says what to change.
	Message string `json:"message"`
	// LookupFailed says that the DNS lookup got no answer (a timeout, a
	// server failure), rather than an answer without the right record:
	// CurrentCNAME is then nil whatever the record is. It is not part of
	// the API's answer, whose message says it in words.
	LookupFailed bool `json:"-"`
}

// VerifyResult is the answer of POST /domains/{id}/verify: verified with the
// domain, or not with the DNS details.
type VerifyResult struct {
	Verified bool      `json:"verified"`
	Domain   *Domain   `json:"domain"`
	DNS      *DNSCheck `json:"dns,omitempty"`
}

// DomainServiceOptions configure a DomainService.
type DomainServiceOptions struct {
	// Reserved are the names no custom domain may take; Reserved.CNAMETarget
	// is also the target every domain's CNAME must point at, and must not be
	// empty.
	Reserved ReservedDomains
	// Lookup finds CNAME records; required for Verify.
	Lookup CNAMELookup
	// VerifyTimeout bounds one verification's lookup; if zero, DefaultVerifyTimeout.
	VerifyTimeout time.Duration
	// Cache is told of every change to what a domain serves; nil for none.
	Cache LinkCache
	// Clock is time.Now and Random crypto/rand when nil.
	Clock  func() time.Time
	Random io.Reader
}

// DomainService manages custom domains (SPEC.md, Custom domains) with both
// authorization layers applied: reading needs domains:read, writing
// (create, verify, delete) domains:write. It also tells the link rules which
// domains are live (CustomDomains) and suspends or restores domains when an
// organization's plan changes (org.PlanListener). It is safe for concurrent use.
type DomainService struct {
	store DomainStore
	orgs  OrgReader
	opts  DomainServiceOptions
}

var (
	_ CustomDomains    = (*DomainService)(nil)
	_ org.PlanListener = (*DomainService)(nil)
)

// NewDomainService returns the custom-domain service.
func NewDomainService(store DomainStore, orgs OrgReader, opts DomainServiceOptions) *DomainService {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	if opts.VerifyTimeout == 0 {
		opts.VerifyTimeout = DefaultVerifyTimeout
	}
	opts.Reserved.CNAMETarget = NormalizeDomain(opts.Reserved.CNAMETarget)
	return &DomainService{store: store, orgs: orgs, opts: opts}
}

// CNAMETarget returns the name every custom domain's CNAME must point at.
func (s *DomainService) CNAMETarget() string { return s.opts.Reserved.CNAMETarget }

func (s *DomainService) now() time.Time { return s.opts.Clock().UTC().Truncate(time.Millisecond) }

func (s *DomainService) invalidate() {
	if s.opts.Cache != nil {
		s.opts.Cache.InvalidateAll()
	}
}

// fill sets the fields derived from the stored ones.
func fillDomain(d *Domain) *Domain {
	d.SSLStatus = SSLPending
	if d.Verified {
		d.SSLStatus = SSLActive
	}
	return d
}

// Create adds a custom domain to p's organization, unverified, with a new
// verification_token. Checks, in order: scope and role (403); the body (400
// VALIDATION_ERROR when domain is missing or not a string); the name (422
// INVALID_DOMAIN, ParseCustomDomain); the plan (403 PLAN_UPGRADE_REQUIRED
// when it has no custom domains); then, in the insert's transaction, 409
// DUPLICATE_DOMAIN when the organization already has the domain, 409
// DOMAIN_CLAIMED when another organization has it verified, and 403
// DOMAIN_LIMIT_EXCEEDED when the organization has as many as its plan allows.
func (s *DomainService) Create(ctx context.Context, p *auth.Principal, in CreateDomainInput) (*Domain, error) {
	if _, err := p.Authorize(auth.ScopeDomainsWrite, auth.ActDomainsWrite); err != nil {
		return nil, err
	}
	if !in.Domain.Set || in.Domain.Null {
		return nil, errcode.Field("domain", "is required")
	}
	name, err := ParseCustomDomain(in.Domain.Value, s.opts.Reserved)
	if err != nil {
		return nil, err
	}
	o, err := s.orgs.OrganizationByID(ctx, p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	limit := org.LimitsOf(o.Plan).CustomDomains
	if limit == 0 {
		return nil, errcode.Newf(errcode.PlanUpgradeRequired, "the %s plan has no custom domains; upgrade the plan to add one", o.Plan)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	token := make([]byte, 16)
	if _, err := io.ReadFull(s.opts.Random, token); err != nil {
		return nil, fmt.Errorf("linking: verification token: %w", err)
	}
	now := s.now()
	d := &Domain{
		ID: id, OrgID: p.OrgID, Domain: name,
		VerificationToken: "hoplink-verify-" + hex.EncodeToString(token),
		CreatedAt:         now, UpdatedAt: now,
	}
	switch err := s.store.CreateDomain(ctx, d, limit); {
	case errors.Is(err, ErrDomainDuplicate):
		return nil, errcode.Newf(errcode.DuplicateDomain, "this organization already has the domain %s", name).WithDetail(DetailDomain, name)
	case errors.Is(err, ErrDomainClaimed):
		return nil, domainClaimed(name)
	case errors.Is(err, ErrDomainLimit):
		return nil, errcode.Newf(errcode.DomainLimitExceeded,
			"the %s plan allows %d custom domains; delete one or upgrade the plan", o.Plan, limit)
	case err != nil:
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	return fillDomain(d), nil
}

func domainClaimed(name string) *errcode.Error {
	return errcode.Newf(errcode.DomainClaimed, "the domain %s is connected to another account", name).WithDetail(DetailDomain, name)
}

// List returns one page of p's organization's domains, oldest first.
// Errors: VALIDATION_ERROR naming limit or offset.
func (s *DomainService) List(ctx context.Context, p *auth.Principal, limit, offset *int) (*DomainPage, error) {
	if _, err := p.Authorize(auth.ScopeDomainsRead, auth.ActDomainsRead); err != nil {
		return nil, err
	}
	l, o, err := apitype.PageBounds(limit, offset)
	if err != nil {
		return nil, err
	}
	ds, total, err := s.store.ListDomains(ctx, p.OrgID, l, o)
	if err != nil {
		return nil, err
	}
	if ds == nil {
		ds = []*Domain{}
	}
	for _, d := range ds {
		fillDomain(d)
	}
	return &DomainPage{Data: ds, Pagination: apitype.NewPagination(total, l, o)}, nil
}

// Get returns domain id of p's organization; NOT_FOUND when there is none there.
func (s *DomainService) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Domain, error) {
	if _, err := p.Authorize(auth.ScopeDomainsRead, auth.ActDomainsRead); err != nil {
		return nil, err
	}
	d, err := s.store.DomainByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "domain not found")
	}
	return fillDomain(d), nil
}

// Delete deletes domain id of p's organization with the organization's
// links on it, and returns the domain as it was. The links answer 404 at
// once in this process (and within the link cache's TTL on other replicas).
// NOT_FOUND when there is no such domain in p's organization.
func (s *DomainService) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Domain, error) {
	if _, err := p.Authorize(auth.ScopeDomainsWrite, auth.ActDomainsWrite); err != nil {
		return nil, err
	}
	d, err := s.store.DeleteDomain(ctx, p.OrgID, id)
	s.invalidate()
	if err != nil {
		return nil, errcode.NotFoundAs(err, "domain not found")
	}
	return fillDomain(d), nil
}

// Verify checks the CNAME record of domain id of p's organization (SPEC.md,
// Domain states). When it points at the CNAME target the domain becomes
// verified (verified_at set) and the answer is {verified: true, domain};
// otherwise the domain is unchanged and the answer is {verified: false,
// domain, dns} saying what the record is and should be. A lookup that fails
// or times out is a "not yet" with a message, never an error. A domain
// already verified is answered as verified without a lookup. Errors:
// NOT_FOUND; 409 DOMAIN_CLAIMED when another organization verified the same
// name first.
func (s *DomainService) Verify(ctx context.Context, p *auth.Principal, id uuid.UUID) (*VerifyResult, error) {
	if _, err := p.Authorize(auth.ScopeDomainsWrite, auth.ActDomainsWrite); err != nil {
		return nil, err
	}
	d, err := s.store.DomainByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "domain not found")
	}
	if d.Verified {
		return &VerifyResult{Verified: true, Domain: fillDomain(d)}, nil
	}
	if s.opts.Lookup == nil {
		return nil, errors.New("linking: no CNAME lookup configured")
	}
	want := s.opts.Reserved.CNAMETarget
	lctx, cancel := context.WithTimeout(ctx, s.opts.VerifyTimeout)
	target, found, err := s.opts.Lookup.LookupCNAME(lctx, d.Domain)
	cancel()
	check := &DNSCheck{ExpectedCNAME: want}
	switch {
	case err != nil:
		check.LookupFailed = true
		check.Message = fmt.Sprintf("the DNS lookup of %s failed (%s); try again in a few minutes", d.Domain, lookupFailure(err))
	case !found:
		check.Message = fmt.Sprintf("%s has no CNAME record; add a CNAME record pointing %s at %s", d.Domain, d.Domain, want)
	case NormalizeDomain(target) != want:
		t := NormalizeDomain(target)
		check.CurrentCNAME = &t
		check.Message = fmt.Sprintf("the CNAME record of %s points at %s; change it to point at %s (DNS changes can take a while to spread)", d.Domain, t, want)
	default:
		v, err := s.store.MarkDomainVerified(ctx, p.OrgID, id, s.now())
		switch {
		case errors.Is(err, ErrDomainClaimed):
			return nil, domainClaimed(d.Domain)
		case err != nil:
			return nil, errcode.NotFoundAs(err, "domain not found")
		}
		s.invalidate()
		return &VerifyResult{Verified: true, Domain: fillDomain(v)}, nil
	}
	return &VerifyResult{Verified: false, Domain: fillDomain(d), DNS: check}, nil
}

// lookupFailure names a failed lookup for the message without internals.
func lookupFailure(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return "it timed out"
	}
	return "the DNS server did not answer"
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// LiveCustomDomains implements CustomDomains: the verified, unsuspended
// domains of orgID.
func (s *DomainService) LiveCustomDomains(ctx context.Context, orgID uuid.UUID) ([]string, error) {
	return s.store.LiveCustomDomains(ctx, orgID)
}

// IsLive reports whether name (any case, one trailing dot allowed) is a
// verified, unsuspended custom domain of any organization: the question an
// on-demand TLS proxy asks before it obtains a certificate.
func (s *DomainService) IsLive(ctx context.Context, name string) (bool, error) {
	name = NormalizeDomain(name)
	if name == "" {
		return false, nil
	}
	_, err := s.store.LiveDomain(ctx, name)
	if errors.Is(err, errcode.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// PlanChanged implements org.PlanListener: on a plan without custom domains
// (Free) every domain of orgID is suspended, so its links answer 404; on a
// plan with custom domains every suspended domain is restored, even past the
// new plan's number (the number limits only new domains).
func (s *DomainService) PlanChanged(ctx context.Context, orgID uuid.UUID, plan org.Plan) error {
	suspend := org.LimitsOf(plan).CustomDomains == 0
	n, err := s.store.SetDomainsSuspended(ctx, orgID, suspend, s.now())
	if err != nil {
		return err
	}
	if n > 0 {
		s.invalidate()
	}
	return nil
}
