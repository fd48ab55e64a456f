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
	// id of orgID, whose domain was chosen from the app as it was at
	// App.LinkState linkState, and returns the app; ErrAppStateChanged when
	// the app's LinkState is no longer linkState; errcode.ErrNotFound when
	// there is no such app in orgID.
	//
	// It raises the app's LinkState.
	SetAppDefaultLinkDomain(ctx context.Context, orgID, id uuid.UUID, domain string, linkState int64, now time.Time) (*App, error)
	// RenameApp carries r out in one transaction and returns the renamed
	// app; see AppRename for the checks and their errors, and
	// errcode.ErrNotFound when the app is not in r.OrgID.
	RenameApp(ctx context.Context, r *AppRename) (*App, error)
	// HandleInUse reports why handle (whose subdomain is domain) may not
	// become the subdomain of app appID: ErrAppHandleTaken when another app
	// has it as its handle, subdomain or previous subdomain, or a link
	// of another app (or of none) is on domain; ErrAppHandleHeld when
	// another app released it and its hold lasts past now; nil when it is
	// free for appID (uuid.Nil for an app not created yet).
	HandleInUse(ctx context.Context, appID uuid.UUID, handle, domain string, now time.Time) error
	// PreviousLinkCounts counts the links of app appID of orgID on previous
	// (its previous subdomain) by what becomes of them on current.
	PreviousLinkCounts(ctx context.Context, orgID, appID uuid.UUID, previous, current string) (PreviousLinks, error)
	// WaitingLinks returns the first limit links, oldest first, of those
	// PreviousLinkCounts counts as waiting: links of app appID of orgID on
	// previous with no keep choice whose slug is taken (or reserved) on
	// current.
	WaitingLinks(ctx context.Context, orgID, appID uuid.UUID, previous, current string, limit int) ([]WaitingLink, error)
	// CountLinksOnDomain returns how many links are on domain.
	CountLinksOnDomain(ctx context.Context, domain string) (int, error)
	// ExtendRename adds by to the end of the open rename period of app id
	// of orgID, counts the extension and raises its LinkState, and returns
	// the app: ErrRenamePeriodNotOpen when the app has no previous
	// subdomain or its period ended by now; ErrRenameExtensionLimit when
	// it has had max extensions; errcode.ErrNotFound when the app is not
	// in orgID.
	ExtendRename(ctx context.Context, orgID, id uuid.UUID, by time.Duration, max int, now time.Time) (*App, error)
	// EndRenamePeriod carries e out in one transaction and returns what it
	// did; nil (and no error) when the app's period is not one that ended
	// by e.At on e.Previous (already ended by another call, extended, or
	// none).
	EndRenamePeriod(ctx context.Context, e *RenameEnd) (*RenameEnded, error)
	// EndedRenamePeriods returns up to limit apps, of any organization,
	// whose rename period ended by now, in the order of (RenameEndsAt, ID)
	// and after the app of after (from the start when after is nil).
	EndedRenamePeriods(ctx context.Context, now time.Time, after *App, limit int) ([]*App, error)
}

// RenameEnd is the end of an app's rename period, as
// AppSubdomainStore.EndRenamePeriod carries it out: every link of the app
// on Previous without a keep choice saved there moves to Current with its
// slug when no link and no old address is there and the slug is not
// reserved on an app subdomain (its old address recorded as MoveLink
// records one, its saved choice dropped); the others stay. The app's
// previous subdomain and period are cleared and its LinkState rises;
// OldHandle is held for the app until HoldUntil.
type RenameEnd struct {
	OrgID, AppID      uuid.UUID
	OldHandle         string
	Previous, Current string
	At, HoldUntil     time.Time
	// ShortURLBase builds the short_url of the moved links' link.updated
	// events.
	ShortURLBase string
}

// RenameEnded is what EndRenamePeriod did.
type RenameEnded struct {
	// Moved are the addresses the moved links left and took.
	Moved []LinkMove
	// LeftBehind is how many links without a keep choice stayed on the
	// previous subdomain because their slug was taken on the app's.
	LeftBehind int
}

// AppLinkStore is a LinkStore that also creates a link of an app under
// the app's subdomain state (issue 17: APP_LINK_STATE_CHANGED). A
// LinkService whose LinkStore implements it (store.Store does) creates
// every link with an app through it.
type AppLinkStore interface {
	// CreateAppLink is LinkStore.CreateLink (or, when previous is not
	// empty, MoveChoiceStore.CreateLinkOnMoveTarget) for a link of app
	// *l.AppID whose domain was chosen from the app as it was at
	// App.LinkState appState: in the same transaction, first, it returns
	// ErrAppStateChanged when the app's LinkState is no longer appState.
	CreateAppLink(ctx context.Context, l *Link, quota LinkQuota, previous string, appState int64) error
}

// AppRename is one rename of an app's subdomain, as
// AppSubdomainStore.RenameApp carries it out. In the transaction, in this
// order: the app's LinkState is still LinkState (else ErrAppStateChanged);
// it has no previous subdomain (else ErrRenamePeriodOpen); Handle is free
// for it as HandleInUse says (ErrAppHandleTaken, ErrAppHandleHeld; a
// unique index refusing the handle is ErrAppHandleTaken too); unless
// Confirm, no link is on FromLinkDomain (else a *ConfirmationError). Then
// the app gets Handle and ToLinkDomain, FromLinkDomain becomes its
// previous subdomain, its default link domain follows when it was
// FromLinkDomain, the period runs from At to EndsAt with no extension,
// its LinkState rises, and the app's own hold of Handle, if any, is
// dropped (the take-back).
type AppRename struct {
	OrgID, AppID                 uuid.UUID
	Handle                       string
	FromLinkDomain, ToLinkDomain string
	Confirm                      bool
	LinkState                    int64
	At, EndsAt                   time.Time
}

// PreviousLinks counts the links on an app's previous subdomain by what
// becomes of them (GET /apps/{id}/subdomain).
type PreviousLinks struct {
	// Moving links have no choice saved and their slug is free on the
	// app's subdomain: they move there with it when the period ends.
	Moving int `json:"moving"`
	// Waiting links have no choice saved and their slug is taken on the
	// app's subdomain: they wait for a move choice.
	Waiting int `json:"waiting"`
	// Kept links chose keep: they stay on the previous subdomain.
	Kept int `json:"kept"`
}

// WaitingLink is a link on an app's previous subdomain that waits for a
// move choice (PreviousLinks.Waiting).
type WaitingLink struct {
	ID   uuid.UUID
	Slug string
}

// Errors of AppSubdomainStore, each wrapping errcode.ErrConflict.
var (
	// ErrAppHandleHeld: another app released the handle within the hold.
	ErrAppHandleHeld = fmt.Errorf("%w: the handle is held for the app that released it", errcode.ErrConflict)
	// ErrRenamePeriodOpen: the app still has a previous subdomain.
	ErrRenamePeriodOpen = fmt.Errorf("%w: a rename period is open", errcode.ErrConflict)
	// ErrRenamePeriodNotOpen: the app has no open rename period.
	ErrRenamePeriodNotOpen = fmt.Errorf("%w: no rename period is open", errcode.ErrConflict)
	// ErrRenameExtensionLimit: the period has had every extension allowed.
	ErrRenameExtensionLimit = fmt.Errorf("%w: the rename period has had every extension", errcode.ErrConflict)
	// ErrAppStateChanged: the app's subdomain state changed since it was read.
	ErrAppStateChanged = fmt.Errorf("%w: the app's subdomain state changed", errcode.ErrConflict)
)

// ConfirmationError is RenameApp's refusal of an unconfirmed rename while
// links use the app's subdomain; it wraps errcode.ErrConflict.
type ConfirmationError struct {
	// Links is how many links are on the app's subdomain.
	Links int
}

func (e *ConfirmationError) Error() string {
	return fmt.Sprintf("%d links use the app's subdomain; the rename needs confirmation", e.Links)
}

// Unwrap makes a ConfirmationError an errcode.ErrConflict.
func (e *ConfirmationError) Unwrap() error { return errcode.ErrConflict }

// Rename rules (issue 17; SPEC.md Limits: the hold and the extensions).
const (
	// RenamePeriod is how long an app's previous subdomain keeps serving
	// after a rename, and what each extension adds.
	RenamePeriod = 30 * 24 * time.Hour
	// MaxRenameExtensions is how many extensions a period may have.
	MaxRenameExtensions = 2
	// HandleHold is how long a released handle is held for the app that
	// released it.
	HandleHold = 7 * 24 * time.Hour
)

// Fields of PUT /apps/{id}/subdomain.
const (
	FieldHandle  = "handle"
	FieldConfirm = "confirm"
)

// DetailAffectedLinks is the details key of CONFIRMATION_REQUIRED: how many
// links use the app's subdomain.
const DetailAffectedLinks = "affected_links"

// RenameInput is the body of PUT /apps/{id}/subdomain.
type RenameInput struct {
	// Handle is required: the app's new handle, with the rules of a
	// handle derived at creation (ValidHandle, not IsReservedHandle).
	Handle *string `json:"handle"`
	// Confirm must be true when links use the app's subdomain.
	Confirm *bool `json:"confirm"`
}

// RenamePeriodState is the open rename period of GET /apps/{id}/subdomain.
type RenamePeriodState struct {
	OpenedAt       time.Time `json:"opened_at"`
	EndsAt         time.Time `json:"ends_at"`
	ExtensionsUsed int       `json:"extensions_used"`
	ExtensionsLeft int       `json:"extensions_left"`
}

// SubdomainState is the body of GET /apps/{id}/subdomain.
type SubdomainState struct {
	AppID              uuid.UUID `json:"app_id"`
	Handle             string    `json:"handle"`
	LinkDomain         string    `json:"link_domain"`
	DefaultLinkDomain  string    `json:"default_link_domain"`
	PreviousLinkDomain *string   `json:"previous_link_domain"`
	// RenamePeriod is nil when no period is open.
	RenamePeriod *RenamePeriodState `json:"rename_period"`
	// PreviousLinks counts the links on the previous subdomain; zero when
	// there is none.
	PreviousLinks PreviousLinks `json:"previous_links"`
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
// 422 INVALID_DOMAIN with details.domain and details.allowed_link_domains,
// 409 APP_LINK_STATE_CHANGED when the app's subdomain state changed (a
// rename, an extension, the end of a period, another default) between the
// check and the write.
//
// A custom domain saved here that later stops being live (unverified,
// suspended, deleted) stays saved: POST /links naming no domain then
// answers 409 DEFAULT_DOMAIN_UNAVAILABLE (rule 9) until the default is set
// again or the domain is live again.
func (s *AppService) SetDefaultLinkDomain(ctx context.Context, p *auth.Principal, id uuid.UUID, in DefaultLinkDomainInput) (*App, error) {
	ss, app, err := s.subdomainApp(ctx, p, id)
	if err != nil {
		return nil, err
	}
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
	a, err := ss.SetAppDefaultLinkDomain(ctx, p.OrgID, id, domain, app.LinkState, s.now())
	s.changed(p.OrgID)
	if err != nil {
		return nil, renameError(err, "")
	}
	return s.fill(a), nil
}

// settle ends app's rename period when it ended by now (the end is
// enforced lazily on every read and write, and by SweepRenamePeriods), and
// returns the app as it is then, filled.
func (s *AppService) settle(ctx context.Context, ss AppSubdomainStore, app *App) (*App, error) {
	s.fill(app)
	now := s.now()
	if app.PreviousLinkDomain == nil || app.RenameEndsAt == nil || now.Before(*app.RenameEndsAt) {
		return app, nil
	}
	previous := NormalizeDomain(*app.PreviousLinkDomain)
	// The period ended at ends_at, whenever this call comes: the hold and
	// the moved links' old addresses start then, so that a late end (no
	// request, no sweep for a while) neither lengthens the hold nor dates
	// the moves after the fact. An extension meanwhile moves ends_at past
	// At, and the store then ends nothing.
	ends := *app.RenameEndsAt
	e := &RenameEnd{OrgID: app.OrgID, AppID: app.ID, Previous: previous, Current: NormalizeDomain(app.LinkDomain),
		At: ends, HoldUntil: ends.Add(HandleHold), ShortURLBase: s.shortURLBase}
	e.OldHandle, _ = strings.CutSuffix(previous, "."+s.defaultLinkDomain)
	ended, err := ss.EndRenamePeriod(ctx, e)
	s.changed(app.OrgID)
	if err != nil {
		return nil, err
	}
	if ended != nil && ended.LeftBehind > 0 && s.onLeftBehind != nil {
		s.onLeftBehind(app, ended.LeftBehind)
	}
	a, err := s.store.AppByID(ctx, app.OrgID, app.ID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	return s.fill(a), nil
}

// SweepRenamePeriods ends every rename period that ended by now, whatever
// its organization, and returns how many apps it settled. Every replica
// runs it periodically, so that a period ends on time even when no request
// reads the app; the store decides between replicas that end one at once.
// It visits each due app once, in the order of its end: an app whose end
// fails is skipped (its error joined to the one returned) and the sweep
// goes on with the next, and one that stays due (its end failed, or it
// came back) is left for the next sweep rather than visited again.
func (s *AppService) SweepRenamePeriods(ctx context.Context) (int, error) {
	ss, err := s.subdomainStore()
	if err != nil {
		return 0, err
	}
	const batch = 100
	now := s.now()
	n := 0
	var errs []error
	var after *App
	for {
		apps, err := ss.EndedRenamePeriods(ctx, now, after, batch)
		if err != nil {
			return n, errors.Join(append(errs, err)...)
		}
		for _, a := range apps {
			after = a
			if _, err := s.settle(ctx, ss, a); err != nil {
				if ctx.Err() != nil {
					return n, errors.Join(append(errs, err)...)
				}
				errs = append(errs, fmt.Errorf("linking: ending the rename period of app %s: %w", a.ID, err))
				continue
			}
			n++
		}
		if len(apps) < batch {
			return n, errors.Join(errs...)
		}
	}
}

// subdomainApp authorizes p for action, finds app id of p's organization
// and settles its rename period.
func (s *AppService) subdomainApp(ctx context.Context, p *auth.Principal, id uuid.UUID) (AppSubdomainStore, *App, error) {
	if _, err := p.Authorize(auth.ScopeAppsWrite, auth.ActAppsWrite); err != nil {
		return nil, nil, err
	}
	ss, err := s.subdomainStore()
	if err != nil {
		return nil, nil, err
	}
	app, err := s.store.AppByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, nil, errcode.NotFoundAs(err, "app not found")
	}
	app, err = s.settle(ctx, ss, app)
	return ss, app, err
}

// Subdomain returns the subdomain state of app id of p's organization
// (GET /apps/{id}/subdomain): its handle and link domains, the open rename
// period, and the counts of the links on its previous subdomain. Scope
// apps:write, owners and admins; 404 NOT_FOUND.
func (s *AppService) Subdomain(ctx context.Context, p *auth.Principal, id uuid.UUID) (*SubdomainState, error) {
	ss, app, err := s.subdomainApp(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return s.state(ctx, ss, app)
}

// state returns the subdomain state of app (settled, filled).
func (s *AppService) state(ctx context.Context, ss AppSubdomainStore, app *App) (*SubdomainState, error) {
	var err error
	st := &SubdomainState{AppID: app.ID, Handle: app.Handle, LinkDomain: app.LinkDomain,
		DefaultLinkDomain: app.DefaultLinkDomain, PreviousLinkDomain: app.PreviousLinkDomain}
	if app.PreviousLinkDomain != nil {
		if app.RenameOpenedAt != nil && app.RenameEndsAt != nil {
			st.RenamePeriod = &RenamePeriodState{OpenedAt: *app.RenameOpenedAt, EndsAt: *app.RenameEndsAt,
				ExtensionsUsed: app.RenameExtensions, ExtensionsLeft: max(0, MaxRenameExtensions-app.RenameExtensions)}
		}
		st.PreviousLinks, err = ss.PreviousLinkCounts(ctx, app.OrgID, app.ID,
			NormalizeDomain(*app.PreviousLinkDomain), NormalizeDomain(app.LinkDomain))
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// AppDetail is an app with the state of its rename (the MCP tool get_app).
type AppDetail struct {
	*App
	// RenamePeriod is the open rename period, nil when none is open.
	RenamePeriod *RenamePeriodState `json:"rename_period"`
	// PreviousLinks counts the links on the previous subdomain.
	PreviousLinks PreviousLinks `json:"previous_links"`
}

// Detail returns app id of p's organization with its rename period and
// the counts of the links on its previous subdomain. It needs what Get
// needs (apps:read, every role): the state shows nothing a member may not
// read. NOT_FOUND when there is no such app in p's organization.
func (s *AppService) Detail(ctx context.Context, p *auth.Principal, id uuid.UUID) (*AppDetail, error) {
	if _, err := p.Authorize(auth.ScopeAppsRead, auth.ActAppsRead); err != nil {
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
	if app, err = s.settle(ctx, ss, app); err != nil {
		return nil, err
	}
	st, err := s.state(ctx, ss, app)
	if err != nil {
		return nil, err
	}
	return &AppDetail{App: app, RenamePeriod: st.RenamePeriod, PreviousLinks: st.PreviousLinks}, nil
}

// MaxWaitingLinks is the most links WaitingLinks returns.
const MaxWaitingLinks = 100

// WaitingLinks returns up to limit (1 to MaxWaitingLinks; out of range is
// MaxWaitingLinks) of the links of app id of p's organization that wait
// for a move choice on its previous subdomain, oldest first: the links
// Detail counts in PreviousLinks.Waiting, each of which PUT
// /links/{id}/move-choice decides. None when no rename period is open. It
// needs what Detail needs and links:read (every role), since it names
// links. NOT_FOUND when there is no such app in p's organization.
func (s *AppService) WaitingLinks(ctx context.Context, p *auth.Principal, id uuid.UUID, limit int) ([]WaitingLink, error) {
	if _, err := p.Authorize(auth.ScopeAppsRead, auth.ActAppsRead); err != nil {
		return nil, err
	}
	if _, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead); err != nil {
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
	if app, err = s.settle(ctx, ss, app); err != nil {
		return nil, err
	}
	if app.PreviousLinkDomain == nil {
		return []WaitingLink{}, nil
	}
	if limit < 1 || limit > MaxWaitingLinks {
		limit = MaxWaitingLinks
	}
	links, err := ss.WaitingLinks(ctx, app.OrgID, app.ID, NormalizeDomain(*app.PreviousLinkDomain), NormalizeDomain(app.LinkDomain), limit)
	if err != nil {
		return nil, err
	}
	if links == nil {
		links = []WaitingLink{}
	}
	return links, nil
}

// Rename gives app id of p's organization a new handle (PUT
// /apps/{id}/subdomain) and returns its subdomain state. Checks, in order:
// 403 FORBIDDEN (apps:write, owners and admins); 404 NOT_FOUND; 403
// ATTRIBUTED_KEY_REQUIRED when the key has no creator (a rename is
// attributed to a person); 400 VALIDATION_ERROR (handle required, a valid
// handle that is not reserved and not the app's own; confirm a boolean);
// 409 RENAME_PERIOD_OPEN while an earlier rename's period is open; 409
// APP_HANDLE_TAKEN; 409 APP_HANDLE_HELD (released by another app within
// HandleHold); 409 CONFIRMATION_REQUIRED with details.affected_links when
// links use the subdomain and confirm is not true; 409
// APP_LINK_STATE_CHANGED when the app's subdomain state changed while the
// rename was being decided.
//
// The old subdomain becomes previous_link_domain for RenamePeriod: it keeps
// serving its links and the association files, and takes no new links
// (domain rule 7); the slugs of its links that would move are held on the
// new subdomain (rule 8).
func (s *AppService) Rename(ctx context.Context, p *auth.Principal, id uuid.UUID, in RenameInput) (*SubdomainState, error) {
	ss, app, err := s.subdomainApp(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if p.CreatedBy == nil {
		return nil, errcode.New(errcode.AttributedKeyRequired,
			"a subdomain rename must be attributable to a person: use a key created by a member of the organization")
	}
	var fields []errcode.FieldError
	switch {
	case in.Handle == nil:
		fields = append(fields, errcode.FieldError{Field: FieldHandle, Message: "is required"})
	case !ValidHandle(*in.Handle):
		fields = append(fields, errcode.FieldError{Field: FieldHandle, Message: fmt.Sprintf(
			"must be %d to %d lowercase letters, digits and single hyphens, starting and ending with a letter or digit",
			MinHandleLength, MaxHandleLength)})
	case IsReservedHandle(*in.Handle):
		fields = append(fields, errcode.FieldError{Field: FieldHandle, Message: "is reserved"})
	case *in.Handle == app.Handle:
		fields = append(fields, errcode.FieldError{Field: FieldHandle, Message: "is the app's handle already"})
	}
	if len(fields) > 0 {
		return nil, errcode.Validation(fields...)
	}
	handle := *in.Handle
	now := s.now()
	r := &AppRename{OrgID: app.OrgID, AppID: app.ID, Handle: handle,
		FromLinkDomain: NormalizeDomain(app.LinkDomain), ToLinkDomain: handle + "." + s.defaultLinkDomain,
		Confirm: in.Confirm != nil && *in.Confirm, LinkState: app.LinkState, At: now, EndsAt: now.Add(RenamePeriod)}
	_, err = ss.RenameApp(ctx, r)
	s.changed(app.OrgID)
	if err != nil {
		return nil, renameError(err, r.ToLinkDomain)
	}
	return s.Subdomain(ctx, p, id)
}

// Extend adds RenamePeriod to the open rename period of app id of p's
// organization (POST /apps/{id}/subdomain/extend), at most
// MaxRenameExtensions times, and returns its subdomain state. Errors: 403
// FORBIDDEN, 404 NOT_FOUND, 409 RENAME_PERIOD_NOT_OPEN, 409
// RENAME_EXTENSION_LIMIT.
func (s *AppService) Extend(ctx context.Context, p *auth.Principal, id uuid.UUID) (*SubdomainState, error) {
	ss, app, err := s.subdomainApp(ctx, p, id)
	if err != nil {
		return nil, err
	}
	_, err = ss.ExtendRename(ctx, app.OrgID, app.ID, RenamePeriod, MaxRenameExtensions, s.now())
	s.changed(app.OrgID)
	if err != nil {
		return nil, renameError(err, "")
	}
	return s.Subdomain(ctx, p, id)
}

// renameError maps the errors of an AppSubdomainStore to SPEC.md's codes.
func renameError(err error, domain string) error {
	var ce *ConfirmationError
	switch {
	case errors.As(err, &ce):
		return errcode.Newf(errcode.ConfirmationRequired,
			"%d links use the app's subdomain; send confirm: true to rename it (they keep working during the rename period)", ce.Links).
			WithDetail(DetailAffectedLinks, ce.Links)
	case errors.Is(err, ErrAppStateChanged):
		return errcode.New(errcode.AppLinkStateChanged, "the app's subdomain changed meanwhile; read it again and retry")
	case errors.Is(err, ErrRenamePeriodOpen):
		return errcode.New(errcode.RenamePeriodOpen,
			"the previous subdomain of an earlier rename is still active; rename again when its period has ended")
	case errors.Is(err, ErrRenamePeriodNotOpen):
		return errcode.New(errcode.RenamePeriodNotOpen, "the app has no open rename period")
	case errors.Is(err, ErrRenameExtensionLimit):
		return errcode.Newf(errcode.RenameExtensionLimit, "the rename period has had its %d extensions", MaxRenameExtensions)
	case errors.Is(err, ErrAppHandleHeld):
		return errcode.Newf(errcode.AppHandleHeld,
			"the subdomain %s was released by another app less than %d days ago; only that app may take it back", domain, int(HandleHold.Hours()/24)).
			WithDetail(DetailDomain, domain)
	case errors.Is(err, ErrAppHandleTaken):
		return errcode.Newf(errcode.AppHandleTaken, "the subdomain %s belongs to another app", domain).WithDetail(DetailDomain, domain)
	}
	return errcode.NotFoundAs(err, "app not found")
}
