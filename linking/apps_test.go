package linking_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
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
)

// appStore is an in-memory linking.AppStore and linking.OrgReader with the
// sameString unique rules as the database.
type appStore struct {
	mu   sync.Mutex
	apps []*linking.App
	orgs map[uuid.UUID]*org.Organization
	// fail, when set, is returned by every method.
	fail error
}

func newAppStore() *appStore { return &appStore{orgs: map[uuid.UUID]*org.Organization{}} }

func (s *appStore) addOrg(plan org.Plan) uuid.UUID {
	id := uuid.Must(uuid.NewV7())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orgs[id] = &org.Organization{ID: id, Name: "Org", Plan: plan}
	return id
}

func cloneApp(a *linking.App) *linking.App {
	b, _ := json.Marshal(a)
	var c linking.App
	_ = json.Unmarshal(b, &c)
	return &c
}

func (s *appStore) OrganizationByID(_ context.Context, id uuid.UUID) (*org.Organization, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.orgs[id]; ok {
		return o, nil
	}
	return nil, errcode.ErrNotFound
}

func (s *appStore) AppByID(_ context.Context, orgID, id uuid.UUID) (*linking.App, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	for _, a := range s.apps {
		if a.ID == id && a.OrgID == orgID {
			return cloneApp(a), nil
		}
	}
	return nil, errcode.ErrNotFound
}

func (s *appStore) AppByHandle(_ context.Context, handle string) (*linking.App, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.Handle == handle {
			return cloneApp(a), nil
		}
	}
	return nil, errcode.ErrNotFound
}

func (s *appStore) CountApps(_ context.Context, orgID uuid.UUID) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, a := range s.apps {
		if a.OrgID == orgID {
			n++
		}
	}
	return n, nil
}

func sameString(a, b *string) bool { return a != nil && b != nil && *a == *b }

// conflict returns the unique rule app breaks against the other apps.
func (s *appStore) conflict(app *linking.App) error {
	for _, a := range s.apps {
		switch {
		case a.ID == app.ID:
		case a.Handle == app.Handle:
			return fmt.Errorf("%w (%w)", errcode.ErrConflict, linking.ErrAppHandleTaken)
		case a.OrgID == app.OrgID && sameString(a.IOSBundleID, app.IOSBundleID):
			return fmt.Errorf("%w (%w)", errcode.ErrConflict, linking.ErrAppBundleIDTaken)
		case a.OrgID == app.OrgID && sameString(a.AndroidPackageName, app.AndroidPackageName):
			return fmt.Errorf("%w (%w)", errcode.ErrConflict, linking.ErrAppPackageNameTaken)
		}
	}
	return nil
}

func (s *appStore) CreateApp(_ context.Context, app *linking.App, maxApps int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.orgs[app.OrgID]; !ok {
		return errcode.ErrNotFound
	}
	n := 0
	for _, a := range s.apps {
		if a.OrgID == app.OrgID {
			n++
		}
	}
	if n >= maxApps {
		return linking.ErrAppLimit
	}
	if err := s.conflict(app); err != nil {
		return err
	}
	s.apps = append(s.apps, cloneApp(app))
	return nil
}

func (s *appStore) ListApps(_ context.Context, f linking.AppFilter) ([]*linking.App, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []*linking.App
	for _, a := range s.apps {
		if a.OrgID == f.OrgID && strings.Contains(strings.ToLower(a.Name), strings.ToLower(f.Search)) {
			all = append(all, cloneApp(a))
		}
	}
	end := min(f.Offset+f.Limit, len(all))
	if f.Offset >= len(all) {
		return nil, len(all), nil
	}
	return all[f.Offset:end], len(all), nil
}

func (s *appStore) UpdateApp(_ context.Context, app *linking.App) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, a := range s.apps {
		if a.ID == app.ID && a.OrgID == app.OrgID {
			if err := s.conflict(app); err != nil {
				return err
			}
			s.apps[i] = cloneApp(app)
			return nil
		}
	}
	return errcode.ErrNotFound
}

func (s *appStore) DeleteApp(_ context.Context, d linking.AppDeletion) (*linking.App, error) {
	orgID, id := d.OrgID, d.ID
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, a := range s.apps {
		if a.ID == id && a.OrgID == orgID {
			s.apps = append(s.apps[:i], s.apps[i+1:]...)
			return a, nil
		}
	}
	return nil, errcode.ErrNotFound
}

func (s *appStore) SetAppLegacy(_ context.Context, id uuid.UUID, legacy bool, now time.Time) (*linking.App, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == id {
			a.LegacyApexEnabled, a.UpdatedAt = legacy, now
			return cloneApp(a), nil
		}
	}
	return nil, errcode.ErrNotFound
}

// appForgetter records the organizations it is told to forget.
type appForgetter struct{ orgs []uuid.UUID }

func (f *appForgetter) ForgetOrg(id uuid.UUID) { f.orgs = append(f.orgs, id) }

const appServiceDomain = "hop.example"

var appClockStart = time.Date(2030, 1, 1, 12, 0, 0, 123456789, time.UTC)

// appFixture is an AppService over an appStore with one organization and a
// principal of it with every scope and no creator.
type appFixture struct {
	store  *appStore
	forget *appForgetter
	svc    *linking.AppService
	clock  *testkit.Clock
	orgID  uuid.UUID
	p      *auth.Principal
}

func newAppFixture(t *testing.T, plan org.Plan) *appFixture {
	t.Helper()
	f := &appFixture{store: newAppStore(), forget: &appForgetter{}, clock: testkit.NewClock(appClockStart)}
	// A fixed random source: every generated suffix is the sameString, so a second
	// collision on one base is a collision of the suffixed handle too.
	random := bytes.NewReader(bytes.Repeat(bytesFor("k3j9x2a"), 1000))
	f.svc = linking.NewAppService(f.store, f.store, linking.AppServiceOptions{
		DefaultLinkDomain: "Hop.Example.", Forget: f.forget, Clock: f.clock.Now, Random: random,
	})
	f.orgID = f.store.addOrg(plan)
	f.p = testkit.Principal(f.orgID, auth.RequestableScopes...)
	return f
}

// decodeAppInput decodes a JSON body into AppInput as the HTTP adapter does.
func decodeAppInput(t *testing.T, body string) linking.AppInput {
	t.Helper()
	var in linking.AppInput
	require.NoError(t, json.Unmarshal([]byte(body), &in))
	return in
}

func (f *appFixture) create(t *testing.T, body string) *linking.App {
	t.Helper()
	a, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, body))
	require.NoError(t, err)
	return a
}

var appFingerprint = strings.TrimSuffix(strings.Repeat("ab:", 32), ":")

func TestAppInputTellsAbsentFromNull(t *testing.T) {
	in := decodeAppInput(t, `{"name":"A","ios_bundle_id":null,"ios_universal_link_paths":[]}`)
	assert.Equal(t, apitype.Some("A"), in.Name)
	assert.Equal(t, apitype.Null[string](), in.IOSBundleID)
	assert.Equal(t, apitype.Some([]string{}), in.IOSUniversalLinkPaths)
	assert.False(t, in.IOSTeamID.Set, "absent")
}

func TestCreateApp(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	a := f.create(t, `{
		"name": "Acme Shop",
		"ios_bundle_id": "com.acme.shop",
		"ios_team_id": "ABCDE12345",
		"ios_app_store_id": "1234567890",
		"ios_app_store_url": "HTTPS://Apps.Apple.com",
		"ios_universal_link_paths": ["/products/*", "*", "/products/*"],
		"android_package_name": "com.acme.shop",
		"android_sha256_fingerprints": ["`+appFingerprint+`"],
		"android_play_store_url": "https://play.google.com/store/apps/details?id=com.acme.shop",
		"android_app_links_paths": []
	}`)
	now := appClockStart.Truncate(time.Millisecond)
	want := &linking.App{
		ID:                        a.ID,
		OrgID:                     f.orgID,
		Name:                      "Acme Shop",
		IOSBundleID:               appStr("com.acme.shop"),
		IOSTeamID:                 appStr("ABCDE12345"),
		IOSAppStoreID:             appStr("1234567890"),
		IOSAppStoreURL:            appStr("https://apps.apple.com/"),
		IOSUniversalLinkPaths:     []string{"/products/*", "*"},
		AndroidPackageName:        appStr("com.acme.shop"),
		AndroidSHA256Fingerprints: []string{strings.ToUpper(appFingerprint)},
		AndroidPlayStoreURL:       appStr("https://play.google.com/store/apps/details?id=com.acme.shop"),
		AndroidAppLinksPaths:      []string{},
		Handle:                    "acme-shop",
		DefaultLinkDomain:         "acme-shop.hop.example",
		LegacyApexEnabled:         false,
		LinkDomain:                "acme-shop.hop.example",
		CreatedAt:                 now,
		UpdatedAt:                 now,
	}
	assert.Equal(t, want, a)
	assert.Equal(t, 7, int(a.ID.Version()), "ids are UUIDv7")

	bare := f.create(t, `{"name":"Bare","ios_bundle_id":null}`)
	assert.Nil(t, bare.IOSBundleID)
	assert.Nil(t, bare.IOSUniversalLinkPaths, "absent lists are null")
	assert.Nil(t, bare.PreviousLinkDomain)
}

func appStr(s string) *string { return &s }

func TestCreateAppValidation(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"name is required", `{}`, []string{"name"}},
		{"name null is refused", `{"name":null}`, []string{"name"}},
		{"name empty", `{"name":""}`, []string{"name"}},
		{"name too long", `{"name":"` + strings.Repeat("a", 256) + `"}`, []string{"name"}},
		{"bundle id", `{"name":"A","ios_bundle_id":"app"}`, []string{"ios_bundle_id"}},
		{"empty bundle id (null clears)", `{"name":"A","ios_bundle_id":""}`, []string{"ios_bundle_id"}},
		{"team id", `{"name":"A","ios_team_id":"abc"}`, []string{"ios_team_id"}},
		{"app store id", `{"name":"A","ios_app_store_id":"id12"}`, []string{"ios_app_store_id"}},
		{"app store URL without protocol", `{"name":"A","ios_app_store_url":"apps.apple.com/app"}`, []string{"ios_app_store_url"}},
		{"app store URL of another scheme", `{"name":"A","ios_app_store_url":"itms-apps://apps.apple.com/app"}`, []string{"ios_app_store_url"}},
		{"universal link path", `{"name":"A","ios_universal_link_paths":["/ok","bad"]}`, []string{"ios_universal_link_paths[1]"}},
		{"package name", `{"name":"A","android_package_name":"com.1app"}`, []string{"android_package_name"}},
		{"appFingerprint", `{"name":"A","android_sha256_fingerprints":["AB:CD"]}`, []string{"android_sha256_fingerprints[0]"}},
		{"play store URL", `{"name":"A","android_play_store_url":"javascript:alert(1)"}`, []string{"android_play_store_url"}},
		{"app links path", `{"name":"A","android_app_links_paths":["x"]}`, []string{"android_app_links_paths[0]"}},
		{"every invalid field is named", `{"ios_team_id":"x","android_package_name":"x","android_app_links_paths":[""]}`,
			[]string{"name", "ios_team_id", "android_package_name", "android_app_links_paths[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAppFixture(t, org.PlanScale)
			_, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, tt.body))
			e := requireCode(t, err, errcode.ValidationError)
			var names []string
			for _, fe := range e.Fields {
				names = append(names, fe.Field)
				assert.NotEmpty(t, fe.Message)
			}
			assert.ElementsMatch(t, tt.fields, names)
			assert.Empty(t, f.store.apps, "nothing created")
		})
	}
}

func TestCreateAppHandles(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	tests := []struct {
		name, appName, want string
	}{
		{"derived from the name", "Acme Shop!", "acme-shop"},
		{"the sameString name again gets a suffix", "acme shop", "acme-shop-k3j9x2a"},
		{"a reserved word gets a suffix", "WWW", "www-k3j9x2a"},
		{"a short name gets a suffix", "A", "a-k3j9x2a"},
		{"a name with no ASCII letter", "日本", "app-k3j9x2a"},
	}
	for _, tt := range tests {
		a := f.create(t, `{"name":`+appQuote(tt.appName)+`}`)
		assert.Equal(t, tt.want, a.Handle, tt.name)
		assert.Equal(t, tt.want+".hop.example", a.LinkDomain, tt.name)
		assert.Equal(t, a.LinkDomain, a.DefaultLinkDomain, tt.name)
	}

	// The fixed source keeps generating one suffix: once the base and the
	// suffixed handle are both taken, Create gives up with an internal error.
	_, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"Acme Shop"}`))
	require.Error(t, err)
	assert.Equal(t, errcode.InternalError, errcode.CodeOf(err))
}

func appQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A handle taken between the look-up and the insert (another process) is
// tried again with a suffix.
func TestCreateAppRetriesAHandleTakenMeanwhile(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	racer := &racingAppStore{appStore: f.store}
	svc := linking.NewAppService(racer, f.store, linking.AppServiceOptions{
		DefaultLinkDomain: appServiceDomain, Random: bytes.NewReader(bytes.Repeat(bytesFor("q"), 100)),
	})
	a, err := svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"Acme"}`))
	require.NoError(t, err)
	assert.Equal(t, "acme-qqqqqqq", a.Handle)
}

// racingAppStore lets another organization's app take the first handle it is
// asked to insert.
type racingAppStore struct {
	*appStore
	raced bool
}

func (r *racingAppStore) CreateApp(ctx context.Context, app *linking.App, maxApps int) error {
	if !r.raced {
		r.raced = true
		other := r.addOrg(org.PlanScale)
		thief := cloneApp(app)
		thief.ID, thief.OrgID = uuid.Must(uuid.NewV7()), other
		if err := r.appStore.CreateApp(ctx, thief, 10); err != nil {
			return err
		}
	}
	return r.appStore.CreateApp(ctx, app, maxApps)
}

func TestCreateAppLimitFollowsThePlan(t *testing.T) {
	f := newAppFixture(t, org.PlanFree)
	f.create(t, `{"name":"One"}`)
	_, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"Two"}`))
	requireCode(t, err, errcode.AppLimitExceeded)

	// Limits per plan: starter 3.
	f = newAppFixture(t, org.PlanStarter)
	for i := range org.LimitsOf(org.PlanStarter).Apps {
		f.create(t, fmt.Sprintf(`{"name":"App %d"}`, i))
	}
	_, err = f.svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"Four"}`))
	requireCode(t, err, errcode.AppLimitExceeded)
}

func TestDuplicateApp(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	f.create(t, `{"name":"A","ios_bundle_id":"com.acme.a","android_package_name":"com.acme.a"}`)
	b := f.create(t, `{"name":"B"}`)

	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"create with a used bundle id", func() error {
			_, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"C","ios_bundle_id":"com.acme.a"}`))
			return err
		}, "ios_bundle_id"},
		{"create with a used package name", func() error {
			_, err := f.svc.Create(context.Background(), f.p, decodeAppInput(t, `{"name":"C","android_package_name":"com.acme.a"}`))
			return err
		}, "android_package_name"},
		{"update to a used bundle id", func() error {
			_, err := f.svc.Update(context.Background(), f.p, b.ID, decodeAppInput(t, `{"ios_bundle_id":"com.acme.a"}`))
			return err
		}, "ios_bundle_id"},
		{"update to a used package name", func() error {
			_, err := f.svc.Update(context.Background(), f.p, b.ID, decodeAppInput(t, `{"android_package_name":"com.acme.a"}`))
			return err
		}, "android_package_name"},
	}
	for _, tt := range tests {
		e := requireCode(t, tt.call(), errcode.DuplicateApp)
		assert.Equal(t, tt.field, e.Details["field"], tt.name)
	}

	otherOrg := f.store.addOrg(org.PlanScale)
	_, err := f.svc.Create(context.Background(), testkit.Principal(otherOrg, auth.RequestableScopes...),
		decodeAppInput(t, `{"name":"Other","ios_bundle_id":"com.acme.a","android_package_name":"com.acme.a"}`))
	assert.NoError(t, err, "another organization may use the same bundle id and package name")
}

func TestUpdateApp(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	a := f.create(t, `{"name":"A","ios_bundle_id":"com.acme.a","ios_team_id":"ABCDE12345","ios_universal_link_paths":["/a"]}`)
	f.clock.Advance(time.Hour)
	ctx := context.Background()

	got, err := f.svc.Update(ctx, f.p, a.ID, decodeAppInput(t, `{"name":"B","ios_team_id":null,"android_app_links_paths":["/x"]}`))
	require.NoError(t, err)
	assert.Equal(t, "B", got.Name)
	assert.Nil(t, got.IOSTeamID, "null clears")
	assert.Equal(t, appStr("com.acme.a"), got.IOSBundleID, "absent keeps")
	assert.Equal(t, []string{"/a"}, got.IOSUniversalLinkPaths, "absent keeps")
	assert.Equal(t, []string{"/x"}, got.AndroidAppLinksPaths)
	assert.Equal(t, a.Handle, got.Handle, "a new name keeps the handle")
	assert.Equal(t, a.LinkDomain, got.LinkDomain)
	assert.Equal(t, a.CreatedAt, got.CreatedAt)
	assert.Equal(t, f.clock.Now().Truncate(time.Millisecond), got.UpdatedAt)

	read, err := f.svc.Get(ctx, f.p, a.ID)
	require.NoError(t, err)
	assert.Equal(t, got, read)

	_, err = f.svc.Update(ctx, f.p, a.ID, decodeAppInput(t, `{"name":null}`))
	requireFieldError(t, err, "name")
	_, err = f.svc.Update(ctx, f.p, a.ID, decodeAppInput(t, `{"ios_team_id":"bad","ios_universal_link_paths":["x"]}`))
	e := requireCode(t, err, errcode.ValidationError)
	assert.Len(t, e.Fields, 2)

	_, err = f.svc.Update(ctx, f.p, uuid.Must(uuid.NewV7()), decodeAppInput(t, `{"name":"C"}`))
	requireCode(t, err, errcode.NotFound)
	_, err = f.svc.Update(ctx, testkit.Principal(f.store.addOrg(org.PlanFree), auth.ScopeAppsWrite), a.ID, decodeAppInput(t, `{"name":"C"}`))
	requireCode(t, err, errcode.NotFound)
}

func TestListAppsValidation(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	for i := range 3 {
		f.create(t, fmt.Sprintf(`{"name":"App %d"}`, i))
	}
	ctx := context.Background()
	n := func(i int) *int { return &i }

	page, err := f.svc.List(ctx, f.p, linking.ListAppsInput{})
	require.NoError(t, err)
	assert.Len(t, page.Data, 3)
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 20, Offset: 0, HasMore: false}, page.Pagination)

	page, err = f.svc.List(ctx, f.p, linking.ListAppsInput{Limit: n(2)})
	require.NoError(t, err)
	assert.Len(t, page.Data, 2)
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 2, Offset: 0, HasMore: true}, page.Pagination)

	page, err = f.svc.List(ctx, f.p, linking.ListAppsInput{Offset: n(5)})
	require.NoError(t, err)
	assert.NotNil(t, page.Data, "an empty page is [], not null")
	assert.Empty(t, page.Data)

	search := strings.Repeat("é", 200)
	_, err = f.svc.List(ctx, f.p, linking.ListAppsInput{Search: &search})
	assert.NoError(t, err, "200 characters")

	long := search + "x"
	_, err = f.svc.List(ctx, f.p, linking.ListAppsInput{Limit: n(0), Offset: n(-1), Search: &long})
	e := requireCode(t, err, errcode.ValidationError)
	var names []string
	for _, fe := range e.Fields {
		names = append(names, fe.Field)
	}
	assert.ElementsMatch(t, []string{"limit", "offset", "search"}, names)
	_, err = f.svc.List(ctx, f.p, linking.ListAppsInput{Limit: n(101)})
	requireFieldError(t, err, "limit")
}

func TestDeleteApp(t *testing.T) {
	f := newAppFixture(t, org.PlanFree)
	a := f.create(t, `{"name":"A"}`)
	ctx := context.Background()

	_, err := f.svc.Delete(ctx, testkit.Principal(f.store.addOrg(org.PlanFree), auth.ScopeAppsWrite), a.ID)
	requireCode(t, err, errcode.NotFound)
	assert.Empty(t, f.forget.orgs)

	got, err := f.svc.Delete(ctx, f.p, a.ID)
	require.NoError(t, err)
	assert.Equal(t, a, got, "the deleted app")
	assert.Equal(t, []uuid.UUID{f.orgID}, f.forget.orgs, "the organization's keys are forgotten at once")
	_, err = f.svc.Get(ctx, f.p, a.ID)
	requireCode(t, err, errcode.NotFound)

	f.create(t, `{"name":"A"}`)
}

func TestAppAuthorization(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	a := f.create(t, `{"name":"A"}`)
	ctx := context.Background()
	member := testkit.MemberPrincipal(f.orgID, uuid.Must(uuid.NewV7()), auth.RoleMember, auth.ScopeAppsRead, auth.ScopeAppsWrite)
	admin := *member
	admin.Role = auth.RoleAdmin
	readOnly := testkit.Principal(f.orgID, auth.ScopeAppsRead)

	type call func(p *auth.Principal) error
	reads := map[string]call{
		"list": func(p *auth.Principal) error { _, err := f.svc.List(ctx, p, linking.ListAppsInput{}); return err },
		"get":  func(p *auth.Principal) error { _, err := f.svc.Get(ctx, p, a.ID); return err },
	}
	writes := map[string]call{
		"create": func(p *auth.Principal) error {
			_, err := f.svc.Create(ctx, p, decodeAppInput(t, `{"name":"New"}`))
			return err
		},
		"update": func(p *auth.Principal) error {
			_, err := f.svc.Update(ctx, p, a.ID, decodeAppInput(t, `{"name":"B"}`))
			return err
		},
	}
	for name, c := range reads {
		assert.NoError(t, c(member), "a member reads apps: %s", name)
		assert.NoError(t, c(readOnly), "apps:read reads: %s", name)
		requireCode(t, c(testkit.Principal(f.orgID, auth.ScopeLinksRead)), errcode.Forbidden)
	}
	for name, c := range writes {
		requireCode(t, c(member), errcode.Forbidden)
		requireCode(t, c(readOnly), errcode.Forbidden)
		assert.NoError(t, c(&admin), "an admin writes apps: %s", name)
	}
	_, err := f.svc.Delete(ctx, member, a.ID)
	requireCode(t, err, errcode.Forbidden)
	_, err = f.svc.Delete(ctx, &admin, a.ID)
	assert.NoError(t, err)
}

func TestSetLegacy(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	a := f.create(t, `{"name":"A"}`)
	f.clock.Advance(time.Minute)

	got, err := f.svc.SetLegacy(context.Background(), a.ID, true)
	require.NoError(t, err)
	assert.True(t, got.LegacyApexEnabled)
	assert.Equal(t, a.DefaultLinkDomain, got.DefaultLinkDomain, "the default link domain is unchanged")
	assert.Equal(t, f.clock.Now().Truncate(time.Millisecond), got.UpdatedAt)
	d := got.Domains()
	assert.True(t, d.LegacyApexEnabled)
	assert.Contains(t, linking.DomainsForApp(d, linking.LinkDomains{Default: appServiceDomain}), appServiceDomain,
		"a legacy app's links may use the default link domain")

	got, err = f.svc.SetLegacy(context.Background(), a.ID, false)
	require.NoError(t, err)
	assert.False(t, got.LegacyApexEnabled)

	_, err = f.svc.SetLegacy(context.Background(), uuid.Must(uuid.NewV7()), true)
	requireCode(t, err, errcode.NotFound)
}

// An app created before the apps migration has a handle but no link
// domains; the service fills them in.
func TestMigratedAppsGetTheirLinkDomains(t *testing.T) {
	f := newAppFixture(t, org.PlanScale)
	old := &linking.App{ID: uuid.Must(uuid.NewV7()), OrgID: f.orgID, Name: "Old", Handle: "app-0123"}
	f.store.apps = append(f.store.apps, old)
	got, err := f.svc.Get(context.Background(), f.p, old.ID)
	require.NoError(t, err)
	assert.Equal(t, "app-0123.hop.example", got.LinkDomain)
	assert.Equal(t, "app-0123.hop.example", got.DefaultLinkDomain)

	kept := &linking.App{LinkDomain: "x.hop.example", DefaultLinkDomain: "hop.example", Handle: "x"}
	kept.FillLinkDomains("other.example")
	assert.Equal(t, "x.hop.example", kept.LinkDomain, "set domains are left alone")
	assert.Equal(t, "hop.example", kept.DefaultLinkDomain)
}
