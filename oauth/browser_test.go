package oauth_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserConsentAndConnections signs in through the authorization
// endpoint in headless Chromium and checks the consent page and then the
// connections page, with two consents of one client, at a desktop's and a
// phone's size (webtest: viewport tag, no overflow, axe-core).
func TestBrowserConsentAndConnections(t *testing.T) {
	bin := webtest.FindChromium()
	if bin == "" {
		t.Skip(webtest.SkipNoChromium)
	}
	axe := webtest.AxeOrSubtest(t)
	s := storetest.SQLite(t)
	h := newHarness(t, s)
	user, _ := h.member(t, "Acme Corporation International Holdings", auth.RoleOwner)
	b := h.browser(t)
	h.connect(t, b, user.Email, "all", "links:read")
	h.connect(t, b, user.Email, "all", "links:read links:write")
	redirect := "http://127.0.0.1:40000/cb"
	clientID := b.registerPublic(redirect)
	q := authorizeQuery(clientID, redirect, h.public+"/mcp", newPKCE(), "links:read links:write apps:read analytics:read org:read")

	browser := webtest.StartChromium(t, bin, 90*time.Second)
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.public+"/oauth/authorize?"+q.Encode()),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), user.Email),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.ID("sign-in")),
		chromedp.WaitVisible(chromedp.ID("allow")),
	))
	permissions, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('#permissions li')).map(li => li.dataset.scope)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"links:read", "links:write", "apps:read", "analytics:read", "org:read"}, permissions,
		"the page renders the scopes the request carries")
	primary, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`getComputedStyle(document.getElementById('allow')).backgroundColor !== getComputedStyle(document.getElementById('deny')).backgroundColor`))
	require.NoError(t, err)
	assert.True(t, primary, "Allow looks different from Deny")
	webtest.CheckPageAtEverySize(t, ctx, axe)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.public+"/account/connections"),
		chromedp.WaitVisible(chromedp.ID("connections")),
	))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#connections tbody tr').length`))
	require.NoError(t, err)
	assert.Equal(t, 2, rows, "two consents of one client")
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#connections tbody tr')].map(r => r.innerText)`))
	require.NoError(t, err)
	require.Len(t, texts, 2)
	assert.NotEqual(t, texts[0], texts[1], "two consents of one client read differently")
	webtest.CheckPageAtEverySize(t, ctx, axe)

	// An authorization request whose answer cannot go back to its client
	// (an unknown client_id) gets a page in a browser.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.public+"/oauth/authorize?"+authorizeQuery("no-such-client", redirect, h.public+"/mcp", newPKCE(), "links:read").Encode()),
		chromedp.WaitVisible(chromedp.ID("message-link")),
	))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	assert.Equal(t, "This connection request cannot be completed · Hoplink", title)
	webtest.CheckPageAtEverySize(t, ctx, axe)

	// An unexpected error on the pages (the database gone) is a page too.
	require.NoError(t, s.Close())
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.public+"/account/connections"),
		chromedp.WaitVisible(chromedp.ID("error")),
	))
	title, err = chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	assert.Equal(t, "Something went wrong · Hoplink", title)
	webtest.CheckPageAtEverySize(t, ctx, axe)
}
