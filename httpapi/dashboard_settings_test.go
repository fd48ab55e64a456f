package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func settingsPath(o *testOrg) string { return "/dashboard/o/" + o.ID.String() + "/settings" }

const goodParameters = `{"injected":[{"key":"ref","value":"hop","mode":"always"}],"forwarding":null,"defaultMode":null}`

// orgSetting reads a setting of o through the API.
func (h *recHarness) orgSetting(t testing.TB, o *testOrg, what string) map[string]any {
	t.Helper()
	resp := h.get(t, o.key.raw, orgPath(o.ID)+"/"+what)
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	return resp.object(t)
}

// TestDashboardSettingsOwner proves the owner's settings page: the plan
// against its usage, the parameter defaults and the security policy
// changed as through the API, refusals shown with what was typed, and the
// policy change in the audit log with the owner as the actor.
func TestDashboardSettingsOwner(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		appID := h.newApp(t, h.org.ID)
		h.memberLink(t, owner, appID, "spring")
		b := h.signedIn(t, owner, "198.51.100.80")
		settings := settingsPath(h.org)

		p := b.get(linksPath(h.org.ID))
		assert.Contains(t, p.body, `<a href="`+settings+`">Settings</a>`)
		p = b.get(settings)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `<strong id="plan">Free</strong>`)
		assert.Contains(t, p.body, `<td data-label="Limit">Links created this month</td><td data-label="Used">1</td><td data-label="Allowed">100</td>`)
		assert.Contains(t, p.body, `<td data-label="Limit">Apps</td><td data-label="Used" class="error">1 (limit reached)</td><td data-label="Allowed">1</td>`)
		assert.Contains(t, p.body, `<td data-label="Limit">Custom domains</td><td data-label="Used">0</td><td data-label="Allowed">None on this plan</td>`)
		assert.Contains(t, p.body, `<td data-label="Allowed">10,000</td>`, "the monthly click allowance")
		assert.Contains(t, p.body, "1 member and 0 pending invitations", "the owner")
		assert.Contains(t, p.body, `id="f-parameters"`, "an owner changes the defaults")
		assert.Contains(t, p.body, `id="f-session_lifetime_hours"`, "and the security policy")

		p = b.post(settings+"/parameters", url.Values{"parameters": {`{"injected":[{"key":"ref"}]}`}})
		require.Equal(t, http.StatusBadRequest, p.status, p.body)
		assert.Contains(t, p.body, `id="f-parameters-error"`)
		assert.Contains(t, p.body, `{&#34;injected&#34;:[{&#34;key&#34;:&#34;ref&#34;}]}</textarea>`, "the form keeps what was typed")
		assert.Equal(t, []any{}, h.orgSetting(t, h.org, "parameters")["injected"], "nothing changed")
		p = b.post(settings+"/parameters", url.Values{"parameters": {goodParameters}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, settings+"?done=parameters", p.location())
		injected := h.orgSetting(t, h.org, "parameters")["injected"].([]any)
		require.Len(t, injected, 1)
		assert.Equal(t, "ref", injected[0].(map[string]any)["key"], "the API reads the new defaults")
		p = b.get(p.location())
		assert.Contains(t, p.body, `id="notice"`)
		assert.Contains(t, p.body, "&#34;ref&#34;", "the page shows them")

		p = b.post(settings+"/security", url.Values{"session_lifetime_hours": {"24"}, "idle_timeout_minutes": {"2000"}})
		require.Equal(t, http.StatusBadRequest, p.status, p.body)
		assert.Contains(t, p.body, `id="f-idle_timeout_minutes-error"`, "longer than the lifetime")
		assert.Contains(t, p.body, `value="2000"`)
		p = b.post(settings+"/security", url.Values{"session_lifetime_hours": {"a day"}, "idle_timeout_minutes": {"60"}})
		require.Equal(t, http.StatusBadRequest, p.status, p.body)
		assert.Contains(t, p.body, `id="f-session_lifetime_hours-error"`)
		assert.Contains(t, p.body, `value="a day"`)
		assert.Equal(t, false, h.orgSetting(t, h.org, "security")["require_two_factor"])
		assert.NotEqual(t, float64(24), h.orgSetting(t, h.org, "security")["session_lifetime_hours"], "nothing changed")

		p = b.post(settings+"/security", url.Values{"session_lifetime_hours": {"24"}, "idle_timeout_minutes": {"60"}, "require_two_factor": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		got := h.orgSetting(t, h.org, "security")
		assert.Equal(t, map[string]any{"require_two_factor": true, "session_lifetime_hours": float64(24), "idle_timeout_minutes": float64(60)}, got)
		var changed []auditEvent
		for _, e := range h.auditEvents(t, h.org.key.raw) {
			if e.Action == "security_policy.changed" {
				changed = append(changed, e)
			}
		}
		require.Len(t, changed, 1, "audited as the API audits it")
		assert.Equal(t, "user", changed[0].ActorType)
		require.NotNil(t, changed[0].ActorID)
		assert.Equal(t, owner.id.String(), *changed[0].ActorID)
		assert.Equal(t, "true", changed[0].Details["require_two_factor"])
		p = b.get(settings)
		assert.Equal(t, http.StatusSeeOther, p.status, "the owner has no second factor: the new policy sends them to set one up")
		assert.Contains(t, p.location(), "/account/2fa")
	})
}

// TestDashboardSettingsRoles proves what each role may change: an admin
// the parameter defaults but not the security policy, a member neither;
// the POSTs refuse them too and change nothing, a POST without its CSRF
// token is refused, and another organization's settings are not found.
func TestDashboardSettingsRoles(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newRecHarness(t, s)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		settings := settingsPath(h.org)
		strict := url.Values{"session_lifetime_hours": {"2"}, "idle_timeout_minutes": {"10"}}
		unchanged := func() {
			t.Helper()
			assert.NotEqual(t, float64(2), h.orgSetting(t, h.org, "security")["session_lifetime_hours"], "the policy is unchanged")
		}

		ab := h.signedIn(t, admin, "198.51.100.81")
		p := ab.get(settings)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="f-parameters"`, "an admin changes the defaults")
		assert.Contains(t, p.body, `id="security-read-only"`, "but only reads the policy")
		assert.NotContains(t, p.body, `id="f-session_lifetime_hours"`)
		p = ab.post(settings+"/security", strict)
		assert.Equal(t, http.StatusForbidden, p.status, "the POST refuses an admin")
		unchanged()
		p = ab.get(settings)
		p = ab.post(settings+"/parameters", url.Values{"parameters": {goodParameters}})
		assert.Equal(t, http.StatusSeeOther, p.status, p.body)

		mb := h.signedIn(t, member, "198.51.100.82")
		p = mb.get(settings)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="parameters-read-only"`, "a member reads the defaults")
		assert.Contains(t, p.body, `id="security-read-only"`)
		assert.NotContains(t, p.body, `action="`+settings+`/parameters"`)
		p = mb.post(settings+"/parameters", url.Values{"parameters": {`{"injected":[]}`}})
		assert.Equal(t, http.StatusForbidden, p.status, "the POST refuses a member")
		assert.Len(t, h.orgSetting(t, h.org, "parameters")["injected"], 1, "the admin's defaults stay")
		mb.get(settings)
		assert.Equal(t, http.StatusForbidden, mb.post(settings+"/security", strict).status)
		unchanged()

		owner := h.member(t, auth.RoleOwner)
		ob := h.signedIn(t, owner, "198.51.100.83")
		ob.get(settings)
		for _, path := range []string{settings + "/security", settings + "/parameters"} {
			form := url.Values{"session_lifetime_hours": {"2"}, "idle_timeout_minutes": {"10"}, "parameters": {`{"injected":[]}`}}
			assert.Equal(t, http.StatusForbidden, ob.do(http.MethodPost, path, form, nil).status, "POST %s without a token", path)
			form.Set(httpapi.AccountCSRFField, ob.csrf())
			assert.Equal(t, http.StatusForbidden, ob.do(http.MethodPost, path, form, map[string]string{"Sec-Fetch-Site": "cross-site"}).status)
		}
		unchanged()
		assert.Len(t, h.orgSetting(t, h.org, "parameters")["injected"], 1)

		other := h.newOrg(t, "Beta")
		assert.Equal(t, http.StatusNotFound, ob.get(settingsPath(other)).status, "another organization's settings")
		ob.get(settings)
		assert.Equal(t, http.StatusNotFound, ob.post(settingsPath(other)+"/security", strict).status)
		assert.NotEqual(t, float64(2), h.orgSetting(t, other, "security")["session_lifetime_hours"])
	})
}
