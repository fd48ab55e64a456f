package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/web"
)

var styleElement = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

func TestEveryPageRendersInTheLayout(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			b, err := web.Execute(s.page, s.view)
			require.NoError(t, err)
			body := string(b)
			assert.True(t, strings.HasPrefix(body, "<!doctype html>\n<html lang=\"en\">"), "a document in English")
			assert.Contains(t, body, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
			assert.Equal(t, 1, strings.Count(body, "<main>"), "one main landmark")
			assert.Equal(t, 1, strings.Count(body, "<h1>"), "one heading")
			assert.Regexp(t, `<title>[^<]+</title>`, body)
			if strings.Contains(body, "data-copy=") {
				assert.Contains(t, body, "<script>"+web.CopyScript+"</script>", "a copy button's script, as its hash allows it")
				assert.Equal(t, 1, strings.Count(body, "<script"))
			} else {
				assert.NotContains(t, body, "<script")
			}
			styles := styleElement.FindAllStringSubmatch(body, -1)
			require.Len(t, styles, 1, "one stylesheet")
			sum := sha256.Sum256([]byte(styles[0][1]))
			hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
			assert.Contains(t, web.AccountPolicy.CSP(), "style-src "+hash+";", "the CSP allows the inlined stylesheet by its hash")
			assert.Contains(t, web.LinkDomainPolicy.CSP(), "style-src "+hash+";")
		})
		seen[s.page] = true
	}
	for _, p := range web.Pages() {
		assert.True(t, seen[p], "page %s has a sample", p)
	}
}

func TestExecuteRefusesAnUnknownPageOrView(t *testing.T) {
	_, err := web.Execute("nope", web.MessageView{})
	assert.ErrorContains(t, err, `no page "nope"`)
	_, err = web.Execute(web.PageAccount, web.PasswordView{})
	assert.Error(t, err, "a view without the page's fields")

	rec := httptest.NewRecorder()
	err = web.Render(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, "nope", nil)
	assert.Error(t, err)
	assert.Empty(t, rec.Body.String(), "nothing written: the caller answers")
}

func TestRender(t *testing.T) {
	view := web.LinkErrorView{Frame: web.Frame{Title: "Link not found"}, Text: "There is no link at this address."}
	rec := httptest.NewRecorder()
	require.NoError(t, web.Render(rec, httptest.NewRequest(http.MethodGet, "/x", nil), http.StatusNotFound, web.PageLinkError, view))
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
	assert.Contains(t, rec.Body.String(), "<title>Link not found</title>", "a link domain's page is not branded")

	head := httptest.NewRecorder()
	require.NoError(t, web.Render(head, httptest.NewRequest(http.MethodHead, "/x", nil), http.StatusNotFound, web.PageLinkError, view))
	assert.Empty(t, head.Body.String(), "HEAD: no body")
	assert.Equal(t, rec.Header().Get("Content-Length"), head.Header().Get("Content-Length"))
}

func TestSetHeaders(t *testing.T) {
	tests := []struct {
		name                string
		policy              web.Policy
		formAction          bool
		referrer, cacheCtrl string
	}{
		{"account pages: forms to this origin only", web.AccountPolicy, true, "same-origin", "no-store"},
		{"OAuth pages: the consent's answer leaves the origin", web.OAuthPolicy, false, "same-origin", "no-store"},
		{"link domains: redirects choose referrer and caching", web.LinkDomainPolicy, false, "", ""},
		{"dashboard: the account pages' with the copy script", web.DashboardPolicy, true, "same-origin", "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			web.SetHeaders(h, tt.policy)
			csp := h.Get("Content-Security-Policy")
			assert.Equal(t, tt.policy.CSP(), csp)
			for _, d := range []string{"default-src 'none'", "img-src data:", "base-uri 'none'", "frame-ancestors 'none'"} {
				assert.Contains(t, csp, d)
			}
			if tt.policy.CopyScript {
				sum := sha256.Sum256([]byte(web.CopyScript))
				assert.Contains(t, csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"';", "the copy script alone")
			} else {
				assert.NotContains(t, csp, "script-src", "no script at all")
			}
			assert.Equal(t, tt.formAction, strings.Contains(csp, "form-action 'self'"))
			assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
			assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
			assert.Equal(t, tt.referrer, h.Get("Referrer-Policy"))
			assert.Equal(t, tt.cacheCtrl, h.Get("Cache-Control"))
		})
	}
}

func TestGroup(t *testing.T) {
	assert.Equal(t, "JBSW Y3DP EHPK 3PXP", web.Group("JBSWY3DPEHPK3PXP", 4))
	assert.Equal(t, "JBSW Y3DP EH", web.Group("JBSWY3DPEH", 4), "a short last group")
	assert.Equal(t, "JBS", web.Group("JBS", 4))
	assert.Equal(t, "", web.Group("", 4))
	v := web.AccountView{Secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"}
	assert.Equal(t, "JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP", v.SecretGroups())
}

func TestEveryScopeIsDescribed(t *testing.T) {
	destructive := map[string]bool{}
	for _, s := range auth.AllScopes {
		p := web.DescribeScope(string(s))
		assert.Equal(t, string(s), p.Scope)
		assert.NotContains(t, p.Description, string(s), "%s is described in plain words, not by its code", s)
		destructive[string(s)] = p.Destructive
	}
	for _, s := range []string{"links:write", "apps:write", "keys:write", "domains:write", "org:delete", "team:write", "webhooks:write"} {
		assert.True(t, destructive[s], "%s can change or delete data: flagged", s)
	}
	for _, s := range []string{"links:read", "apps:read", "analytics:read", "keys:read", "domains:read", "org:read", "team:read", "webhooks:read"} {
		assert.False(t, destructive[s], "%s only reads", s)
	}
	unknown := web.DescribeScope("mystery:do")
	assert.True(t, unknown.Destructive, "a scope nothing describes is flagged")
	assert.Contains(t, unknown.Description, "mystery:do")
}
