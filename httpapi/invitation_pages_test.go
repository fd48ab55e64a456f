package httpapi_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// newInvitationHarness is a pages harness with the invitations API.
func newInvitationHarness(t *testing.T, s *store.Store) *pagesHarness {
	t.Helper()
	return newPagesHarness(t, s, withInvitations())
}

func invitationPage(token string) string { return "/invitations/" + token }

// invitationState returns the state of the organization's invitation for email.
func (h *pagesHarness) invitationState(t testing.TB, email string) string {
	t.Helper()
	items, _ := h.invitations(t, h.org.key.raw, "?status=all")
	for _, it := range items {
		if it["email"] == email {
			switch {
			case it["accepted_at"] != nil:
				return org.InvitationAccepted
			case it["revoked_at"] != nil:
				return org.InvitationRevoked
			}
			return "not accepted or revoked"
		}
	}
	return "none"
}

// role returns the role of email in the harness's organization, "" when
// not a member.
func (h *pagesHarness) role(t testing.TB, email string) auth.Role {
	t.Helper()
	ms, err := h.orgs.Members(t.Context(), h.org.ID)
	require.NoError(t, err)
	for _, m := range ms {
		if m.Email == email {
			return m.Role
		}
	}
	return ""
}

func TestInvitationPageNamesTheOrganizationAndRole(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		inv := h.invite(t, h.org.key.raw, "New.Person@Example.com", auth.RoleAdmin)
		b := h.browser(t, "198.51.100.60")
		p := b.get(invitationPage(inv.Token))
		require.Equal(t, http.StatusOK, p.status, "body: %s", p.body)
		assert.Equal(t, "text/html; charset=utf-8", p.header.Get("Content-Type"))
		assert.Equal(t, "DENY", p.header.Get("X-Frame-Options"))
		assert.Equal(t, httpapi.AccountPageCSP, p.header.Get("Content-Security-Policy"))
		assert.Equal(t, "no-store", p.header.Get("Cache-Control"))
		assert.NotContains(t, p.body, "<script")
		assert.Contains(t, p.body, `<strong id="invitation-org">Acme</strong> as <strong id="invitation-role">admin</strong>`)
		assert.Contains(t, p.body, `<p class="readonly mono" id="email">new.person@example.com</p>`,
			"the email is the invitation's, shown as text, not as a field that looks editable")
		assert.NotContains(t, p.body, `<input id="email"`)
		assert.Contains(t, p.body, `name="password_confirm"`)
		assert.Contains(t, p.body, `action="/invitations/`+inv.Token+`/account"`)
		assert.Contains(t, p.body, `href="/login?return_to=`+url.QueryEscape("/invitations/"+inv.Token)+`"`,
			"sign in and come back")
		assert.Regexp(t, csrfField, p.body)
		assert.NotNil(t, setCookie(p, httpapi.CSRFCookieName))
		assert.NotContains(t, p.body, `id="accept"`, "signed out: nothing to accept yet")
		assert.Equal(t, http.StatusOK, b.do(http.MethodHead, invitationPage(inv.Token), nil, nil).status)
	})
}

func TestInvitationPageOfAClosedInvitation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		b := h.browser(t, "198.51.100.61")

		p := b.get(invitationPage("no-such-token"))
		assert.Equal(t, http.StatusNotFound, p.status, "an unknown token is 404")
		assert.Contains(t, p.body, "This invitation link is not valid")
		assert.Equal(t, "DENY", p.header.Get("X-Frame-Options"))

		revoked := h.invite(t, h.org.key.raw, "revoked@example.com", auth.RoleMember)
		require.Equal(t, http.StatusOK, h.delete(t, h.org.key.raw, "/v1/invitations/"+revoked.ID.String()).status)
		p = b.get(invitationPage(revoked.Token))
		assert.Equal(t, http.StatusGone, p.status, "a revoked invitation is 410")
		assert.Contains(t, p.body, "This invitation has been withdrawn")
		assert.Contains(t, p.body, `id="invitation-org">Acme<`)
		assert.NotContains(t, p.body, `name="password"`)

		expired := h.invite(t, h.org.key.raw, "expired@example.com", auth.RoleMember)
		h.clock.Advance(org.InvitationValidity)
		p = b.get(invitationPage(expired.Token))
		assert.Equal(t, http.StatusGone, p.status, "an invitation is expired at expires_at")
		assert.Contains(t, p.body, "This invitation has expired")

		// Neither can be used by a POST either.
		u := testkit.User(t, h.store, "expired@example.com", testPassword, h.clock.Now())
		require.Equal(t, http.StatusSeeOther, b.signIn(u.Email, testPassword, "").status)
		b.get("/account")
		p = b.post(invitationPage(expired.Token)+"/accept", url.Values{})
		assert.Equal(t, http.StatusGone, p.status)
		b.get("/account")
		p = b.post(invitationPage(revoked.Token)+"/accept", url.Values{})
		assert.Equal(t, http.StatusGone, p.status)
		assert.Empty(t, h.role(t, u.Email))
	})
}

func TestCreateAccountThenAcceptInvitation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		inv := h.invite(t, h.org.key.raw, "newcomer@example.com", auth.RoleMember)
		page := invitationPage(inv.Token)
		b := h.browser(t, "198.51.100.62")

		b.get(page)
		p := b.post(page+"/account", url.Values{"password": {"a long enough one"}, "password_confirm": {"another long one"}})
		assert.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "The passwords do not match.")
		p = b.post(page+"/account", url.Values{"password": {"short"}, "password_confirm": {"short"}})
		assert.Equal(t, http.StatusBadRequest, p.status, "the password policy applies")
		assert.Contains(t, p.body, "The password must be at least 10 characters.")
		p = b.post(page+"/account", url.Values{"password": {"newcomer@example.com"}, "password_confirm": {"newcomer@example.com"}})
		assert.Equal(t, http.StatusBadRequest, p.status, "not the email")

		// The email field is ignored: the account is the invitation's.
		// Creating the account accepts the invitation in the same step, and
		// the account page confirms it.
		p = b.post(page+"/account", url.Values{"email": {"someone.else@example.com"},
			"password": {testPassword}, "password_confirm": {testPassword}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/account?joined="+h.org.ID.String(), p.location(), "joined, signed in")
		require.NotNil(t, setCookie(p, httpapi.SessionCookieName))

		p = b.get(p.location())
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `<p class="notice" role="status" id="notice">You joined Acme as member.</p>`)
		assert.Contains(t, p.body, `<td data-label="Organization">Acme</td><td data-label="Role">member</td>`)
		assert.Equal(t, auth.RoleMember, h.role(t, "newcomer@example.com"))
		assert.Equal(t, org.InvitationAccepted, h.invitationState(t, "newcomer@example.com"))
		items, _ := h.invitations(t, h.org.key.raw, "?status=accepted")
		require.Len(t, items, 1)
		acceptedAt, err := time.Parse(time.RFC3339Nano, items[0]["accepted_at"].(string))
		require.NoError(t, err)
		assert.True(t, h.clock.Now().Truncate(time.Millisecond).Equal(acceptedAt), "accepted_at is the acceptance's time")

		p = b.get(page)
		assert.Equal(t, http.StatusGone, p.status, "an accepted invitation is 410")
		assert.Contains(t, p.body, "This invitation has been accepted already.")
		b.get("/account")
		p = b.post(page+"/accept", url.Values{})
		assert.Equal(t, http.StatusGone, p.status, "accepting twice")

		events := h.auditEvents(t, h.org.key.raw)
		var added *auditEvent
		for i := range events {
			if events[i].Action == "member.added" {
				added = &events[i]
			}
		}
		require.NotNil(t, added, "member.added is written: %v", h.auditActions(t))
		assert.Equal(t, "user", added.ActorType)
		require.NotNil(t, added.ActorID)
		u := h.userID(t, "newcomer@example.com")
		assert.Equal(t, u, *added.ActorID, "the accepting user acted")
		assert.Equal(t, "user", added.TargetType)
		assert.Equal(t, u, added.TargetID)
		assert.Equal(t, "member", added.Details["role"])
		assert.Equal(t, inv.ID.String(), added.Details["invitation_id"])
		assert.Equal(t, "198.51.100.62", added.IP)
	})
}

// userID returns the id of the member with email of the harness's organization.
func (h *pagesHarness) userID(t testing.TB, email string) string {
	t.Helper()
	ms, err := h.orgs.Members(t.Context(), h.org.ID)
	require.NoError(t, err)
	for _, m := range ms {
		if m.Email == email {
			return m.UserID.String()
		}
	}
	t.Fatalf("%s is not a member", email)
	return ""
}

func TestCreateAccountForAnEmailThatHasOne(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		testkit.User(t, h.store, "existing@example.com", testPassword, h.clock.Now())
		inv := h.invite(t, h.org.key.raw, "existing@example.com", auth.RoleMember)
		b := h.browser(t, "198.51.100.63")
		b.get(invitationPage(inv.Token))
		p := b.post(invitationPage(inv.Token)+"/account", url.Values{"password": {"a different password"}, "password_confirm": {"a different password"}})
		assert.Equal(t, http.StatusConflict, p.status)
		assert.Contains(t, p.body, "An account with this email exists already. Sign in to accept the invitation.")
		assert.Nil(t, setCookie(p, httpapi.SessionCookieName))
	})
}

func TestSignInThenAcceptInvitation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		u := testkit.User(t, h.store, "returning@example.com", testPassword, h.clock.Now())
		inv := h.invite(t, h.org.key.raw, "returning@example.com", auth.RoleAdmin)
		page := invitationPage(inv.Token)
		b := h.browser(t, "198.51.100.64")

		p := b.do(http.MethodPost, page+"/accept", url.Values{}, nil)
		require.Equal(t, http.StatusSeeOther, p.status, "signed out: to the sign-in page")
		assert.Equal(t, "/login?return_to="+url.QueryEscape(page), p.location())

		p = b.signIn(u.Email, testPassword, page)
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, page, p.location(), "back to the invitation")
		p = b.get(page)
		require.Contains(t, p.body, `id="accept"`)
		p = b.post(page+"/accept", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, "/account?joined="+h.org.ID.String(), p.location())
		assert.Contains(t, b.get(p.location()).body, "You joined Acme as admin.")
		assert.Contains(t, b.get("/account").body, `<td data-label="Organization">Acme</td><td data-label="Role">admin</td>`)
		assert.Equal(t, auth.RoleAdmin, h.role(t, u.Email))
	})
}

func TestSignInWithTwoFactorThenAcceptInvitation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		u := testkit.User(t, h.store, "careful@example.com", testPassword, h.clock.Now())
		en, err := h.accounts.StartTOTP(t.Context(), u.ID)
		require.NoError(t, err)
		_, err = h.accounts.ConfirmTOTP(t.Context(), u.ID, h.code(t, en.Secret))
		require.NoError(t, err)
		h.clock.Advance(account.TOTPPeriod)
		inv := h.invite(t, h.org.key.raw, u.Email, auth.RoleMember)
		page := invitationPage(inv.Token)
		b := h.browser(t, "198.51.100.65")

		p := b.signIn(u.Email, testPassword, page)
		require.Equal(t, http.StatusOK, p.status, "the code form")
		assert.Contains(t, p.body, `name="return_to" value="`+page+`"`, "the second step keeps where to go")
		pending := pendingField.FindStringSubmatch(p.body)[1]
		p = b.post("/login", url.Values{"pending": {pending}, "otp": {h.code(t, en.Secret)}, "return_to": {page}})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, page, p.location())
		b.get(page)
		p = b.post(page+"/accept", url.Values{})
		require.Equal(t, http.StatusSeeOther, p.status, "body: %s", p.body)
		assert.Equal(t, auth.RoleMember, h.role(t, u.Email))
	})
}

func TestAcceptInvitationRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		other := testkit.User(t, h.store, "other@example.com", testPassword, h.clock.Now())
		invited := testkit.User(t, h.store, "invited@example.com", testPassword, h.clock.Now())
		inv := h.invite(t, h.org.key.raw, invited.Email, auth.RoleMember)
		page := invitationPage(inv.Token)

		t.Run("another email is refused", func(t *testing.T) {
			b := h.browser(t, "198.51.100.66")
			require.Equal(t, http.StatusSeeOther, b.signIn(other.Email, testPassword, page).status)
			p := b.get(page)
			assert.Equal(t, http.StatusForbidden, p.status)
			assert.Contains(t, p.body, "This invitation is for invited@example.com, and you are signed in as other@example.com.")
			assert.Equal(t, 1, strings.Count(p.body, "invited@example.com"), "the page says it once")
			assert.NotContains(t, p.body, `id="accept"`)
			assert.Contains(t, p.body, `id="sign-out"`)
			p = b.post(page+"/accept", url.Values{})
			assert.Equal(t, http.StatusForbidden, p.status, "a forged accept too")
			assert.Empty(t, h.role(t, other.Email))
			assert.Empty(t, h.role(t, invited.Email))
		})

		t.Run("a POST without its CSRF token is refused", func(t *testing.T) {
			b := h.browser(t, "198.51.100.67")
			require.Equal(t, http.StatusSeeOther, b.signIn(invited.Email, testPassword, page).status)
			b.get(page)
			p := b.do(http.MethodPost, page+"/accept", url.Values{}, nil)
			assert.Equal(t, http.StatusForbidden, p.status, "no token")
			assert.Contains(t, p.body, "This form has expired or did not come from this site.")
			p = b.do(http.MethodPost, page+"/accept", url.Values{httpapi.AccountCSRFField: {b.csrf()}}, map[string]string{"Origin": "https://evil.example"})
			assert.Equal(t, http.StatusForbidden, p.status, "another origin")
			p = b.do(http.MethodPost, page+"/accept", url.Values{httpapi.AccountCSRFField: {b.csrf()}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
			assert.Equal(t, http.StatusForbidden, p.status, "another site")
			assert.Empty(t, h.role(t, invited.Email))

			fresh := h.browser(t, "198.51.100.68")
			fresh.get(page)
			p = fresh.do(http.MethodPost, page+"/account", url.Values{"password": {"an acceptable one"}, "password_confirm": {"an acceptable one"}}, nil)
			assert.Equal(t, http.StatusForbidden, p.status, "creating an account needs the token too")
			assert.Nil(t, setCookie(p, httpapi.SessionCookieName))
		})

		t.Run("the seats are counted again at acceptance", func(t *testing.T) {
			// Free has two seats; the CLI adds members without counting.
			h.member(t, auth.RoleOwner)
			h.member(t, auth.RoleMember)
			b := h.browser(t, "198.51.100.69")
			require.Equal(t, http.StatusSeeOther, b.signIn(invited.Email, testPassword, page).status)
			b.get(page)
			p := b.post(page+"/accept", url.Values{})
			assert.Equal(t, http.StatusForbidden, p.status)
			assert.Contains(t, p.body, "Acme has no free seat: its free plan has 2")
			assert.Empty(t, h.role(t, invited.Email), "no membership")
			assert.Equal(t, "not accepted or revoked", h.invitationState(t, invited.Email), "still pending")

			_, err := h.orgs.SetPlan(t.Context(), h.org.ID, org.PlanStarter)
			require.NoError(t, err)
			p = b.post(page+"/accept", url.Values{})
			require.Equal(t, http.StatusSeeOther, p.status, "a seat on the bigger plan: body %s", p.body)
			assert.Equal(t, auth.RoleMember, h.role(t, invited.Email))
		})
	})
}

func TestAcceptInvitationOfAMemberAlready(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		u := testkit.User(t, h.store, "twice@example.com", testPassword, h.clock.Now())
		inv := h.invite(t, h.org.key.raw, u.Email, auth.RoleAdmin)
		_, err := h.orgs.AddMember(t.Context(), h.org.ID, u.Email, auth.RoleMember)
		require.NoError(t, err)
		b := h.browser(t, "198.51.100.70")
		require.Equal(t, http.StatusSeeOther, b.signIn(u.Email, testPassword, "").status)
		b.get(invitationPage(inv.Token))
		p := b.post(invitationPage(inv.Token)+"/accept", url.Values{})
		assert.Equal(t, http.StatusConflict, p.status)
		assert.Contains(t, html.UnescapeString(p.body), "You are already a member of Acme.")
		assert.Equal(t, auth.RoleMember, h.role(t, u.Email), "the role is unchanged")
		assert.Equal(t, "not accepted or revoked", h.invitationState(t, u.Email))
	})
}

func TestInvitationPageDoesNotEchoAnUnknownToken(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newInvitationHarness(t, s)
		b := h.browser(t, "198.51.100.71")
		p := b.get(invitationPage(strings.Repeat("x", 500)))
		assert.Equal(t, http.StatusNotFound, p.status)
		assert.NotContains(t, p.body, strings.Repeat("x", 500))
	})
}
