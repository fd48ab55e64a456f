package httpapi_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
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
)

// exportDash is a dashboard harness with the click exports, whose worker a
// test runs by hand (run).
type exportDash struct {
	*dashHarness
	exports *analytics.Exports
}

func newExportDash(t *testing.T, s *store.Store) *exportDash {
	t.Helper()
	ed := &exportDash{}
	ed.dashHarness = newDashHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		ed.exports = analytics.NewExports(s, h.orgs, analytics.ExportsOptions{Clock: h.clock.Now, PublicURL: publicURL,
			Owner: "worker-" + uuid.NewString()[:8]})
		o.Exports = ed.exports
	}))
	return ed
}

// run lets the windows settle and runs every waiting export.
func (h *exportDash) run(t testing.TB) {
	t.Helper()
	h.clock.Advance(analytics.DefaultExportSettle)
	for {
		ran, err := h.exports.RunOnce(context.Background())
		require.NoError(t, err)
		if !ran {
			return
		}
	}
}

// clicks stores n clicks of l an hour ago, of platform.
func (h *exportDash) clicks(t testing.TB, l *linking.Link, platform string, n int) {
	t.Helper()
	var cs []analytics.Click
	for range n {
		cs = append(cs, analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: l.OrgID, LinkID: l.ID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: h.clock.Now().Add(-time.Hour), Source: analytics.SourceRedirect, Platform: platform, Country: "DE"})
	}
	_, err := h.store.InsertClicks(context.Background(), cs)
	require.NoError(t, err)
}

func analyticsBase(o *testOrg) string { return "/dashboard/o/" + o.ID.String() + "/analytics" }

var exportPagePath = regexp.MustCompile(`^/dashboard/o/[0-9a-f-]{36}/analytics/exports/([0-9a-f-]{36})$`)

// startExport presses the analytics page's Export button of page (its
// path and query) and returns the new export's page.
func startExport(t testing.TB, b *browser, page string) string {
	t.Helper()
	p := b.get(page)
	require.Equal(t, http.StatusOK, p.status, p.body)
	form := url.Values{"days": {formValue(t, p.body, "days")}}
	if link := formValue(t, p.body, "link"); link != "" {
		form.Set("link", link)
	}
	p = b.post(formAction(t, p.body, "export-clicks"), form)
	require.Equal(t, http.StatusSeeOther, p.status, p.body)
	require.Regexp(t, exportPagePath, p.location())
	return p.location()
}

var (
	exportForm = regexp.MustCompile(`(?s)<section aria-labelledby="export-h" id="export">.*?<form class="inline" method="post" action="([^"]+)">`)
	hiddenIn   = func(name string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)<section aria-labelledby="export-h".*?<input type="hidden" name="` + name + `" value="([^"]*)">`)
	}
)

// formAction is the action of the export form, whose button is id.
func formAction(t testing.TB, body, id string) string {
	t.Helper()
	m := exportForm.FindStringSubmatch(body)
	require.NotNil(t, m, "the page offers the export: %s", body)
	return m[1]
}

// formValue is the export form's hidden field name; "" when absent.
func formValue(t testing.TB, body, name string) string {
	t.Helper()
	if m := hiddenIn(name).FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

// TestDashboardExportJourney proves the dashboard's click export: the
// analytics page's Export button starts an export of its window and link
// through the export service, whose page reloads itself (Refresh) while it
// waits and offers the CSV once complete; the download is the API's CSV,
// streamed as an attachment; the list shows the exports; an expired export
// says so.
func TestDashboardExportJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newExportDash(t, s)
		owner := h.member(t, auth.RoleOwner)
		app := h.newApp(t, h.org.ID)
		spring := h.memberLink(t, owner, app, "spring")
		autumn := h.memberLink(t, owner, app, "autumn")
		h.clicks(t, spring, "ios", 3)
		h.clicks(t, autumn, "android", 2)
		b := h.signedIn(t, owner, "198.51.100.70")
		base := analyticsBase(h.org)

		p := b.get(base + "/exports")
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="empty">No exports yet. Open <a href="`+base+`">the analytics</a>`, "the empty list says what to do")

		page := startExport(t, b, base+"?link="+spring.ID.String()+"&days=7")
		id := exportPagePath.FindStringSubmatch(page)[1]
		e, err := h.exports.Get(t.Context(), orgPrincipal(h.org), uuid.MustParse(id))
		require.NoError(t, err)
		assert.Equal(t, spring.ID, *e.Filters.LinkID, "the export keeps the page's link")
		from, _ := httpapi.AnalyticsWindow(h.clock.Now(), 7)
		assert.Equal(t, from, e.Window.From, "and its window: the page's start")
		assert.Equal(t, h.clock.Now().UTC().Truncate(time.Millisecond), e.Window.To, "to now")

		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="export-state" role="status">Waiting to be counted`)
		assert.Equal(t, "5", p.header.Get("Refresh"), "the page reloads itself while the export waits, without JavaScript")
		assert.Contains(t, p.body, `<a class="button" href="`+page+`" id="refresh">Refresh</a>`)
		assert.Contains(t, p.body, `href="`+page+`?refresh=off" id="toggle-refresh">Stop reloading</a>`)
		assert.Contains(t, p.body, `<a href="`+linksPath(h.org.ID)+"/"+spring.ID.String()+`">The link spring</a>`)
		assert.NotContains(t, p.body, `id="download-csv"`)
		p = b.get(page + "?refresh=off")
		require.Equal(t, http.StatusOK, p.status)
		assert.Empty(t, p.header.Get("Refresh"), "a reader may keep the page still")
		assert.Contains(t, p.body, `href="`+page+`" id="toggle-refresh">Reload it every 5 seconds</a>`)

		p = b.get(page + "/download")
		assert.Equal(t, http.StatusConflict, p.status, "no file before the export is complete")
		assert.Contains(t, p.body, "The export is pending")

		h.run(t)
		p = b.get(page)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="export-state" role="status">Complete: 3 rows.`)
		assert.Empty(t, p.header.Get("Refresh"), "an ended export's page stays still")
		assert.Contains(t, p.body, `href="`+page+`/download" id="download-csv" download>Download CSV</a>`)
		assert.NotContains(t, p.body, `id="refresh"`)

		p = b.get(page + "/download")
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Equal(t, "text/csv; charset=utf-8", p.header.Get("Content-Type"))
		assert.Equal(t, "attachment; filename=clicks-"+id+".csv", p.header.Get("Content-Disposition"))
		assert.Equal(t, "no-store", p.header.Get("Cache-Control"))
		api := h.get(t, h.org.key.raw, exportsPath+"/"+id+"/download")
		require.Equal(t, http.StatusOK, api.status)
		assert.Equal(t, string(api.body), p.body, "the API's CSV, byte for byte")
		records, err := csv.NewReader(bytes.NewReader([]byte(p.body))).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 4, "the header and a row per click of the link")
		assert.Equal(t, analytics.ExportColumns(), records[0])
		for _, r := range records[1:] {
			assert.Equal(t, spring.ID.String(), r[1], "the link's clicks alone")
		}
		head := b.do(http.MethodHead, page+"/download", nil, nil)
		assert.Equal(t, http.StatusOK, head.status)
		assert.Empty(t, head.body)

		every := startExport(t, b, base+"?days=30")
		h.run(t)
		p = b.get(every)
		assert.Contains(t, p.body, `Complete: 5 rows.`, "the organization's export has every link's clicks")
		assert.Contains(t, p.body, `<dt>Clicks of</dt><dd>Every link</dd>`)

		p = b.get(base + "/exports")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="count">1 to 2 of 2 exports`)
		assert.Regexp(t, `(?s)<a href="`+regexp.QuoteMeta(every)+`">.*<a href="`+regexp.QuoteMeta(page)+`">`, p.body, "newest first")
		assert.Contains(t, p.body, `<td data-label="Clicks of">The link spring</td>`)
		assert.NotContains(t, p.body, `id="own-exports"`, "an owner sees every export")

		h.clock.Advance(analytics.DefaultExportLifetime)
		p = b.get(page)
		assert.Contains(t, p.body, `id="export-state" role="status">Expired:`)
		assert.NotContains(t, p.body, `id="download-csv"`)
		p = b.get(page + "/download")
		assert.Equal(t, http.StatusGone, p.status)
		assert.Contains(t, p.body, "The export has expired")
	})
}

// TestDashboardExportRefusals proves that the export pages refuse what the
// API refuses: another organization's export is not found, a member sees
// only their own exports, a role the matrix grants no analytics:read
// starts and reads none, the plan's look-back applies, a bad form or query
// is a 400 or 404 page, and a POST without the form token is refused; none
// of them starts an export.
func TestDashboardExportRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newExportDash(t, s)
		owner := h.member(t, auth.RoleOwner)
		member := h.member(t, auth.RoleMember)
		app := h.newApp(t, h.org.ID)
		mine := h.memberLink(t, owner, app, "mine")
		other := h.newOrg(t, "Beta")
		otherOwner := h.newMember(t, other, auth.RoleOwner)
		foreignLink := h.memberLink(t, otherOwner, h.newApp(t, other.ID), "foreign")
		h.clicks(t, foreignLink, "ios", 1)
		base := analyticsBase(h.org)

		ob := h.signedIn(t, otherOwner, "198.51.100.71")
		foreign := startExport(t, ob, analyticsBase(other))
		foreignID := exportPagePath.FindStringSubmatch(foreign)[1]
		h.run(t)

		b := h.signedIn(t, owner, "198.51.100.72")
		for _, path := range []string{base + "/exports/" + foreignID, base + "/exports/" + foreignID + "/download",
			base + "/exports/not-an-id", base + "/exports/not-an-id/download", base + "/exports/" + uuid.NewString()} {
			p := b.get(path)
			assert.Equal(t, http.StatusNotFound, p.status, "GET %s: another organization's export is not found", path)
			assert.NotContains(t, p.body, "foreign")
		}

		b.get(base)
		for _, bad := range []struct {
			form   url.Values
			status int
		}{
			{url.Values{"days": {"5"}}, http.StatusBadRequest},
			{url.Values{}, http.StatusBadRequest},
			{url.Values{"days": {"7"}, "link": {"not-an-id"}}, http.StatusNotFound},
			{url.Values{"days": {"7"}, "link": {foreignLink.ID.String()}}, http.StatusNotFound},
			{url.Values{"days": {"90"}}, http.StatusForbidden}, // the Free plan reads 30 days back
		} {
			p := b.post(base+"/exports", bad.form)
			assert.Equal(t, bad.status, p.status, "POST %v", bad.form)
			assert.NotContains(t, p.body, "foreign")
		}
		p := b.post(base+"/exports", url.Values{"days": {"90"}})
		assert.Contains(t, p.body, "The export was not started")
		assert.Regexp(t, `id="error">[^<]*30 days`, p.body, "the service's message")

		for _, q := range []string{"?page=0", "?page=x", "?colour=red", "?page=1&page=2"} {
			p = b.get(base + "/exports" + q)
			assert.Equal(t, http.StatusBadRequest, p.status, "GET exports%s", q)
		}

		form := url.Values{"days": {"7"}, "link": {mine.ID.String()}}
		p = b.do(http.MethodPost, base+"/exports", form, nil)
		assert.Equal(t, http.StatusForbidden, p.status, "POST without a token")
		form.Set(httpapi.AccountCSRFField, b.csrf())
		p = b.do(http.MethodPost, base+"/exports", form, map[string]string{"Origin": "https://evil.example"})
		assert.Equal(t, http.StatusForbidden, p.status, "POST from another site")
		assert.Zero(t, h.count(t, "click_exports", h.org.ID), "nothing started")

		// A member sees and downloads their own exports only.
		ownersExport := startExport(t, b, base)
		mb := h.signedIn(t, member, "198.51.100.73")
		membersExport := startExport(t, mb, base)
		h.run(t)
		p = mb.get(base + "/exports")
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="own-exports"`)
		assert.Contains(t, p.body, `href="`+membersExport+`"`)
		assert.NotContains(t, p.body, `href="`+ownersExport+`"`)
		for _, path := range []string{ownersExport, ownersExport + "/download"} {
			assert.Equal(t, http.StatusNotFound, mb.get(path).status, "GET %s: the owner's export, for a member", path)
		}
		assert.Equal(t, http.StatusOK, mb.get(membersExport+"/download").status)
		p = b.get(base + "/exports")
		assert.Contains(t, p.body, `href="`+membersExport+`"`, "an owner sees the member's export")

		// A role the matrix grants no analytics:read: offered nothing,
		// refused everything.
		_, err := s.DB().NewUpdate().Table("memberships").Set("role = ?", "viewer").
			Where("org_id = ? AND user_id = ?", h.org.ID, member.id).Exec(t.Context())
		require.NoError(t, err)
		before := h.count(t, "click_exports", h.org.ID)
		p = mb.get(base)
		assert.Equal(t, http.StatusNotFound, p.status, "no analytics page")
		p = mb.get(linksPath(h.org.ID))
		assert.NotContains(t, p.body, `href="`+base+`"`, "and none in the navigation")
		p = mb.post(base+"/exports", url.Values{"days": {"7"}})
		assert.Equal(t, http.StatusForbidden, p.status, "the service refuses the export")
		for _, path := range []string{base + "/exports", membersExport, membersExport + "/download"} {
			assert.Equal(t, http.StatusForbidden, mb.get(path).status, "GET %s", path)
		}
		assert.Equal(t, before, h.count(t, "click_exports", h.org.ID), "nothing started")
	})
}
