package httpapi_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// appsDash is a dashboard harness for the app and domain pages: custom
// domains verified against a DNS server on loopback, the link domains'
// resolver in the API (which the app pages ask what the link domains
// serve) and a link-domain server over the same resolver.
type appsDash struct {
	*dashHarness
	dns      *dnstest.Server
	domains  *linking.DomainService
	resolver *linking.Resolver
	site     *httptest.Server
}

func newAppsDash(t *testing.T, s *store.Store) *appsDash {
	t.Helper()
	ad := &appsDash{dashHarness: &dashHarness{}, dns: dnstest.Start(t)}
	lookup, err := linking.NewDNSLookup(ad.dns.Addr)
	require.NoError(t, err)
	ad.pagesHarness = newPagesHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		ad.resolver = linking.NewResolver(h.store, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: h.clock.Now})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { ad.resolver.InvalidateAll() })
		ad.domains = linking.NewDomainService(h.store, h.store, linking.DomainServiceOptions{
			Reserved: linking.ReservedDomains{DefaultLinkDomain: linkDomain, ServiceHosts: []string{"localhost", "127.0.0.1"},
				CNAMETarget: cnameTarget},
			Lookup: lookup, VerifyTimeout: 300 * time.Millisecond, Cache: ad.resolver, Clock: h.clock.Now,
		})
		h.planListener = ad.domains
		ad.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain, ShortURLBase: "http://{domain}:8080", Clock: h.clock.Now,
			HashPassword: func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:        ad.resolver, CustomDomains: ad.domains,
		})
		o.Links, o.Domains, o.Resolver, o.DefaultLinkDomain = ad.links, ad.domains, ad.resolver, linkDomain
	}))
	ad.site = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{Resolver: ad.resolver, Clock: ad.clock.Now}))
	t.Cleanup(ad.site.Close)
	return ad
}

// fetch reads path on the link domain host: its status and body.
func (h *appsDash) fetch(t testing.TB, host, path string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, h.site.URL+path, nil)
	require.NoError(t, err)
	r.Host = host
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// growth moves the harness's organization to the Growth plan: apps and
// custom domains to spare.
func (h *appsDash) growth(t testing.TB) {
	t.Helper()
	_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanGrowth)
	require.NoError(t, err)
}

// dashApp reads app id as the API would.
func (h *appsDash) dashApp(t testing.TB, id uuid.UUID) *linking.App {
	t.Helper()
	a, err := h.apps.Get(t.Context(), orgPrincipal(h.org), id)
	require.NoError(t, err)
	return a
}

func appsPath(orgID uuid.UUID) string { return "/dashboard/o/" + orgID.String() + "/apps" }

var (
	appPagePath = regexp.MustCompile(`^/dashboard/o/[0-9a-f-]{36}/apps/([0-9a-f-]{36})\?done=created$`)
	jsonBlock   = regexp.MustCompile(`(?s)<pre class="json" id="([a-z]+)-json">(.*?)</pre>`)
	appRow      = regexp.MustCompile(`<td data-label="App"><a href="[^"]+">([^<]+)</a>`)
)

// shownJSON returns the association files' bodies a page shows, by id.
func shownJSON(body string) map[string]string {
	out := map[string]string{}
	for _, m := range jsonBlock.FindAllStringSubmatch(body, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

const fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

func TestDashboardAppsJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		owner := h.member(t, auth.RoleOwner)
		b := h.signedIn(t, owner, "198.51.100.70")
		apps := appsPath(h.org.ID)

		p := b.get(linksPath(h.org.ID))
		assert.Contains(t, p.body, `<a href="`+apps+`">Apps</a>`, "the navigation offers the apps")
		assert.Contains(t, p.body, `<a href="/dashboard/o/`+h.org.ID.String()+`/domains">Domains</a>`)
		assert.Contains(t, p.body, `id="empty">No links yet. An organization needs an app before its first link: <a href="`+apps+`/new">create one</a>`,
			"the links' empty state leads to the app form")
		p = b.get(apps)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="empty">No apps yet. <a href="`+apps+`/new">Create your first app</a>`)
		assert.Contains(t, p.body, `id="app-plan">The Growth plan allows 10 apps; the organization has 0.`)

		p = b.get(apps + "/new")
		require.Equal(t, http.StatusOK, p.status)
		form := url.Values{"name": {"Shop <one>"}, "ios_bundle_id": {"com acme"}, "ios_team_id": {"ABCDE12345"},
			"ios_app_store_url": {"apps.apple.com/app/id1"}, "ios_universal_link_paths": {"/products/*\r\n\r\nno-slash"},
			"android_package_name": {"com.acme.shop"}, "android_sha256_fingerprints": {fingerprint + "\nnot-a-fingerprint"}}
		p = b.post(apps, form)
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Regexp(t, `id="f-ios_bundle_id-error">[^<]+`, p.body)
		assert.Regexp(t, `id="f-ios_app_store_url-error">[^<]+`, p.body)
		assert.Contains(t, p.body, `id="f-ios_universal_link_paths-error">Line 2: `, "an item's error names its line (empty lines dropped)")
		assert.Contains(t, p.body, `id="f-android_sha256_fingerprints-error">Line 2: Must be a SHA-256 fingerprint`)
		assert.Contains(t, p.body, `value="Shop &lt;one&gt;"`, "the form keeps what was typed, escaped")
		assert.Contains(t, p.body, "not-a-fingerprint</textarea>")
		p = b.post(apps, url.Values{"name": {"  "}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="f-name-error">Give the app a name`)
		assert.Zero(t, h.count(t, "apps", h.org.ID), "nothing was created")

		form.Set("ios_bundle_id", "com.acme.shop")
		form.Set("ios_app_store_url", "https://apps.apple.com/app/id1")
		form.Set("ios_universal_link_paths", "/products/*\r\n/offers/*\r\n")
		form.Set("android_sha256_fingerprints", strings.ToLower(fingerprint))
		p = b.post(apps, form)
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		match := appPagePath.FindStringSubmatch(p.location())
		require.NotNil(t, match, p.location())
		app := h.dashApp(t, uuid.MustParse(match[1]))
		assert.Equal(t, "Shop <one>", app.Name)
		assert.Equal(t, "com.acme.shop", *app.IOSBundleID)
		assert.Equal(t, "https://apps.apple.com/app/id1", *app.IOSAppStoreURL)
		assert.Equal(t, []string{"/products/*", "/offers/*"}, app.IOSUniversalLinkPaths)
		assert.Equal(t, []string{fingerprint}, app.AndroidSHA256Fingerprints, "stored as the API stores it")
		assert.Nil(t, app.IOSAppStoreID, "an empty field is null")
		assert.Nil(t, app.AndroidAppLinksPaths)

		p = b.get(p.location())
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="notice">The app was created.`)
		assert.Contains(t, p.body, `id="link-domain">`+app.LinkDomain+`<`)
		assert.Contains(t, p.body, `id="rename-app"`, "an owner is offered the rename")
		shown := shownJSON(p.body)
		for id, path := range map[string]string{"aasa": httpapi.AASAPath, "assetlinks": httpapi.AssetLinksPath} {
			status, served := h.fetch(t, app.LinkDomain, path)
			require.Equal(t, http.StatusOK, status, served)
			assert.Equal(t, served, shown[id], "%s: the page shows the bytes the link domain serves", id)
			assert.Contains(t, p.body, `<td data-label="Address" class="mono">https://`+app.LinkDomain+path+`</td><td data-label="Served"><strong>Yes</strong>`)
		}
		assert.Contains(t, shown["aasa"], `"ABCDE12345.com.acme.shop"`)
		assert.Contains(t, p.body, `data-copy="aasa-json"`)

		edit := h.appPath(app.ID) + "/edit"
		p = b.get(edit)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, "/products/*\n/offers/*</textarea>", "a list is shown one item a line")
		form = url.Values{"name": {"Shop"}, "ios_bundle_id": {"com.acme.shop"}, "ios_team_id": {""},
			"ios_app_store_url": {"https://apps.apple.com/app/id1"}, "ios_universal_link_paths": {"/products/*\n/offers/*"},
			"android_package_name": {"com.acme.shop"}, "android_sha256_fingerprints": {""}, "android_app_links_paths": {"/a/*"}}
		p = b.post(h.appPath(app.ID), form)
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, h.appPath(app.ID)+"?done=saved", p.location())
		saved := h.dashApp(t, app.ID)
		assert.Equal(t, "Shop", saved.Name)
		assert.Nil(t, saved.IOSTeamID, "an emptied field is cleared")
		assert.Nil(t, saved.AndroidSHA256Fingerprints)
		assert.Equal(t, []string{"/a/*"}, saved.AndroidAppLinksPaths)
		assert.Equal(t, app.IOSUniversalLinkPaths, saved.IOSUniversalLinkPaths)

		p = b.get(p.location())
		assert.Empty(t, shownJSON(p.body), "no file is shown while fields are missing")
		assert.Contains(t, p.body, `id="aasa-missing">Not served: the app has no iOS team ID (ios_team_id).`)
		assert.Contains(t, p.body, `id="assetlinks-missing">Not served: the app has no SHA-256 certificate fingerprint (android_sha256_fingerprints).`)
		assert.Contains(t, p.body, `<strong>No</strong>: it answers 404 until the app has its iOS team ID (ios_team_id).`)
		status, body := h.fetch(t, app.LinkDomain, httpapi.AASAPath)
		assert.Equal(t, http.StatusNotFound, status)
		assert.Contains(t, body, `"missing_fields":["ios_team_id"]`, "the link domain agrees")
		assert.NotContains(t, p.body, "data-copy", "no copy button without a file")
		assert.NotContains(t, p.body, "<script")

		other := h.createApp(t, h.org.key.raw, `{"name":"Other","android_package_name":"com.acme.other"}`)
		form.Set("android_package_name", "com.acme.other")
		p = b.post(h.appPath(app.ID), form)
		require.Equal(t, http.StatusConflict, p.status, "409 DUPLICATE_APP")
		assert.Regexp(t, `id="f-android_package_name-error">Another app of this organization already has this Android package name`, p.body)
		assert.Equal(t, "com.acme.shop", *h.dashApp(t, app.ID).AndroidPackageName, "unchanged")

		p = b.get(apps + "?q=OTHER")
		assert.Equal(t, []string{"Other"}, appRows(p.body), "the search")
		p = b.get(apps)
		assert.Equal(t, []string{"Shop", "Other"}, appRows(p.body), "oldest first")
		assert.Equal(t, http.StatusBadRequest, b.get(apps+"?page=0").status)

		key := h.sdkKeyFor(t, other.ID)
		del := h.appPath(other.ID) + "/delete"
		p = b.get(del)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `name="confirm"`)
		p = b.post(del, url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation")
		assert.Equal(t, 2, h.count(t, "apps", h.org.ID))
		p = b.post(del, url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, apps+"?done=deleted", p.location())
		assert.Equal(t, 1, h.count(t, "apps", h.org.ID))
		assert.Equal(t, http.StatusUnauthorized, h.get(t, key, "/v1/sdk/validate").status, "the SDK key tied to it is revoked")
		assert.Equal(t, http.StatusNotFound, b.get(h.appPath(other.ID)).status)
	})
}

// appPath is the page of app id in the harness's organization.
func (h *appsDash) appPath(id uuid.UUID) string { return appsPath(h.org.ID) + "/" + id.String() }

// sdkKeyFor creates an SDK key tied to app id and returns its raw value.
func (h *appsDash) sdkKeyFor(t testing.TB, id uuid.UUID) string {
	t.Helper()
	k, err := h.keys.CreateFor(t.Context(), h.org.ID, nil, "", auth.CreateKeyInput{Name: "sdk", Type: auth.KeyTypeSDK, AppID: &id})
	require.NoError(t, err)
	return k.RawKey
}

// appRows returns the names of an app list's rows, in order.
func appRows(body string) []string {
	out := []string{}
	for _, m := range appRow.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestDashboardAppRename(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		owner := h.member(t, auth.RoleOwner)
		b := h.signedIn(t, owner, "198.51.100.71")
		app := h.iosApp(t, h.org.key.raw, "Shop")
		old := app.LinkDomain
		next := "shop-two." + linkDomain
		spring := h.memberLink(t, owner, app.ID, "spring")
		busy := h.memberLink(t, owner, app.ID, "busy")
		h.storeLink(t, &app, next, "busy") // busy's slug is taken on the new subdomain
		page := h.appPath(app.ID)
		rename := page + "/rename"

		p := b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.NotContains(t, p.body, `id="rename-h"`, "no rename in progress")
		p = b.get(rename)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, "<code>"+old+"</code>")
		assert.NotContains(t, p.body, `id="confirm"`, "no checkbox before the service asks")

		p = b.post(rename, url.Values{"handle": {"Shop Two"}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Regexp(t, `id="f-handle-error">Must be 3 to 40 lowercase`, p.body)
		assert.Contains(t, p.body, `value="Shop Two"`, "the handle as typed")
		p = b.post(rename, url.Values{"handle": {"shop-two"}})
		require.Equal(t, http.StatusConflict, p.status, "CONFIRMATION_REQUIRED")
		assert.Contains(t, p.body, `id="confirm-links">2 links use <code>`+old+`</code>`)
		assert.Contains(t, p.body, `id="confirm" name="confirm" value="yes" required`)
		assert.Contains(t, p.body, `value="shop-two"`)
		assert.Equal(t, old, h.dashApp(t, app.ID).LinkDomain, "not renamed")

		p = b.post(rename, url.Values{"handle": {"shop-two"}, "confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, page+"?done=renamed", p.location())
		renamed := h.dashApp(t, app.ID)
		assert.Equal(t, next, renamed.LinkDomain)
		require.NotNil(t, renamed.PreviousLinkDomain)
		assert.Equal(t, old, *renamed.PreviousLinkDomain)
		var found bool
		for _, e := range h.auditEvents(t, h.org.key.raw) {
			if e.Action == "app.renamed" {
				found = true
				assert.Equal(t, "user", e.ActorType)
				require.NotNil(t, e.ActorID)
				assert.Equal(t, owner.id.String(), *e.ActorID, "the user is the actor")
				assert.Equal(t, app.ID.String(), e.TargetID)
				assert.Equal(t, old, e.Details["previous_link_domain"])
				assert.Equal(t, "shop-two", e.Details["handle"])
				assert.NotEmpty(t, e.Details["key_id"])
			}
		}
		assert.True(t, found, "the rename is audited as through the API")

		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="link-domain">`+next+`<`)
		assert.Contains(t, p.body, `id="rename-period">The previous subdomain <code>`+old+`</code>`)
		assert.Contains(t, p.body, "extensions used: 0, left: 2")
		assert.Contains(t, p.body, `<dt>Moving</dt><dd>1 (`)
		assert.Contains(t, p.body, `<dt>Waiting</dt><dd>1 (`)
		assert.Contains(t, p.body, `<ul id="waiting-links"><li><a href="`+linksPath(h.org.ID)+"/"+busy.ID.String()+`">`+old+`/busy</a></li></ul>`,
			"the waiting link, leading to its move choice")
		assert.NotContains(t, p.body, spring.ID.String(), "a link free to move does not wait")
		assert.NotContains(t, p.body, `id="rename-app"`, "no second rename while the period is open")
		for _, host := range []string{next, old} {
			assert.Contains(t, p.body, `https://`+host+httpapi.AASAPath+`</td><td data-label="Served"><strong>Yes</strong>`, host)
		}

		before := *renamed.RenameEndsAt
		for i := 1; i <= 2; i++ {
			p = b.post(page+"/extend", url.Values{})
			require.Equal(t, http.StatusSeeOther, p.status, p.body)
			assert.Equal(t, page+"?done=extended", p.location())
		}
		ext := h.dashApp(t, app.ID)
		assert.Equal(t, before.Add(2*linking.RenamePeriod), *ext.RenameEndsAt, "two extensions of 30 days")
		p = b.get(page)
		assert.NotContains(t, p.body, `id="extend"`, "no extension left to offer")
		p = b.post(page+"/extend", url.Values{})
		assert.Equal(t, http.StatusConflict, p.status, "RENAME_EXTENSION_LIMIT")
		assert.Contains(t, p.body, "extensions")

		h.clock.Set(ext.RenameEndsAt.Add(time.Minute))
		b = h.signedIn(t, owner, "198.51.100.71") // the session has long expired
		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.NotContains(t, p.body, `id="rename-h"`, "the period has ended")
		assert.Contains(t, p.body, `id="rename-app"`)
		assert.NotContains(t, p.body, "https://"+old+httpapi.AASAPath, "the old subdomain is no longer one of the app's")
	})
}

func TestDashboardAppDefaultLinkDomain(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		admin := h.member(t, auth.RoleAdmin)
		b := h.signedIn(t, admin, "198.51.100.72")
		app := h.iosApp(t, h.org.key.raw, "Shop")
		live := h.liveDomainOf(t, "go.acme.example")
		page := h.appPath(app.ID)

		p := b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<option value="`+app.LinkDomain+`" selected>`+app.LinkDomain+` (the app&#39;s subdomain)</option>`)
		assert.Contains(t, p.body, `<option value="go.acme.example">go.acme.example (custom domain)</option>`)
		assert.NotContains(t, p.body, `<option value="`+linkDomain+`"`, "a new app may not use the service's domain")

		p = b.post(page+"/default-domain", url.Values{"domain": {linkDomain}})
		require.Equal(t, http.StatusUnprocessableEntity, p.status, "INVALID_DOMAIN")
		assert.Regexp(t, `id="f-domain-error">[^<]+`, p.body)
		assert.Contains(t, p.body, `<option value="`+linkDomain+`" selected>`, "the choice as sent")
		assert.Equal(t, app.LinkDomain, h.dashApp(t, app.ID).DefaultLinkDomain, "unchanged")

		p = b.post(page+"/default-domain", url.Values{"domain": {live}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, page+"?done=default", p.location())
		assert.Equal(t, live, h.dashApp(t, app.ID).DefaultLinkDomain)
		status, served := h.fetch(t, live, httpapi.AASAPath)
		require.Equal(t, http.StatusOK, status)
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="default-domain">`+live+`<`)
		assert.Contains(t, p.body, `https://`+live+httpapi.AASAPath+`</td><td data-label="Served"><strong>Yes</strong>`)
		assert.Equal(t, served, shownJSON(p.body)["aasa"])

		_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanFree)
		require.NoError(t, err)
		p = b.get(page)
		assert.Contains(t, p.body, `https://`+live+httpapi.AASAPath+`</td><td data-label="Served"><strong>No</strong>: it answers 404: the custom domain is not live`,
			"a suspended default serves no files, and the page says why")
		assert.Contains(t, p.body, `<option value="`+live+`" selected>`+live+` (no longer usable: choose another)</option>`)
		status, _ = h.fetch(t, live, httpapi.AASAPath)
		assert.Equal(t, http.StatusNotFound, status, "the link domain agrees")

		p = b.post(page+"/default-domain", url.Values{"domain": {""}})
		require.Equal(t, http.StatusSeeOther, p.status, "empty is the app's subdomain (null)")
		assert.Equal(t, app.LinkDomain, h.dashApp(t, app.ID).DefaultLinkDomain)
	})
}

// liveDomainOf adds name to the harness's organization and verifies it
// against the DNS server.
func (h *appsDash) liveDomainOf(t testing.TB, name string) string {
	t.Helper()
	p := orgPrincipal(h.org)
	d, err := h.domains.Create(t.Context(), p, linking.CreateDomainInput{Domain: apitype.Some(name)})
	require.NoError(t, err)
	h.dns.SetCNAME(name, cnameTarget)
	res, err := h.domains.Verify(t.Context(), p, d.ID)
	require.NoError(t, err)
	require.True(t, res.Verified)
	return d.Domain
}

func TestDashboardAppsRolesIsolationAndCSRF(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAppsDash(t, s)
		h.growth(t)
		app := h.iosApp(t, h.org.key.raw, "Shop")
		owner := h.member(t, auth.RoleOwner)
		h.memberLink(t, owner, app.ID, "spring")
		member := h.member(t, auth.RoleMember)
		other := h.newOrg(t, "Beta")
		foreign := h.createApp(t, other.key.raw, `{"name":"Theirs","ios_bundle_id":"com.beta.app","ios_team_id":"ZZZZZ99999"}`)
		apps := appsPath(h.org.ID)
		page := h.appPath(app.ID)

		b := h.signedIn(t, member, "198.51.100.73")
		p := b.get(apps)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<a href="`+apps+`" aria-current="page">Apps</a>`, "a member reads the apps")
		assert.NotContains(t, p.body, `id="new-app"`, "and is offered no creation")
		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="read-only"`)
		for _, absent := range []string{`id="edit-app"`, `id="delete-app"`, `id="rename-app"`, `id="extend"`, `name="domain"`} {
			assert.NotContains(t, p.body, absent, "a member is not offered %s", absent)
		}
		assert.Contains(t, p.body, `id="aasa-json"`, "but sees the files")
		for _, path := range []string{apps + "/new", page + "/edit", page + "/delete", page + "/rename"} {
			assert.Equal(t, http.StatusForbidden, b.get(path).status, "GET %s", path)
		}
		posts := map[string]url.Values{
			apps:                     {"name": {"Sneaky"}},
			page:                     {"name": {"Renamed"}},
			page + "/delete":         {"confirm": {"yes"}},
			page + "/rename":         {"handle": {"sneaky"}, "confirm": {"yes"}},
			page + "/extend":         {},
			page + "/default-domain": {"domain": {""}},
		}
		for path, form := range posts {
			b.get(apps)
			assert.Equal(t, http.StatusForbidden, b.post(path, form).status, "POST %s", path)
		}
		got := h.dashApp(t, app.ID)
		assert.Equal(t, "Shop", got.Name, "nothing changed")
		assert.Equal(t, app.LinkDomain, got.LinkDomain)
		assert.Equal(t, 1, h.count(t, "apps", h.org.ID))

		theirs := apps + "/" + foreign.ID.String()
		for _, path := range []string{theirs, theirs + "/edit", theirs + "/delete", theirs + "/rename", apps + "/not-an-id"} {
			assert.Equal(t, http.StatusNotFound, b.get(path).status, "GET %s", path)
		}
		assert.Equal(t, http.StatusNotFound, b.get(appsPath(other.ID)).status, "another organization's apps page")

		admin := h.member(t, auth.RoleAdmin)
		ab := h.signedIn(t, admin, "198.51.100.74")
		for _, suffix := range []string{"", "/delete", "/rename", "/extend", "/default-domain"} {
			ab.get(apps)
			p = ab.post(theirs+suffix, url.Values{"name": {"Mine"}, "confirm": {"yes"}, "handle": {"mine-now"}, "domain": {""}})
			assert.Equal(t, http.StatusNotFound, p.status, "POST %s: another organization's app", theirs+suffix)
		}
		assert.Equal(t, "Theirs", h.createdApp(t, other, foreign.ID).Name, "another organization's app is untouched")

		for path, form := range posts {
			form.Set("confirm", "yes")
			assert.Equal(t, http.StatusForbidden, ab.do(http.MethodPost, path, form, nil).status, "POST %s without a token", path)
		}
		assert.Equal(t, "Shop", h.dashApp(t, app.ID).Name, "nothing changed")
		assert.Equal(t, 1, h.count(t, "apps", h.org.ID))

		anon := h.browser(t, "198.51.100.75")
		p = anon.get(page)
		assert.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/login?"+url.Values{"return_to": {page}}.Encode(), p.location())
	})
}

// createdApp reads app id of organization o.
func (h *appsDash) createdApp(t testing.TB, o *testOrg, id uuid.UUID) *linking.App {
	t.Helper()
	a, err := h.apps.Get(t.Context(), orgPrincipal(o), id)
	require.NoError(t, err)
	return a
}
