package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// TestBrowserDashboardTeam walks the team journey in headless Chromium with
// two people, each in a browser context of their own (their own cookies):
// the owner invites a new person from the team page and copies the accept
// link; the invitee opens it, creates their account and so joins; the
// owner's team page then lists them as a member. Signed in as that member,
// the team page offers no invitation, role change, removal or revocation,
// and the same POSTs, sent from the member's browser with its cookies and a
// valid CSRF token, are refused and change nothing. Every page on the way
// is checked at a desktop's and a phone's size for overflow and axe-core's
// serious and critical rules.
func TestBrowserDashboardTeam(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	h := newTeamHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	pending := h.invite(t, h.org.key.raw, "pending@example.com", auth.RoleAdmin)
	base := h.srv.URL
	team := base + teamPath(h.org.ID)
	const invitee = "invitee@example.com"

	axe := webtest.AxeOrSubtest(t)
	ownerBrowser := webtest.StartChromium(t, bin, 5*time.Minute)
	// The invitee's browser: a second browser context, which shares no
	// cookie with the owner's. Its first Run binds its life to it.
	inviteeBrowser, cancelInvitee := chromedp.NewContext(ownerBrowser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelInvitee)
	require.NoError(t, chromedp.Do(inviteeBrowser))
	step := func(b context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(b, time.Minute)
	}

	require.True(t, t.Run("the owner signs in", func(t *testing.T) {
		ctx, cancel := step(ownerBrowser)
		defer cancel()
		// The copy button writes to the clipboard, which the test reads
		// back: both need the permission and a focused page.
		for _, perm := range []string{"clipboard-read", "clipboard-write"} {
			_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: perm}, Setting: cdpbrowser.PermissionSettingGranted, Origin: base})
			require.NoError(t, err, perm)
		}
		_, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		require.NoError(t, err)

		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(team)))
		waitForID(t, ctx, "email")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("email"), owner.email),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
		))
		waitForID(t, ctx, "invite")
		assert.Equal(t, team, pageLocation(t, ctx), "back on the team page after signing in")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	var link string
	require.True(t, t.Run("the owner invites and copies the link", func(t *testing.T) {
		ctx, cancel := step(ownerBrowser)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-email"), "not an email"),
			chromedp.Click(chromedp.ID("invite")),
		))
		waitForID(t, ctx, "f-email-error")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("f-email"), invitee),
			chromedp.Click(chromedp.ID("f-role-member")),
			chromedp.Click(chromedp.ID("invite")),
		))
		waitForID(t, ctx, "invite-link")
		link = elementText(t, ctx, "invite-link")
		assert.True(t, strings.HasPrefix(link, base+"/invitations/"), link)
		assert.Equal(t, invitee, elementText(t, ctx, "invited-email"))
		webtest.CheckPageAtEverySize(t, ctx, axe)

		copyButton := `button[data-copy="invite-link"]`
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector('`+copyButton+`').hidden`))
		require.NoError(t, err)
		require.True(t, shown, "the copy button's script runs under the CSP")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(copyButton)))
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(`//button[@data-copy="invite-link" and text()="Copied"]`)))
		copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		assert.Equal(t, link, copied, "the link is on the clipboard")
	}))

	require.True(t, t.Run("the team page lists the invitation", func(t *testing.T) {
		ctx, cancel := step(ownerBrowser)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("team-link"))))
		waitForID(t, ctx, "invitations")
		listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('#invitations code')).map(c => c.textContent)`))
		require.NoError(t, err)
		assert.Contains(t, listed, link, "the pending invitation lists the same link")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("the invitee accepts in their own browser", func(t *testing.T) {
		ctx, cancel := step(inviteeBrowser)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link)))
		waitForID(t, ctx, "invitation-org")
		assert.Equal(t, "Acme", elementText(t, ctx, "invitation-org"), "signed out here: the owner's cookies are not this browser's")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.SendKeys(chromedp.ID("password_confirm"), testPassword),
			chromedp.Click(chromedp.ID("create-account")),
		))
		waitForID(t, ctx, "notice")
		assert.Equal(t, "You joined Acme as member.", elementText(t, ctx, "notice"))
		assert.Equal(t, auth.RoleMember, h.role(t, invitee))
	}))

	require.True(t, t.Run("the owner sees the new member", func(t *testing.T) {
		ctx, cancel := step(ownerBrowser)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(team)))
		waitForID(t, ctx, "members")
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('#members tbody tr')).map(r => {
				const s = r.cells[1].querySelector('select');
				return r.cells[0].textContent.trim() + '|' + (s ? s.value : r.cells[1].textContent.trim());
			})`))
		require.NoError(t, err)
		assert.Contains(t, rows, invitee+"|member", "the invitee is a member, their role offered for change")
		listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('#invitations code')).map(c => c.textContent)`))
		require.NoError(t, err)
		assert.NotContains(t, listed, link, "the accepted invitation is no longer pending")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	t.Run("the member can reach no owner's action", func(t *testing.T) {
		ctx, cancel := step(inviteeBrowser)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(team)))
		waitForID(t, ctx, "read-only")
		offered, err := chromedp.Run(ctx, chromedp.Evaluate[int](
			`document.querySelectorAll('main form, a[href$="/remove"], a[href$="/revoke"], #invite, #invitations code').length`))
		require.NoError(t, err)
		assert.Zero(t, offered, "no form, removal, revocation or accept link")
		assert.Contains(t, elementText(t, ctx, "invitations"), "pending@example.com", "the pending invitations, read-only")
		webtest.CheckPageAtEverySize(t, ctx, axe)

		// The same POSTs, submitted from the member's browser: its cookies
		// and the page's valid CSRF token.
		teamPath := teamPath(h.org.ID)
		for _, post := range []struct {
			path   string
			fields map[string]string
		}{
			{teamPath + "/invitations", map[string]string{"email": "sneaky@example.com", "role": "admin"}},
			{memberAction(h.org.ID, owner.id, "role"), map[string]string{"role": "member"}},
			{memberAction(h.org.ID, owner.id, "remove"), map[string]string{"confirm": "yes"}},
			{revokePath(h.org.ID, pending.ID.String()), map[string]string{"confirm": "yes"}},
		} {
			resp, err := chromedp.RunResponse(ctx, submitForm(t, post.path, post.fields))
			require.NoError(t, err, post.path)
			assert.Equal(t, int64(http.StatusForbidden), resp.Status, "POST %s", post.path)
			assert.Contains(t, elementText(t, ctx, "error"), "Your role may not", "POST %s", post.path)
		}
		webtest.CheckPageAtEverySize(t, ctx, axe)
		assert.Equal(t, auth.RoleOwner, h.role(t, owner.email), "nothing changed")
		assert.Equal(t, pending.ID.String(), h.pendingInvitation(t, "pending@example.com"))
		assert.Empty(t, h.pendingInvitation(t, "sneaky@example.com"))
		for _, e := range h.teamEvents(t) {
			assert.Equal(t, "member.added", e.Action, "the acceptance alone is on record")
		}
	})
}

// submitForm returns an action that posts fields to path from the page
// shown, as a form of the page would, with the page's CSRF token.
func submitForm(t testing.TB, path string, fields map[string]string) chromedp.Action[chromedp.Void] {
	t.Helper()
	p, err := json.Marshal(path)
	require.NoError(t, err)
	f, err := json.Marshal(fields)
	require.NoError(t, err)
	return chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.createElement('form');
		f.method = 'post';
		f.action = ` + string(p) + `;
		const fields = Object.assign(` + string(f) + `, {csrf_token: document.querySelector('input[name=csrf_token]').value});
		for (const [name, value] of Object.entries(fields)) {
			const i = document.createElement('input');
			i.type = 'hidden';
			i.name = name;
			i.value = value;
			f.appendChild(i);
		}
		document.body.appendChild(f);
		f.submit();
	})()`)
}
