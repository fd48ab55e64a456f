package httpapi_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserDashboardLinks walks the dashboard's links journey in headless
// Chromium, without help from the test but the app (made through the store;
// TestBrowserDashboardAppsAndDomains walks the app form): sign in from the
// dashboard's address, pick the organization, create a link in the form
// (after a refused try), find it in the list, edit it, pause and resume it,
// and delete it through its confirmation. Every page on the way is checked
// at a desktop's and a phone's size for overflow and axe-core's serious and
// critical rules.
func TestBrowserDashboardLinks(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newDashHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleOwner)
	beta := h.newOrg(t, "Beta")
	_, err := h.orgs.AddMember(t.Context(), beta.ID, m.email, auth.RoleMember)
	require.NoError(t, err)
	appID := h.newApp(t, h.org.ID)
	base := h.srv.URL
	list := base + linksPath(h.org.ID)

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 3*time.Minute)
	step := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(browser, 40*time.Second)
	}

	require.True(t, t.Run("sign in and pick the organization", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/dashboard")))
		waitForID(t, ctx, "email")
		assert.Equal(t, base+"/login?return_to=%2Fdashboard", pageLocation(t, ctx))
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("email"), m.email),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
		))
		waitForID(t, ctx, "orgs")
		assert.Equal(t, base+"/dashboard", pageLocation(t, ctx))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//ul[@id="orgs"]//a[text()="Acme"]`)))
		waitForID(t, ctx, "empty")
		assert.Equal(t, list, pageLocation(t, ctx))
		assert.Contains(t, elementText(t, ctx, "empty"), "Create your first link")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("create a link in the form", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("new-link"))))
		waitForID(t, ctx, "f-destination_url")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-destination_url"), "shop.example/spring"),
			chromedp.SendKeys(chromedp.ID("f-slug"), "spring"),
			chromedp.SendKeys(chromedp.ID("f-name"), "Spring sale"),
			chromedp.SendKeys(chromedp.ID("f-tags"), "mail, spring"),
			chromedp.SetValue(chromedp.ID("f-app_id"), appID.String()),
			chromedp.Click(chromedp.ID("save")),
		))
		waitForID(t, ctx, "f-destination_url-error")
		assert.Contains(t, elementText(t, ctx, "form-invalid"), "Some fields need a change")
		typed, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-name")))
		require.NoError(t, err)
		assert.Equal(t, "Spring sale", typed, "the form keeps what was typed")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-destination_url"), "https://shop.example/spring"),
			chromedp.Click(chromedp.ID("save")),
		))
		waitForID(t, ctx, "short-url")
		assert.Equal(t, "The link was created.", elementText(t, ctx, "notice"))
		assert.True(t, strings.HasSuffix(elementText(t, ctx, "short-url"), ".hop.test:8080/spring"), "on the app's subdomain")
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector('button[data-copy]').hidden`))
		require.NoError(t, err)
		assert.True(t, shown, "the copy button's script runs under the CSP")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("see it in the list and edit it", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(list)))
		waitForID(t, ctx, "links")
		assert.Equal(t, "1 to 1 of 1 links", elementText(t, ctx, "count"))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//table[@id="links"]//a[text()="Spring sale"]`)))
		waitForID(t, ctx, "edit-link")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("edit-link"))))
		waitForID(t, ctx, "f-name")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-name"), "Summer sale"),
			chromedp.SetValue(chromedp.ID("f-utm_campaign"), "summer"),
			chromedp.Click(chromedp.ID("save")),
		))
		waitForID(t, ctx, "notice")
		assert.Equal(t, "The changes were saved.", elementText(t, ctx, "notice"))
		title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
		require.NoError(t, err)
		assert.Equal(t, "Summer sale", title)
	}))

	require.True(t, t.Run("pause and resume it", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("pause-link"))))
		waitForID(t, ctx, "resume-link")
		assert.Equal(t, "Paused", elementText(t, ctx, "link-state"))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("resume-link"))))
		waitForID(t, ctx, "pause-link")
		assert.Equal(t, "Active", elementText(t, ctx, "link-state"))
	}))

	t.Run("delete it after confirming", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("delete-link"))))
		waitForID(t, ctx, "confirm-button")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		page := pageLocation(t, ctx)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("confirm-button"))))
		assert.Equal(t, page, pageLocation(t, ctx), "the browser asks for the box first")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.ID("confirm")),
			chromedp.Click(chromedp.ID("confirm-button")),
		))
		waitForID(t, ctx, "empty")
		assert.Equal(t, "The link was deleted.", elementText(t, ctx, "notice"))
		assert.Equal(t, list+"?done=deleted", pageLocation(t, ctx))
		assert.Zero(t, h.count(t, "links", h.org.ID))

		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page)))
		waitForID(t, ctx, "message-link")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})
}

// TestBrowserDashboardKeys creates an API key in headless Chromium (after a
// refused try), reads its raw value once, and revokes it through its
// confirmation; every page on the way is checked at a desktop's and a
// phone's size for overflow and axe-core's serious and critical rules.
func TestBrowserDashboardKeys(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newDashHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleOwner)
	base := h.srv.URL
	keys := base + keysPath(h)

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 2*time.Minute)
	ctx, cancel := context.WithTimeout(browser, 90*time.Second)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(keys)))
	waitForID(t, ctx, "email")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("email"), m.email),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.ID("sign-in")),
	))
	waitForID(t, ctx, "create-key")
	webtest.CheckPageAtEverySize(t, ctx, axe)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-name"), "Deploy bot"),
		chromedp.Click(chromedp.ID("create-key")),
	))
	waitForID(t, ctx, "f-scopes-error")
	assert.Contains(t, elementText(t, ctx, "form-invalid"), "Some fields need a change")
	webtest.CheckPageAtEverySize(t, ctx, axe)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("f-scope-links-read")),
		chromedp.Click(chromedp.ID("create-key")),
	))
	waitForID(t, ctx, "raw-key")
	raw := elementText(t, ctx, "raw-key")
	assert.True(t, strings.HasPrefix(raw, "svc_live_"), raw)
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector('button[data-copy]').hidden`))
	require.NoError(t, err)
	assert.True(t, shown, "the copy button's script runs under the CSP")
	webtest.CheckPageAtEverySize(t, ctx, axe)
	assert.Equal(t, 200, h.get(t, raw, "/v1/links").status, "the key works")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("keys-link"))))
	waitForID(t, ctx, "keys")
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.outerHTML`))
	require.NoError(t, err)
	assert.NotContains(t, body, raw, "the raw key is shown once")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//tr[td[contains(., "Deploy bot")]]//a[text()="Revoke"]`)))
	waitForID(t, ctx, "confirm-button")
	webtest.CheckPageAtEverySize(t, ctx, axe)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("confirm")),
		chromedp.Click(chromedp.ID("confirm-button")),
	))
	waitForID(t, ctx, "notice")
	assert.Equal(t, "The key was revoked: its next use is refused.", elementText(t, ctx, "notice"))
	assert.Equal(t, 401, h.get(t, raw, "/v1/links").status, "the key is revoked")
}

// pageLocation returns the address the browser of ctx shows.
func pageLocation(t testing.TB, ctx context.Context) string {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	return l
}

// waitForID waits a few seconds for the element with id and, when it does
// not come, fails t showing the page the browser is on instead.
func waitForID(t testing.TB, ctx context.Context, id string) {
	t.Helper()
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.WaitVisible(chromedp.ID(id))); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
		require.NoError(t, err, "waiting for #%s on %s:\n%s", id, pageLocation(t, ctx), body)
	}
}

// elementText returns the text of the element with id, trimmed.
func elementText(t testing.TB, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
	require.NoError(t, err)
	return strings.TrimSpace(s)
}
