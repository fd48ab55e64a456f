package linking

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

// AppInput is the body of POST /apps and PATCH /apps/{id} (SPEC.md, Apps).
// On create, name is required and an absent or null optional field is null;
// on update every field is optional, an absent one is left unchanged and null
// clears it (name cannot be cleared). A path or fingerprint list sent as []
// is stored as [] and returned so, apart from null.
type AppInput struct {
	Name                      apitype.Optional[string]   `json:"name"`
	IOSBundleID               apitype.Optional[string]   `json:"ios_bundle_id"`
	IOSTeamID                 apitype.Optional[string]   `json:"ios_team_id"`
	IOSAppStoreID             apitype.Optional[string]   `json:"ios_app_store_id"`
	IOSAppStoreURL            apitype.Optional[string]   `json:"ios_app_store_url"`
	IOSUniversalLinkPaths     apitype.Optional[[]string] `json:"ios_universal_link_paths"`
	AndroidPackageName        apitype.Optional[string]   `json:"android_package_name"`
	AndroidSHA256Fingerprints apitype.Optional[[]string] `json:"android_sha256_fingerprints"`
	AndroidPlayStoreURL       apitype.Optional[string]   `json:"android_play_store_url"`
	AndroidAppLinksPaths      apitype.Optional[[]string] `json:"android_app_links_paths"`
}

// ListAppsInput is the query of GET /apps. Nil means absent.
type ListAppsInput struct {
	// Limit is 1 to 100 (default 20); Offset 0 or more (default 0).
	Limit, Offset *int
	// Search keeps apps whose name, iOS bundle id or Android package name
	// contains it, ignoring case; at most MaxSearchLength characters. Empty
	// keeps every app.
	Search *string
}

// AppPage is one page of GET /apps, oldest first.
type AppPage struct {
	Data       []*App             `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

// handleAttempts is how many suffixed handles Create tries after the plain
// one is taken or unusable.
const handleAttempts = 8

// DetailField is the details key of a DUPLICATE_APP error that names the
// field whose value another app of the organization already has.
const DetailField = "field"

// AppServiceOptions configure an AppService. Every zero value means the
// documented default, except DefaultLinkDomain, which is required.
type AppServiceOptions struct {
	// DefaultLinkDomain is the service's {default_link_domain}, under which
	// every app gets its subdomain; required.
	DefaultLinkDomain string
	// Forget is told of every deleted app's organization, so that the SDK
	// keys tied to the app stop working at once in this process. If nil,
	// nothing is told.
	Forget KeyForgetter
	// OnAppChange is called after every app of organization orgID is
	// created, changed or deleted, and after a failed write too, so that
	// caches of this process (the link-domain Resolver, the attribution
	// matcher's apps) forget what they hold at once. orgID is uuid.Nil when
	// an operator's write (SetLegacy) failed before the organization was
	// known. If nil, nothing is called.
	OnAppChange func(orgID uuid.UUID)
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random draws handle suffixes and must be safe for concurrent use;
	// crypto/rand when nil.
	Random io.Reader
	// CustomDomains lists each organization's live custom domains, which an
	// app may take as its default link domain. If nil, NoCustomDomains.
	CustomDomains CustomDomains
	// ShortURLBase is the LinkService's (LinkServiceOptions.ShortURLBase):
	// it builds the short_url of the links an app's deletion or the end of
	// its rename period changes, which their link.updated events carry. If
	// empty, DefaultShortURLBase.
	ShortURLBase string
	// OnLeftBehind is told when the end of app's rename period left n
	// links without a keep choice on its old subdomain, their slug taken
	// on the new one (the server logs it). If nil, nothing is told.
	OnLeftBehind func(app *App, n int)
}

// AppService manages apps (SPEC.md, Apps) with both authorization layers
// applied: reading needs apps:read (every role), writing apps:write (owners
// and admins). It is safe for concurrent use.
type AppService struct {
	store             AppStore
	orgs              OrgReader
	forget            KeyForgetter
	defaultLinkDomain string
	clock             func() time.Time
	random            io.Reader
	onAppChange       func(orgID uuid.UUID)
	domains           CustomDomains
	onLeftBehind      func(app *App, n int)
	shortURLBase      string
}

// NewAppService returns the apps service over store, reading the
// organizations' plans from orgs.
func NewAppService(store AppStore, orgs OrgReader, opts AppServiceOptions) *AppService {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	if opts.CustomDomains == nil {
		opts.CustomDomains = NoCustomDomains{}
	}
	if opts.ShortURLBase == "" {
		opts.ShortURLBase = DefaultShortURLBase
	}
	return &AppService{
		store: store, orgs: orgs, forget: opts.Forget, defaultLinkDomain: NormalizeDomain(opts.DefaultLinkDomain),
		clock: opts.Clock, random: opts.Random, onAppChange: opts.OnAppChange, domains: opts.CustomDomains,
		onLeftBehind: opts.OnLeftBehind, shortURLBase: opts.ShortURLBase,
	}
}

// changed tells the OnAppChange hook that an app of orgID changed.
func (s *AppService) changed(orgID uuid.UUID) {
	if s.onAppChange != nil {
		s.onAppChange(orgID)
	}
}

func (s *AppService) now() time.Time { return s.clock().UTC().Truncate(time.Millisecond) }

// fill completes a stored app for callers (App.FillLinkDomains).
func (s *AppService) fill(a *App) *App {
	a.FillLinkDomains(s.defaultLinkDomain)
	return a
}

// Create creates an app in p's organization. Its handle is derived from its
// name (HandleBase), with a random suffix when the plain handle is reserved,
// too short or taken by any app of the service; its link_domain is
// {handle}.{default_link_domain} and so is its default_link_domain; it is not
// legacy and has no previous link domain. Errors: VALIDATION_ERROR naming
// every invalid field, 403 APP_LIMIT_EXCEEDED when the organization has as
// many apps as its plan allows, 409 DUPLICATE_APP (details.field) when
// another app of the organization has the bundle id or package name.
func (s *AppService) Create(ctx context.Context, p *auth.Principal, in AppInput) (*App, error) {
	if _, err := p.Authorize(auth.ScopeAppsWrite, auth.ActAppsWrite); err != nil {
		return nil, err
	}
	now := s.now()
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	app := &App{ID: id, OrgID: p.OrgID, CreatedAt: now, UpdatedAt: now}
	if err := applyAppInput(app, in, true); err != nil {
		return nil, err
	}
	o, err := s.orgs.OrganizationByID(ctx, p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	limit := org.LimitsOf(o.Plan).Apps

	base := HandleBase(app.Name)
	for attempt := 0; attempt <= handleAttempts; attempt++ {
		var handle string
		if attempt == 0 {
			if handle = HandleCandidate(base, ""); handle == "" {
				continue
			}
		} else {
			suffix, err := GenerateSlug(s.random)
			if err != nil {
				return nil, err
			}
			handle = HandleCandidate(base, suffix)
		}
		_, err := s.store.AppByHandle(ctx, handle)
		if err == nil {
			continue
		}
		if !errors.Is(err, errcode.ErrNotFound) {
			return nil, err
		}
		if ss, ok := s.store.(AppSubdomainStore); ok {
			// Another app's previous subdomain, a held handle, or a
			// subdomain whose old links still serve is not free either.
			err := ss.HandleInUse(ctx, uuid.Nil, handle, handle+"."+s.defaultLinkDomain, now)
			if errors.Is(err, ErrAppHandleTaken) || errors.Is(err, ErrAppHandleHeld) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		app.Handle = handle
		app.LinkDomain = handle + "." + s.defaultLinkDomain
		app.DefaultLinkDomain = app.LinkDomain
		err = s.store.CreateApp(ctx, app, limit)
		switch {
		case errors.Is(err, ErrAppHandleTaken):
			continue // taken since AppByHandle looked
		case errors.Is(err, ErrAppLimit):
			return nil, errcode.Newf(errcode.AppLimitExceeded,
				"the %s plan allows %d apps; delete an app or upgrade the plan", o.Plan, limit)
		case err != nil:
			return nil, duplicateApp(errcode.NotFoundAs(err, "organization not found"))
		}
		s.changed(p.OrgID) // a cached "no app" for its link domain
		return app, nil
	}
	return nil, fmt.Errorf("linking: no free handle for %q after %d attempts", base, handleAttempts+1)
}

// List returns one page of p's organization's apps, oldest first, matching
// in.Search. Errors: VALIDATION_ERROR naming limit, offset or search.
func (s *AppService) List(ctx context.Context, p *auth.Principal, in ListAppsInput) (*AppPage, error) {
	if _, err := p.Authorize(auth.ScopeAppsRead, auth.ActAppsRead); err != nil {
		return nil, err
	}
	var fields []errcode.FieldError
	limit, offset, err := apitype.PageBounds(in.Limit, in.Offset)
	if e, ok := errcode.As(err); ok {
		fields = append(fields, e.Fields...)
	}
	f := AppFilter{OrgID: p.OrgID, Limit: limit, Offset: offset}
	if in.Search != nil {
		f.Search = *in.Search
		switch {
		case !utf8.ValidString(f.Search):
			fields = append(fields, errcode.FieldError{Field: "search", Message: "must be valid UTF-8"})
		case utf8.RuneCountInString(f.Search) > MaxSearchLength:
			fields = append(fields, errcode.FieldError{Field: "search", Message: fmt.Sprintf("must be at most %d characters", MaxSearchLength)})
		}
	}
	if len(fields) > 0 {
		return nil, errcode.Validation(fields...)
	}
	apps, total, err := s.store.ListApps(ctx, f)
	if err != nil {
		return nil, err
	}
	if apps == nil {
		apps = []*App{}
	}
	for _, a := range apps {
		s.fill(a)
	}
	return &AppPage{Data: apps, Pagination: apitype.NewPagination(total, limit, offset)}, nil
}

// Get returns app id of p's organization, after ending its rename period
// when that has ended (see Subdomain); NOT_FOUND when there is none there.
func (s *AppService) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*App, error) {
	if _, err := p.Authorize(auth.ScopeAppsRead, auth.ActAppsRead); err != nil {
		return nil, err
	}
	a, err := s.store.AppByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	if ss, ok := s.store.(AppSubdomainStore); ok {
		return s.settle(ctx, ss, a) // a rename period that has ended ends now
	}
	return s.fill(a), nil
}

// Update changes the fields in carries of app id of p's organization (see
// AppInput) and returns the app. The handle and the link domains never
// change here, not even with the name. Errors: VALIDATION_ERROR naming every
// invalid field, NOT_FOUND, 409 DUPLICATE_APP as Create.
func (s *AppService) Update(ctx context.Context, p *auth.Principal, id uuid.UUID, in AppInput) (*App, error) {
	if _, err := p.Authorize(auth.ScopeAppsWrite, auth.ActAppsWrite); err != nil {
		return nil, err
	}
	a, err := s.store.AppByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	if err := applyAppInput(a, in, false); err != nil {
		return nil, err
	}
	a.UpdatedAt = s.now()
	err = s.store.UpdateApp(ctx, a)
	s.changed(p.OrgID)
	if err != nil {
		return nil, duplicateApp(errcode.NotFoundAs(err, "app not found"))
	}
	return s.fill(a), nil
}

// Delete deletes app id of p's organization and returns it as it was. The
// database deletes the SDK keys tied to it (they answer 401 from now on) and
// keeps the organization's links, with app_id null (each announced as
// link.updated). NOT_FOUND when there is
// no such app in p's organization.
func (s *AppService) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) (*App, error) {
	if _, err := p.Authorize(auth.ScopeAppsWrite, auth.ActAppsWrite); err != nil {
		return nil, err
	}
	a, err := s.store.DeleteApp(ctx, AppDeletion{OrgID: p.OrgID, ID: id, At: s.now(), ShortURLBase: s.shortURLBase})
	s.changed(p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	if s.forget != nil {
		s.forget.ForgetOrg(p.OrgID)
	}
	return s.fill(a), nil
}

// SetLegacy marks app id, whatever its organization, as legacy (its links
// may also use the service's default link domain, SPEC.md domain rule 3) or
// not, for operators (the CLI), and returns the app. default_link_domain is
// left as it is: a legacy app's new links still default to its subdomain
// unless they name the default link domain, and an app that stops being
// legacy has no default to lose. NOT_FOUND when there is no such app.
func (s *AppService) SetLegacy(ctx context.Context, id uuid.UUID, legacy bool) (*App, error) {
	a, err := s.store.SetAppLegacy(ctx, id, legacy, s.now())
	orgID := uuid.Nil
	if a != nil {
		orgID = a.OrgID
	}
	s.changed(orgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "app not found")
	}
	return s.fill(a), nil
}

// duplicateApp turns a unique-index refusal of an app into 409 DUPLICATE_APP
// naming the field.
func duplicateApp(err error) error {
	field, what := "", ""
	switch {
	case errors.Is(err, ErrAppBundleIDTaken):
		field, what = FieldIOSBundleID, "iOS bundle id"
	case errors.Is(err, ErrAppPackageNameTaken):
		field, what = FieldAndroidPackageName, "Android package name"
	default:
		return err
	}
	e := errcode.Newf(errcode.DuplicateApp, "another app of this organization already has this %s", what).WithDetail(DetailField, field)
	e.Err = err
	return e
}

// applyAppInput validates in and writes it into a: every field on create
// (creating), only the fields in carries on update. It returns a
// VALIDATION_ERROR naming every invalid field, and leaves a partly written
// when it does.
func applyAppInput(a *App, in AppInput, creating bool) error {
	var fields []errcode.FieldError
	collect := func(err error) {
		if e, ok := errcode.As(err); ok {
			fields = append(fields, e.Fields...)
		}
	}
	switch {
	case creating && (!in.Name.Set || in.Name.Null):
		fields = append(fields, errcode.FieldError{Field: FieldAppName, Message: "is required"})
	case in.Name.Set && in.Name.Null:
		fields = append(fields, errcode.FieldError{Field: FieldAppName, Message: "cannot be null"})
	case in.Name.Set:
		if err := ValidateAppName(in.Name.Value); err != nil {
			collect(err)
		} else {
			a.Name = in.Name.Value
		}
	}
	text := func(p apitype.Optional[string], dst **string, check func(string) (string, error)) {
		switch {
		case !p.Set:
		case p.Null:
			*dst = nil
		default:
			v, err := check(p.Value)
			if err != nil {
				collect(err)
				return
			}
			*dst = &v
		}
	}
	plain := func(check func(string) error) func(string) (string, error) {
		return func(v string) (string, error) { return v, check(v) }
	}
	url := func(field string) func(string) (string, error) {
		return func(v string) (string, error) { return NormalizeLinkURL(field, v) }
	}
	list := func(p apitype.Optional[[]string], dst *[]string, norm func([]string) ([]string, error)) {
		switch {
		case !p.Set:
		case p.Null:
			*dst = nil
		default:
			v := p.Value
			if v == nil {
				v = []string{}
			}
			out, err := norm(v)
			if err != nil {
				collect(err)
				return
			}
			*dst = out
		}
	}
	paths := func(field string) func([]string) ([]string, error) {
		return func(v []string) ([]string, error) { return NormalizeAppPaths(field, v) }
	}
	text(in.IOSBundleID, &a.IOSBundleID, plain(ValidateBundleID))
	text(in.IOSTeamID, &a.IOSTeamID, plain(ValidateTeamID))
	text(in.IOSAppStoreID, &a.IOSAppStoreID, plain(ValidateAppStoreID))
	text(in.IOSAppStoreURL, &a.IOSAppStoreURL, url(FieldIOSAppStoreURL))
	list(in.IOSUniversalLinkPaths, &a.IOSUniversalLinkPaths, paths(FieldIOSUniversalLinkPaths))
	text(in.AndroidPackageName, &a.AndroidPackageName, plain(ValidatePackageName))
	list(in.AndroidSHA256Fingerprints, &a.AndroidSHA256Fingerprints, NormalizeFingerprints)
	text(in.AndroidPlayStoreURL, &a.AndroidPlayStoreURL, url(FieldAndroidPlayStoreURL))
	list(in.AndroidAppLinksPaths, &a.AndroidAppLinksPaths, paths(FieldAndroidAppLinksPaths))
	if len(fields) > 0 {
		return errcode.Validation(fields...)
	}
	return nil
}
