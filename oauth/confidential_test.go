package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestConfidentialClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	user, o := h.member(t, "Acme", auth.RoleOwner)
	b := h.browser(t)
	redirect := "https://app.example/callback"
	reg := b.postJSON("/oauth/register", map[string]any{"client_name": "Server app", "redirect_uris": []string{redirect}})
	require.Equal(t, http.StatusCreated, reg.status, reg.body)
	id, secret := reg.json(t)["client_id"].(string), reg.json(t)["client_secret"].(string)

	p := newPKCE()
	back := b.consent(authorizeQuery(id, redirect, h.public+"/mcp", p, "links:read"), user.Email, o.ID.String())
	assert.Equal(t, "app.example", back.Host)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {redirect},
		"code_verifier": {p.verifier}}
	exchange := func(user, pass string) response {
		req, err := http.NewRequest(http.MethodPost, h.public+"/oauth/token", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		return b.do(req)
	}

	res := exchange(id, "wrong")
	require.Equal(t, http.StatusUnauthorized, res.status, res.body)
	assert.Equal(t, "invalid_client", res.json(t)["error"])
	res = exchange("", "")
	assert.Equal(t, http.StatusBadRequest, res.status, "a confidential client must authenticate: %s", res.body)
	assert.Equal(t, "invalid_request", res.json(t)["error"])

	res = exchange(id, secret)
	require.Equal(t, http.StatusOK, res.status, res.body)
	_, err := h.oauth.VerifyAccessToken(t.Context(), res.json(t)["access_token"].(string), h.public+"/mcp")
	assert.NoError(t, err)

	t.Run("PKCE is required of confidential clients too", func(t *testing.T) {
		q := authorizeQuery(id, redirect, "", p, "")
		q.Del("code_challenge")
		q.Del("code_challenge_method")
		res := b.get("/oauth/authorize?" + q.Encode())
		require.Contains(t, []int{http.StatusFound, http.StatusSeeOther}, res.status)
		assert.Equal(t, "invalid_request", res.location(t).Query().Get("error"))
	})
}
