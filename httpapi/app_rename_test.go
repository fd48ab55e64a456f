package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

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

// subdomainBody is the SubdomainState resource as a test reads it.
type subdomainBody struct {
	AppID              uuid.UUID `json:"app_id"`
	Handle             string    `json:"handle"`
	LinkDomain         string    `json:"link_domain"`
	DefaultLinkDomain  string    `json:"default_link_domain"`
	PreviousLinkDomain *string   `json:"previous_link_domain"`
	RenamePeriod       *struct {
		OpenedAt       time.Time `json:"opened_at"`
		EndsAt         time.Time `json:"ends_at"`
		ExtensionsUsed int       `json:"extensions_used"`
		ExtensionsLeft int       `json:"extensions_left"`
	} `json:"rename_period"`
	PreviousLinks struct {
		Moving  int `json:"moving"`
		Waiting int `json:"waiting"`
		Kept    int `json:"kept"`
	} `json:"previous_links"`
}

func subdomainPath(id uuid.UUID) string { return "/v1/apps/" + id.String() + "/subdomain" }

func (r *response) subdomain(t testing.TB) subdomainBody {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	var b subdomainBody
	r.decode(t, &b)
	return b
}

func (h *harness) rename(t testing.TB, key string, id uuid.UUID, body string) *response {
	t.Helper()
	return h.do(t, request{method: http.MethodPut, path: subdomainPath(id), key: key, body: body})
}

func (h *harness) extend(t testing.TB, key string, id uuid.UUID) *response {
	t.Helper()
	return h.post(t, key, subdomainPath(id)+"/extend", "")
}

// ownerKey returns a key created by a new owner of o, with the scopes a
// rename and its links need.
func (h *harness) ownerKey(t testing.TB, o *testOrg) (testKey, *testMember) {
	t.Helper()
	m := h.newMember(t, o, auth.RoleOwner)
	return h.memberKey(t, m, auth.ScopeAppsRead, auth.ScopeAppsWrite, auth.ScopeLinksWrite, auth.ScopeOrgRead), m
}

// storeLink puts a link of app on domain with slug directly in the store,
// for addresses the API would not let a test reach.
func (h *harness) storeLink(t testing.TB, app *linking.App, domain, slug string) {
	t.Helper()
	now := h.clock.Now()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: app.OrgID, AppID: &app.ID, Domain: domain, Slug: slug,
		DestinationURL: "https://example.com/" + slug, IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, h.store.CreateLink(context.Background(), l, linking.LinkQuota{}))
}

func (h *customHarness) assertRedirect(t testing.TB, host, slug string, status int, location string) {
	t.Helper()
	resp := h.siteGet(t, host, "/"+slug)
	if assert.Equal(t, status, resp.status, "%s/%s", host, slug) {
		assert.Equal(t, location, resp.header.Get("Location"), "%s/%s", host, slug)
	}
}

func TestRenameSubdomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		var leftBehind atomic.Int64
		h := newCustomHarness(t, s, withAudit(t), withAPI(func(h *harness, o *httpapi.Options) {
			o.Apps = linking.NewAppService(h.store, h.store, linking.AppServiceOptions{DefaultLinkDomain: defaultLinkDomain,
				CustomDomains: h.store, OnAppChange: h.appChanged, Clock: h.clock.Now,
				OnLeftBehind: func(_ *linking.App, n int) { leftBehind.Add(int64(n)) }})
		}))
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key, owner := h.ownerKey(t, o)
		app := h.iosApp(t, key.raw, "Shop")
		old := app.LinkDomain
		next := "shop-two." + linkDomain
		link := func(slug string) linkBody {
			return h.create(t, key.raw, `{"destination_url":"https://example.com/`+slug+`","slug":"`+slug+`","app_id":"`+app.ID.String()+`"}`)
		}
		link("spring")
		link("busy")
		stay := link("stay")
		h.storeLink(t, &app, next, "busy") // busy's slug is taken on the new subdomain

		t.Run("before a rename: no previous subdomain, no period", func(t *testing.T) {
			st := h.get(t, key.raw, subdomainPath(app.ID)).subdomain(t)
			assert.Equal(t, app.Handle, st.Handle)
			assert.Equal(t, old, st.LinkDomain)
			assert.Nil(t, st.PreviousLinkDomain)
			assert.Nil(t, st.RenamePeriod)
			assertError(t, h.extend(t, key.raw, app.ID), http.StatusConflict, errcode.RenamePeriodNotOpen)
		})
		t.Run("400 VALIDATION_ERROR for a missing, malformed, reserved or unchanged handle", func(t *testing.T) {
			for _, body := range []string{`{}`, `{"handle":"Shop"}`, `{"handle":"ab"}`, `{"handle":"www"}`, `{"handle":"` + app.Handle + `"}`, `{"handle":"x-y-","confirm":true}`} {
				e := assertError(t, h.do(t, request{method: http.MethodPut, path: subdomainPath(app.ID), key: key.raw, body: body, off: true}),
					http.StatusBadRequest, errcode.ValidationError)
				assertFields(t, e, "handle")
			}
		})
		t.Run("403 ATTRIBUTED_KEY_REQUIRED for a key with no creator; 403 for a member; 404 elsewhere", func(t *testing.T) {
			assertError(t, h.rename(t, o.key.raw, app.ID, `{"handle":"shop-two","confirm":true}`), http.StatusForbidden, errcode.AttributedKeyRequired)
			m := h.newMember(t, o, auth.RoleMember)
			mk := h.memberKey(t, m, auth.ScopeAppsRead)
			assertError(t, h.rename(t, mk.raw, app.ID, `{"handle":"shop-two","confirm":true}`), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, mk.raw, subdomainPath(app.ID)), http.StatusForbidden, errcode.Forbidden)
			other := h.planOrg(t, "Other", org.PlanGrowth)
			ok, _ := h.ownerKey(t, other)
			assertError(t, h.rename(t, ok.raw, app.ID, `{"handle":"shop-two","confirm":true}`), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.get(t, ok.raw, subdomainPath(app.ID)), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.extend(t, ok.raw, app.ID), http.StatusNotFound, errcode.NotFound)
			assertError(t, h.extend(t, mk.raw, app.ID), http.StatusForbidden, errcode.Forbidden)
		})
		t.Run("409 APP_HANDLE_TAKEN for another app's handle", func(t *testing.T) {
			other := h.createApp(t, key.raw, `{"name":"Taken One"}`)
			resp := h.rename(t, key.raw, app.ID, `{"handle":"`+other.Handle+`","confirm":true}`)
			assertError(t, resp, http.StatusConflict, errcode.AppHandleTaken)
			assert.Equal(t, other.LinkDomain, details(t, resp)["domain"])
		})
		t.Run("409 CONFIRMATION_REQUIRED with the number of links on the subdomain", func(t *testing.T) {
			for _, body := range []string{`{"handle":"shop-two"}`, `{"handle":"shop-two","confirm":false}`} {
				resp := h.rename(t, key.raw, app.ID, body)
				assertError(t, resp, http.StatusConflict, errcode.ConfirmationRequired)
				assert.EqualValues(t, 3, details(t, resp)["affected_links"])
			}
			assert.Equal(t, old, h.get(t, key.raw, subdomainPath(app.ID)).subdomain(t).LinkDomain, "unchanged")
		})

		h.clock.Advance(time.Minute)
		renamedAt := h.clock.Now().UTC().Truncate(time.Millisecond)
		t.Run("a confirmed rename opens a 30-day period on the old subdomain", func(t *testing.T) {
			st := h.rename(t, key.raw, app.ID, `{"handle":"shop-two","confirm":true}`).subdomain(t)
			assert.Equal(t, "shop-two", st.Handle)
			assert.Equal(t, next, st.LinkDomain)
			assert.Equal(t, next, st.DefaultLinkDomain, "the default follows the subdomain")
			require.NotNil(t, st.PreviousLinkDomain)
			assert.Equal(t, old, *st.PreviousLinkDomain)
			require.NotNil(t, st.RenamePeriod)
			assert.True(t, renamedAt.Equal(st.RenamePeriod.OpenedAt))
			assert.True(t, renamedAt.Add(30*24*time.Hour).Equal(st.RenamePeriod.EndsAt))
			assert.Equal(t, 0, st.RenamePeriod.ExtensionsUsed)
			assert.Equal(t, 2, st.RenamePeriod.ExtensionsLeft)
			assert.Equal(t, 2, st.PreviousLinks.Moving, "spring and stay")
			assert.Equal(t, 1, st.PreviousLinks.Waiting, "busy")
			resp := h.get(t, key.raw, "/v1/apps/"+app.ID.String())
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			a := resp.app(t)
			assert.Equal(t, next, a.LinkDomain)
			require.NotNil(t, a.PreviousLinkDomain)
			assert.Equal(t, old, *a.PreviousLinkDomain)
		})
		t.Run("the rename is in the audit log with the person behind the key", func(t *testing.T) {
			var found bool
			for _, e := range h.auditEvents(t, key.raw) {
				if e.Action != "app.renamed" {
					continue
				}
				found = true
				assert.Equal(t, "user", e.ActorType)
				require.NotNil(t, e.ActorID)
				assert.Equal(t, owner.id.String(), *e.ActorID)
				assert.Equal(t, app.ID.String(), e.TargetID)
				assert.Equal(t, key.id.String(), e.Details["key_id"])
				assert.Equal(t, old, e.Details["previous_link_domain"])
			}
			assert.True(t, found, "an app.renamed event")
		})
		t.Run("during the period the old subdomain redirects its links and serves the association files", func(t *testing.T) {
			h.assertRedirect(t, old, "spring", http.StatusFound, "https://example.com/spring")
			h.assertRedirect(t, old, "busy", http.StatusFound, "https://example.com/busy")
			assert.Equal(t, http.StatusOK, h.siteGet(t, old, httpapi.AASAPath).status)
			assert.Equal(t, http.StatusOK, h.siteGet(t, next, httpapi.AASAPath).status)
		})
		t.Run("the old subdomain takes no new links and the waiting slugs are held", func(t *testing.T) {
			resp := h.post(t, key.raw, "/v1/links", `{"destination_url":"https://example.com/","domain":"`+old+`","app_id":"`+app.ID.String()+`"}`)
			assertError(t, resp, http.StatusUnprocessableEntity, errcode.InvalidDomain)
			resp = h.post(t, key.raw, "/v1/links", `{"destination_url":"https://example.com/","slug":"spring","app_id":"`+app.ID.String()+`"}`)
			assertError(t, resp, http.StatusConflict, errcode.SlugTaken)
			assert.NotNil(t, details(t, resp)["held_by"])
			l := h.create(t, key.raw, `{"destination_url":"https://example.com/new","slug":"fresh","app_id":"`+app.ID.String()+`"}`)
			assert.Equal(t, next, l.Domain)
		})
		t.Run("409 RENAME_PERIOD_OPEN for another rename; the old handle is taken for other apps", func(t *testing.T) {
			assertError(t, h.rename(t, key.raw, app.ID, `{"handle":"shop-three","confirm":true}`), http.StatusConflict, errcode.RenamePeriodOpen)
			other := h.createApp(t, key.raw, `{"name":"Other App"}`)
			assertError(t, h.rename(t, key.raw, other.ID, `{"handle":"`+app.Handle+`"}`), http.StatusConflict, errcode.AppHandleTaken)
			created := h.createApp(t, key.raw, `{"name":"`+app.Handle+`"}`)
			assert.NotEqual(t, app.Handle, created.Handle, "a new app does not get the old handle")
		})
		t.Run("a keep choice is counted as kept", func(t *testing.T) {
			resp := h.do(t, request{method: http.MethodPut, path: moveChoicePath(stay.ID), key: key.raw, body: `{"choice":"keep"}`})
			require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
			st := h.get(t, key.raw, subdomainPath(app.ID)).subdomain(t)
			assert.Equal(t, 1, st.PreviousLinks.Moving)
			assert.Equal(t, 1, st.PreviousLinks.Waiting)
			assert.Equal(t, 1, st.PreviousLinks.Kept)
		})
		t.Run("two extensions of 30 days, then 409 RENAME_EXTENSION_LIMIT", func(t *testing.T) {
			for i := 1; i <= 2; i++ {
				st := h.extend(t, key.raw, app.ID).subdomain(t)
				require.NotNil(t, st.RenamePeriod)
				assert.True(t, renamedAt.Add(time.Duration(i+1)*30*24*time.Hour).Equal(st.RenamePeriod.EndsAt), "extension %d", i)
				assert.Equal(t, i, st.RenamePeriod.ExtensionsUsed)
				assert.Equal(t, 2-i, st.RenamePeriod.ExtensionsLeft)
			}
			assertError(t, h.extend(t, key.raw, app.ID), http.StatusConflict, errcode.RenameExtensionLimit)
		})
		t.Run("one instant before the end the period is still open", func(t *testing.T) {
			h.clock.Set(renamedAt.Add(90*24*time.Hour - time.Millisecond))
			st := h.get(t, key.raw, subdomainPath(app.ID)).subdomain(t)
			assert.NotNil(t, st.RenamePeriod)
		})
		t.Run("at the end: free slugs move (301), taken and kept stay, the period closes", func(t *testing.T) {
			h.clock.Set(renamedAt.Add(90 * 24 * time.Hour))
			a := h.get(t, key.raw, "/v1/apps/"+app.ID.String()).app(t)
			assert.Nil(t, a.PreviousLinkDomain, "GET /apps/{id} ends the period too")
			st := h.get(t, key.raw, subdomainPath(app.ID)).subdomain(t)
			assert.Nil(t, st.RenamePeriod)
			assert.Nil(t, st.PreviousLinkDomain)
			assert.Equal(t, next, st.LinkDomain)
			h.assertRedirect(t, old, "spring", http.StatusMovedPermanently, "https://"+next+"/spring")
			h.assertRedirect(t, next, "spring", http.StatusFound, "https://example.com/spring")
			h.assertRedirect(t, old, "busy", http.StatusFound, "https://example.com/busy")
			h.assertRedirect(t, old, "stay", http.StatusFound, "https://example.com/stay")
			assert.Equal(t, http.StatusNotFound, h.siteGet(t, old, httpapi.AASAPath).status, "no files on a released subdomain")
			assert.Equal(t, http.StatusOK, h.siteGet(t, next, httpapi.AASAPath).status)
			assertError(t, h.extend(t, key.raw, app.ID), http.StatusConflict, errcode.RenamePeriodNotOpen)
			assert.EqualValues(t, 1, leftBehind.Load(), "busy is reported left behind; stay chose keep")
		})
		t.Run("links left on the released subdomain keep it taken for other apps", func(t *testing.T) {
			other := h.createApp(t, key.raw, `{"name":"Later App"}`)
			h.clock.Advance(8 * 24 * time.Hour)
			assertError(t, h.rename(t, key.raw, other.ID, `{"handle":"`+app.Handle+`"}`), http.StatusConflict, errcode.AppHandleTaken)
		})
	})
}

func TestRenameHoldAndTakeBack(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key, _ := h.ownerKey(t, o)
		first := h.createApp(t, key.raw, `{"name":"First"}`)
		second := h.createApp(t, key.raw, `{"name":"Second"}`)
		third := h.createApp(t, key.raw, `{"name":"Third"}`)
		h.create(t, key.raw, `{"destination_url":"https://example.com/a","slug":"alpha","app_id":"`+first.ID.String()+`"}`)
		renamed := h.clock.Now().UTC().Truncate(time.Millisecond)
		h.rename(t, key.raw, first.ID, `{"handle":"first-new","confirm":true}`).subdomain(t)
		h.rename(t, key.raw, second.ID, `{"handle":"second-new"}`).subdomain(t)

		t.Run("the sweep ends due periods without any request reading the app", func(t *testing.T) {
			n, err := h.apps.SweepRenamePeriods(context.Background())
			require.NoError(t, err)
			assert.Equal(t, 0, n, "not yet")
			h.clock.Set(renamed.Add(30 * 24 * time.Hour))
			n, err = h.apps.SweepRenamePeriods(context.Background())
			require.NoError(t, err)
			assert.Equal(t, 2, n)
			h.resolver.InvalidateAll()
			h.assertRedirect(t, first.LinkDomain, "alpha", http.StatusMovedPermanently, "https://first-new."+linkDomain+"/alpha")
			n, err = h.apps.SweepRenamePeriods(context.Background())
			require.NoError(t, err)
			assert.Equal(t, 0, n, "once")
		})
		t.Run("409 APP_HANDLE_HELD for another app during the 7-day hold", func(t *testing.T) {
			resp := h.rename(t, key.raw, third.ID, `{"handle":"`+first.Handle+`"}`)
			assertError(t, resp, http.StatusConflict, errcode.AppHandleHeld)
			assert.Equal(t, first.LinkDomain, details(t, resp)["domain"])
			assertError(t, h.rename(t, key.raw, third.ID, `{"handle":"`+second.Handle+`"}`), http.StatusConflict, errcode.AppHandleHeld)
		})
		t.Run("the releasing app takes its handle back within the hold", func(t *testing.T) {
			h.clock.Advance(7*24*time.Hour - time.Millisecond)
			st := h.rename(t, key.raw, first.ID, `{"handle":"`+first.Handle+`","confirm":true}`).subdomain(t)
			assert.Equal(t, first.LinkDomain, st.LinkDomain)
			require.NotNil(t, st.PreviousLinkDomain)
			assert.Equal(t, "first-new."+linkDomain, *st.PreviousLinkDomain)
		})
		t.Run("after the hold another app may take the handle", func(t *testing.T) {
			h.clock.Advance(time.Millisecond)
			st := h.rename(t, key.raw, third.ID, `{"handle":"`+second.Handle+`"}`).subdomain(t)
			assert.Equal(t, second.LinkDomain, st.LinkDomain)
		})
		t.Run("links that moved go back with a handle taken back", func(t *testing.T) {
			h.clock.Advance(30 * 24 * time.Hour)
			_, err := h.apps.SweepRenamePeriods(context.Background())
			require.NoError(t, err)
			h.resolver.InvalidateAll()
			h.assertRedirect(t, first.LinkDomain, "alpha", http.StatusFound, "https://example.com/a")
			h.assertRedirect(t, "first-new."+linkDomain, "alpha", http.StatusMovedPermanently, "https://"+first.LinkDomain+"/alpha")
		})
	})
}

// A period carried out late (no request, no sweep until days after
// ends_at) ended at ends_at all the same: the hold of the old handle runs
// 7 days from ends_at, and the moved link's old address began then.
func TestRenameEndCarriedOutLateDatesFromEndsAt(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key, _ := h.ownerKey(t, o)
		first := h.createApp(t, key.raw, `{"name":"First"}`)
		other := h.createApp(t, key.raw, `{"name":"Other"}`)
		h.create(t, key.raw, `{"destination_url":"https://example.com/a","slug":"alpha","app_id":"`+first.ID.String()+`"}`)
		st := h.rename(t, key.raw, first.ID, `{"handle":"first-new","confirm":true}`).subdomain(t)
		require.NotNil(t, st.RenamePeriod)
		endsAt := st.RenamePeriod.EndsAt

		h.clock.Set(endsAt.Add(3 * 24 * time.Hour))
		n, err := h.apps.SweepRenamePeriods(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		var began time.Time
		require.NoError(t, s.DB().NewSelect().Table("link_old_addresses").Column("began_at").
			Where("domain = ? AND slug = ?", first.LinkDomain, "alpha").Scan(context.Background(), &began))
		assert.True(t, endsAt.Equal(began), "old address began at ends_at %s, not %s", endsAt, began)

		h.clock.Set(endsAt.Add(linking.HandleHold - time.Millisecond))
		assertError(t, h.rename(t, key.raw, other.ID, `{"handle":"`+first.Handle+`"}`), http.StatusConflict, errcode.AppHandleHeld)
		h.clock.Set(endsAt.Add(linking.HandleHold))
		got := h.rename(t, key.raw, other.ID, `{"handle":"`+first.Handle+`"}`).subdomain(t)
		assert.Equal(t, first.LinkDomain, got.LinkDomain, "the hold ran from ends_at")
	})
}

// Past ends_at, before any request or sweep carries the end out, the link
// domains already treat the period as ended: no association files on the
// old subdomain, whose links keep redirecting until the end moves them.
func TestRenamePeriodEndsOnTheLinkDomainsAtEndsAt(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key, _ := h.ownerKey(t, o)
		app := h.iosApp(t, key.raw, "Shop")
		old := app.LinkDomain
		next := "shop-two." + linkDomain
		alpha := h.create(t, key.raw, `{"destination_url":"https://example.com/a","slug":"alpha","app_id":"`+app.ID.String()+`"}`)
		st := h.rename(t, key.raw, app.ID, `{"handle":"shop-two","confirm":true}`).subdomain(t)
		require.NotNil(t, st.RenamePeriod)

		h.clock.Set(st.RenamePeriod.EndsAt.Add(-time.Millisecond))
		h.resolver.InvalidateAll()
		assert.Equal(t, http.StatusOK, h.siteGet(t, old, httpapi.AASAPath).status, "during the period")
		h.assertRedirect(t, old, "alpha", http.StatusFound, "https://example.com/a")

		h.clock.Set(st.RenamePeriod.EndsAt)
		assert.Equal(t, http.StatusNotFound, h.siteGet(t, old, httpapi.AASAPath).status, "no files past ends_at, though not swept")
		assert.Equal(t, http.StatusOK, h.siteGet(t, next, httpapi.AASAPath).status)
		h.assertRedirect(t, old, "alpha", http.StatusFound, "https://example.com/a")
		got, err := s.AppByID(context.Background(), o.ID, app.ID)
		require.NoError(t, err)
		require.NotNil(t, got.PreviousLinkDomain, "the end is not carried out yet")
		resp := h.do(t, request{method: http.MethodPut, path: moveChoicePath(alpha.ID), key: key.raw, body: `{"choice":"keep"}`})
		assertError(t, resp, http.StatusConflict, errcode.LinkMoveNotPending)
	})
}

// failingEnds is a store whose end of app fail's rename period fails (with
// err), or, when err is nil, ends nothing, so that the app stays due.
type failingEnds struct {
	*store.Store
	fail uuid.UUID
	err  error
}

func (f *failingEnds) EndRenamePeriod(ctx context.Context, e *linking.RenameEnd) (*linking.RenameEnded, error) {
	if e.AppID == f.fail {
		return nil, f.err
	}
	return f.Store.EndRenamePeriod(ctx, e)
}

// One app whose end fails, or that stays due, neither stops the sweep
// from ending the periods after it nor keeps it sweeping forever.
func TestSweepGoesOnPastAFailingEnd(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newCustomHarness(t, s)
		o := h.planOrg(t, "Acme", org.PlanGrowth)
		key, _ := h.ownerKey(t, o)
		first := h.createApp(t, key.raw, `{"name":"First"}`)
		second := h.createApp(t, key.raw, `{"name":"Second"}`)
		third := h.createApp(t, key.raw, `{"name":"Third"}`)
		st := h.rename(t, key.raw, first.ID, `{"handle":"first-new"}`).subdomain(t)
		h.clock.Advance(time.Second)
		h.rename(t, key.raw, second.ID, `{"handle":"second-new"}`).subdomain(t)
		h.clock.Advance(time.Second)
		h.rename(t, key.raw, third.ID, `{"handle":"third-new"}`).subdomain(t)
		h.clock.Set(st.RenamePeriod.EndsAt.Add(time.Hour))

		for _, tt := range []struct {
			name string
			err  error
			app  uuid.UUID
		}{
			{name: "an end that fails", err: errors.New("disk full"), app: first.ID},
			{name: "an end that leaves the app due", app: first.ID},
		} {
			t.Run(tt.name, func(t *testing.T) {
				f := &failingEnds{Store: s, fail: tt.app, err: tt.err}
				apps := linking.NewAppService(f, s, linking.AppServiceOptions{DefaultLinkDomain: defaultLinkDomain, Clock: h.clock.Now})
				n, err := apps.SweepRenamePeriods(context.Background())
				if tt.err != nil {
					require.ErrorIs(t, err, tt.err)
					assert.Contains(t, err.Error(), first.ID.String())
				} else {
					require.NoError(t, err)
				}
				for _, id := range []uuid.UUID{second.ID, third.ID} {
					got, err := s.AppByID(context.Background(), o.ID, id)
					require.NoError(t, err)
					assert.Nil(t, got.PreviousLinkDomain, "the apps after the failing one are ended")
				}
				got, err := s.AppByID(context.Background(), o.ID, first.ID)
				require.NoError(t, err)
				assert.NotNil(t, got.PreviousLinkDomain, "the failing app stays due for the next sweep")
				assert.LessOrEqual(t, n, 3)
			})
		}
	})
}
