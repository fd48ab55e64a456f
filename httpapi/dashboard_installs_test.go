package httpapi_test

import (
	"context"
	"html"
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
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// recHarness is a dashboard harness that also serves the attribution
// match, the installs and attempts lists, the parameter defaults and the
// team, all on the harness clock.
type recHarness struct {
	*dashHarness
	matcher *attribution.Matcher
}

func newRecHarness(t *testing.T, s *store.Store) *recHarness {
	t.Helper()
	rh := &recHarness{dashHarness: &dashHarness{}}
	dh := rh.dashHarness
	dh.pagesHarness = newPagesHarness(t, s, withTeam(), withAPI(func(h *harness, o *httpapi.Options) {
		dh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
		})
		o.Links = dh.links
		o.DefaultLinkDomain = linkDomain
		rh.matcher = attribution.NewMatcher(h.store, attribution.MatcherOptions{Clock: h.clock.Now})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { rh.matcher.InvalidateAll() })
		o.Attribution = rh.matcher
		o.Lists = attribution.NewLists(h.store, o.Orgs, attribution.ListsOptions{Secret: cursorSecret, Clock: h.clock.Now})
		o.Parameters = org.NewParameters(h.store, org.ParametersOptions{Clock: h.clock.Now})
		o.Clock = h.clock.Now
	}))
	return rh
}

// clickOn writes a redirect click of l from an Android phone at the
// harness's time, as the click recorder's store writes it.
func (h *recHarness) clickOn(t testing.TB, l *linking.Link) uuid.UUID {
	t.Helper()
	d := linking.ClassifyDevice(uaAndroid)
	c := analytics.Click{ID: testkit.IDAt(h.clock.Now()), OrgID: l.OrgID, Domain: l.Domain, Slug: l.Slug, LinkID: l.ID, AppID: l.AppID,
		OccurredAt: h.clock.Now(), Source: analytics.SourceRedirect, Platform: string(d.Platform), OS: d.OS,
		OSVersion: d.OSVersion, DeviceModel: d.Model, IP: "198.51.100.20", UserAgent: uaAndroid}
	n, err := h.store.InsertClicks(context.Background(), []analytics.Click{c})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	return c.ID
}

// installFrom clicks l, waits delay, and matches the install through the
// referrer's click id with sdk; it returns the install's id.
func (h *recHarness) installFrom(t testing.TB, sdk string, l *linking.Link, delay time.Duration) string {
	t.Helper()
	click := h.clickOn(t, l)
	h.clock.Advance(delay)
	resp := h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: sdk, body: matchBody(click)})
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	got := resp.object(t)
	require.Equal(t, true, got["matched"], "body: %s", resp.body)
	h.clock.Advance(time.Second)
	return got["install_id"].(string)
}

// noSignals records an attempt that carries nothing to match on.
func (h *recHarness) noSignals(t testing.TB, sdk string) {
	t.Helper()
	resp := h.do(t, request{method: http.MethodPost, path: "/v1/attribution/match", key: sdk,
		body: `{"platform":"android","fingerprint_version":"basic","sdk_version":"1.0.0"}`})
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	require.JSONEq(t, `{"matched":false}`, string(resp.body))
	h.clock.Advance(time.Second)
}

func installsPath(o *testOrg) string { return "/dashboard/o/" + o.ID.String() + "/installs" }
func attemptsPath(o *testOrg) string { return "/dashboard/o/" + o.ID.String() + "/attempts" }

var (
	recordRow   = regexp.MustCompile(`<tr><td data-label="(?:Installed|Time)"><a href="([^"]+)">`)
	explanation = regexp.MustCompile(`(?s)<div id="explanation">(.*?)</div>`)
	tagText     = regexp.MustCompile(`<[^>]+>`)
)

// recordPaths returns the record pages a list page links to, in order.
func recordPaths(body string) []string {
	out := []string{}
	for _, m := range recordRow.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// explained returns the explanation of a record page as plain text.
func explained(t testing.TB, body string) string {
	t.Helper()
	m := explanation.FindStringSubmatch(body)
	require.NotNil(t, m, "an explanation: %s", body)
	return html.UnescapeString(strings.TrimSpace(tagText.ReplaceAllString(m[1], " ")))
}

// pageLink returns the address of the link with id in body.
func pageLink(t testing.TB, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`href="([^"]+)"[^>]*id="` + id + `"`).FindStringSubmatch(body)
	require.NotNil(t, m, "a link #%s: %s", id, body)
	return html.UnescapeString(m[1])
}

func TestDashboardInstallsJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		admin := h.member(t, auth.RoleAdmin)
		b := h.signedIn(t, admin, "198.51.100.60")
		installs, attempts := installsPath(h.org), attemptsPath(h.org)

		p := b.get(linksPath(h.org.ID))
		assert.Contains(t, p.body, `<a href="`+installs+`">Installs</a>`, "the navigation offers the installs")
		p = b.get(installs)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="empty">No installs yet.`, "the empty state says what to do")
		assert.Contains(t, p.body, `href="`+attempts+`" id="tab-attempts"`, "an admin is offered the attempts")
		p = b.get(attempts)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="empty">No attribution attempts yet.`)

		appID := h.newApp(t, h.org.ID)
		l := h.memberLink(t, admin, appID, "spring")
		sdk := h.sdkKey(t, h.org).raw
		h.noSignals(t, sdk)
		installID := h.installFrom(t, sdk, l, 4*time.Minute)

		p = b.get(installs)
		require.Equal(t, http.StatusOK, p.status, p.body)
		rows := recordPaths(p.body)
		require.Equal(t, []string{installs + "/" + installID}, rows)
		assert.Contains(t, p.body, `<a href="`+linksPath(h.org.ID)+"/"+l.ID.String()+`">spring</a>`, "the link by its title")
		assert.Contains(t, p.body, `<td data-label="Match">Deterministic</td>`)
		assert.Contains(t, p.body, `<td data-label="Reinstall">No</td>`)

		p = b.get(rows[0])
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Equal(t, `Matched by the Android install referrer's click id to a click on the link "spring" 4 minutes before the install.`,
			explained(t, p.body))
		assert.Contains(t, p.body, "The Android install referrer named the click", "the signal in words")
		assert.Contains(t, p.body, `id="record-link">spring</a>`)
		require.Len(t, recordPaths(p.body), 1, "the attempt that created it")

		p = b.get(attempts)
		require.Equal(t, http.StatusOK, p.status, p.body)
		tries := recordPaths(p.body)
		require.Len(t, tries, 2, "newest first: the match, then the attempt with no signals")
		assert.Contains(t, p.body, "By the install referrer&#39;s click id")
		assert.Contains(t, p.body, "Nothing to match on.")
		p = b.get(tries[0])
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, explained(t, p.body), "Matched by the Android install referrer's click id")
		assert.Equal(t, installs+"/"+installID, pageLink(t, p.body, "record-install"))
		p = b.get(tries[1])
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.True(t, strings.HasPrefix(explained(t, p.body), "No match: the request carried nothing to match on"), explained(t, p.body))
		assert.Contains(t, p.body, "<dd>no_signals</dd>", "the reason's code too")

		p = b.get(attempts + "?matched=false")
		require.Equal(t, http.StatusOK, p.status)
		assert.Equal(t, tries[1:], recordPaths(p.body), "the outcome filter")
		assert.Contains(t, p.body, `<option value="false" selected>Not matched</option>`)
		p = b.get(installs + "?link=" + l.ID.String() + "&app=" + appID.String())
		assert.Equal(t, rows, recordPaths(p.body), "the link and app filters")
		p = b.get(installs + "?app=none")
		assert.Contains(t, p.body, `id="empty">No install matches these filters.`, "a filtered empty list says so")
		p = b.get(installs + "?from=" + url.QueryEscape(h.clock.Now().Add(time.Hour).Format("2006-01-02T15:04")))
		assert.Equal(t, http.StatusBadRequest, p.status, "a window that ends before it starts")
		assert.Contains(t, p.body, `id="error">`)

		_, err := h.links.Delete(t.Context(), orgPrincipal(h.org), l.ID)
		require.NoError(t, err)
		p = b.get(installs)
		assert.Contains(t, p.body, `<td data-label="Link">Deleted link</td>`, "a deleted link is said to be so")
		p = b.get(rows[0])
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, explained(t, p.body), "to a click on a link since deleted")
	})
}

// TestDashboardInstallsPagesAndRefusals proves the pages through the
// API's cursors (Next, then Previous back to the first page), the 400
// pages of a bad address or value with the form kept, the 404 of another
// organization's records, and the Free plan's look-back on a record page.
func TestDashboardInstallsPagesAndRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		sdk := h.sdkKey(t, h.org).raw
		h.newApp(t, h.org.ID)
		for range 51 {
			h.noSignals(t, sdk)
			h.clock.Advance(2 * time.Second)
		}
		b := h.signedIn(t, owner, "198.51.100.61")
		attempts := attemptsPath(h.org)

		p := b.get(attempts)
		require.Equal(t, http.StatusOK, p.status, p.body)
		first := recordPaths(p.body)
		require.Len(t, first, 50, "fifty a page")
		assert.NotContains(t, p.body, `id="prev-page"`)
		next := pageLink(t, p.body, "next-page")
		p = b.get(next)
		require.Equal(t, http.StatusOK, p.status, p.body)
		second := recordPaths(p.body)
		require.Len(t, second, 1)
		assert.NotContains(t, second, first[49], "the next page continues where the first ended")
		assert.NotContains(t, p.body, `id="next-page"`)
		prev := pageLink(t, p.body, "prev-page")
		assert.Equal(t, attempts, prev, "back to the first page")
		assert.Equal(t, first, recordPaths(b.get(prev).body))

		for _, bad := range []string{"?nope=1", "?matched=true&matched=false", "?cursor=" + strings.Repeat("a", 600),
			"?cursor=not-a-cursor", "?matched=maybe", "?app=nonsense", "?from=soon"} {
			p = b.get(attempts + bad)
			assert.Equal(t, http.StatusBadRequest, p.status, "GET %s", bad)
			assert.Contains(t, p.body, `id="error">`, "GET %s", bad)
			assert.Empty(t, recordPaths(p.body), "GET %s", bad)
		}
		p = b.get(attempts + "?from=soon&app=none")
		assert.Contains(t, p.body, `id="from" name="from" type="datetime-local" value="soon"`, "the form keeps what was typed")
		assert.Contains(t, p.body, "From must be a date and time")
		p = b.get(installsPath(h.org) + "?link=not-a-link")
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "Link id must be a UUID.")
		assert.Contains(t, p.body, `value="not-a-link"`)

		other := h.newOrg(t, "Beta")
		h.newApp(t, other.ID)
		theirSDK := h.sdkKey(t, other).raw
		h.noSignals(t, theirSDK)
		theirs, err := h.store.ListAttempts(t.Context(), attribution.AttemptFilter{OrgID: other.ID, From: start, To: h.clock.Now().Add(time.Hour)}, 1)
		require.NoError(t, err)
		require.Len(t, theirs, 1)
		for _, path := range []string{attempts + "/" + theirs[0].ID.String(), installsPath(h.org) + "/" + uuid.NewString(),
			attempts + "/not-an-id", installsPath(h.org) + "/not-an-id", attemptsPath(other), installsPath(other)} {
			assert.Equal(t, http.StatusNotFound, b.get(path).status, "GET %s", path)
		}

		h.clock.Advance(31 * 24 * time.Hour)
		b = h.signedIn(t, owner, "198.51.100.61")
		p = b.get(first[0])
		assert.Equal(t, http.StatusForbidden, p.status, "a Free plan reads the last 30 days")
		assert.Contains(t, p.body, "last 30 days")
	})
}

// TestDashboardInstallsRoles proves what each role is offered: a member
// sees the installs of their own links, no attempts tab, and the attempts
// pages refuse them; owners and admins see everything.
func TestDashboardInstallsRoles(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		appID := h.newApp(t, h.org.ID)
		sdk := h.sdkKey(t, h.org).raw
		theirs := h.installFrom(t, sdk, h.memberLink(t, admin, appID, "admins"), time.Minute)
		own := h.installFrom(t, sdk, h.memberLink(t, member, appID, "mine"), time.Minute)
		installs, attempts := installsPath(h.org), attemptsPath(h.org)

		b := h.signedIn(t, member, "198.51.100.62")
		p := b.get(installs)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Equal(t, []string{installs + "/" + own}, recordPaths(p.body), "a member sees the installs of their own links")
		assert.Contains(t, p.body, `id="own-installs"`)
		assert.NotContains(t, p.body, `id="tab-attempts"`, "and is offered no attempts")
		assert.NotContains(t, p.body, `/audit"`, "nor the audit log")
		p = b.get(installs + "/" + own)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, explained(t, p.body), "Owners and admins see the attempt that explains how.")
		assert.Empty(t, recordPaths(p.body), "no attempt listed")
		assert.Equal(t, http.StatusNotFound, b.get(installs+"/"+theirs).status, "another member's link's install")
		p = b.get(attempts)
		assert.Equal(t, http.StatusForbidden, p.status, "the attempts list refuses a member (SPEC.md rule 8)")
		assert.Empty(t, recordPaths(p.body))
		tries, err := h.store.ListAttempts(t.Context(), attribution.AttemptFilter{OrgID: h.org.ID, From: start, To: h.clock.Now().Add(time.Hour)}, 10)
		require.NoError(t, err)
		require.NotEmpty(t, tries)
		assert.Equal(t, http.StatusForbidden, b.get(attempts+"/"+tries[0].ID.String()).status)

		ab := h.signedIn(t, admin, "198.51.100.63")
		p = ab.get(installs)
		assert.ElementsMatch(t, []string{installs + "/" + own, installs + "/" + theirs}, recordPaths(p.body), "an admin sees every install")
		assert.NotContains(t, p.body, `id="own-installs"`)
	})
}
