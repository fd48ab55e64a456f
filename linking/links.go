package linking

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
)

// Limits of the link fields SPEC.md leaves open (Hoplink's decisions).
const (
	// MinLinkPasswordLength is the shortest new link password, in
	// characters (SPEC.md sets none; docs/decisions.md). A link password is
	// shared with every visitor and guessed without an account, so the
	// four-digit codes allowed before are refused when a password is set;
	// links that already have a shorter one keep it and it still opens them.
	MinLinkPasswordLength = 8
	// MaxLinkPasswordLength is the longest link password, in characters.
	MaxLinkPasswordLength = 200
	// MaxUTMLength is the longest utm_source, utm_medium or utm_campaign, in characters.
	MaxUTMLength = 255
	// MinMatchWindowHours and MaxMatchWindowHours bound match_window_hours:
	// one hour to one year.
	MinMatchWindowHours = 1
	MaxMatchWindowHours = 8760
	// MaxDomainLength is the longest domain a request may name.
	MaxDomainLength = 255
	// MaxSearchLength is the longest search of GET /links (SPEC.md, Limits).
	MaxSearchLength = 200
)

// The fields of a link that errors name, beside those of the rule files.
const (
	FieldDomain           = "domain"
	FieldPassword         = "password"
	FieldExpiresAt        = "expires_at"
	FieldAppID            = "app_id"
	FieldUTMSource        = "utm_source"
	FieldUTMMedium        = "utm_medium"
	FieldUTMCampaign      = "utm_campaign"
	FieldMatchWindowHours = "match_window_hours"
	FieldIsActive         = "is_active"
)

// DefaultShortURLBase is the short-URL base when LinkServiceOptions names none.
const DefaultShortURLBase = "https://{domain}"

// LinkServiceOptions configure a LinkService.
type LinkServiceOptions struct {
	// DefaultLinkDomain is the service's {default_link_domain}; required.
	DefaultLinkDomain string
	// ShortURLBase builds short_url: "{domain}" is replaced by the link's
	// domain and "/" + slug appended. If empty, DefaultShortURLBase.
	ShortURLBase string
	// CustomDomains lists each organization's live custom domains. If nil,
	// NoCustomDomains: no organization has any.
	CustomDomains CustomDomains
	// Clock is the time; time.Now when nil.
	Clock func() time.Time
	// Random is the source of generated slugs; crypto/rand when nil.
	Random io.Reader
	// HashPassword hashes link passwords; identity.HashPassword (argon2id)
	// when nil.
	HashPassword func(password string) (string, error)
	// Cache is told of every link created, changed or deleted, so that the
	// link-domain cache of this process (a *Resolver) serves the change at
	// once. If nil, nothing is told.
	Cache LinkCache
}

// LinkService manages links: create, list, read, update, delete, pause and
// reactivate, with both authorization layers applied. It is safe for
// concurrent use.
type LinkService struct {
	links   LinkStore
	apps    LinkApps
	orgs    OrgReader
	domains CustomDomains
	def     string
	base    string
	clock   func() time.Time
	random  io.Reader
	hash    func(string) (string, error)
	cache   LinkCache
}

// NewLinkService returns the link service over links, with apps and orgs to
// read the organization's apps and plan.
func NewLinkService(links LinkStore, apps LinkApps, orgs OrgReader, opts LinkServiceOptions) *LinkService {
	s := &LinkService{
		links:   links,
		apps:    apps,
		orgs:    orgs,
		domains: opts.CustomDomains,
		def:     NormalizeDomain(opts.DefaultLinkDomain),
		base:    opts.ShortURLBase,
		clock:   opts.Clock,
		random:  opts.Random,
		hash:    opts.HashPassword,
		cache:   opts.Cache,
	}
	if s.domains == nil {
		s.domains = NoCustomDomains{}
	}
	if s.base == "" {
		s.base = DefaultShortURLBase
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.random == nil {
		s.random = rand.Reader
	}
	if s.hash == nil {
		s.hash = identity.HashPassword
	}
	return s
}

func (s *LinkService) now() time.Time { return s.clock().UTC().Truncate(time.Millisecond) }

// present fills in what the service adds to a stored link.
func (s *LinkService) present(l *Link) *Link {
	l.ShortURL = ShortURL(s.base, l.Domain, l.Slug)
	if l.Tags == nil {
		l.Tags = []string{}
	}
	return l
}

// CreateLinkInput is the body of POST /links. JSON null is the same as an
// absent field.
type CreateLinkInput struct {
	DestinationURL     string             `json:"destination_url"`
	Slug               *string            `json:"slug"`
	Name               *string            `json:"name"`
	Domain             *string            `json:"domain"`
	IOSURL             *string            `json:"ios_url"`
	IOSFallbackURL     *string            `json:"ios_fallback_url"`
	AndroidURL         *string            `json:"android_url"`
	AndroidFallbackURL *string            `json:"android_fallback_url"`
	OGTitle            *string            `json:"og_title"`
	OGDescription      *string            `json:"og_description"`
	OGImageURL         *string            `json:"og_image_url"`
	Tags               []string           `json:"tags"`
	ExpiresAt          *time.Time         `json:"expires_at"`
	Password           *string            `json:"password"`
	AppID              *uuid.UUID         `json:"app_id"`
	UTMSource          *string            `json:"utm_source"`
	UTMMedium          *string            `json:"utm_medium"`
	UTMCampaign        *string            `json:"utm_campaign"`
	MatchWindowHours   *int               `json:"match_window_hours"`
	Parameters         *params.LinkConfig `json:"parameters"`
}

// Create creates a link in p's organization (SPEC.md, POST /links). The
// checks, in order:
//
//  1. scope links:write and the role's links.create (403 FORBIDDEN);
//  2. every field (400 VALIDATION_ERROR naming each bad field, or
//     PARAM_CONFIG_TOO_LARGE);
//  3. the organization has an app (403 APP_REQUIRED);
//  4. app_id is an app of the organization (400 INVALID_APP_ID);
//  5. the domain rules (422 INVALID_DOMAIN, 409 DEFAULT_DOMAIN_UNAVAILABLE),
//     then "test" on an app subdomain (400);
//  6. on insert, the plan's monthly link limit (403 LINK_LIMIT_EXCEEDED) and
//     the slug's uniqueness on the domain, where an old address of a moved
//     link counts as taken (409 SLUG_TAKEN with details.slug and
//     details.domain), and so, on an app's subdomain while the app has a
//     previous one, does the slug of a link there waiting to move (not
//     chosen keep; SLUG_TAKEN with details.held_by too, the waiting link's
//     domain and slug). A generated slug that collides is generated again.
//
// The link is active, records p's creator, and stores its password as an
// argon2id hash. A link that may hold a slug needs a LinkStore that is a
// MoveChoiceStore, as the move-choice endpoints do; with any other, such a
// create fails with an internal error.
func (s *LinkService) Create(ctx context.Context, p *auth.Principal, in CreateLinkInput) (*Link, error) {
	if _, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksCreate); err != nil {
		return nil, err
	}
	now := s.now()
	l := &Link{OrgID: p.OrgID, IsActive: true, CreatedBy: p.CreatedBy, CreatedAt: now, UpdatedAt: now}

	var c checker
	if in.DestinationURL == "" {
		c.fail(FieldDestinationURL, "is required")
	} else {
		l.DestinationURL = deref(c.url(FieldDestinationURL, &in.DestinationURL))
	}
	if in.Slug != nil {
		c.add(ValidateSlug(*in.Slug, false))
	}
	if in.Domain != nil {
		switch n := utf8.RuneCountInString(*in.Domain); {
		case strings.TrimSpace(*in.Domain) == "":
			c.fail(FieldDomain, "must not be empty; omit it for the default")
		case n > MaxDomainLength:
			c.fail(FieldDomain, fmt.Sprintf("must be at most %d characters", MaxDomainLength))
		}
	}
	l.Name = c.text(ValidateName, in.Name)
	l.IOSURL = c.url(FieldIOSURL, in.IOSURL)
	l.IOSFallbackURL = c.url(FieldIOSFallbackURL, in.IOSFallbackURL)
	l.AndroidURL = c.url(FieldAndroidURL, in.AndroidURL)
	l.AndroidFallbackURL = c.url(FieldAndroidFallbackURL, in.AndroidFallbackURL)
	l.OGTitle = c.text(ValidateOGTitle, in.OGTitle)
	l.OGDescription = c.text(ValidateOGDescription, in.OGDescription)
	l.OGImageURL = c.url(FieldOGImageURL, in.OGImageURL)
	l.Tags = c.tags(in.Tags)
	l.ExpiresAt = c.expiry(in.ExpiresAt, now)
	c.password(in.Password)
	l.UTMSource = c.utm(FieldUTMSource, in.UTMSource)
	l.UTMMedium = c.utm(FieldUTMMedium, in.UTMMedium)
	l.UTMCampaign = c.utm(FieldUTMCampaign, in.UTMCampaign)
	l.MatchWindowHours = c.matchWindow(in.MatchWindowHours)
	l.Parameters = c.parameters(in.Parameters)
	if err := c.err(); err != nil {
		return nil, err
	}

	n, err := s.apps.CountApps(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errcode.New(errcode.AppRequired, "the organization has no app; create an app first")
	}
	var app *App
	if in.AppID != nil {
		if app, err = s.app(ctx, p.OrgID, *in.AppID); err != nil {
			return nil, err
		}
		l.AppID = &app.ID
	}

	domains, err := s.linkDomains(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	din := DomainInput{Domains: domains}
	if in.Domain != nil {
		din.Domain = *in.Domain
	}
	if app != nil {
		din.App = app.Domains()
	}
	choice, err := ChooseDomain(din)
	if err != nil {
		return nil, err
	}
	l.Domain = choice.Domain
	if in.Slug != nil {
		if err := ValidateSlug(*in.Slug, choice.OnAppSubdomain); err != nil {
			return nil, err
		}
	}

	o, err := s.orgs.OrganizationByID(ctx, p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	quota := LinkQuota{Since: org.PeriodStart(o.BillingPeriodStart, now), Max: org.LimitsOf(o.Plan).LinksPerMonth}

	if in.Password != nil {
		h, err := s.hash(*in.Password)
		if err != nil {
			return nil, fmt.Errorf("linking: hashing a link password: %w", err)
		}
		l.PasswordHash = &h
	}
	if l.ID, err = uuid.NewV7(); err != nil {
		return nil, err
	}

	// On the app's subdomain while it has a previous one, the slugs of the
	// links waiting there to move are held (domain rule 8).
	create, previous := s.links.CreateLink, ""
	if app != nil {
		if t, ok := moveTargetOf(app); ok && t.current == l.Domain {
			ms, err := s.moveStore()
			if err != nil {
				return nil, err
			}
			previous = t.previous
			create = func(ctx context.Context, l *Link, quota LinkQuota) error {
				return ms.CreateLinkOnMoveTarget(ctx, l, quota, previous)
			}
		}
		// The domain was chosen from the app as read: the create refuses
		// when its subdomain state changed since (a concurrent rename,
		// period end or default link domain change).
		if as, ok := s.links.(AppLinkStore); ok {
			state := app.LinkState
			create = func(ctx context.Context, l *Link, quota LinkQuota) error {
				return as.CreateAppLink(ctx, l, quota, previous, state)
			}
		}
	}
	// The store announces the new link (link.created) with its short URL.
	insert := create
	create = func(ctx context.Context, l *Link, quota LinkQuota) error {
		return insert(ctx, s.present(l), quota)
	}
	if in.Slug != nil {
		l.Slug = *in.Slug
		err = create(ctx, l, quota)
	} else {
		_, err = GenerateUniqueSlug(s.random, func(slug string) (bool, error) {
			l.Slug = slug
			err := create(ctx, l, quota)
			if errors.Is(err, errcode.ErrConflict) && !errors.Is(err, ErrAppStateChanged) {
				return true, nil
			}
			return false, err
		}, 0)
	}
	switch {
	case err == nil:
		s.invalidate(l) // a cached "not found" for the slug
		return s.present(l), nil
	case errors.Is(err, ErrLinkLimit):
		return nil, errcode.Newf(errcode.LinkLimitExceeded,
			"the %s plan allows %d new links per billing month, and this month's are used", o.Plan, quota.Max)
	case errors.Is(err, ErrAppStateChanged):
		return nil, errcode.New(errcode.AppLinkStateChanged,
			"the app's subdomain or default link domain changed while the link was being created; read the app again and retry")
	case errors.Is(err, ErrSlugHeld):
		return nil, SlugHeldError(l.Slug, l.Domain, HeldBy{Domain: previous, Slug: l.Slug})
	case errors.Is(err, errcode.ErrConflict):
		return nil, SlugTakenError(l.Slug, l.Domain)
	}
	return nil, err
}

// app returns app id of orgID, or 400 INVALID_APP_ID when it is not one.
func (s *LinkService) app(ctx context.Context, orgID, id uuid.UUID) (*App, error) {
	app, err := s.apps.AppByID(ctx, orgID, id)
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, &errcode.Error{Code: errcode.InvalidAppID, Message: "app_id is not an app of this organization",
			Fields: []errcode.FieldError{{Field: FieldAppID, Message: "is not an app of this organization"}}}
	}
	if err != nil {
		return nil, err
	}
	app.FillLinkDomains(s.def)
	return app, nil
}

// linkDomains returns the service's default link domain and orgID's live custom domains.
func (s *LinkService) linkDomains(ctx context.Context, orgID uuid.UUID) (LinkDomains, error) {
	custom, err := s.domains.LiveCustomDomains(ctx, orgID)
	if err != nil {
		return LinkDomains{}, err
	}
	return LinkDomains{Default: s.def, Custom: custom}, nil
}

// ListLinksInput is the query of GET /links. Nil means absent.
type ListLinksInput struct {
	// Limit is 1 to 100 (default 20); Offset 0 or more (default 0).
	Limit, Offset *int
	// Tag keeps links with exactly this tag; 1 to 50 characters.
	Tag *string
	// IsActive keeps active (true) or paused (false) links.
	IsActive *bool
	// Search keeps links whose slug, name, destination_url or a tag contains
	// it, ignoring case; at most 200 characters. Empty searches nothing.
	Search *string
	// Sort orders the page; "" is LinkSortNewest. The dashboard offers it;
	// GET /links has no such parameter and lists newest first.
	Sort LinkSort
}

// LinkSort is the order of a link list.
type LinkSort string

// The orders of a link list; every one ends with the link's id, so that
// pages never overlap.
const (
	// LinkSortNewest lists the newest link first (created_at descending).
	LinkSortNewest LinkSort = "newest"
	// LinkSortOldest lists the oldest link first.
	LinkSortOldest LinkSort = "oldest"
	// LinkSortUpdated lists the link changed last first (updated_at descending).
	LinkSortUpdated LinkSort = "updated"
	// LinkSortSlug lists links by slug, A to Z, then by domain.
	LinkSortSlug LinkSort = "slug"
)

// LinkSorts lists every LinkSort.
var LinkSorts = []LinkSort{LinkSortNewest, LinkSortOldest, LinkSortUpdated, LinkSortSlug}

// LinkPage is one page of GET /links.
type LinkPage struct {
	Data       []Link             `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

// List returns a page of the links of p's organization, newest first. Every
// member reads every link (links.read reaches all).
func (s *LinkService) List(ctx context.Context, p *auth.Principal, in ListLinksInput) (*LinkPage, error) {
	if _, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead); err != nil {
		return nil, err
	}
	f := LinkFilter{OrgID: p.OrgID, IsActive: in.IsActive, Sort: in.Sort}
	var c checker
	if f.Sort == "" {
		f.Sort = LinkSortNewest
	} else if !slices.Contains(LinkSorts, f.Sort) {
		c.fail("sort", "must be newest, oldest, updated or slug")
	}
	limit, offset, err := apitype.PageBounds(in.Limit, in.Offset)
	c.add(err)
	f.Limit, f.Offset = limit, offset
	if in.Tag != nil {
		f.Tag = *in.Tag
		if n := utf8.RuneCountInString(f.Tag); n < 1 || n > MaxTagLength || !utf8.ValidString(f.Tag) {
			c.fail("tag", fmt.Sprintf("must be 1 to %d characters", MaxTagLength))
		}
	}
	if in.Search != nil {
		f.Search = *in.Search
		if utf8.RuneCountInString(f.Search) > MaxSearchLength || !utf8.ValidString(f.Search) {
			c.fail("search", fmt.Sprintf("must be at most %d characters", MaxSearchLength))
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	links, total, err := s.links.ListLinks(ctx, f)
	if err != nil {
		return nil, err
	}
	if links == nil {
		links = []Link{}
	}
	for i := range links {
		s.present(&links[i])
	}
	return &LinkPage{Data: links, Pagination: apitype.NewPagination(total, f.Limit, f.Offset)}, nil
}

// Get returns link id of p's organization with the old URLs that redirect
// to it (its old addresses as short URLs, oldest first). Another
// organization's link is 404.
func (s *LinkService) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*LinkWithRedirects, error) {
	if _, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead); err != nil {
		return nil, err
	}
	l, err := s.byID(ctx, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	old, err := s.links.OldAddresses(ctx, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	redirects := make([]Redirect, len(old))
	for i, a := range old {
		redirects[i] = Redirect{URL: ShortURL(s.base, a.Domain, a.Slug), Since: a.BeganAt}
	}
	return &LinkWithRedirects{Link: *l, RedirectedFrom: redirects}, nil
}

// Lookup returns the links of p's organization among ids, by id, without
// their old addresses: for pages that name many links at once (one
// statement where Get makes two per link). An id that is no link of the
// organization is missing from the map. It needs what Get needs.
func (s *LinkService) Lookup(ctx context.Context, p *auth.Principal, ids []uuid.UUID) (map[uuid.UUID]*Link, error) {
	if _, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]*Link, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	links, err := s.links.LinksByIDs(ctx, p.OrgID, ids)
	if err != nil {
		return nil, err
	}
	for i := range links {
		out[links[i].ID] = s.present(&links[i])
	}
	return out, nil
}

// RecordOldAddress records that link linkID of organization orgID, served
// until now at slug on domain, has moved: from now on that address answers
// visitors with 301 Moved Permanently to the link's current short URL, SDK
// resolves of it return the link (SPEC.md, GET /links/resolve/{slug} rule
// 4), GET /links/{id} lists it in redirected_from, and no new link may take
// it (domain rule 8). It lives as long as the link; deleting the link frees
// it. It returns the redirected_from item, whose Since is now.
//
// It is the step a move of a link (SPEC.md, link move choice) takes for the
// address the link leaves, and it is for embedders that move links in their
// own storage: the caller changes the link's address; RecordOldAddress
// does not change the link. The link itself may still be at the address
// when it is called (a move may record before or after it changes the
// link). It tells LinkServiceOptions.Cache to forget
// the address, so that this process serves it at once; a move must also
// invalidate the link (LinkCache.InvalidateLink) at its new address.
//
// domain is normalized (NormalizeDomain) and slug lowered
// (NormalizeSlugForLookup). Errors: 400 VALIDATION_ERROR for a domain that
// is empty or no host name and a slug that no link could have; 404 NOT_FOUND when the link is
// not in orgID; 409 SLUG_TAKEN (details.slug and details.domain) when
// another link is at the address or it is already an old address.
func (s *LinkService) RecordOldAddress(ctx context.Context, orgID, linkID uuid.UUID, domain, slug string) (*Redirect, error) {
	a := &OldAddress{Domain: NormalizeDomain(domain), Slug: NormalizeSlugForLookup(slug), LinkID: linkID, OrgID: orgID,
		BeganAt: s.now()}
	var c checker
	if a.Domain == "" || len(a.Domain) > MaxDomainLength || strings.ContainsAny(a.Domain, " \t\r\n/?#") {
		c.fail(FieldDomain, fmt.Sprintf("must be a host name of 1 to %d characters", MaxDomainLength))
	}
	if !ValidResolveSlug(a.Slug) {
		c.fail(FieldSlug, "must be 1 to 100 characters of letters, digits and single hyphens between them")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	err := s.links.RecordOldAddress(ctx, a)
	switch {
	case errors.Is(err, errcode.ErrConflict):
		return nil, SlugTakenError(a.Slug, a.Domain)
	case err != nil:
		return nil, errcode.NotFoundAs(err, "link not found")
	}
	s.invalidate(&Link{Domain: a.Domain, Slug: a.Slug})
	return &Redirect{URL: ShortURL(s.base, a.Domain, a.Slug), Since: a.BeganAt}, nil
}

func (s *LinkService) byID(ctx context.Context, orgID, id uuid.UUID) (*Link, error) {
	l, err := s.links.LinkByID(ctx, orgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "link not found")
	}
	return s.present(l), nil
}

// writable returns link id for a change by p: scope links:write and the
// role's links.write, and for a member whose reach is their own links, a
// link their member created (403 FORBIDDEN otherwise). Another
// organization's link is 404.
func (s *LinkService) writable(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Link, error) {
	reach, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite)
	if err != nil {
		return nil, err
	}
	l, err := s.byID(ctx, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	if reach == auth.Own && !p.Owns(l.CreatedBy) {
		return nil, errcode.New(errcode.Forbidden, "the member role may change only links its member created")
	}
	return l, nil
}

// UpdateLinkInput is the body of PATCH /links/{id}. An absent field is left
// unchanged; null clears a field (all but destination_url and is_active
// accept it). Domain and Slug are read only to be refused.
type UpdateLinkInput struct {
	DestinationURL     apitype.Optional[string]            `json:"destination_url"`
	Name               apitype.Optional[string]            `json:"name"`
	IOSURL             apitype.Optional[string]            `json:"ios_url"`
	IOSFallbackURL     apitype.Optional[string]            `json:"ios_fallback_url"`
	AndroidURL         apitype.Optional[string]            `json:"android_url"`
	AndroidFallbackURL apitype.Optional[string]            `json:"android_fallback_url"`
	OGTitle            apitype.Optional[string]            `json:"og_title"`
	OGDescription      apitype.Optional[string]            `json:"og_description"`
	OGImageURL         apitype.Optional[string]            `json:"og_image_url"`
	Tags               apitype.Optional[[]string]          `json:"tags"`
	ExpiresAt          apitype.Optional[time.Time]         `json:"expires_at"`
	Password           apitype.Optional[string]            `json:"password"`
	AppID              apitype.Optional[uuid.UUID]         `json:"app_id"`
	UTMSource          apitype.Optional[string]            `json:"utm_source"`
	UTMMedium          apitype.Optional[string]            `json:"utm_medium"`
	UTMCampaign        apitype.Optional[string]            `json:"utm_campaign"`
	MatchWindowHours   apitype.Optional[int]               `json:"match_window_hours"`
	Parameters         apitype.Optional[params.LinkConfig] `json:"parameters"`
	IsActive           apitype.Optional[bool]              `json:"is_active"`
	// Domain and Slug never change: sending either is 400 IMMUTABLE_FIELD.
	Domain apitype.Optional[json.RawMessage] `json:"domain"`
	Slug   apitype.Optional[json.RawMessage] `json:"slug"`
}

// Update changes link id of p's organization (SPEC.md, PATCH /links/{id}).
// The checks, in order: the role layer (403), domain or slug in the body
// (400 IMMUTABLE_FIELD), the link exists in p's organization (404) and, for a
// member, is theirs (403), every field (400 VALIDATION_ERROR), a new app_id
// is an app of the organization (400 INVALID_APP_ID) whose domains include
// the link's (422 INVALID_DOMAIN). is_active false pauses the link and true
// reactivates it.
func (s *LinkService) Update(ctx context.Context, p *auth.Principal, id uuid.UUID, in UpdateLinkInput) (*Link, error) {
	if _, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite); err != nil {
		return nil, err
	}
	var immutable []errcode.FieldError
	if in.Domain.Set {
		immutable = append(immutable, errcode.FieldError{Field: FieldDomain, Message: "a link's domain never changes"})
	}
	if in.Slug.Set {
		immutable = append(immutable, errcode.FieldError{Field: FieldSlug, Message: "a link's slug cannot be changed here"})
	}
	if len(immutable) > 0 {
		return nil, &errcode.Error{Code: errcode.ImmutableField, Message: "the link's domain and slug cannot be changed", Fields: immutable}
	}
	l, err := s.writable(ctx, p, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	changed := false
	var c checker

	if in.DestinationURL.Set {
		if in.DestinationURL.Null {
			c.fail(FieldDestinationURL, "must not be null")
		} else {
			l.DestinationURL = deref(c.url(FieldDestinationURL, &in.DestinationURL.Value))
		}
		changed = true
	}
	set := func(dst **string, o apitype.Optional[string], check func(*string) *string) {
		if o.Set {
			*dst = check(o.Ptr())
			changed = true
		}
	}
	set(&l.Name, in.Name, func(v *string) *string { return c.text(ValidateName, v) })
	set(&l.IOSURL, in.IOSURL, func(v *string) *string { return c.url(FieldIOSURL, v) })
	set(&l.IOSFallbackURL, in.IOSFallbackURL, func(v *string) *string { return c.url(FieldIOSFallbackURL, v) })
	set(&l.AndroidURL, in.AndroidURL, func(v *string) *string { return c.url(FieldAndroidURL, v) })
	set(&l.AndroidFallbackURL, in.AndroidFallbackURL, func(v *string) *string { return c.url(FieldAndroidFallbackURL, v) })
	set(&l.OGTitle, in.OGTitle, func(v *string) *string { return c.text(ValidateOGTitle, v) })
	set(&l.OGDescription, in.OGDescription, func(v *string) *string { return c.text(ValidateOGDescription, v) })
	set(&l.OGImageURL, in.OGImageURL, func(v *string) *string { return c.url(FieldOGImageURL, v) })
	set(&l.UTMSource, in.UTMSource, func(v *string) *string { return c.utm(FieldUTMSource, v) })
	set(&l.UTMMedium, in.UTMMedium, func(v *string) *string { return c.utm(FieldUTMMedium, v) })
	set(&l.UTMCampaign, in.UTMCampaign, func(v *string) *string { return c.utm(FieldUTMCampaign, v) })
	if in.Tags.Set {
		l.Tags = c.tags(in.Tags.Value)
		changed = true
	}
	if in.ExpiresAt.Set {
		l.ExpiresAt = c.expiry(in.ExpiresAt.Ptr(), now)
		changed = true
	}
	if in.Password.Set {
		c.password(in.Password.Ptr())
		changed = true
	}
	if in.MatchWindowHours.Set {
		l.MatchWindowHours = c.matchWindow(in.MatchWindowHours.Ptr())
		changed = true
	}
	if in.Parameters.Set {
		l.Parameters = c.parameters(in.Parameters.Ptr())
		changed = true
	}
	if in.IsActive.Set {
		if in.IsActive.Null {
			c.fail(FieldIsActive, "must be a boolean")
		}
		l.IsActive = in.IsActive.Value
		changed = true
	}
	if err := c.err(); err != nil {
		return nil, err
	}

	if in.AppID.Set {
		changed = true
		switch {
		case in.AppID.Null:
			l.AppID = nil
		case l.AppID == nil || *l.AppID != in.AppID.Value:
			app, err := s.app(ctx, p.OrgID, in.AppID.Value)
			if err != nil {
				return nil, err
			}
			domains, err := s.linkDomains(ctx, p.OrgID)
			if err != nil {
				return nil, err
			}
			if err := CheckDomainForApp(l.Domain, app.Domains(), domains); err != nil {
				return nil, err
			}
			l.AppID = &app.ID
		}
	}
	if in.Password.Set {
		l.PasswordHash = nil
		if !in.Password.Null {
			h, err := s.hash(in.Password.Value)
			if err != nil {
				return nil, fmt.Errorf("linking: hashing a link password: %w", err)
			}
			l.PasswordHash = &h
		}
	}
	if !changed {
		return l, nil
	}
	l.UpdatedAt = now
	err = s.links.UpdateLink(ctx, l)
	s.invalidate(l)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "link not found")
	}
	return l, nil
}

// invalidate tells the cache that l changed.
func (s *LinkService) invalidate(l *Link) {
	if s.cache != nil {
		s.cache.InvalidateLink(l)
	}
}

// Activate reactivates link id (is_active true) and returns it. Activating an
// active link changes nothing.
func (s *LinkService) Activate(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Link, error) {
	return s.Update(ctx, p, id, UpdateLinkInput{IsActive: apitype.Some(true)})
}

// Deactivate pauses link id (is_active false) and returns it; its data is kept.
func (s *LinkService) Deactivate(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Link, error) {
	return s.Update(ctx, p, id, UpdateLinkInput{IsActive: apitype.Some(false)})
}

// Delete deletes link id of p's organization for good and returns it as it
// was. Its slug is free again on its domain at once; the database deletes its
// click history with it. A deleted link no longer counts toward the month's
// link limit.
func (s *LinkService) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Link, error) {
	l, err := s.writable(ctx, p, id)
	if err != nil {
		return nil, err
	}
	err = s.links.DeleteLink(ctx, p.OrgID, id)
	s.invalidate(l)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "link not found")
	}
	return l, nil
}

// checker collects the field errors of one request, so that a client learns
// of every bad field at once. A coded error other than VALIDATION_ERROR
// (PARAM_CONFIG_TOO_LARGE) wins over field errors.
type checker struct {
	fields []errcode.FieldError
	other  error
}

func (c *checker) fail(field, msg string) {
	c.fields = append(c.fields, errcode.FieldError{Field: field, Message: msg})
}

func (c *checker) add(err error) {
	if err == nil {
		return
	}
	if e, ok := errcode.As(err); ok && e.Code == errcode.ValidationError {
		c.fields = append(c.fields, e.Fields...)
		return
	}
	if c.other == nil {
		c.other = err
	}
}

func (c *checker) err() error {
	if c.other != nil {
		return c.other
	}
	if len(c.fields) > 0 {
		return errcode.Validation(c.fields...)
	}
	return nil
}

// url normalizes an optional URL field; nil stays nil.
func (c *checker) url(field string, v *string) *string {
	if v == nil {
		return nil
	}
	out, err := NormalizeLinkURL(field, *v)
	c.add(err)
	return &out
}

// text checks an optional text field with validate; nil stays nil.
func (c *checker) text(validate func(string) error, v *string) *string {
	if v == nil {
		return nil
	}
	c.add(validate(*v))
	s := *v
	return &s
}

func (c *checker) tags(tags []string) []string {
	out, err := NormalizeTags(tags)
	c.add(err)
	if out == nil {
		out = []string{}
	}
	return out
}

func (c *checker) expiry(at *time.Time, now time.Time) *time.Time {
	if at == nil {
		return nil
	}
	t := at.UTC().Truncate(time.Millisecond)
	if !t.After(now) {
		c.fail(FieldExpiresAt, "must be in the future")
	}
	return &t
}

func (c *checker) password(pw *string) {
	if pw == nil {
		return
	}
	switch n := utf8.RuneCountInString(*pw); {
	case !utf8.ValidString(*pw):
		c.fail(FieldPassword, "must be valid UTF-8")
	case strings.TrimSpace(*pw) == "":
		c.fail(FieldPassword, "must not be empty or blank; send null to remove the password")
	case n < MinLinkPasswordLength:
		c.fail(FieldPassword, fmt.Sprintf("must be at least %d characters", MinLinkPasswordLength))
	case n > MaxLinkPasswordLength:
		c.fail(FieldPassword, fmt.Sprintf("must be at most %d characters", MaxLinkPasswordLength))
	}
}

// utm checks a UTM field. A blank value adds nothing to a redirect (SPEC.md,
// UTM rule 3), so it is stored as null.
func (c *checker) utm(field string, v *string) *string {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil
	}
	switch {
	case !utf8.ValidString(*v):
		c.fail(field, "must be valid UTF-8")
	case utf8.RuneCountInString(*v) > MaxUTMLength:
		c.fail(field, fmt.Sprintf("must be at most %d characters", MaxUTMLength))
	case strings.IndexFunc(*v, unicode.IsControl) >= 0:
		c.fail(field, "must not contain control characters")
	}
	s := *v
	return &s
}

func (c *checker) matchWindow(h *int) *int {
	if h == nil {
		return nil
	}
	if *h < MinMatchWindowHours || *h > MaxMatchWindowHours {
		c.fail(FieldMatchWindowHours, fmt.Sprintf("must be %d to %d hours", MinMatchWindowHours, MaxMatchWindowHours))
	}
	v := *h
	return &v
}

func (c *checker) parameters(cfg *params.LinkConfig) *params.LinkConfig {
	if cfg == nil {
		return nil
	}
	c.add(cfg.Validate())
	// Both lists are required arrays: stored and returned as [], never null.
	out := *cfg
	if out.Injected == nil {
		out.Injected = []params.InjectedParam{}
	}
	if out.SuppressedOrgKeys == nil {
		out.SuppressedOrgKeys = []string{}
	}
	return &out
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
