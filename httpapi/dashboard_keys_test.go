package httpapi_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func keysPath(h *dashHarness) string { return "/dashboard/o/" + h.org.ID.String() + "/keys" }

var rawKeyText = regexp.MustCompile(`<code id="raw-key">(svc_[a-z]+_[A-Za-z0-9_-]+)</code>`)

func TestDashboardKeysJourney(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		owner := h.member(t, auth.RoleOwner)
		b := h.signedIn(t, owner, "198.51.100.50")
		keys := keysPath(h)

		p := b.get("/dashboard/o/" + h.org.ID.String() + "/links")
		assert.Contains(t, p.body, `href="`+keys+`"`, "the navigation offers the keys")
		p = b.get(keys)
		require.Equal(t, http.StatusOK, p.status, p.body)
		assert.Contains(t, p.body, `id="f-scope-team-write"`, "an owner grants every scope")
		assert.NotContains(t, p.body, `id="f-scope-attribution-write"`, "attribution:write belongs to SDK keys")

		p = b.post(keys, url.Values{"name": {""}, "type": {"api"}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="f-name-error"`)
		assert.Contains(t, p.body, `id="f-scopes-error"`)
		p = b.post(keys, url.Values{"name": {"deploy"}, "type": {"api"}, "scopes": {"links:read"}, "expires_at": {"soon"}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, `id="f-expires_at-error"`)
		assert.Contains(t, p.body, `value="deploy"`, "the form keeps what was typed")
		assert.Regexp(t, `id="f-scope-links-read" name="scopes" value="links:read" checked`, p.body)
		p = b.post(keys, url.Values{"name": {"deploy"}, "type": {"sdk"}, "expires_at": {"2020-01-01T00:00"}})
		require.Equal(t, http.StatusBadRequest, p.status)
		assert.Contains(t, p.body, "SDK keys never expire")
		p = b.post(keys, url.Values{"name": {"deploy"}, "type": {"sdk"}, "app_id": {h.org.ID.String()}})
		require.Equal(t, http.StatusBadRequest, p.status, "an app of no organization of the member")
		assert.Contains(t, p.body, `id="f-app_id-error"`)
		assert.Equal(t, 1, h.count(t, "api_keys", h.org.ID), "nothing created: the harness's own key alone")

		p = b.post(keys, url.Values{"name": {"deploy <bot>"}, "type": {"api"}, "scopes": {"links:read", "links:write"}})
		require.Equal(t, http.StatusCreated, p.status, p.body)
		assert.Equal(t, "no-store", p.header.Get("Cache-Control"), "the page with the raw key is not cached")
		m := rawKeyText.FindStringSubmatch(p.body)
		require.NotNil(t, m, p.body)
		raw := m[1]
		assert.Contains(t, p.body, `data-copy="raw-key"`)
		assert.Contains(t, p.body, "deploy &lt;bot&gt;")
		r := h.get(t, raw, "/v1/links")
		assert.Equal(t, http.StatusOK, r.status, "the new key works")
		r = h.get(t, raw, "/v1/apps")
		assert.Equal(t, http.StatusForbidden, r.status, "with the scopes chosen only")

		p = b.get(keys)
		assert.Contains(t, p.body, "deploy &lt;bot&gt;")
		assert.Contains(t, p.body, "links:read, links:write")
		assert.NotContains(t, p.body, raw, "the raw key is shown once")
		created, err := h.keys.List(t.Context(), orgPrincipal(h.org))
		require.NoError(t, err)
		var id string
		for _, k := range created {
			if k.Name == "deploy <bot>" {
				id = k.ID.String()
				require.NotNil(t, k.CreatedBy)
				assert.Equal(t, owner.id, *k.CreatedBy, "the member created it")
			}
		}
		require.NotEmpty(t, id)

		p = b.post(keys, url.Values{"name": {"app"}, "type": {"sdk"}, "scopes": {"team:write"}})
		require.Equal(t, http.StatusCreated, p.status, p.body)
		assert.Contains(t, p.body, "links:read, attribution:write", "an SDK key has its fixed scopes")

		revoke := keys + "/" + id + "/revoke"
		p = b.get(revoke)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `name="confirm"`)
		p = b.post(revoke, url.Values{})
		assert.Equal(t, http.StatusBadRequest, p.status, "no confirmation")
		assert.Equal(t, http.StatusOK, h.get(t, raw, "/v1/links").status, "not revoked")
		p = b.post(revoke, url.Values{"confirm": {"yes"}})
		require.Equal(t, http.StatusSeeOther, p.status, p.body)
		assert.Equal(t, keys+"?done=revoked", p.location())
		assert.Equal(t, http.StatusUnauthorized, h.get(t, raw, "/v1/links").status, "revoked")
		p = b.get(keys)
		assert.NotContains(t, p.body, "deploy &lt;bot&gt;")

		var events []auditEvent
		for _, e := range h.auditEvents(t, h.org.key.raw) {
			if e.Action == "key.created" || e.Action == "key.revoked" {
				events = append(events, e)
			}
		}
		require.Len(t, events, 3)
		for _, e := range events {
			assert.Equal(t, "user", e.ActorType)
			require.NotNil(t, e.ActorID)
			assert.Equal(t, owner.id.String(), *e.ActorID)
		}
		assert.Equal(t, "key.revoked", events[0].Action, "newest first")
		assert.Equal(t, id, events[0].TargetID)
	})
}

func TestDashboardKeysRolesIsolationAndCSRF(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDashHarness(t, s)
		admin := h.member(t, auth.RoleAdmin)
		member := h.member(t, auth.RoleMember)
		adminKey := h.memberKey(t, admin, auth.ScopeLinksRead)
		ownKey := h.memberKey(t, member, auth.ScopeLinksRead)
		other := h.newOrg(t, "Beta")
		foreign := h.scopedKey(t, other, auth.ScopeLinksRead)
		keys := keysPath(h)

		b := h.signedIn(t, member, "198.51.100.51")
		p := b.get(keys)
		require.Equal(t, http.StatusOK, p.status)
		assert.Contains(t, p.body, `id="own-keys"`)
		assert.Contains(t, p.body, keys+"/"+ownKey.id.String()+"/revoke", "a member revokes their own key")
		assert.NotContains(t, p.body, adminKey.id.String(), "and sees no other's")
		assert.NotContains(t, p.body, `id="f-scope-team-write"`, "nor is offered a scope the role may not grant")
		assert.Contains(t, p.body, `id="f-scope-links-write"`)

		p = b.post(keys, url.Values{"name": {"sneaky"}, "type": {"api"}, "scopes": {"team:write"}})
		assert.Equal(t, http.StatusForbidden, p.status, "the POST refuses the scope anyway")
		theirs := keys + "/" + adminKey.id.String() + "/revoke"
		assert.Equal(t, http.StatusForbidden, b.get(theirs).status)
		b.get(keys)
		assert.Equal(t, http.StatusForbidden, b.post(theirs, url.Values{"confirm": {"yes"}}).status)
		assert.Equal(t, http.StatusOK, h.get(t, adminKey.raw, "/v1/links").status, "not revoked")

		for _, path := range []string{keys + "/" + foreign.id.String() + "/revoke", keys + "/not-an-id/revoke"} {
			assert.Equal(t, http.StatusNotFound, b.get(path).status, "GET %s", path)
			b.get(keys)
			assert.Equal(t, http.StatusNotFound, b.post(path, url.Values{"confirm": {"yes"}}).status, "POST %s", path)
		}
		assert.Equal(t, http.StatusOK, h.get(t, foreign.raw, "/v1/links").status, "another organization's key lives")
		otherKeys := "/dashboard/o/" + other.ID.String() + "/keys"
		assert.Equal(t, http.StatusNotFound, b.get(otherKeys).status, "another organization's keys page")

		own := keys + "/" + ownKey.id.String() + "/revoke"
		for _, path := range []string{keys, own} {
			form := url.Values{"confirm": {"yes"}, "name": {"csrf"}, "type": {"sdk"}}
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, path, form, nil).status, "POST %s without a token", path)
			form.Set(httpapi.AccountCSRFField, b.csrf())
			assert.Equal(t, http.StatusForbidden, b.do(http.MethodPost, path, form, map[string]string{"Sec-Fetch-Site": "cross-site"}).status)
		}
		assert.Equal(t, http.StatusOK, h.get(t, ownKey.raw, "/v1/links").status)
		assert.Equal(t, 3, h.count(t, "api_keys", h.org.ID), "nothing created")

		anon := h.browser(t, "198.51.100.52")
		p = anon.get(keys)
		assert.Equal(t, http.StatusSeeOther, p.status)
		assert.Equal(t, "/login?"+url.Values{"return_to": {keys}}.Encode(), p.location())
	})
}
