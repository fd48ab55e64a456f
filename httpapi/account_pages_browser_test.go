package httpapi_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserSignInWithTwoFactor drives the sign-in pages in headless
// Chromium: sign in with a password, enrol two-factor authentication by
// reading the secret from the page and computing a code, sign out, sign in
// with a code, sign out, and sign in with a backup code. Only loopback is
// reachable. The harness clock (shared by the pages and the account
// service) moves by hand between codes, so no code is refused as replayed.
func TestBrowserSignInWithTwoFactor(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newPagesHarness(t, storetest.SQLite(t))
	m := h.member(t, auth.RoleOwner)
	base := h.srv.URL

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 90*time.Second)
	step := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(browser, 20*time.Second)
	}
	// signIn fills the first step of the sign-in form.
	signIn := func(t *testing.T, ctx context.Context) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/login?return_to=%2Faccount"),
			chromedp.WaitVisible(chromedp.ID("email")),
			chromedp.SendKeys(chromedp.ID("email"), m.email),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
		))
	}
	signOut := func(t *testing.T, ctx context.Context) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(base+"/account"),
			chromedp.WaitVisible(chromedp.ID("sign-out")),
			chromedp.Click(chromedp.ID("sign-out")),
			chromedp.WaitVisible(chromedp.ID("email")),
		))
		assert.Equal(t, base+"/login", pageLocation(t, ctx), "signed out: the sign-in page")
	}

	// waitFor waits a few seconds for the element with id and, when it does
	// not come, shows the page the browser is on instead.

	var secret string
	var codes []string
	t.Run("GET / sends the browser to the sign-in page, which fits a phone", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
		waitForID(t, ctx, "email")
		assert.Equal(t, base+"/login", pageLocation(t, ctx))
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})

	require.True(t, t.Run("sign in with the password", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		signIn(t, ctx)
		waitForID(t, ctx, "account-email")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		browserName, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".session-browser")))
		require.NoError(t, err)
		assert.Equal(t, "Headless Chrome on Linux", browserName, "the session names the browser and its system")
		assert.Equal(t, base+"/account", pageLocation(t, ctx))
		email, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("account-email")))
		require.NoError(t, err)
		assert.Equal(t, m.email, email)
		// The stylesheet is allowed by its hash: the layout applies.
		width, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).maxWidth`))
		require.NoError(t, err)
		assert.Equal(t, "640px", width, "the CSP lets the page's own style through")
	}))

	require.True(t, t.Run("enrol two-factor authentication", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.ID("two-factor-link")),
			chromedp.WaitVisible(chromedp.ID("totp-secret")),
		))
		var err error
		secret, err = chromedp.Run(ctx, chromedp.Text(chromedp.ID("totp-secret")))
		require.NoError(t, err)
		require.NotEmpty(t, secret)
		loaded, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelector('img').naturalWidth`))
		require.NoError(t, err)
		assert.Positive(t, loaded, "the QR code image loads under the CSP")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("otp"), h.code(t, secret)),
			chromedp.Click(chromedp.ID("confirm")),
		))
		waitForID(t, ctx, "backup-codes")
		codes, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('#backup-codes code')).map(e => e.textContent)`))
		require.NoError(t, err)
		require.Len(t, codes, account.BackupCodeCount, "ten backup codes")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		next, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('continue').href`))
		require.NoError(t, err)
		assert.Equal(t, base+"/account", next, "Continue goes back to where enrolment began")
		// Refreshing the codes' page sends the confirmation again: the
		// styled 409 says why no codes come.
		require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
		waitForID(t, ctx, "message-link")
		title, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		assert.Equal(t, "Backup codes shown already · Hoplink", title)
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#backup-codes').length`))
		require.NoError(t, err)
		assert.Zero(t, shown, "the codes are never shown again")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(next),
			chromedp.WaitVisible(chromedp.ID("two-factor-status")),
		))
		status, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("two-factor-status")))
		require.NoError(t, err)
		assert.Equal(t, "On.", status)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.ID("two-factor-link")),
			chromedp.WaitVisible(chromedp.ID("disable")),
		))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		signOut(t, ctx)
	}))

	require.True(t, t.Run("sign in with a code", func(t *testing.T) {
		h.clock.Advance(account.TOTPPeriod) // the enrolment used this step's code
		ctx, cancel := step()
		defer cancel()
		signIn(t, ctx)
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("otp"))))
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("otp"), h.code(t, secret)),
			chromedp.Click(chromedp.ID("verify")),
		))
		waitForID(t, ctx, "account-email")
		assert.Equal(t, base+"/account", pageLocation(t, ctx))
		signOut(t, ctx)
	}))

	t.Run("sign in with a backup code", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		signIn(t, ctx)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.ID("otp")),
			chromedp.SendKeys(chromedp.ID("otp"), codes[0]),
			chromedp.Click(chromedp.ID("verify")),
		))
		waitForID(t, ctx, "account-email")
		assert.Equal(t, base+"/account", pageLocation(t, ctx))
		assert.Contains(t, h.auditActions(t), "two_factor.backup_code_used")
	})
}
