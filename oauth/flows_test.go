package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestMetadataDocuments(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	for path, resource := range map[string]string{
		"/.well-known/oauth-protected-resource":     h.public,
		"/.well-known/oauth-protected-resource/mcp": h.public + "/mcp",
	} {
		res := b.get(path)
		require.Equal(t, http.StatusOK, res.status, path)
		v := res.json(t)
		assert.Equal(t, resource, v["resource"], "the resource is the URL the document's path was derived from (RFC 9728, 3.3)")
		assert.Equal(t, []any{h.public}, v["authorization_servers"])
		assert.Contains(t, v["scopes_supported"], "links:write")
	}
	v := b.get("/.well-known/oauth-authorization-server").json(t)
	for k, want := range map[string]any{
		"issuer": h.public, "revocation_endpoint": h.public + "/oauth/revoke", "introspection_endpoint": h.public + "/oauth/introspect",
		"code_challenge_methods_supported": []any{"S256"}, "authorization_response_iss_parameter_supported": true,
		"response_types_supported": []any{"code"}, "registration_endpoint": h.public + "/oauth/register",
		"authorization_endpoint": h.public + "/oauth/authorize", "token_endpoint": h.public + "/oauth/token",
		"grant_types_supported": []any{"authorization_code", "refresh_token"},
	} {
		assert.Equal(t, want, v[k], k)
	}
}

func TestIssuerHasNoPath(t *testing.T) {
	t.Parallel()
	u, err := url.Parse("https://example.com/hoplink")
	require.NoError(t, err)
	assert.Equal(t, "https://example.com", oauth.Issuer(u))
	assert.Equal(t, "https://example.com/hoplink/mcp", oauth.Resource(u))
}

// authorizeError follows an authorization request that must fail with a
// redirect to the client, and returns the redirect's query.
func authorizeError(t *testing.T, b *browser, q url.Values) url.Values {
	t.Helper()
	res := b.get("/oauth/authorize?" + q.Encode())
	require.Contains(t, []int{http.StatusFound, http.StatusSeeOther}, res.status, res.body)
	loc := res.location(t)
	require.Equal(t, "127.0.0.1:40000", loc.Host)
	return loc.Query()
}

func TestAuthorizeRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	redirect := "http://127.0.0.1:40000/cb"
	clientID := b.registerPublic(redirect)
	p := newPKCE()

	t.Run("a resource other than the MCP endpoint is invalid_target, with iss", func(t *testing.T) {
		for _, res := range []string{"https://other.example/mcp", h.public + "/v1", h.public + "/mcp/"} {
			q := authorizeError(t, b, authorizeQuery(clientID, redirect, res, p, ""))
			assert.Equal(t, "invalid_target", q.Get("error"), res)
			assert.Equal(t, h.public, q.Get("iss"))
		}
		q := authorizeQuery(clientID, redirect, h.public+"/mcp", p, "")
		q.Add("resource", "https://other.example/mcp")
		assert.Equal(t, "invalid_target", authorizeError(t, b, q).Get("error"), "two resources")
	})
	t.Run("PKCE is required", func(t *testing.T) {
		q := authorizeQuery(clientID, redirect, "", p, "")
		q.Del("code_challenge")
		q.Del("code_challenge_method")
		got := authorizeError(t, b, q)
		assert.Equal(t, "invalid_request", got.Get("error"))
		assert.Equal(t, h.public, got.Get("iss"))
	})
	t.Run("the plain PKCE method is refused", func(t *testing.T) {
		q := authorizeQuery(clientID, redirect, "", p, "")
		q.Set("code_challenge_method", "plain")
		assert.Equal(t, "invalid_request", authorizeError(t, b, q).Get("error"))
	})
	t.Run("an unknown scope is invalid_scope", func(t *testing.T) {
		q := authorizeQuery(clientID, redirect, "", p, "links:read admin")
		assert.Equal(t, "invalid_scope", authorizeError(t, b, q).Get("error"))
	})
	t.Run("a response mode other than query is refused in the query, with iss", func(t *testing.T) {
		for _, mode := range []string{"fragment", "form_post", "bogus"} {
			q := authorizeQuery(clientID, redirect, h.public+"/mcp", newPKCE(), "")
			q.Set("response_mode", mode)
			res := b.get("/oauth/authorize?" + q.Encode())
			require.Equal(t, http.StatusSeeOther, res.status, res.body)
			loc := res.location(t)
			assert.Empty(t, loc.Fragment, mode)
			assert.Equal(t, "unsupported_response_mode", loc.Query().Get("error"), mode)
			assert.Equal(t, h.public, loc.Query().Get("iss"), mode)
			assert.Equal(t, q.Get("state"), loc.Query().Get("state"), mode)
		}
		q := authorizeQuery(clientID, redirect, h.public+"/mcp", newPKCE(), "")
		q.Set("response_mode", "query")
		res := b.get("/oauth/authorize?" + q.Encode())
		require.Equal(t, http.StatusSeeOther, res.status, res.body)
		assert.Equal(t, "/login", res.location(t).Path, "response_mode=query is served")
	})
	t.Run("an unregistered redirect URI is never redirected to", func(t *testing.T) {
		for _, uri := range []string{"http://127.0.0.1:40000/other", "http://localhost:40000/cb", "https://evil.example/cb"} {
			res := b.get("/oauth/authorize?" + authorizeQuery(clientID, uri, "", p, "").Encode())
			assert.GreaterOrEqual(t, res.status, 400, uri)
			assert.Empty(t, res.header.Get("Location"), uri)
		}
	})
	t.Run("an unknown client is never redirected", func(t *testing.T) {
		res := b.get("/oauth/authorize?" + authorizeQuery("nope", redirect, "", p, "").Encode())
		assert.GreaterOrEqual(t, res.status, 400)
		assert.Empty(t, res.header.Get("Location"))
		assert.Contains(t, res.header.Get("Content-Type"), "application/json", "a client that does not ask for HTML gets JSON")
	})
	t.Run("a browser that cannot be sent back gets a page, with the same status", func(t *testing.T) {
		for _, q := range []url.Values{
			authorizeQuery("nope", redirect, "", p, ""),
			authorizeQuery(clientID, "https://evil.example/cb", "", p, ""),
		} {
			plain := b.get("/oauth/authorize?" + q.Encode())
			req, err := http.NewRequest(http.MethodGet, h.public+"/oauth/authorize?"+q.Encode(), nil)
			require.NoError(t, err)
			req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
			res := b.do(req)
			assert.Equal(t, plain.status, res.status)
			assert.Empty(t, res.header.Get("Location"))
			assert.Contains(t, res.header.Get("Content-Type"), "text/html")
			assert.Contains(t, res.body, "This connection request cannot be completed")
			assert.Contains(t, res.body, `name="viewport"`)
			assert.NotEmpty(t, res.header.Get("Content-Security-Policy"))
		}
	})
	t.Run("a browser not signed in goes to /login and back", func(t *testing.T) {
		q := authorizeQuery(clientID, redirect, h.public+"/mcp", p, "")
		res := b.get("/oauth/authorize?" + q.Encode())
		require.Equal(t, http.StatusSeeOther, res.status)
		loc := res.location(t)
		assert.Equal(t, "/login", loc.Path)
		assert.Equal(t, "/oauth/authorize?"+q.Encode(), loc.Query().Get("return_to"))
		assert.Equal(t, url.Values{"return_to": {"/oauth/authorize?" + q.Encode()}}, loc.Query(), "nothing else, no iss")
	})
}

func TestConsentPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleMember)
	_, other := h.member(t, "Other", auth.RoleOwner)
	_, err := h.orgs.AddMember(t.Context(), other.ID, user.Email, auth.RoleAdmin)
	require.NoError(t, err)
	b := h.browser(t)
	redirect := "http://127.0.0.1:40000/cb"
	clientID := b.registerPublic(redirect)
	q := authorizeQuery(clientID, redirect, h.public+"/mcp", newPKCE(), "links:read apps:write org:delete")

	res := b.get("/oauth/authorize?" + q.Encode())
	require.Equal(t, http.StatusSeeOther, res.status)
	back := b.signIn(res.location(t), user.Email)
	require.Equal(t, http.StatusSeeOther, back.status)
	page := b.get(back.location(t).RequestURI())
	require.Equal(t, http.StatusOK, page.status)
	assert.Contains(t, page.body, "Test Desktop", "the page names the client")
	assert.Contains(t, page.body, "127.0.0.1:40000", "the page shows the redirect host")
	assert.Contains(t, page.body, `<select id="org_id" name="org_id">`)
	assert.Contains(t, page.body, `value="all"`, "all my organizations")
	assert.Contains(t, page.body, `value="`+o.ID.String()+`"`)
	assert.Contains(t, page.body, `name="decision" value="allow"`)
	assert.Contains(t, page.body, `name="decision" value="deny"`)
	granted := between(t, page.body, `<ul class="permissions" id="permissions"`, `</ul>`)
	assert.Contains(t, granted, `<li data-scope="apps:write">Create, change and delete apps <span class="destructive">(can change or delete data)</span>`,
		"an admin of Other may grant apps:write, in plain words and flagged")
	assert.Contains(t, granted, `<li data-scope="links:read">See your links and their settings <code`, "a read scope is not flagged")
	assert.NotContains(t, granted, "org:delete", "no role of the user allows org:delete")
	assert.Contains(t, between(t, page.body, `<ul class="permissions" id="withheld">`, `</ul>`), `data-scope="org:delete"`,
		"the page says what the role withholds")
	assert.Contains(t, page.body, `id="unverified"`, "the client's name is its own: the page says it is unverified")
	assert.Contains(t, page.body, `<strong class="mono" id="redirect-host">127.0.0.1:40000</strong>`, "where the answer goes")
	assert.Contains(t, page.body, `value="allow" id="allow" class="primary"`, "Allow is the primary action")
	assert.NotContains(t, page.body, `value="deny" id="deny" class="primary"`)

	form := hiddenFields(page.body)
	t.Run("the form needs its CSRF token", func(t *testing.T) {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("csrf_token", "forged")
		bad.Set("org_id", o.ID.String())
		bad.Set("decision", "allow")
		assert.Equal(t, http.StatusForbidden, b.post("/oauth/authorize", bad).status)
	})
	t.Run("an organization of someone else is refused", func(t *testing.T) {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set("org_id", "0190a5d2-0000-7000-8000-000000000000")
		f.Set("decision", "allow")
		assert.Equal(t, http.StatusBadRequest, b.post("/oauth/authorize", f).status)
	})
	t.Run("the scopes granted are those the chosen organization's role allows", func(t *testing.T) {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set("org_id", o.ID.String())
		f.Set("decision", "allow")
		res := b.post("/oauth/authorize", f)
		require.Equal(t, http.StatusSeeOther, res.status, res.body)
		loc := res.location(t)
		assert.Equal(t, "links:read", loc.Query().Get("scope"), "a member may not grant apps:write")
		assert.Equal(t, h.public, loc.Query().Get("iss"))
	})
	t.Run("deny answers access_denied with iss", func(t *testing.T) {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set("org_id", "all")
		f.Set("decision", "deny")
		res := b.post("/oauth/authorize", f)
		require.Equal(t, http.StatusSeeOther, res.status, res.body)
		assert.Equal(t, "access_denied", res.location(t).Query().Get("error"))
		assert.Equal(t, h.public, res.location(t).Query().Get("iss"))
	})
}

func TestAuthorizeWithoutState(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	redirect := "http://127.0.0.1:40000/cb"
	q := authorizeQuery(b.registerPublic(redirect), redirect, h.public+"/mcp", newPKCE(), "links:read")
	q.Del("state")
	back := b.consent(q, user.Email, o.ID.String())
	assert.NotEmpty(t, back.Query().Get("code"), "PKCE protects the flow; state is optional: %s", back)
	assert.Empty(t, back.Query().Get("state"))
}

func TestConsentRequiresTwoFactorEnrolment(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Strict", auth.RoleOwner)
	pol := account.DefaultPolicy()
	pol.RequireTwoFactor = true
	_, err := h.accounts.SetOrgPolicy(t.Context(), o.ID, pol)
	require.NoError(t, err)
	b := h.browser(t)
	redirect := "http://127.0.0.1:40000/cb"
	q := authorizeQuery(b.registerPublic(redirect), redirect, "", newPKCE(), "")
	res := b.get("/oauth/authorize?" + q.Encode())
	b.signIn(res.location(t), user.Email)
	res = b.get("/oauth/authorize?" + q.Encode())
	require.Equal(t, http.StatusSeeOther, res.status)
	assert.Equal(t, "/account/2fa", res.location(t).Path, "enrol before any consent")
}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *storeT) {
		h := newHarness(t, s)
		user, o := h.member(t, "Acme", auth.RoleOwner)
		b := h.browser(t)
		resource := h.public + "/mcp"

		t.Run("a resource other than the MCP endpoint is invalid_target", func(t *testing.T) {
			redirect := "http://127.0.0.1:40000/cb"
			clientID := b.registerPublic(redirect)
			p := newPKCE()
			back := b.consent(authorizeQuery(clientID, redirect, resource, p, "links:read"), user.Email, o.ID.String())
			form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {redirect},
				"client_id": {clientID}, "code_verifier": {p.verifier}, "resource": {"https://other.example/mcp"}}
			res := b.tokens(form)
			require.Equal(t, http.StatusBadRequest, res.status)
			assert.Equal(t, "invalid_target", res.json(t)["error"])

			form.Set("code_verifier", newPKCE().verifier)
			form.Del("resource")
			res = b.tokens(form)
			require.Equal(t, http.StatusBadRequest, res.status, "a wrong PKCE verifier")
			assert.Equal(t, "invalid_grant", res.json(t)["error"])
		})

		t.Run("a reused code is refused and revokes the grant", func(t *testing.T) {
			redirect := "http://127.0.0.1:40000/cb"
			clientID := b.registerPublic(redirect)
			p := newPKCE()
			back := b.consent(authorizeQuery(clientID, redirect, resource, p, "links:read"), user.Email, o.ID.String())
			form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {redirect},
				"client_id": {clientID}, "code_verifier": {p.verifier}}
			first := b.tokens(form)
			require.Equal(t, http.StatusOK, first.status, first.body)
			access := first.json(t)["access_token"].(string)
			refresh := first.json(t)["refresh_token"].(string)
			_, err := h.oauth.VerifyAccessToken(t.Context(), access, resource)
			require.NoError(t, err)

			again := b.tokens(form)
			require.Equal(t, http.StatusBadRequest, again.status)
			assert.Equal(t, "invalid_grant", again.json(t)["error"])
			_, err = h.oauth.VerifyAccessToken(t.Context(), access, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken, "the first exchange's access token is revoked")
			res := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
			assert.Equal(t, http.StatusBadRequest, res.status, "and its refresh token")
		})

		t.Run("a reused refresh token revokes the whole grant after the grace window", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			refresh := func(token string) response {
				return b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {c.clientID}})
			}
			first := refresh(c.refresh)
			require.Equal(t, http.StatusOK, first.status, first.body)
			concurrent := refresh(c.refresh)
			require.Equal(t, http.StatusOK, concurrent.status, "within the grace window a concurrent refresh succeeds: %s", concurrent.body)
			newRefresh := first.json(t)["refresh_token"].(string)
			newAccess := first.json(t)["access_token"].(string)
			g, err := h.oauth.VerifyAccessToken(t.Context(), newAccess, resource)
			require.NoError(t, err)

			h.clock.Advance(oauth.RefreshGracePeriod)
			reused := refresh(c.refresh)
			require.Equal(t, http.StatusBadRequest, reused.status)
			assert.Equal(t, "invalid_grant", reused.json(t)["error"])
			_, err = h.oauth.VerifyAccessToken(t.Context(), newAccess, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken, "reuse revokes the tokens issued since")
			assert.Equal(t, http.StatusBadRequest, refresh(newRefresh).status)
			assert.NotContains(t, b.get("/account/connections").body, g.ConnectionID.String(), "the connection is revoked")
		})

		t.Run("the audience must be the resource the MCP endpoint checks", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			_, err := h.oauth.VerifyAccessToken(t.Context(), c.access, "https://other.example/mcp")
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			_, err = h.oauth.VerifyAccessToken(t.Context(), c.access+"x", resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			_, err = h.oauth.VerifyAccessToken(t.Context(), c.refresh, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken, "a refresh token is not an access token")
			g, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			require.NoError(t, err)
			assert.Equal(t, []string{"links:read"}, g.Scopes)
			assert.Equal(t, c.clientID, g.ClientID)
		})

		t.Run("RFC 7009 revocation ends the grant", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			res := b.post("/oauth/revoke", url.Values{"token": {c.refresh}, "token_type_hint": {"refresh_token"}, "client_id": {c.clientID}})
			require.Equal(t, http.StatusOK, res.status, res.body)
			_, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			res = b.post("/oauth/revoke", url.Values{"token": {"unknown"}, "client_id": {c.clientID}})
			assert.Equal(t, http.StatusOK, res.status, "an unknown token is a success")
		})

		t.Run("RFC 7009 revocation of an access token ends the grant too", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			g, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			require.NoError(t, err)
			res := b.post("/oauth/revoke", url.Values{"token": {c.access}, "token_type_hint": {"access_token"}, "client_id": {c.clientID}})
			require.Equal(t, http.StatusOK, res.status, res.body)
			_, err = h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			ref := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.refresh}, "client_id": {c.clientID}})
			assert.Equal(t, http.StatusBadRequest, ref.status, "the refresh token is revoked with it")
			assert.NotContains(t, b.get("/account/connections").body, g.ConnectionID.String(), "the connection is revoked")
		})

		t.Run("another client cannot revoke the grant", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			intruder := b.registerPublic("http://127.0.0.1:40001/cb")
			res := b.post("/oauth/revoke", url.Values{"token": {c.refresh}, "client_id": {intruder}})
			assert.Equal(t, http.StatusOK, res.status, "the answer says nothing of another client's token: %s", res.body)
			_, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			assert.NoError(t, err, "the grant stays")
			ref := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.refresh}, "client_id": {c.clientID}})
			assert.Equal(t, http.StatusOK, ref.status, ref.body)
		})

		t.Run("revoking a connection on the account page ends its tokens", func(t *testing.T) {
			c := h.connect(t, b, user.Email, "all", "links:read")
			g, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			require.NoError(t, err)
			assert.Nil(t, g.OrgID, "all my organizations")
			page := b.get("/account/connections")
			require.Equal(t, http.StatusOK, page.status)
			assert.Contains(t, page.body, "All my organizations")
			// Two consents of one client name differ by organization,
			// permissions, time and where the answers go.
			assert.Contains(t, page.body, `<td data-label="Answers go to">127.0.0.1:40000</td>`, "the redirect host")
			assert.Contains(t, page.body, `<td data-label="Connected">`)
			csrf := hiddenFields(page.body).Get("csrf_token")

			forged := b.post("/account/connections/revoke", url.Values{"csrf_token": {"forged"}, "id": {g.ConnectionID.String()}})
			assert.Equal(t, http.StatusForbidden, forged.status)
			other := b.post("/account/connections/revoke", url.Values{"csrf_token": {csrf}, "id": {"0190a5d2-0000-7000-8000-000000000000"}})
			assert.Equal(t, http.StatusNotFound, other.status)

			res := b.post("/account/connections/revoke", url.Values{"csrf_token": {csrf}, "id": {g.ConnectionID.String()}})
			require.Equal(t, http.StatusSeeOther, res.status, res.body)
			_, err = h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			ref := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.refresh}, "client_id": {c.clientID}})
			assert.Equal(t, http.StatusBadRequest, ref.status)
		})

		t.Run("another user cannot revoke the connection", func(t *testing.T) {
			c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
			g, err := h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			require.NoError(t, err)
			stranger, _ := h.member(t, "Elsewhere", auth.RoleOwner)
			sb := h.browser(t)
			h.connect(t, sb, stranger.Email, "all", "links:read")
			page := sb.get("/account/connections")
			assert.NotContains(t, page.body, g.ConnectionID.String())
			res := sb.post("/account/connections/revoke", url.Values{"csrf_token": {hiddenFields(page.body).Get("csrf_token")}, "id": {g.ConnectionID.String()}})
			assert.Equal(t, http.StatusNotFound, res.status)
			_, err = h.oauth.VerifyAccessToken(t.Context(), c.access, resource)
			assert.NoError(t, err)
		})
	})
}

func TestIntrospection(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	c := h.connect(t, b, user.Email, o.ID.String(), "links:read")

	reg := b.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"https://app.example/cb"}})
	require.Equal(t, http.StatusCreated, reg.status)
	v := reg.json(t)
	introspect := func(token, id, secret string) response {
		req, err := http.NewRequest(http.MethodPost, h.public+"/oauth/introspect", strings.NewReader(url.Values{"token": {token}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(id, secret)
		return b.do(req)
	}
	res := introspect(c.access, v["client_id"].(string), v["client_secret"].(string))
	require.Equal(t, http.StatusOK, res.status, res.body)
	assert.Equal(t, true, res.json(t)["active"])
	assert.Equal(t, []any{h.public + "/mcp"}, res.json(t)["aud"])

	res = introspect(c.access, v["client_id"].(string), "wrong")
	assert.Equal(t, http.StatusUnauthorized, res.status)
}

func TestOversizedBodiesAreRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	big := url.Values{"grant_type": {"authorization_code"}, "code": {strings.Repeat("x", 70<<10)}}
	for _, path := range []string{"/oauth/token", "/oauth/authorize"} {
		res := b.post(path, big)
		assert.Equal(t, http.StatusBadRequest, res.status, path)
		assert.Equal(t, "invalid_request", res.json(t)["error"], path)
	}
}

func TestLoopbackRedirectsMayUseAnyPort(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	for _, host := range []string{"127.0.0.1", "[::1]"} {
		t.Run(host, func(t *testing.T) {
			clientID := b.registerPublic("http://" + host + ":33418/cb")
			back := b.consent(authorizeQuery(clientID, "http://"+host+":50123/cb", h.public+"/mcp", newPKCE(), "links:read"), user.Email, o.ID.String())
			assert.Equal(t, host+":50123", back.Host, "the port the client listens on now")
			assert.NotEmpty(t, back.Query().Get("code"))
			assert.Equal(t, h.public, back.Query().Get("iss"))

			res := b.get("/oauth/authorize?" + authorizeQuery(clientID, "http://"+host+":50123/other", h.public+"/mcp", newPKCE(), "links:read").Encode())
			assert.Equal(t, http.StatusBadRequest, res.status, "only the port may differ, not the path")
		})
	}
}

func TestUnsupportedGrantType(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	b := h.browser(t)
	clientID := b.registerPublic("http://127.0.0.1:40000/cb")
	for _, gt := range []string{"password", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"} {
		res := b.tokens(url.Values{"grant_type": {gt}, "client_id": {clientID}})
		require.Equal(t, http.StatusBadRequest, res.status, gt)
		assert.Equal(t, "unsupported_grant_type", res.json(t)["error"], gt)
	}
}

func TestOnlyTokenSignaturesAreStored(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *storeT) {
		h := newHarness(t, s)
		user, o := h.member(t, "Acme", auth.RoleOwner)
		b := h.browser(t)
		redirect := "http://127.0.0.1:40000/cb"
		clientID := b.registerPublic(redirect)
		p := newPKCE()
		code := b.consent(authorizeQuery(clientID, redirect, h.public+"/mcp", p, "links:read"), user.Email, o.ID.String()).Query().Get("code")
		res := b.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {clientID}, "code_verifier": {p.verifier}})
		require.Equal(t, http.StatusOK, res.status, res.body)
		first := res.json(t)
		res = b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first["refresh_token"].(string)}, "client_id": {clientID}})
		require.Equal(t, http.StatusOK, res.status, res.body)
		second := res.json(t)

		var rows []map[string]any
		require.NoError(t, s.DB().NewSelect().Table("oauth_tokens").Scan(t.Context(), &rows))
		require.NotEmpty(t, rows)
		var dump strings.Builder
		for _, row := range rows {
			for _, v := range row {
				switch v := v.(type) {
				case string:
					dump.WriteString(v)
				case []byte:
					dump.Write(v)
				}
				dump.WriteString("\n")
			}
		}
		stored := dump.String()
		secrets := map[string]string{"code": code, "code_verifier": p.verifier,
			"first access token": first["access_token"].(string), "first refresh token": first["refresh_token"].(string),
			"second access token": second["access_token"].(string), "second refresh token": second["refresh_token"].(string)}
		for name, secret := range secrets {
			key, sig, ok := strings.Cut(secret, ".")
			if ok {
				assert.NotContains(t, stored, key, "the %s's key part is never stored", name)
				assert.Contains(t, stored, sig, "the %s is found by its signature", name)
			}
			assert.NotContains(t, stored, secret, name)
		}
	})
}

// between returns the part of s from the first start to the end that
// follows it.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	require.GreaterOrEqual(t, i, 0, "%q in the page", start)
	j := strings.Index(s[i:], end)
	require.GreaterOrEqual(t, j, 0, "%q after %q", end, start)
	return s[i : i+j]
}

// TestPageErrorIsAPage proves that an unexpected error on the pages (here
// the database gone) is a page in the layout, with the pages' headers,
// saying what happened: not a bare text answer.
func TestPageErrorIsAPage(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	h := newHarness(t, s)
	user, _ := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	login, err := url.Parse(h.public + "/login?return_to=%2Faccount%2Fconnections")
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, b.signIn(login, user.Email).status)
	require.Equal(t, http.StatusOK, b.get("/account/connections").status)

	require.NoError(t, s.Close())
	page := b.get("/account/connections")
	assert.Equal(t, http.StatusInternalServerError, page.status)
	assert.Equal(t, "text/html; charset=utf-8", page.header.Get("Content-Type"))
	assert.Contains(t, page.body, `<p class="error" role="alert" id="error">Something went wrong on our side. Please try again.</p>`)
	assert.Contains(t, page.body, `<meta name="viewport"`)
	assert.Equal(t, "DENY", page.header.Get("X-Frame-Options"))
	assert.Equal(t, "no-store", page.header.Get("Cache-Control"))
	assert.NotEmpty(t, page.header.Get("Content-Security-Policy"))
}

func TestOnTokenIssuedCountsEachTokenResponseByGrantType(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	issued := map[string]int{}
	h := newHarness(t, storetest.SQLite(t), func(o *oauth.Options) {
		o.OnTokenIssued = func(grantType string) {
			mu.Lock()
			defer mu.Unlock()
			issued[grantType]++
		}
	})
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	c := h.connect(t, b, user.Email, o.ID.String(), "links:read")
	res := b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.refresh}, "client_id": {c.clientID}})
	require.Equal(t, http.StatusOK, res.status, res.body)
	res = b.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"not-a-token"}, "client_id": {c.clientID}})
	require.Equal(t, http.StatusBadRequest, res.status, "a refused request issues nothing")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"authorization_code": 1, "refresh_token": 1}, issued)
}
