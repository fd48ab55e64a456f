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
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserDashboardAppsAndDomains walks the app and domain pages in
// headless Chromium: create an app in the form (after a refused try), read
// its association file as the link domain serves it, add a custom domain,
// verify it against the DNS server on loopback (a wrong record first,
// explained on the page), and make it the app's default link domain.
// Every page on the way is checked at a desktop's and a phone's size for
// overflow and axe-core's serious and critical rules.
func TestBrowserDashboardAppsAndDomains(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newAppsDash(t, storetest.SQLite(t))
	h.growth(t)
	m := h.member(t, auth.RoleOwner)
	base := h.srv.URL
	apps := base + appsPath(h.org.ID)

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 3*time.Minute)
	step := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(browser, 40*time.Second)
	}

	require.True(t, t.Run("sign in and create an app", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(apps)))
		waitForID(t, ctx, "email")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("email"), m.email),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
		))
		waitForID(t, ctx, "empty")
		assert.Contains(t, elementText(t, ctx, "empty"), "Create your first app")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("new-app"))))
		waitForID(t, ctx, "f-name")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-name"), "Shop"),
			chromedp.SendKeys(chromedp.ID("f-ios_bundle_id"), "com.acme.shop"),
			chromedp.SendKeys(chromedp.ID("f-ios_team_id"), "ABCDE"),
			chromedp.Click(chromedp.ID("save")),
		))
		waitForID(t, ctx, "f-ios_team_id-error")
		assert.Contains(t, elementText(t, ctx, "form-invalid"), "Some fields need a change")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-ios_team_id"), "ABCDE12345"),
			chromedp.Click(chromedp.ID("save")),
		))
		waitForID(t, ctx, "aasa-json")
		assert.Equal(t, "The app was created.", elementText(t, ctx, "notice"))
		host := elementText(t, ctx, "link-domain")
		_, served := h.fetch(t, host, httpapi.AASAPath)
		assert.Equal(t, served, elementText(t, ctx, "aasa-json"), "the JSON the link domain serves")
		assert.Contains(t, elementText(t, ctx, "assetlinks-missing"), "Android package name")
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector('button[data-copy]').hidden`))
		require.NoError(t, err)
		assert.True(t, shown, "the copy button's script runs under the CSP")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("add a domain and verify it", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//nav//a[text()="Domains"]`)))
		waitForID(t, ctx, "f-domain")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-domain"), "links.acme.example"),
			chromedp.Click(chromedp.ID("add-domain")),
		))
		waitForID(t, ctx, "dns-value")
		assert.Equal(t, cnameTarget, elementText(t, ctx, "dns-value"))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		h.dns.SetCNAME("links.acme.example", "old-provider.example.net")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("verify"))))
		waitForID(t, ctx, "check-explanation")
		assert.Contains(t, elementText(t, ctx, "check-explanation"), "it points at old-provider.example.net instead of "+cnameTarget)
		webtest.CheckPageAtEverySize(t, ctx, axe)
		h.dns.SetCNAME("links.acme.example", cnameTarget)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("verify"))))
		waitForID(t, ctx, "notice")
		assert.Equal(t, "Verified", elementText(t, ctx, "domain-state"))
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	t.Run("make it the app's default link domain", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(apps)))
		waitForID(t, ctx, "apps")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//table[@id="apps"]//a[text()="Shop"]`)))
		waitForID(t, ctx, "f-domain")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-domain"), "links.acme.example"),
			chromedp.Click(chromedp.ID("save-default")),
		))
		waitForID(t, ctx, "notice")
		assert.Equal(t, "links.acme.example", elementText(t, ctx, "default-domain"))
		table := elementText(t, ctx, "aasa-domains")
		assert.True(t, strings.Contains(table, "https://links.acme.example"+httpapi.AASAPath), table)
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})
}
