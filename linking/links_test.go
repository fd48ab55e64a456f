package linking_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

const linkDefaultDomain = "hop.example"

// liveDomains is a CustomDomains that gives every organization the same list.
type liveDomains []string

func (d liveDomains) LiveCustomDomains(context.Context, uuid.UUID) ([]string, error) { return d, nil }

// linkFixture is a LinkService over a real store, an organization on the
// Free plan whose billing month starts on January 31, and an app in it.
type linkFixture struct {
	s     *store.Store
	svc   *linking.LinkService
	clock *testkit.Clock
	org   *org.Organization
	app   *linking.App
	// owner is a key without a creator, with every scope.
	owner *auth.Principal
}

var billingAnchor = time.Date(2030, 1, 31, 9, 0, 0, 0, time.UTC)

func fastHash(pw string) (string, error) { return "test-hash:" + pw, nil }

func newLinkFixture(t testing.TB, s *store.Store, opts ...func(*linking.LinkServiceOptions)) *linkFixture {
	t.Helper()
	f := &linkFixture{s: s, clock: testkit.NewClock(billingAnchor.Add(10 * 24 * time.Hour))}
	o := linkOrg(t, s, "acme")
	f.org = o
	f.app = f.newApp(t, o.ID, nil)
	lo := linking.LinkServiceOptions{
		DefaultLinkDomain: linkDefaultDomain,
		ShortURLBase:      "https://{domain}",
		Clock:             f.clock.Now,
		HashPassword:      fastHash,
	}
	for _, opt := range opts {
		opt(&lo)
	}
	f.svc = linking.NewLinkService(s, s, s, lo)
	f.owner = testkit.Principal(o.ID, auth.RequestableScopes...)
	return f
}

func linkOrg(t testing.TB, s *store.Store, slug string) *org.Organization {
	t.Helper()
	o := &org.Organization{
		ID: uuid.Must(uuid.NewV7()), Name: slug, Slug: slug, Plan: org.PlanFree, MonthlyClickLimit: 10_000,
		BillingPeriodStart: billingAnchor, CreatedAt: billingAnchor, UpdatedAt: billingAnchor,
	}
	require.NoError(t, s.CreateOrganization(t.Context(), o, nil))
	return o
}

// newApp creates an app of orgID on its subdomain {handle}.hop.example.
func (f *linkFixture) newApp(t testing.TB, orgID uuid.UUID, change func(*linking.App)) *linking.App {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	handle := "app" + strings.ReplaceAll(id.String(), "-", "")[20:]
	a := &linking.App{
		ID: id, OrgID: orgID, Name: "App", Handle: handle,
		LinkDomain: handle + "." + linkDefaultDomain, DefaultLinkDomain: handle + "." + linkDefaultDomain,
		CreatedAt: billingAnchor, UpdatedAt: billingAnchor,
	}
	if change != nil {
		change(a)
	}
	require.NoError(t, f.s.CreateApp(t.Context(), a, 1000))
	return a
}

func member(orgID uuid.UUID, role auth.Role) *auth.Principal {
	return testkit.MemberPrincipal(orgID, uuid.Must(uuid.NewV7()), role, auth.ScopeLinksRead, auth.ScopeLinksWrite)
}

func sp(s string) *string { return &s }

func TestCreateLinkWithTheFewestFields(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	l, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "HTTPS://Shop.Example"})
	require.NoError(t, err)

	assert.Equal(t, "https://shop.example/", l.DestinationURL, "normalized: a bare origin gets a trailing slash")
	assert.Len(t, l.Slug, linking.GeneratedSlugLength, "a generated slug")
	assert.NoError(t, linking.ValidateSlug(l.Slug, true))
	assert.Equal(t, linkDefaultDomain, l.Domain, "a link with no app takes the default link domain")
	assert.Equal(t, "https://"+linkDefaultDomain+"/"+l.Slug, l.ShortURL)
	assert.True(t, l.IsActive)
	assert.Equal(t, []string{}, l.Tags)
	assert.Nil(t, l.Name)
	assert.Nil(t, l.AppID)
	assert.Nil(t, l.CreatedBy, "a key without a creator creates links without one")
	assert.Equal(t, f.clock.Now(), l.CreatedAt)

	got, err := f.svc.Get(t.Context(), f.owner, l.ID)
	require.NoError(t, err)
	assert.Equal(t, *l, got.Link)
	assert.Equal(t, []linking.Redirect{}, got.RedirectedFrom)
}

func TestCreateLinkRecordsTheCreator(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	m := member(f.org.ID, auth.RoleMember)
	l, err := f.svc.Create(t.Context(), m, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)
	assert.Equal(t, m.CreatedBy, l.CreatedBy)
}

// TestCreateLinkDomainRules proves SPEC.md's domain rules of POST /links
// through the service.
func TestCreateLinkDomainRules(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t), func(o *linking.LinkServiceOptions) {
		o.CustomDomains = liveDomains{"go.acme.example"}
	})
	legacy := f.newApp(t, f.org.ID, func(a *linking.App) { a.LegacyApexEnabled = true })
	renamed := f.newApp(t, f.org.ID, func(a *linking.App) { a.PreviousLinkDomain = sp("old." + linkDefaultDomain) })
	onCustom := f.newApp(t, f.org.ID, func(a *linking.App) { a.DefaultLinkDomain = "go.acme.example" })
	lost := f.newApp(t, f.org.ID, func(a *linking.App) { a.DefaultLinkDomain = "gone.acme.example" })

	tests := []struct {
		name       string
		app        *linking.App
		domain     string
		slug       string
		wantDomain string
		wantCode   errcode.Code
	}{
		{"rule 1: a link with an app takes the app's default link domain", f.app, "", "", f.app.LinkDomain, ""},
		{"rule 1: an app's default may be a custom domain", onCustom, "", "", "go.acme.example", ""},
		{"rule 2: a link with no app takes the default link domain", nil, "", "", linkDefaultDomain, ""},
		{"rule 2: a link with no app may use a live custom domain", nil, "go.acme.example", "", "go.acme.example", ""},
		{"rule 2: a link with no app may not use an app subdomain", nil, f.app.LinkDomain, "", "", errcode.InvalidDomain},
		{"rule 3: a legacy app may use the default link domain", legacy, linkDefaultDomain, "", linkDefaultDomain, ""},
		{"rule 3: a legacy app may use its subdomain", legacy, legacy.LinkDomain, "", legacy.LinkDomain, ""},
		{"rule 3: a legacy app may use a live custom domain", legacy, "go.acme.example", "", "go.acme.example", ""},
		{"rule 4: a new app may not use the default link domain", f.app, linkDefaultDomain, "", "", errcode.InvalidDomain},
		{"rule 4: a new app may use a live custom domain", f.app, "Go.Acme.Example.", "", "go.acme.example", ""},
		{"rule 4: a domain that is not live is refused", f.app, "other.example", "", "", errcode.InvalidDomain},
		{"rule 4: another app's subdomain is refused", f.app, legacy.LinkDomain, "", "", errcode.InvalidDomain},
		{"rule 5: an explicit domain is kept", f.app, f.app.LinkDomain, "", f.app.LinkDomain, ""},
		{"rule 6: test is reserved on an app subdomain", f.app, "", "test", "", errcode.ValidationError},
		{"rule 6: test is free on the default link domain", nil, "", "test", linkDefaultDomain, ""},
		{"rule 6: test is free on a custom domain", f.app, "go.acme.example", "test", "go.acme.example", ""},
		{"rule 7: the previous subdomain takes no new links", renamed, "old." + linkDefaultDomain, "", "", errcode.InvalidDomain},
		{"rule 9: a saved default that is no longer live", lost, "", "", "", errcode.DefaultDomainUnavailable},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := linking.CreateLinkInput{DestinationURL: "https://example.com"}
			if tt.app != nil {
				in.AppID = &tt.app.ID
			}
			if tt.domain != "" {
				in.Domain = &tt.domain
			}
			slug := tt.slug
			if slug == "" {
				slug = fmt.Sprintf("rule-%d", i)
			}
			in.Slug = &slug
			l, err := f.svc.Create(t.Context(), f.owner, in)
			if tt.wantCode != "" {
				e := requireCode(t, err, tt.wantCode)
				if tt.wantCode == errcode.InvalidDomain || tt.wantCode == errcode.DefaultDomainUnavailable {
					assert.Contains(t, e.Details, linking.DetailAllowedLinkDomains)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantDomain, l.Domain)
			assert.Equal(t, "https://"+tt.wantDomain+"/"+slug, l.ShortURL)
		})
	}
}

func TestCreateLinkNeedsAnApp(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	f := newLinkFixture(t, s)
	empty := linkOrg(t, s, "empty")
	p := testkit.Principal(empty.ID, auth.RequestableScopes...)
	_, err := f.svc.Create(t.Context(), p, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	requireCode(t, err, errcode.AppRequired)

	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", AppID: ptrTo(uuid.Must(uuid.NewV7()))})
	requireCode(t, err, errcode.InvalidAppID)
	other := f.newApp(t, empty.ID, nil)
	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", AppID: &other.ID})
	e := requireCode(t, err, errcode.InvalidAppID)
	assert.Equal(t, []errcode.FieldError{{Field: "app_id", Message: "is not an app of this organization"}}, e.Fields)
}

func ptrTo[T any](v T) *T { return &v }

// TestLinkLimitFollowsTheBillingMonth proves the monthly link limit: the
// Free plan's 100 links a billing month, counted from the organization's
// billing_period_start, with deleted links no longer counting.
func TestLinkLimitFollowsTheBillingMonth(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	limit := org.LimitsOf(org.PlanFree).LinksPerMonth
	// February 10: the billing month began on January 31.
	var first *linking.Link
	for i := range limit {
		l, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
		require.NoError(t, err, "link %d", i)
		if first == nil {
			first = l
		}
	}
	_, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	requireCode(t, err, errcode.LinkLimitExceeded)

	_, err = f.svc.Delete(ctx, f.owner, first.ID)
	require.NoError(t, err)
	_, err = f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err, "a deleted link no longer counts")
	_, err = f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	requireCode(t, err, errcode.LinkLimitExceeded)

	f.clock.Set(time.Date(2030, 2, 28, 8, 59, 0, 0, time.UTC))
	_, err = f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	requireCode(t, err, errcode.LinkLimitExceeded)
	f.clock.Set(time.Date(2030, 2, 28, 9, 0, 0, 0, time.UTC))
	_, err = f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err, "a new billing month began on February 28, the last day of a short month")
}

// zeroThenOne is a source that yields seven zero bytes ("aaaaaaa") and then
// seven one bytes ("bbbbbbb").
func zeroThenOne() *bytes.Reader {
	return bytes.NewReader(append(make([]byte, 7), bytes.Repeat([]byte{1}, 7)...))
}

func TestGeneratedSlugIsGeneratedAgainOnCollision(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	random := zeroThenOne()
	f := newLinkFixture(t, s, func(o *linking.LinkServiceOptions) { o.Random = random })
	_, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("aaaaaaa")})
	require.NoError(t, err)

	l, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)
	assert.Equal(t, "bbbbbbb", l.Slug, "aaaaaaa was taken, so a second slug was generated")

	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	assert.Error(t, err, "the source is spent")
	assert.Equal(t, errcode.InternalError, errcode.CodeOf(err), "not the client's fault")
}

func TestGeneratedSlugsRunningOutIsAnInternalError(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	f := newLinkFixture(t, s, func(o *linking.LinkServiceOptions) { o.Random = bytes.NewReader(make([]byte, 7*10)) })
	_, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("aaaaaaa")})
	require.NoError(t, err)
	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	assert.True(t, errors.Is(err, linking.ErrNoFreeSlug), "%v", err)
	assert.Equal(t, errcode.InternalError, errcode.CodeOf(err))
}

func TestSlugTakenNamesSlugAndDomain(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	in := linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring"), AppID: &f.app.ID}
	_, err := f.svc.Create(t.Context(), f.owner, in)
	require.NoError(t, err)
	_, err = f.svc.Create(t.Context(), f.owner, in)
	e := requireCode(t, err, errcode.SlugTaken)
	assert.Equal(t, map[string]any{"slug": "spring", "domain": f.app.LinkDomain}, e.Details)

	in.AppID = nil
	_, err = f.svc.Create(t.Context(), f.owner, in)
	require.NoError(t, err, "the same slug on another domain")
}

func TestCreateLinkValidatesEveryField(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	past := f.clock.Now().Add(-time.Second)
	in := linking.CreateLinkInput{
		DestinationURL:     "ftp://example.com",
		Slug:               sp("Bad"),
		Name:               sp(" "),
		Domain:             sp(""),
		IOSURL:             sp("javascript:alert(1)"),
		IOSFallbackURL:     sp("myapp://x"),
		AndroidURL:         sp("data:text/plain,x"),
		AndroidFallbackURL: sp("/relative"),
		OGTitle:            sp(strings.Repeat("t", 256)),
		OGDescription:      sp(""),
		OGImageURL:         sp("not a url"),
		Tags:               []string{"ok", ""},
		ExpiresAt:          &past,
		Password:           sp("abc"),
		UTMSource:          sp(strings.Repeat("u", 256)),
		UTMMedium:          sp("a\tb"),
		MatchWindowHours:   ptrTo(0),
		Parameters:         &params.LinkConfig{Injected: []params.InjectedParam{{Key: "", Value: "x"}}},
	}
	_, err := f.svc.Create(t.Context(), f.owner, in)
	e := requireCode(t, err, errcode.ValidationError)
	var names []string
	for _, fe := range e.Fields {
		names = append(names, fe.Field)
	}
	assert.ElementsMatch(t, []string{
		"destination_url", "slug", "name", "domain", "ios_url", "ios_fallback_url", "android_url",
		"android_fallback_url", "og_title", "og_description", "og_image_url", "tags[1]", "expires_at",
		"password", "utm_source", "utm_medium", "match_window_hours", "parameters.injected[0].key",
	}, names)

	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{})
	e = requireCode(t, err, errcode.ValidationError)
	assert.Equal(t, []errcode.FieldError{{Field: "destination_url", Message: "is required"}}, e.Fields)

	many := make([]params.InjectedParam, params.MaxInjected+1)
	for i := range many {
		many[i] = params.InjectedParam{Key: fmt.Sprintf("k%d", i), Value: "v"}
	}
	_, err = f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "x", Parameters: &params.LinkConfig{Injected: many}})
	requireCode(t, err, errcode.ParamConfigTooLarge)
}

func TestCreateLinkKeepsOptionalFields(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	expires := f.clock.Now().Add(time.Hour)
	cfg := &params.LinkConfig{Injected: []params.InjectedParam{{Key: "ref", Value: "x", Mode: params.ModeAlways}}, InheritOrgInjected: true, SuppressedOrgKeys: []string{}}
	l, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{
		DestinationURL:   "https://example.com/a?b=c",
		Name:             sp("Spring"),
		IOSURL:           sp("myapp://open"),
		Tags:             []string{" a ", "b", "a"},
		ExpiresAt:        &expires,
		Password:         sp("12345678"),
		UTMSource:        sp("newsletter"),
		UTMMedium:        sp("   "),
		UTMCampaign:      sp(""),
		Parameters:       cfg,
		AppID:            &f.app.ID,
		MatchWindowHours: ptrTo(72),
	})
	require.NoError(t, err)
	got, err := f.svc.Get(t.Context(), f.owner, l.ID)
	require.NoError(t, err)
	assert.Equal(t, "Spring", *got.Name)
	assert.Equal(t, "myapp://open", *got.IOSURL)
	assert.Equal(t, []string{"a", "b"}, got.Tags, "trimmed, duplicates dropped")
	assert.Equal(t, expires, *got.ExpiresAt)
	require.NotNil(t, got.PasswordHash)
	assert.Equal(t, "test-hash:12345678", *got.PasswordHash, "the password is stored hashed")
	assert.Equal(t, "newsletter", *got.UTMSource)
	assert.Nil(t, got.UTMMedium, "a blank UTM field adds nothing and is stored as null")
	assert.Nil(t, got.UTMCampaign)
	assert.Equal(t, cfg, got.Parameters)
	assert.Equal(t, 72, *got.MatchWindowHours)
	assert.Equal(t, f.app.ID, *got.AppID)
}

func TestLinkPasswordLength(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	created, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)
	tests := []struct {
		name     string
		password string
		message  string // empty: accepted
	}{
		{"seven characters are too short", "1234567", "must be at least 8 characters"},
		{"a four-digit code is too short", "1234", "must be at least 8 characters"},
		{"eight characters are enough", "12345678", ""},
		{"characters are counted, not bytes", "ééééééé", "must be at least 8 characters"},
		{"eight multi-byte characters are enough", "éééééééé", ""},
		{"200 characters are allowed", strings.Repeat("p", 200), ""},
		{"201 characters are too long", strings.Repeat("p", 201), "must be at most 200 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, createErr := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Password: sp(tt.password)})
			_, updateErr := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{Password: apitype.Some(tt.password)})
			for op, err := range map[string]error{"create": createErr, "update": updateErr} {
				if tt.message == "" {
					assert.NoError(t, err, op)
					continue
				}
				e := requireCode(t, err, errcode.ValidationError)
				assert.Equal(t, []errcode.FieldError{{Field: "password", Message: tt.message}}, e.Fields, op)
			}
		})
	}
}

func TestUpdateLink(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	created, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{
		DestinationURL: "https://example.com", Name: sp("Spring"), Password: sp("12345678"), Tags: []string{"a"},
		UTMSource: sp("news"), AppID: &f.app.ID,
		Parameters: &params.LinkConfig{Injected: []params.InjectedParam{}},
	})
	require.NoError(t, err)
	later := f.clock.Now().Add(time.Minute)
	f.clock.Set(later)

	t.Run("an empty body changes nothing", func(t *testing.T) {
		l, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{})
		require.NoError(t, err)
		assert.Equal(t, created, l)
	})
	t.Run("absent fields are unchanged, null clears, values replace", func(t *testing.T) {
		l, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{
			Name:        apitype.Null[string](),
			Password:    apitype.Null[string](),
			Parameters:  apitype.Null[params.LinkConfig](),
			UTMSource:   apitype.Null[string](),
			Tags:        apitype.Null[[]string](),
			AppID:       apitype.Null[uuid.UUID](),
			OGTitle:     apitype.Some("Preview"),
			IsActive:    apitype.Some(false),
			UTMCampaign: apitype.Some("spring"),
		})
		require.NoError(t, err)
		assert.Nil(t, l.Name, "null shows the slug again")
		assert.Nil(t, l.PasswordHash, "null removes the password")
		assert.Nil(t, l.Parameters, "null inherits the organization's defaults")
		assert.Nil(t, l.UTMSource)
		assert.Nil(t, l.AppID)
		assert.Equal(t, []string{}, l.Tags)
		assert.Equal(t, "Preview", *l.OGTitle)
		assert.Equal(t, "spring", *l.UTMCampaign)
		assert.False(t, l.IsActive)
		assert.Equal(t, created.DestinationURL, l.DestinationURL, "unchanged")
		assert.Equal(t, created.Domain, l.Domain, "a link with no app keeps its domain")
		assert.Equal(t, later, l.UpdatedAt)
		assert.Equal(t, created.CreatedAt, l.CreatedAt)

		got, err := f.svc.Get(ctx, f.owner, created.ID)
		require.NoError(t, err)
		assert.Equal(t, *l, got.Link)
	})
	t.Run("a new password is hashed", func(t *testing.T) {
		l, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{Password: apitype.Some("new secret")})
		require.NoError(t, err)
		assert.Equal(t, "test-hash:new secret", *l.PasswordHash)
	})
	t.Run("domain and slug are immutable", func(t *testing.T) {
		_, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{Slug: apitype.Some(json.RawMessage(`"x"`))})
		requireCode(t, err, errcode.ImmutableField)
	})
	t.Run("destination_url and is_active cannot be null", func(t *testing.T) {
		_, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{
			DestinationURL: apitype.Null[string](), IsActive: apitype.Null[bool]()})
		e := requireCode(t, err, errcode.ValidationError)
		assert.Len(t, e.Fields, 2)
	})
	t.Run("a new app must use the link's domain", func(t *testing.T) {
		other := f.newApp(t, f.org.ID, nil)
		_, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{AppID: apitype.Some(other.ID)})
		requireCode(t, err, errcode.InvalidDomain)
		l, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{AppID: apitype.Some(f.app.ID)})
		require.NoError(t, err, "the link lives on this app's subdomain")
		assert.Equal(t, f.app.ID, *l.AppID)
	})
	t.Run("an app of another organization", func(t *testing.T) {
		o := linkOrg(t, f.s, "someone-else")
		theirs := f.newApp(t, o.ID, nil)
		_, err := f.svc.Update(ctx, f.owner, created.ID, linking.UpdateLinkInput{AppID: apitype.Some(theirs.ID)})
		requireCode(t, err, errcode.InvalidAppID)
	})
	t.Run("activate and deactivate", func(t *testing.T) {
		l, err := f.svc.Deactivate(ctx, f.owner, created.ID)
		require.NoError(t, err)
		assert.False(t, l.IsActive)
		l, err = f.svc.Activate(ctx, f.owner, created.ID)
		require.NoError(t, err)
		assert.True(t, l.IsActive)
	})
	t.Run("another organization's link is not found", func(t *testing.T) {
		o := linkOrg(t, f.s, "stranger")
		p := testkit.Principal(o.ID, auth.RequestableScopes...)
		_, err := f.svc.Update(ctx, p, created.ID, linking.UpdateLinkInput{Name: apitype.Some("x")})
		requireCode(t, err, errcode.NotFound)
		_, err = f.svc.Get(ctx, p, created.ID)
		requireCode(t, err, errcode.NotFound)
		_, err = f.svc.Delete(ctx, p, created.ID)
		requireCode(t, err, errcode.NotFound)
	})
}

// TestMembersChangeOnlyTheirOwnLinks proves the role matrix: links.read and
// links.create reach all for members, links.write only their own links.
func TestMembersChangeOnlyTheirOwnLinks(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	alice, bob := member(f.org.ID, auth.RoleMember), member(f.org.ID, auth.RoleMember)
	admin := member(f.org.ID, auth.RoleAdmin)
	mine, err := f.svc.Create(ctx, alice, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)
	byOwnerKey, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)

	for _, id := range []uuid.UUID{mine.ID, byOwnerKey.ID} {
		_, err = f.svc.Update(ctx, bob, id, linking.UpdateLinkInput{Name: apitype.Some("x")})
		requireCode(t, err, errcode.Forbidden)
		_, err = f.svc.Deactivate(ctx, bob, id)
		requireCode(t, err, errcode.Forbidden)
		_, err = f.svc.Delete(ctx, bob, id)
		requireCode(t, err, errcode.Forbidden)
		_, err = f.svc.Get(ctx, bob, id)
		require.NoError(t, err, "members read every link")
	}
	page, err := f.svc.List(ctx, bob, linking.ListLinksInput{})
	require.NoError(t, err)
	assert.Len(t, page.Data, 2, "members list every link")

	_, err = f.svc.Update(ctx, alice, mine.ID, linking.UpdateLinkInput{Name: apitype.Some("mine")})
	require.NoError(t, err)
	_, err = f.svc.Update(ctx, admin, mine.ID, linking.UpdateLinkInput{Name: apitype.Some("admin")})
	require.NoError(t, err, "admins change every link")
	_, err = f.svc.Delete(ctx, alice, mine.ID)
	require.NoError(t, err)

	left := member(f.org.ID, "")
	_, err = f.svc.List(ctx, left, linking.ListLinksInput{})
	requireCode(t, err, errcode.Forbidden)
	readOnly := testkit.Principal(f.org.ID, auth.ScopeLinksRead)
	_, err = f.svc.Create(ctx, readOnly, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	requireCode(t, err, errcode.Forbidden)
}

func TestListLinksInput(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	for i := range 3 {
		_, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp(fmt.Sprintf("l%d", i))})
		require.NoError(t, err)
	}
	page, err := f.svc.List(ctx, f.owner, linking.ListLinksInput{})
	require.NoError(t, err)
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 20, Offset: 0, HasMore: false}, page.Pagination)
	assert.Equal(t, "l2", page.Data[0].Slug, "newest first")
	assert.NotEmpty(t, page.Data[0].ShortURL)

	page, err = f.svc.List(ctx, f.owner, linking.ListLinksInput{Limit: ptrTo(2), Offset: ptrTo(0)})
	require.NoError(t, err)
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 2, Offset: 0, HasMore: true}, page.Pagination)

	page, err = f.svc.List(ctx, f.owner, linking.ListLinksInput{Sort: linking.LinkSortSlug, Limit: ptrTo(2), Offset: ptrTo(1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"l1", "l2"}, []string{page.Data[0].Slug, page.Data[1].Slug}, "the sort the caller chose")

	_, err = f.svc.List(ctx, f.owner, linking.ListLinksInput{Limit: ptrTo(0), Offset: ptrTo(-1), Tag: sp(""), Search: sp(strings.Repeat("s", 201)),
		Sort: "clicks"})
	e := requireCode(t, err, errcode.ValidationError)
	var names []string
	for _, fe := range e.Fields {
		names = append(names, fe.Field)
	}
	assert.ElementsMatch(t, []string{"limit", "offset", "tag", "search", "sort"}, names)
}

// Lookup reads many links of the principal's organization at once, as Get
// presents each (the short URL, tags never nil), and needs what Get needs.
func TestLinkLookup(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newLinkFixture(t, s)
		ctx := t.Context()
		a, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com/a"})
		require.NoError(t, err)
		b, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com/b"})
		require.NoError(t, err)

		got, err := f.svc.Lookup(ctx, f.owner, []uuid.UUID{a.ID, b.ID, uuid.New()})
		require.NoError(t, err)
		require.Len(t, got, 2, "an id of no link is missing")
		for _, want := range []*linking.Link{a, b} {
			one, err := f.svc.Get(ctx, f.owner, want.ID)
			require.NoError(t, err)
			assert.Equal(t, &one.Link, got[want.ID])
		}

		stranger := testkit.Principal(linkOrg(t, s, "stranger").ID, auth.RequestableScopes...)
		got, err = f.svc.Lookup(ctx, stranger, []uuid.UUID{a.ID})
		require.NoError(t, err)
		assert.Empty(t, got, "another organization's links are missing")

		_, err = f.svc.Lookup(ctx, testkit.Principal(f.org.ID, auth.ScopeAnalyticsRead), []uuid.UUID{a.ID})
		requireCode(t, err, errcode.Forbidden)
	})
}
