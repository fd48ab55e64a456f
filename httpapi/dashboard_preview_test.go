package httpapi_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web"
)

// previewText returns the text of the preview card's element id in body.
func previewText(t testing.TB, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<p class="[^"]*" id="` + id + `">([^<]*)</p>`).FindStringSubmatch(body)
	require.NotNil(t, m, "the card has #%s: %s", id, body)
	return m[1]
}

// TestDashboardLinkPreviewCard proves the link form's preview card: drawn
// on the server from the form's values with the link domain's title rule
// (preview title, else name, else destination), its image named by host
// and never loaded, its domain the one the link goes on; redrawn after a
// refused submission from what was typed, escaped; and its script allowed
// by the dashboard's CSP.
func TestDashboardLinkPreviewCard(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	appID := h.newApp(t, h.org.ID)
	app, err := h.apps.Get(t.Context(), orgPrincipal(h.org), appID)
	require.NoError(t, err)
	b := h.signedIn(t, owner, "198.51.100.80")
	list := linksPath(h.org.ID)

	p := b.get(list + "/new")
	require.Equal(t, http.StatusOK, p.status)
	assert.Equal(t, "The title appears here", previewText(t, p.body, "preview-title"), "an empty form's card")
	assert.Equal(t, "No image", previewText(t, p.body, "preview-image"))
	assert.Equal(t, linkDomain, previewText(t, p.body, "preview-domain"), "no app: the service's domain")
	assert.Contains(t, p.body, `data-apps="`+appID.String()+`=`+app.DefaultLinkDomain+`"`, "the script learns each app's domain")
	assert.Regexp(t, `(?s)<legend>Preview</legend>.*</fieldset>\s*<section class="preview"`, p.body, "the card follows the preview fields")
	assert.Contains(t, p.body, "<script>"+web.PreviewScript+"</script>")
	assert.Contains(t, p.header.Get("Content-Security-Policy"), "script-src ", "the script is allowed by its hash")
	assert.Equal(t, web.DashboardPolicy.CSP(), p.header.Get("Content-Security-Policy"))
	assert.NotContains(t, p.header.Get("Content-Security-Policy"), "img-src data: https:", "no remote image is allowed")

	form := url.Values{"destination_url": {"https://shop.example/winter"}, "slug": {"Not A Slug"}, "app_id": {appID.String()},
		"name": {"Winter"}, "og_description": {"Coats & <boots>"}, "og_image_url": {"https://cdn.example.com:8443/sale.png?w=1200"}}
	p = b.post(list, form)
	require.Equal(t, http.StatusBadRequest, p.status, "a refused form")
	assert.Equal(t, "Winter", previewText(t, p.body, "preview-title"), "no preview title: the name")
	assert.Equal(t, "Coats &amp; &lt;boots&gt;", previewText(t, p.body, "preview-description"), "escaped")
	assert.Equal(t, "Image from cdn.example.com:8443", previewText(t, p.body, "preview-image"))
	assert.NotContains(t, p.body, `src="https://cdn.example.com`, "the image is never loaded")
	assert.Equal(t, app.DefaultLinkDomain, previewText(t, p.body, "preview-domain"), "the chosen app's domain")

	form.Set("og_title", "Winter sale")
	form.Set("og_image_url", "javascript:alert(1)")
	form.Set("domain", "go.elsewhere.example")
	p = b.post(list, form)
	assert.Equal(t, "Winter sale", previewText(t, p.body, "preview-title"), "the preview title first")
	assert.Equal(t, "No image", previewText(t, p.body, "preview-image"), "not an http URL: no host to name")
	assert.Equal(t, "go.elsewhere.example", previewText(t, p.body, "preview-domain"), "the domain typed")

	form.Del("og_title")
	form.Del("name")
	form.Set("slug", "winter")
	form.Set("og_image_url", "https://cdn.example.com/sale.png")
	form.Del("domain")
	p = b.post(list, form)
	require.Equal(t, http.StatusSeeOther, p.status, p.body)
	id := linkPagePath.FindStringSubmatch(p.location())[1]
	p = b.get(list + "/" + id + "/edit")
	require.Equal(t, http.StatusOK, p.status)
	l, err := h.links.Get(t.Context(), orgPrincipal(h.org), uuid.MustParse(id))
	require.NoError(t, err)
	assert.Equal(t, "https://shop.example/winter", previewText(t, p.body, "preview-title"), "no title or name: the destination")
	assert.Equal(t, l.Domain, previewText(t, p.body, "preview-domain"), "the edit form: the link's own domain")
	assert.Contains(t, p.body, `data-domain="`+l.Domain+`" data-apps=""`)
}

// TestDashboardLinkPreviewCardNotOnOtherForms proves that only the link
// form carries the card and its script.
func TestDashboardLinkPreviewCardNotOnOtherForms(t *testing.T) {
	t.Parallel()
	h := newDashHarness(t, storetest.SQLite(t))
	owner := h.member(t, auth.RoleOwner)
	l := h.memberLink(t, owner, h.newApp(t, h.org.ID), "plain")
	b := h.signedIn(t, owner, "198.51.100.81")
	for _, path := range []string{linksPath(h.org.ID), linksPath(h.org.ID) + "/" + l.ID.String() + "/delete", keysPath(h)} {
		p := b.get(path)
		require.Equal(t, http.StatusOK, p.status, path)
		assert.NotContains(t, p.body, `id="preview-card"`, path)
		assert.NotContains(t, p.body, web.PreviewScript, path)
	}
}
