package linking

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// LinkStore is the storage links need. Implementations wrap
// errcode.ErrNotFound, errcode.ErrConflict and errcode.ErrUnavailable.
type LinkStore interface {
	// CreateLink inserts l unless quota refuses it. When quota.Max > 0 and
	// l's organization already has quota.Max links created at or after
	// quota.Since, it inserts nothing and returns an error wrapping
	// ErrLinkLimit; the count and the insert are one transaction that no
	// concurrent CreateLink of the organization interleaves with. When the
	// unique index on (domain, slug) refuses l, and when l's domain and slug
	// are an old address of a moved link (OldAddress), it returns an error
	// wrapping errcode.ErrConflict.
	CreateLink(ctx context.Context, l *Link, quota LinkQuota) error
	// LinkByID returns link id of organization orgID; errcode.ErrNotFound
	// when there is none in orgID.
	LinkByID(ctx context.Context, orgID, id uuid.UUID) (*Link, error)
	// LinksByIDs returns the links of organization orgID among ids, in
	// any order; an id that is no link of orgID is left out.
	LinksByIDs(ctx context.Context, orgID uuid.UUID, ids []uuid.UUID) ([]Link, error)
	// ListLinks returns one page of the organization's links matching
	// filter, newest first (created_at, then id, descending), and how many
	// match in all.
	ListLinks(ctx context.Context, filter LinkFilter) ([]Link, int, error)
	// UpdateLink writes every field of l that may change (all but id, org,
	// domain, slug, creator and created_at); errcode.ErrNotFound when l is
	// not in l.OrgID.
	UpdateLink(ctx context.Context, l *Link) error
	// DeleteLink deletes link id of orgID; errcode.ErrNotFound when there is
	// none in orgID.
	DeleteLink(ctx context.Context, orgID, id uuid.UUID) error
	// RecordOldAddress stores a: link a.LinkID of a.OrgID, which was served
	// at a.Domain and a.Slug (as stored: normalized domain, lowercase slug),
	// is now redirected to from there. errcode.ErrNotFound when the link is
	// not in a.OrgID; errcode.ErrConflict when the address is another link's
	// (the link itself may still be there: a move may record its old address
	// before or after it changes the link's) or already an old address.
	// Concurrent RecordOldAddress and CreateLink calls for one address are
	// decided in turn: one of them is refused.
	RecordOldAddress(ctx context.Context, a *OldAddress) error
	// OldAddresses returns the old addresses of link linkID of orgID, oldest
	// first (BeganAt, then domain and slug); none when the link has none or
	// is not in orgID.
	OldAddresses(ctx context.Context, orgID, linkID uuid.UUID) ([]OldAddress, error)
}

// LinkQuota is the monthly link limit CreateLink enforces.
type LinkQuota struct {
	// Since is the start of the current billing month.
	Since time.Time
	// Max is how many links may be created from Since on; zero or less
	// means no limit.
	Max int
}

// ErrLinkLimit is returned, wrapped, by LinkStore.CreateLink when the
// organization has created as many links this billing month as its plan allows.
var ErrLinkLimit = errors.New("link limit reached")

// LinkFilter selects a page of one organization's links.
type LinkFilter struct {
	OrgID uuid.UUID
	// Tag, when not empty, keeps links that have exactly this tag.
	Tag string
	// IsActive, when not nil, keeps active (true) or paused (false) links.
	IsActive *bool
	// Search, when not empty, keeps links whose slug, name, destination_url
	// or one of whose tags contains it, ignoring case.
	Search string
	// Limit is the page size (1 to 100); Offset how many matches to skip.
	Limit, Offset int
	// Sort is the order; "" is LinkSortNewest.
	Sort LinkSort
}

// LinkApps is the part of the app storage links need; every AppStore is one.
type LinkApps interface {
	// AppByID returns app id of organization orgID; errcode.ErrNotFound when
	// there is none in orgID.
	AppByID(ctx context.Context, orgID, id uuid.UUID) (*App, error)
	// CountApps returns how many apps organization orgID has.
	CountApps(ctx context.Context, orgID uuid.UUID) (int, error)
}

// CustomDomains lists an organization's live custom domains: verified and
// not suspended. DomainService is one; NoCustomDomains stands in where a
// service has no custom domains.
type CustomDomains interface {
	// LiveCustomDomains returns the live custom domains of orgID, in any order.
	LiveCustomDomains(ctx context.Context, orgID uuid.UUID) ([]string, error)
}

// NoCustomDomains is a CustomDomains for a service without custom domains:
// every organization has none.
type NoCustomDomains struct{}

// LiveCustomDomains implements CustomDomains: there are none.
func (NoCustomDomains) LiveCustomDomains(context.Context, uuid.UUID) ([]string, error) {
	return nil, nil
}
