package linking

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// SSL states of a custom domain (SPEC.md, Domain: ssl_status; its values are
// ours). Hoplink terminates no TLS itself: the operator's proxy does, and
// asks GET /v1/internal/tls/ask before it requests a certificate, which is
// answered yes for verified, live domains only.
const (
	// SSLPending: the domain is not verified yet, so no certificate is issued for it.
	SSLPending = "pending"
	// SSLActive: the domain is verified; the proxy may obtain its certificate.
	SSLActive = "active"
)

// Domain is a custom domain (SPEC.md, Domain). Its JSON form is the Domain
// resource plus suspended_at.
type Domain struct {
	ID    uuid.UUID `json:"id"`
	OrgID uuid.UUID `json:"org_id"`
	// Domain is the name in its stored form (ParseCustomDomain): ASCII,
	// lowercase, punycode for internationalized labels.
	Domain string `json:"domain"`
	// Verified is true once the domain's CNAME pointed at the CNAME target.
	// It never goes back to false.
	Verified bool `json:"verified"`
	// SSLStatus is SSLPending until the domain is verified, then SSLActive.
	SSLStatus string `json:"ssl_status"`
	// VerificationToken is a random token issued with the domain.
	VerificationToken string     `json:"verification_token"`
	VerifiedAt        *time.Time `json:"verified_at"`
	// SuspendedAt is set while the organization's plan has no custom
	// domains: the domain's links are then 404 until the plan has them again.
	SuspendedAt *time.Time `json:"suspended_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// Live reports whether d serves links: verified and not suspended.
func (d *Domain) Live() bool { return d.Verified && d.SuspendedAt == nil }

// DomainStore is the storage custom domains need. Implementations wrap
// errcode.ErrNotFound and errcode.ErrUnavailable.
type DomainStore interface {
	// CreateDomain inserts d in one transaction that no concurrent
	// CreateDomain of the organization interleaves with, checking in this
	// order: the organization gone (errcode.ErrNotFound); the organization
	// already has d.Domain (ErrDomainDuplicate); another organization has
	// d.Domain verified (ErrDomainClaimed); the organization already has
	// maxDomains domains or more (ErrDomainLimit).
	CreateDomain(ctx context.Context, d *Domain, maxDomains int) error
	// DomainByID returns domain id of orgID; errcode.ErrNotFound when there
	// is none in orgID.
	DomainByID(ctx context.Context, orgID, id uuid.UUID) (*Domain, error)
	// ListDomains returns one page of orgID's domains, oldest first, and how
	// many there are in all.
	ListDomains(ctx context.Context, orgID uuid.UUID, limit, offset int) ([]*Domain, int, error)
	// DeleteDomain deletes domain id of orgID and the organization's links on
	// it, in one transaction, and returns the domain as it was;
	// errcode.ErrNotFound when there is none in orgID.
	DeleteDomain(ctx context.Context, orgID, id uuid.UUID) (*Domain, error)
	// MarkDomainVerified sets verified, verified_at and updated_at of domain
	// id of orgID to at and returns it; errcode.ErrNotFound when there is
	// none in orgID; ErrDomainClaimed when another organization has the same
	// name verified (a unique index decides between concurrent verifications).
	MarkDomainVerified(ctx context.Context, orgID, id uuid.UUID, at time.Time) (*Domain, error)
	// LiveCustomDomains returns the names of orgID's verified, unsuspended
	// domains, in any order.
	LiveCustomDomains(ctx context.Context, orgID uuid.UUID) ([]string, error)
	// LiveDomain returns the verified, unsuspended domain named name (stored
	// form), whatever its organization; errcode.ErrNotFound when there is none.
	LiveDomain(ctx context.Context, name string) (*Domain, error)
	// SetDomainsSuspended suspends (suspended_at = at) or restores
	// (suspended_at null) every domain of orgID that is not in that state
	// yet, setting updated_at to at, and returns how many changed.
	SetDomainsSuspended(ctx context.Context, orgID uuid.UUID, suspend bool, at time.Time) (int, error)
}

// Errors a DomainStore returns (wrapped) for the refusals of CreateDomain and
// MarkDomainVerified.
var (
	// ErrDomainDuplicate: the organization already has the domain.
	ErrDomainDuplicate = errors.New("the organization already has this domain")
	// ErrDomainClaimed: another organization has the domain verified.
	ErrDomainClaimed = errors.New("another organization has this domain verified")
	// ErrDomainLimit: the organization has as many domains as its plan allows.
	ErrDomainLimit = errors.New("domain limit reached")
)

// CNAMELookup finds the CNAME record of a name.
type CNAMELookup interface {
	// LookupCNAME returns the target of name's CNAME record, lowercase and
	// without a trailing dot; found is false (and err nil) when the name has
	// no CNAME record or does not exist. err is a lookup that failed (a
	// timeout, a server failure).
	LookupCNAME(ctx context.Context, name string) (target string, found bool, err error)
}
