package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web"
)

// dashHarness is a pages harness that serves links, and so the dashboard.
type dashHarness struct {
	*pagesHarness
	links *linking.LinkService
}

// newDashHarness starts the dashboard over s, with the services opts add.
func newDashHarness(t *testing.T, s *store.Store, opts ...option) *dashHarness {
	t.Helper()
	dh := &dashHarness{}
	dh.pagesHarness = newPagesHarness(t, s, append([]option{withAPI(func(h *harness, o *httpapi.Options) {
		dh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
		})
		o.Links = dh.links
		o.DefaultLinkDomain = linkDomain
		o.Analytics = analytics.NewQueries(h.store, o.Orgs, analytics.QueriesOptions{Clock: h.clock.Now})
	})}, opts...)...)
	return dh
}

// signedIn returns a browser signed in as m.
func (h *dashHarness) signedIn(t testing.TB, m *testMember, ip string) *browser {
	t.Helper()
	b := h.browser(t, ip)
	p := b.signIn(m.email, testPassword, "/dashboard")
	require.Equal(t, http.StatusSeeOther, p.status, "signing in: %s", p.body)
	return b
}

// memberLink creates a link of o as member m would, through the service.
func (h *dashHarness) memberLink(t testing.TB, m *testMember, appID uuid.UUID, slug string) *linking.Link {
	t.Helper()
	user := m.id
	p := &auth.Principal{OrgID: m.org.ID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeLinksWrite}),
		CreatedBy: &user, Role: m.role}
	l, err := h.links.Create(t.Context(), p, linking.CreateLinkInput{DestinationURL: "https://shop.example/" + slug, Slug: &slug, AppID: &appID})
	require.NoError(t, err)
	return l
}

// orgPrincipal acts for o with every scope and no creator.
func orgPrincipal(o *testOrg) *auth.Principal {
	return &auth.Principal{OrgID: o.ID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet(auth.AllScopes)}
}

func linksPath(orgID uuid.UUID) string { return "/dashboard/o/" + orgID.String() + "/links" }

var (
	linkPagePath = regexp.MustCompile(`^/dashboard/o/[0-9a-f-]{36}/links/([0-9a-f-]{36})\?done=created$`)
	listRow      = regexp.MustCompile(`<td data-label="Link"><a href="[^"]+">([^<]+)</a></td>`)
)

// rows returns the titles of a list page's rows, in order.
func rows(body string) []string {
	out := []string{}
	for _, m := range listRow.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestDashboardNeedsASignedInUser(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	orgLinks := linksPath(h.org.ID)
	id := uuid.NewString()
	b := h.browser(t, "198.51.100.30")
	for _, path := range []string{"/dashboard", "/dashboard/o/" + h.org.ID.String(), orgLinks + "?q=spring&state=active", orgLinks + "/new",
		orgLinks + "/" + id, orgLinks + "/" + id + "/edit", orgLinks + "/" + id + "/delete"} {
		p := b.get(path)
		require.Equal(t, http.StatusSeeOther, p.status, "GET %s", path)
		assert.Equal(t, "/login?"+url.Values{"return_to": {path}}.Encode(), p.location(), "GET %s: back here after signing in", path)
	}
	for _, path := range []string{orgLinks, orgLinks + "/" + id, orgLinks + "/" + id + "/pause", orgLinks + "/" + id + "/resume",
		orgLinks + "/" + id + "/delete", orgLinks + "/" + id + "/move"} {
		p := b.do(http.MethodPost, path, url.Values{"confirm": {"yes"}}, nil)
		require.Equal(t, http.StatusSeeOther, p.status, "POST %s", path)
		assert.Equal(t, "/login?return_to=%2Fdashboard", p.location(), "POST %s", path)
	}

	m := h.member(t, auth.RoleAdmin)
	p := b.signIn(m.email, testPassword, orgLinks+"?q=spring&state=active")
	require.Equal(t, http.StatusSeeOther, p.status)
	assert.Equal(t, orgLinks+"?q=spring&state=active", p.location(), "the sign-in goes back to the page asked for")
	p = b.get(p.location())
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Contains(t, p.body, `value="spring"`)
	assert.Equal(t, web.DashboardPolicy.CSP(), p.header.Get("Content-Security-Policy"))
	assert.Equal(t, "no-store", p.header.Get("Cache-Control"))
	assert.Equal(t, "DENY", p.header.Get("X-Frame-Options"))

	p = b.get("/account")
	assert.Contains(t, p.body, `<a href="/dashboard" id="dashboard-link">`, "the account page leads to the dashboard")
}

func TestDashboardHomeAndSwitcher(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		m := h.member(t, auth.RoleMember)
		b := h.signedIn(t, m, "198.51.100.31")
		p := b.get("/dashboard")
		require.Equal(t, http.StatusSeeOther, p.status, "a member of one organization goes to its links")
		assert.Equal(t, linksPath(h.org.ID), p.location())
		p = b.get("/dashboard/o/" + h.org.ID.String())
		assert.Equal(t, linksPath(h.org.ID), p.location(), "an organization's first section is its links")

		other := h.newOrg(t, "Beta")
		_, err := h.orgs.AddMember(t.Context(), other.ID, m.email, auth.RoleAdmin)
		require.NoError(t, err)
		p = b.get("/dashboard")
		require.Equal(t, http.StatusOK, p.status, "a member of several chooses")
		assert.Contains(t, p.body, `<a href="`+linksPath(h.org.ID)+`">Acme</a>`)
		assert.Contains(t, p.body, `<a href="`+linksPath(other.ID)+`">Beta</a>`)

		p = b.get(linksPath(h.org.ID))
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<form class="switch" method="get" action="/dashboard">`, "the switcher works without JavaScript")
		assert.Contains(t, p.body, `<option value="`+h.org.ID.String()+`" selected>Acme (member)</option>`)
		assert.Contains(t, p.body, `<option value="`+other.ID.String()+`">Beta (admin)</option>`)
		assert.Contains(t, p.body, `<a href="`+linksPath(h.org.ID)+`" aria-current="page">Links</a>`)
		assert.Contains(t, p.body, `<a href="/dashboard/o/`+h.org.ID.String()+`/keys">Keys</a>`, "a member is offered their keys")
		assert.Contains(t, p.body, `<a href="/dashboard/o/`+h.org.ID.String()+`/apps">Apps</a>`, "a member reads the apps")
		assert.Contains(t, p.body, `<a href="/dashboard/o/`+h.org.ID.String()+`/settings">Settings</a>`, "every role reads the settings")
		for _, absent := range []string{"/domains", "/team", "/audit", "/installs"} {
			assert.NotContains(t, p.body, `/dashboard/o/`+h.org.ID.String()+absent,
				"a section whose service the server lacks, or one the role may not read, is not in the navigation")
		}

		p = b.get("/dashboard?org=" + other.ID.String())
		require.Equal(t, http.StatusSeeOther, p.status, "the switcher's choice")
		assert.Equal(t, linksPath(other.ID), p.location())
		stranger := h.newOrg(t, "Gamma")
		for _, path := range []string{"/dashboard?org=" + stranger.ID.String(), "/dashboard?org=nonsense",
			linksPath(stranger.ID), "/dashboard/o/nonsense/links", linksPath(uuid.New())} {
			p = b.get(path)
			assert.Equal(t, http.StatusNotFound, p.status, "%s: not a member, so not found", path)
			assert.NotContains(t, p.body, "Gamma")
		}

		require.NoError(t, h.orgs.RemoveMember(t.Context(), other.ID, m.email))
		p = b.get(linksPath(other.ID))
		assert.Equal(t, http.StatusNotFound, p.status, "membership is read on every request: a member who left sees nothing")

		require.NoError(t, h.orgs.RemoveMember(t.Context(), h.org.ID, m.email))
		p = b.get("/dashboard")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="no-orgs"`, "a user of no organization is told how to join one")
	})
}

func TestDashboardLinksJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		m := h.member(t, auth.RoleAdmin)
		b := h.signedIn(t, m, "198.51.100.32")
		list := linksPath(h.org.ID)

		p := b.get(list)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="empty">No links yet. An organization needs an app before its first link`, "the empty state says what to do")

		appID := h.newApp(t, h.org.ID)
		p = b.get(list)
		assert.Contains(t, p.body, `id="empty">No links yet. <a href="`+list+`/new">Create your first link</a>`)

		p = b.get(list + "/new")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<option value="`+appID.String()+`">app</option>`, "the organization's apps")
		assert.Contains(t, p.body, `<option value="`+linkDomain+`">`, "the domains the rules decide among")

		form := url.Values{"destination_url": {"shop.example/spring"}, "slug": {"Spring Sale"}, "name": {"Spring <sale>"},
			"tags": {"mail, spring"}, "app_id": {appID.String()}, "utm_source": {"newsletter"}, "match_window_hours": {"soon"}}
		p = b.post(list, form)
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="f-match_window_hours-error">Must be a whole number of hours.`)
		assert.Contains(t, p.body, `value="Spring &lt;sale&gt;"`, "the form keeps what was typed, escaped")
		assert.Contains(t, p.body, `<option value="`+appID.String()+`" selected>app</option>`)

		form.Set("match_window_hours", "48")
		p = b.post(list, form)
		require.Equal(t, http.StatusBadRequest, p.status, "the service's field errors")
		assert.Regexp(t, `id="f-destination_url-error">[^<]+`, p.body)
		assert.Regexp(t, `id="f-slug-error">[^<]+`, p.body)
		assert.Contains(t, p.body, `aria-invalid="true" aria-describedby="f-slug-error"`)
		assert.Contains(t, p.body, `value="shop.example/spring"`)
		assert.Zero(t, h.count(t, "links", h.org.ID), "nothing was created")

		form.Set("destination_url", "https://shop.example/spring")
		form.Set("slug", "spring")
		form.Set("parameters", `{"injected":[{"key":"ref","value":"mail","mode":"always"}],"forwarding":null,"defaultMode":null,"inheritOrgInjected":true,"suppressedOrgKeys":[]}`)
		form.Set("expires_at", "2031-05-01T12:30")
		form.Set("password", "open sesame")
		p = b.post(list, form)
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		match := linkPagePath.FindStringSubmatch(p.location())
		require.NotNil(t, match, p.location())
		id := uuid.MustParse(match[1])
		l, err := h.links.Get(t.Context(), orgPrincipal(h.org), id)
		require.NoError(t, err)
		assert.Equal(t, "spring", l.Slug)
		assert.Equal(t, "https://shop.example/spring", l.DestinationURL)
		assert.Equal(t, []string{"mail", "spring"}, l.Tags)
		assert.Equal(t, "newsletter", *l.UTMSource)
		assert.Equal(t, 48, *l.MatchWindowHours)
		assert.Equal(t, "2031-05-01T12:30:00Z", l.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z07:00"))
		require.NotNil(t, l.Parameters)
		assert.Equal(t, "ref", l.Parameters.Injected[0].Key)
		require.NotNil(t, l.PasswordHash)
		assert.Equal(t, &m.id, l.CreatedBy, "the link records its member, as a key the member created would")

		p = b.get(p.location())
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="notice">The link was created.`)
		assert.Contains(t, p.body, `<code id="short-url">`+l.ShortURL+`</code>`, "the short URL, selectable")
		assert.Contains(t, p.body, `data-copy="short-url" hidden>Copy</button>`, "the copy button, shown by the script")
		assert.Contains(t, p.body, "<script>"+web.CopyScript+"</script>")
		assert.Contains(t, p.body, `id="qr"`, "a place for the QR code")
		assert.Contains(t, p.body, `id="analytics"`, "a place for the analytics")
		assert.Contains(t, p.body, `id="link-state">Active`)

		p = b.get(list)
		assert.Equal(t, []string{"Spring <sale>"}, rows(p.body))

		link := list + "/" + id.String()
		p = b.get(link + "/edit")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `value="mail, spring"`)
		assert.Contains(t, p.body, `value="2031-05-01T12:30"`)
		assert.Contains(t, p.body, `name="remove_password"`, "a link with a password offers removing it")
		assert.NotContains(t, p.body, "open sesame")
		edit := url.Values{}
		for k, v := range form {
			edit[k] = v
		}
		edit.Del("slug")
		edit.Del("password")
		edit.Set("name", "")
		edit.Set("tags", "summer")
		edit.Set("utm_source", "")
		edit.Set("og_title", "Summer")
		edit.Set("remove_password", "yes")
		edit.Set("expires_at", "2020-01-01T00:00")
		p = b.post(link, edit)
		require.Equal(t, http.StatusBadRequest, p.status, "an expiry in the past")
		assert.Regexp(t, `id="f-expires_at-error">[^<]+`, p.body)
		assert.Contains(t, p.body, `value="Summer"`)
		edit.Set("expires_at", "")
		p = b.post(link, edit)
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, link+"?done=saved", p.location())
		l, err = h.links.Get(t.Context(), orgPrincipal(h.org), id)
		require.NoError(t, err)
		assert.Nil(t, l.Name, "an emptied name is cleared: the slug shows again")
		assert.Nil(t, l.UTMSource)
		assert.Nil(t, l.ExpiresAt)
		assert.Nil(t, l.PasswordHash)
		assert.Equal(t, []string{"summer"}, l.Tags)
		assert.Equal(t, "Summer", *l.OGTitle)
		assert.Equal(t, 48, *l.MatchWindowHours, "an unchanged field is left alone")
		assert.Equal(t, "ref", l.Parameters.Injected[0].Key)

		p = b.get(link)
		require.Equal(t, http.StatusOK, p.status)
		p = b.post(link+"/pause", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, link+"?done=paused", p.location())
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="link-state">Paused`)
		assert.Contains(t, p.body, `id="resume-link"`)
		p = b.get(list + "?state=paused")
		assert.Equal(t, []string{"spring"}, rows(p.body))
		p = b.get(list + "?state=active")
		assert.Contains(t, p.body, `id="empty">No link matches these filters.`)
		p = b.get(link)
		p = b.post(link+"/resume", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status)
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="link-state">Active`)

		p = b.get(link + "/delete")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `name="confirm" value="yes" required`)
		p = b.post(link+"/delete", url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation, no deletion")
		assert.Equal(t, 1, h.count(t, "links", h.org.ID))
		p = b.post(link+"/delete", url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, list+"?done=deleted", p.location())
		assert.Zero(t, h.count(t, "links", h.org.ID))
		assert.Equal(t, http.StatusNotFound, b.get(link).status)
	})
}

func TestDashboardLinkListFilters(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleMember)
	appID := h.newApp(t, h.org.ID)
	for i := range 23 {
		h.memberLink(t, m, appID, fmt.Sprintf("link-%02d", i))
	}
	b := h.signedIn(t, m, "198.51.100.33")
	list := linksPath(h.org.ID)

	p := b.get(list)
	require.Equal(t, http.StatusOK, p.status)
	got := rows(p.body)
	require.Len(t, got, 20, "twenty a page")
	assert.Equal(t, "link-22", got[0], "newest first")
	assert.Contains(t, p.body, `id="count">1 to 20 of 23 links`)
	assert.Contains(t, p.body, `href="`+list+`?page=2&amp;sort=newest&amp;state=all" rel="next"`)
	p = b.get(list + "?page=2&sort=newest&state=all")
	assert.Equal(t, []string{"link-02", "link-01", "link-00"}, rows(p.body))
	assert.Contains(t, p.body, `rel="prev"`)
	p = b.get(list + "?sort=slug&q=link-1")
	assert.Equal(t, []string{"link-10", "link-11", "link-12", "link-13", "link-14", "link-15", "link-16", "link-17", "link-18", "link-19"}, rows(p.body))
	p = b.get(list + "?sort=oldest&page=2")
	assert.Equal(t, []string{"link-20", "link-21", "link-22"}, rows(p.body))
	p = b.get(list + "?page=9")
	require.Equal(t, http.StatusOK, p.status, "past the end: an empty page")
	assert.Empty(t, rows(p.body))

	for name, query := range map[string]string{
		"an unknown state":   "state=expired",
		"an unknown sort":    "sort=clicks",
		"a page of zero":     "page=0",
		"a page not number":  "page=two",
		"a page too far":     "page=100001",
		"a search too long":  "q=" + strings.Repeat("a", 201),
		"a tag too long":     "tag=" + strings.Repeat("t", 51),
		"a search not UTF-8": "q=%ff",
	} {
		p = b.get(list + "?" + query)
		assert.Equal(t, http.StatusBadRequest, p.status, "%s: a page error, not a 500", name)
		assert.Contains(t, p.body, `id="error"`, name)
		assert.Contains(t, p.body, `<form class="filters"`, "%s: the filters stay to be corrected", name)
	}
}

func TestDashboardRoles(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		appID := h.newApp(t, h.org.ID)
		theirs := h.memberLink(t, admin, appID, "admins-link")
		own := h.memberLink(t, member, appID, "members-link")
		b := h.signedIn(t, member, "198.51.100.34")
		list := linksPath(h.org.ID)
		link := list + "/" + theirs.ID.String()

		p := b.get(list)
		assert.Equal(t, []string{"members-link", "admins-link"}, rows(p.body), "a member reads every link")
		assert.Contains(t, p.body, `id="new-link"`, "and may create links")

		p = b.get(link)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="read-only"`)
		for _, action := range []string{`id="edit-link"`, `id="pause-link"`, `id="delete-link"`} {
			assert.NotContains(t, p.body, action, "another's link offers no change to a member")
		}
		assert.Equal(t, http.StatusForbidden, b.get(link+"/edit").status)
		assert.Equal(t, http.StatusForbidden, b.get(link+"/delete").status)
		b.get(list)
		for _, post := range []struct {
			path string
			form url.Values
		}{
			{link, url.Values{"destination_url": {"https://evil.example/"}}},
			{link + "/pause", url.Values{}},
			{link + "/delete", url.Values{"confirm": {"yes"}}},
			{link + "/move", url.Values{"choice": {"keep"}}},
		} {
			p = b.post(post.path, post.form)
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s: the member's role refuses it", post.path)
		}
		l, err := h.links.Get(t.Context(), orgPrincipal(h.org), theirs.ID)
		require.NoError(t, err)
		assert.True(t, l.IsActive)
		assert.Equal(t, theirs.DestinationURL, l.DestinationURL, "nothing changed")

		mine := list + "/" + own.ID.String()
		p = b.get(mine)
		assert.Contains(t, p.body, `id="edit-link"`, "a member changes their own links")
		p = b.post(mine+"/pause", url.Values{})
		assert.Equal(t, http.StatusSeeOther, p.status)

		ab := h.signedIn(t, admin, "198.51.100.35")
		p = ab.get(list + "/" + own.ID.String())
		assert.Contains(t, p.body, `id="edit-link"`, "an admin changes every link")
		p = ab.post(list+"/"+own.ID.String()+"/resume", url.Values{})
		assert.Equal(t, http.StatusSeeOther, p.status)
	})
}

func TestDashboardTenantIsolationAndCSRF(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		other := h.newOrg(t, "Beta")
		otherOwner := h.newMember(t, other, auth.RoleOwner)
		foreign := h.memberLink(t, otherOwner, h.newApp(t, other.ID), "foreign")
		mine := h.memberLink(t, owner, h.newApp(t, h.org.ID), "mine")
		b := h.signedIn(t, owner, "198.51.100.36")
		list := linksPath(h.org.ID)

		f := list + "/" + foreign.ID.String()
		for _, path := range []string{f, f + "/edit", f + "/delete", f + "/qr", list + "/not-an-id", list + "/not-an-id/edit"} {
			p := b.get(path)
			assert.Equal(t, http.StatusNotFound, p.status, "GET %s: another organization's link is not found", path)
			assert.NotContains(t, p.body, "foreign")
		}
		b.get(list)
		for _, path := range []string{f, f + "/pause", f + "/resume", f + "/delete", f + "/move"} {
			p := b.post(path, url.Values{"confirm": {"yes"}, "destination_url": {"https://evil.example/"}, "choice": {"keep"}})
			assert.Equal(t, http.StatusNotFound, p.status, "POST %s", path)
		}
		l, err := h.links.Get(t.Context(), orgPrincipal(other), foreign.ID)
		require.NoError(t, err)
		assert.True(t, l.IsActive)
		assert.Equal(t, 1, h.count(t, "links", other.ID))

		m := list + "/" + mine.ID.String()
		for _, path := range []string{list, m, m + "/pause", m + "/resume", m + "/delete", m + "/move"} {
			form := url.Values{"confirm": {"yes"}, "destination_url": {"https://evil.example/"}, "slug": {"csrf"}}
			p := b.do(http.MethodPost, path, form, nil)
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s without a token", path)
			form.Set(httpapi.AccountCSRFField, b.csrf())
			p = b.do(http.MethodPost, path, form, map[string]string{"Origin": "https://evil.example"})
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s from another site", path)
			p = b.do(http.MethodPost, path, form, map[string]string{"Sec-Fetch-Site": "cross-site"})
			assert.Equal(t, http.StatusForbidden, p.status, "POST %s, cross-site", path)
		}
		l, err = h.links.Get(t.Context(), orgPrincipal(h.org), mine.ID)
		require.NoError(t, err)
		assert.True(t, l.IsActive)
		assert.Equal(t, mine.DestinationURL, l.DestinationURL)
		assert.Equal(t, 1, h.count(t, "links", h.org.ID), "nothing created or deleted")

		big := url.Values{"destination_url": {"https://shop.example/" + strings.Repeat("a", 70<<10)}}
		p := b.post(list, big)
		assert.Equal(t, http.StatusBadRequest, p.status, "a form over the limit")
	})
}

func TestDashboardMoveChoice(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	appID := h.newApp(t, h.org.ID)
	l := h.memberLink(t, owner, appID, "spring")
	b := h.signedIn(t, owner, "198.51.100.37")
	link := linksPath(h.org.ID) + "/" + l.ID.String()

	p := b.get(link)
	require.Equal(t, http.StatusOK, p.status)
	assert.NotContains(t, p.body, `id="move-h"`, "a link on its app's subdomain has no move to choose")

	user := owner.id
	op := &auth.Principal{OrgID: h.org.ID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: &user, Role: auth.RoleOwner}
	handle, confirm := "shop-two", true
	_, err := h.apps.Rename(t.Context(), op, appID, linking.RenameInput{Handle: &handle, Confirm: &confirm})
	require.NoError(t, err)

	p = b.get(link)
	require.Equal(t, http.StatusOK, p.status)
	assert.Contains(t, p.body, `id="move-h"`, "a link on the previous subdomain offers the move choice")
	assert.Contains(t, p.body, "shop-two."+linkDomain)
	p = b.post(link+"/move", url.Values{"choice": {"new_slug"}, "new_slug": {"spring"}})
	assert.Equal(t, http.StatusBadRequest, p.status, "the service's refusal, next to the choice")
	assert.Regexp(t, `id="move-error">[^<]+`, p.body)
	assert.Contains(t, p.body, `id="move-new" name="choice" value="new_slug" checked`, "the choice stays as made")
	p = b.post(link+"/move", url.Values{"choice": {"keep"}})
	require.Equal(t, http.StatusSeeOther, p.status, p.body)
	assert.Equal(t, link+"?done=moved", p.location())
	p = b.get(p.location())
	assert.Contains(t, p.body, `id="notice">The move choice was saved.`)
}

// TestDashboardLinkQR proves the link page's QR code and its downloads: the
// image on the page and the PNG both read back as the short URL, the SVG is
// offered too, and a bad size is a 400 page.
func TestDashboardLinkQR(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	l := h.memberLink(t, owner, h.newApp(t, h.org.ID), "qr-me")
	b := h.signedIn(t, owner, "198.51.100.37")
	path := linksPath(h.org.ID) + "/" + l.ID.String()

	p := b.get(path)
	require.Equal(t, http.StatusOK, p.status)
	m := qrImage.FindStringSubmatch(p.body)
	require.NotNil(t, m, "the link page shows its QR code")
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, l.ShortURL, decodeQR(t, img))
	assert.Contains(t, p.body, `href="`+path+`/qr?size=1024"`)
	assert.Contains(t, p.body, `href="`+path+`/qr?format=svg&amp;size=1024"`)

	p = b.get(path + "/qr?size=1024")
	require.Equal(t, http.StatusOK, p.status)
	assert.Equal(t, "image/png", p.header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename="qr-me-qr.png"`, p.header.Get("Content-Disposition"))
	img, err = png.Decode(strings.NewReader(p.body))
	require.NoError(t, err)
	assert.Equal(t, 1024, img.Bounds().Dx())
	assert.Equal(t, l.ShortURL, decodeQR(t, img))

	p = b.get(path + "/qr?format=svg")
	require.Equal(t, http.StatusOK, p.status)
	assert.Equal(t, "image/svg+xml", p.header.Get("Content-Type"))
	assert.Equal(t, "default-src 'none'; frame-ancestors 'none'", p.header.Get("Content-Security-Policy"))
	assert.True(t, strings.HasPrefix(p.body, "<svg "), "an SVG document")

	for _, q := range []string{"?size=5", "?format=gif", "?size=256&size=512", "?colour=red"} {
		p = b.get(path + "/qr" + q)
		assert.Equal(t, http.StatusBadRequest, p.status, "GET qr%s", q)
		assert.Contains(t, p.header.Get("Content-Type"), "text/html", "a page, not an image")
	}
}

// TestDashboardAnalytics proves the analytics page: the organization's and
// a link's totals and breakdowns as the analytics API counts them, a
// member's view limited to their own links, the form's bad values as 400
// pages that keep it, and another organization's link as a 404.
func TestDashboardAnalytics(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newDashHarness(t, s)
	owner := h.member(t, auth.RoleOwner)
	member := h.member(t, auth.RoleMember)
	app := h.newApp(t, h.org.ID)
	mine := h.memberLink(t, owner, app, "owned")
	theirs := h.memberLink(t, member, app, "members")
	other := h.newOrg(t, "Beta")
	foreign := h.memberLink(t, h.newMember(t, other, auth.RoleOwner), h.newApp(t, other.ID), "foreign")

	click := func(l *linking.Link, platform, country string) analytics.Click {
		return analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: l.OrgID, LinkID: l.ID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: h.clock.Now().Add(-time.Hour), Source: analytics.SourceRedirect, Platform: platform, Country: country}
	}
	_, err := s.InsertClicks(t.Context(), []analytics.Click{
		click(mine, "ios", "DE"), click(mine, "ios", "DE"), click(mine, "desktop", "FR"),
		click(theirs, "android", "JP"), click(foreign, "android", "US"),
	})
	require.NoError(t, err)

	b := h.signedIn(t, owner, "198.51.100.38")
	base := "/dashboard/o/" + h.org.ID.String() + "/analytics"
	p := b.get(linksPath(h.org.ID))
	assert.Contains(t, p.body, `href="`+base+`"`, "the navigation offers analytics")

	p = b.get(base)
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Contains(t, p.body, "<strong>4</strong> clicks and <strong>0</strong> attributed installs")
	platforms := breakdownTable(t, p.body, "by-platform")
	assert.Equal(t, map[string]string{"ios": "2", "desktop": "1", "android": "1", "Total": "4"}, platforms)
	assert.Equal(t, map[string]string{"Germany (DE)": "2", "France (FR)": "1", "Japan (JP)": "1", "Total": "4"},
		breakdownTable(t, p.body, "by-country"), "countries by their names")

	p = b.get(linksPath(h.org.ID) + "/" + mine.ID.String())
	assert.Contains(t, p.body, `href="`+base+`?link=`+mine.ID.String()+`"`, "the link page leads to its analytics")
	p = b.get(base + "?link=" + mine.ID.String() + "&days=7&interval=day&tz=Europe/Berlin")
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Contains(t, p.body, "<strong>3</strong> clicks")
	assert.Contains(t, p.body, "(Europe/Berlin)")
	assert.Equal(t, map[string]string{"ios": "2", "desktop": "1", "Total": "3"}, breakdownTable(t, p.body, "by-platform"))

	for _, q := range []string{"?days=5", "?interval=minute", "?tz=Mars/Olympus", "?colour=red", "?days=7&days=30",
		"?tz=" + strings.Repeat("A", 80)} {
		p = b.get(base + q)
		assert.Equal(t, http.StatusBadRequest, p.status, "GET analytics%s", q)
		assert.Contains(t, p.body, `id="show-analytics"`, "the form is kept")
		assert.NotContains(t, p.body, `id="totals"`)
	}
	for _, q := range []string{"?link=" + foreign.ID.String(), "?link=not-an-id"} {
		p = b.get(base + q)
		assert.Equal(t, http.StatusNotFound, p.status, "GET analytics%s", q)
		assert.NotContains(t, p.body, "foreign")
	}

	// A member reads their own links' clicks only.
	mb := h.signedIn(t, member, "198.51.100.39")
	p = mb.get(base)
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.Contains(t, p.body, "<strong>1</strong> clicks")
	assert.Equal(t, map[string]string{"android": "1", "Total": "1"}, breakdownTable(t, p.body, "by-platform"))
}

// breakdownTable reads the clicks of each value from the table of the
// breakdown chart id in body.
func breakdownTable(t testing.TB, body, id string) map[string]string {
	t.Helper()
	start := strings.Index(body, `id="`+id)
	require.GreaterOrEqual(t, start, 0, "the page has the breakdown %s", id)
	rest := body[start:]
	table := rest[strings.Index(rest, "<table"):]
	table = table[:strings.Index(table, "</table>")]
	out := map[string]string{}
	for _, m := range tableRow.FindAllStringSubmatch(table, -1) {
		out[html.UnescapeString(m[1])] = m[2]
	}
	return out
}

var tableRow = regexp.MustCompile(`<tr[^>]*><th scope="row"[^>]*>([^<]*)</th><td[^>]*>([0-9,]+)</td>`)
