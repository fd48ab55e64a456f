package httpapi_test

import (
	"context"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserAcceptInvitation drives the acceptance in headless Chromium:
// open the invitation link, create the invited email's account, accept, and
// land on /account showing the organization and the role. Only loopback is
// reachable.
func TestBrowserAcceptInvitation(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newPagesHarness(t, storetest.SQLite(t), withInvitations())
	// Seats for the invitee and someone else (Free has two).
	_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanStarter)
	require.NoError(t, err)
	inv := h.invite(t, h.org.key.raw, "invitee@example.com", auth.RoleAdmin)
	other := h.invite(t, h.org.key.raw, "someone-else@example.com", auth.RoleMember)
	revoked := h.invite(t, h.org.key.raw, "revoked@example.com", auth.RoleMember)
	require.Equal(t, http.StatusOK, h.delete(t, h.org.key.raw, "/v1/invitations/"+revoked.ID.String()).status)
	base := h.srv.URL

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 90*time.Second)

	// waitFor waits a few seconds for the element with id and, when it does
	// not come, shows the page the browser is on instead.
	title := func(ctx context.Context) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		return s
	}
	text := func(ctx context.Context, id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		require.NoError(t, err)
		return s
	}

	step, cancelStep := context.WithTimeout(browser, 30*time.Second)
	defer cancelStep()
	link := base + "/invitations/" + inv.Token
	require.NoError(t, chromedp.Do(step, chromedp.Navigate(link)))
	waitForID(t, step, "invitation-org")
	assert.Equal(t, "Acme", text(step, "invitation-org"))
	assert.Equal(t, "admin", text(step, "invitation-role"))
	webtest.CheckPageAtEverySize(t, step, axe)
	email, err := chromedp.Run(step, chromedp.Evaluate[string](`document.getElementById('email').textContent`))
	require.NoError(t, err)
	assert.Equal(t, "invitee@example.com", email, "the invited email")
	tag, err := chromedp.Run(step, chromedp.Evaluate[string](`document.getElementById('email').tagName`))
	require.NoError(t, err)
	assert.Equal(t, "P", tag, "shown as text: nothing that looks editable")

	require.NoError(t, chromedp.Do(step,
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.SendKeys(chromedp.ID("password_confirm"), testPassword),
		chromedp.Click(chromedp.ID("create-account")),
	))
	// Creating the account accepts the invitation: no second button.
	waitForID(t, step, "notice")
	assert.Equal(t, "You joined Acme as admin.", text(step, "notice"))
	webtest.CheckPageAtEverySize(t, step, axe)
	assert.Contains(t, pageLocation(t, step), base+"/account?joined=")
	assert.Equal(t, "invitee@example.com", text(step, "account-email"))
	rows, err := chromedp.Run(step, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('section[aria-labelledby="orgs-h"] tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent).join('|'))`))
	require.NoError(t, err)
	assert.Equal(t, []string{"Acme|admin"}, rows, "the organization and the role")
	assert.Equal(t, auth.RoleAdmin, h.role(t, "invitee@example.com"))
	assert.Contains(t, h.auditActions(t), "member.added")

	// Signed in as the invitee now: another's invitation is refused with a
	// page that says who is signed in.
	require.NoError(t, chromedp.Do(step, chromedp.Navigate(base+"/invitations/"+other.Token)))
	waitForID(t, step, "error")
	assert.Equal(t, "Join Acme · Hoplink", title(step))
	assert.Equal(t, "This invitation is for someone-else@example.com, and you are signed in as invitee@example.com.",
		text(step, "error"))
	accept, err := chromedp.Run(step, chromedp.Evaluate[int](`document.querySelectorAll('#accept').length`))
	require.NoError(t, err)
	assert.Zero(t, accept, "nothing to accept for the wrong user")
	webtest.CheckPageAtEverySize(t, step, axe)

	// Closed invitations: the one just accepted, and a revoked one.
	for _, c := range []struct{ token, title string }{
		{inv.Token, "Invitation accepted already · Hoplink"},
		{revoked.Token, "Invitation withdrawn · Hoplink"},
	} {
		require.NoError(t, chromedp.Do(step, chromedp.Navigate(base+"/invitations/"+c.token)))
		waitForID(t, step, "invitation-org")
		assert.Equal(t, c.title, title(step))
		assert.Equal(t, "Acme", text(step, "invitation-org"))
		webtest.CheckPageAtEverySize(t, step, axe)
	}
}
