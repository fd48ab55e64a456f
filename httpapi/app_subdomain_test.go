package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func defaultDomainPath(id uuid.UUID) string {
	return "/v1/apps/" + id.String() + "/default-link-domain"
}

// putDefaultDomain sends PUT /v1/apps/{id}/default-link-domain.
func (h *harness) putDefaultDomain(t testing.TB, key string, id uuid.UUID, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPut, path: defaultDomainPath(id), key: key, body: body})
}

// siteGet sends GET path with host to the custom harness's link-domain
// server and returns the status, not following redirects.
func (h *customHarness) siteGet(t testing.TB, host, path string) *response {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, h.site.URL+path, nil)
	require.NoError(t, err)
	r.Host = host
	r.Header.Set("Accept", "application/json")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	require.NoError(t, err)
	resp.Body.Close()
	return &response{status: resp.StatusCode, header: resp.Header}
}

// iosApp creates an app with an iOS identity through POST /v1/apps, so that
// its association files have something to say.
func (h *harness) iosApp(t testing.TB, key, name string) linking.App {
	t.Helper()
	return h.createApp(t, key, `{"name":"`+name+`","ios_bundle_id":"com.acme.shop","ios_team_id":"ABCDE12345"}`)
}

func TestSetDefaultLinkDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key := o.key.raw
		app := h.iosApp(t, key, "Shop")
		live := h.liveDomain(t, key, "go.acme.example")
		pending := h.addDomain(t, key, "pending.acme.example")

		t.Run("a live custom domain becomes the default of new links (rule 1)", func(t *testing.T) {
			resp := h.putDefaultDomain(t, key, app.ID, `{"domain":"GO.acme.example."}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			a := resp.app(t)
			assert.Equal(t, live.Domain, a.DefaultLinkDomain)
			assert.Equal(t, app.LinkDomain, a.LinkDomain, "the subdomain stays")
			assert.Equal(t, live.Domain, h.get(t, key, "/v1/apps/"+app.ID.String()).app(t).DefaultLinkDomain)
			l := h.create(t, key, `{"destination_url":"https://acme.example/a","slug":"on-custom","app_id":"`+app.ID.String()+`"}`)
			assert.Equal(t, live.Domain, l.Domain)
		})
		t.Run("association files are served on the custom default domain", func(t *testing.T) {
			assert.Equal(t, http.StatusOK, h.siteGet(t, live.Domain, httpapi.AASAPath).status)
			assert.Equal(t, http.StatusOK, h.siteGet(t, app.LinkDomain, httpapi.AASAPath).status, "and on the subdomain")
		})
		t.Run("a default no longer live gives 409 DEFAULT_DOMAIN_UNAVAILABLE with the alternatives (rule 9)", func(t *testing.T) {
			h.setPlan(t, o, org.PlanFree)
			resp := h.post(t, key, "/v1/links", `{"destination_url":"https://acme.example/b","app_id":"`+app.ID.String()+`"}`)
			assertError(t, resp, http.StatusConflict, errcode.DefaultDomainUnavailable)
			d := details(t, resp)
			assert.Equal(t, live.Domain, d["domain"])
			assert.Equal(t, []any{app.LinkDomain}, d["allowed_link_domains"])
			assert.Equal(t, http.StatusNotFound, h.siteGet(t, live.Domain, httpapi.AASAPath).status, "no files on a suspended domain")
			l := h.create(t, key, `{"destination_url":"https://acme.example/b","app_id":"`+app.ID.String()+`","domain":"`+app.LinkDomain+`"}`)
			assert.Equal(t, app.LinkDomain, l.Domain, "a named domain still works")
			h.setPlan(t, o, org.PlanGrowth)
		})
		t.Run("null sets the app's subdomain again", func(t *testing.T) {
			resp := h.putDefaultDomain(t, key, app.ID, `{"domain":null}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, app.LinkDomain, resp.app(t).DefaultLinkDomain)
			l := h.create(t, key, `{"destination_url":"https://acme.example/c","app_id":"`+app.ID.String()+`"}`)
			assert.Equal(t, app.LinkDomain, l.Domain)
			assert.Equal(t, http.StatusNotFound, h.siteGet(t, live.Domain, httpapi.AASAPath).status, "no longer the app's domain")
		})
		t.Run("the subdomain itself may be named", func(t *testing.T) {
			resp := h.putDefaultDomain(t, key, app.ID, `{"domain":"`+app.LinkDomain+`"}`)
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			assert.Equal(t, app.LinkDomain, resp.app(t).DefaultLinkDomain)
		})
		t.Run("422 INVALID_DOMAIN for a domain the app's links may not use", func(t *testing.T) {
			other := h.createApp(t, key, `{"name":"Other"}`)
			for _, d := range []string{pending.Domain, linkDomain, other.LinkDomain, "unknown.example"} {
				resp := h.putDefaultDomain(t, key, app.ID, `{"domain":"`+d+`"}`)
				assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
				det := details(t, resp)
				assert.Equal(t, d, det["domain"])
				assert.ElementsMatch(t, []any{app.LinkDomain, live.Domain}, det["allowed_link_domains"], d)
			}
			assert.Equal(t, app.LinkDomain, h.get(t, key, "/v1/apps/"+app.ID.String()).app(t).DefaultLinkDomain, "unchanged")
		})
		t.Run("400 VALIDATION_ERROR for a missing, empty or too long domain, or an unknown field", func(t *testing.T) {
			for _, body := range []string{`{}`, `{"domain":""}`, `{"domain":"   "}`} {
				e := assertError(t, h.do(t, request{method: http.MethodPut, path: defaultDomainPath(app.ID), key: key, body: body, off: true}),
					http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, "domain")
			}
			long := make([]byte, 256)
			for i := range long {
				long[i] = 'a'
			}
			e := assertError(t, h.do(t, request{method: http.MethodPut, path: defaultDomainPath(app.ID), key: key,
				body: `{"domain":"` + string(long) + `"}`, off: true}), http.StatusBadRequest, errcode.ValidationError)
			assertFields(t, e, "domain")
			e = assertError(t, h.do(t, request{method: http.MethodPut, path: defaultDomainPath(app.ID), key: key,
				body: `{"domain":null,"x":1}`, off: true}), http.StatusBadRequest, errcode.ValidationError)
			assertFields(t, e, "x")
		})
		t.Run("404 for another organization's app, 400 for a bad id", func(t *testing.T) {
			other := h.planOrg(t, "Other", org.PlanGrowth)
			assertError(t, h.putDefaultDomain(t, other.key.raw, app.ID, `{"domain":null}`), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.do(t, request{method: http.MethodPut, path: "/v1/apps/nope/default-link-domain", key: key, body: `{"domain":null}`}),
				http.StatusBadRequest, errcode.InvalidID)
		})
		t.Run("403 for a member, or a key without apps:write", func(t *testing.T) {
			m := h.newMember(t, o, auth.RoleMember)
			mk := h.memberKey(t, m, auth.ScopeAppsRead)
			assertError(t, h.putDefaultDomain(t, mk.raw, app.ID, `{"domain":null}`), http.StatusForbidden, errcode.Forbidden)
			rk := h.scopedKey(t, o, auth.ScopeAppsRead)
			assertError(t, h.putDefaultDomain(t, rk.raw, app.ID, `{"domain":null}`), http.StatusForbidden, errcode.Forbidden)
		})
	})
}

// staleApps reads apps as they were before a write that another request
// made meanwhile: AppByID answers the app saved in stale, if any.
type staleApps struct {
	*store.Store
	stale map[uuid.UUID]*linking.App
}

func (s *staleApps) AppByID(ctx context.Context, orgID, id uuid.UUID) (*linking.App, error) {
	if a, ok := s.stale[id]; ok {
		c := *a
		return &c, nil
	}
	return s.Store.AppByID(ctx, orgID, id)
}

// A link create or a rename decided on an app state that changed before it
// wrote answers 409 APP_LINK_STATE_CHANGED, and writes nothing.
func TestAppLinkStateChanged(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		stale := &staleApps{Store: s, stale: map[uuid.UUID]*linking.App{}}
		var links *linking.LinkService
		h := newHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
			links = linking.NewLinkService(stale, stale, h.store, linking.LinkServiceOptions{
				DefaultLinkDomain: linkDomain, Clock: h.clock.Now,
				HashPassword: func(pw string) (string, error) { return "fast:" + pw, nil },
			})
			o.Links = links
			o.Apps = linking.NewAppService(stale, h.store, linking.AppServiceOptions{DefaultLinkDomain: defaultLinkDomain, Clock: h.clock.Now})
		}))
		o := h.scaleOrg(t, "Acme")
		key, _ := h.ownerKey(t, o)
		app := h.createApp(t, key.raw, `{"name":"Shop"}`)
		before, err := s.AppByID(context.Background(), o.ID, app.ID)
		require.NoError(t, err)

		// Another replica renames the app; this one still reads it as before.
		st := h.rename(t, key.raw, app.ID, `{"handle":"shop-two"}`).subdomain(t)
		require.Equal(t, "shop-two", st.Handle)
		stale.stale[app.ID] = before

		resp := h.post(t, key.raw, "/v1/links", `{"destination_url":"https://example.com/","slug":"late","app_id":"`+app.ID.String()+`"}`)
		assertError(t, resp, http.StatusConflict, errcode.AppLinkStateChanged)
		resp = h.post(t, key.raw, "/v1/links", `{"destination_url":"https://example.com/","app_id":"`+app.ID.String()+`"}`)
		assertError(t, resp, http.StatusConflict, errcode.AppLinkStateChanged)
		assert.Zero(t, h.count(t, "links", o.ID), "nothing written against the stale state")
		// A default chosen from the stale read (null: the old subdomain) is
		// refused, not written.
		assertError(t, h.putDefaultDomain(t, key.raw, app.ID, `{"domain":null}`), http.StatusConflict, errcode.AppLinkStateChanged)
		after, err := s.AppByID(context.Background(), o.ID, app.ID)
		require.NoError(t, err)
		assert.Equal(t, "shop-two."+linkDomain, after.DefaultLinkDomain, "the default follows the rename, never the stale subdomain")

		other := h.createApp(t, key.raw, `{"name":"Other"}`)
		otherBefore, err := s.AppByID(context.Background(), o.ID, other.ID)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, h.putDefaultDomain(t, key.raw, other.ID, `{"domain":null}`).status)
		stale.stale[other.ID] = otherBefore
		assertError(t, h.rename(t, key.raw, other.ID, `{"handle":"other-two"}`), http.StatusConflict, errcode.AppLinkStateChanged)

		delete(stale.stale, app.ID)
		l := h.post(t, key.raw, "/v1/links", `{"destination_url":"https://example.com/","slug":"fresh","app_id":"`+app.ID.String()+`"}`)
		require.Equal(t, http.StatusCreated, l.status, "body: %s", l.body)
		assert.Equal(t, "shop-two."+linkDomain, l.link(t).Domain, "re-read, the create succeeds")
	})
}
