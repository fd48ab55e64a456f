package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed templates/*.html templates/parts/*.html
var templateFiles embed.FS

//go:embed style.css
var stylesheet string

// Stylesheet is the pages' one stylesheet, inlined in every page's style
// element and allowed by its hash (CSP).
func Stylesheet() string { return stylesheet }

// base is the layout and the parts every page may use (templates/parts:
// the charts), which each page's template is cloned from.
var base = func() *template.Template {
	funcs := template.FuncMap{
		// The stylesheet is ours and fixed: safe as CSS.
		"stylesheet": func() template.CSS { return template.CSS(stylesheet) },
		// The copy button's script is ours and fixed: safe as JavaScript.
		"copyscript": func() template.JS { return template.JS(CopyScript) },
		// So is the link form's preview card's.
		"previewscript": func() template.JS { return template.JS(PreviewScript) },
	}
	return template.Must(template.New("base").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/parts/*.html"))
}()

// pages holds one template per page: the layout with that page's blocks.
var pages = func() map[string]*template.Template {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := make(map[string]*template.Template, len(names))
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		t := template.Must(base.Clone())
		out[name] = template.Must(t.ParseFS(templateFiles, n))
	}
	return out
}()

// Page names, one per file in templates/.
const (
	PageLogin            = "login"
	PageOTP              = "otp"
	PageAccount          = "account"
	PageTwoFactorEnrol   = "2fa-enrol"
	PageTwoFactorCodes   = "2fa-codes"
	PageTwoFactorManage  = "2fa-manage"
	PageMessage          = "message"
	PageInvitation       = "invitation"
	PageInvitationClosed = "invitation-closed"
	PagePassword         = "password"
	PageLinkError        = "link-error"
	PagePreview          = "preview"
	PageConsent          = "consent"
	PageConnections      = "connections"

	// The dashboard's pages, filled by a DashboardView.
	PageDashboardMessage    = "dashboard-message"
	PageDashboardOrgs       = "dashboard-orgs"
	PageDashboardLinks      = "dashboard-links"
	PageDashboardLink       = "dashboard-link"
	PageDashboardForm       = "dashboard-form"
	PageDashboardConfirm    = "dashboard-confirm"
	PageDashboardAnalytics  = "dashboard-analytics"
	PageDashboardKeys       = "dashboard-keys"
	PageDashboardKeyCreated = "dashboard-key-created"
	PageDashboardExports    = "dashboard-exports"
	PageDashboardExport     = "dashboard-export"
	PageDashboardApps       = "dashboard-apps"
	PageDashboardApp        = "dashboard-app"
	PageDashboardAppRename  = "dashboard-app-rename"
	PageDashboardDomains    = "dashboard-domains"
	PageDashboardDomain     = "dashboard-domain"
	PageDashboardInstalls   = "dashboard-installs"
	PageDashboardRecord     = "dashboard-record"
	PageDashboardAudit      = "dashboard-audit"
	PageDashboardSettings   = "dashboard-settings"
)

// CopyScript is one of the dashboard's two scripts (PreviewScript is the
// other): it shows each button with a data-copy attribute (hidden without
// JavaScript, where the text stays selectable) and copies the text of the
// element it names. DashboardPolicy allows it by its hash.
const CopyScript = `document.querySelectorAll('button[data-copy]').forEach(function(b){` +
	`var t=document.getElementById(b.getAttribute('data-copy'));if(!t||!navigator.clipboard)return;b.hidden=false;` +
	`b.addEventListener('click',function(){navigator.clipboard.writeText(t.textContent).then(function(){b.textContent='Copied'},function(){b.textContent='Copy failed: select the text'})})})`

// Pages returns the names of every page Render knows, sorted.
func Pages() []string {
	out := make([]string, 0, len(pages))
	for n := range pages {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Execute renders page name with view into a buffer. The view is the
// page's view type (AccountView for the account pages, PasswordView for
// the password form, and so on).
func Execute(name string, view any) ([]byte, error) {
	t, ok := pages[name]
	if !ok {
		return nil, fmt.Errorf("web: no page %q", name)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", view); err != nil {
		return nil, fmt.Errorf("web: rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// htmlType is the pages' Content-Type.
var htmlType = []string{"text/html; charset=utf-8"}

// Render writes page name with view and status: Content-Type and
// Content-Length, and no body for HEAD. It sets no security header:
// SetHeaders does, for every response of a host that shows pages, page or
// not. An error (an unknown page, or a view that lacks a field the page
// reads) writes nothing, so that the caller can answer otherwise.
func Render(w http.ResponseWriter, r *http.Request, status int, name string, view any) error {
	b, err := Execute(name, view)
	if err != nil {
		return err
	}
	hd := w.Header()
	hd["Content-Type"] = htmlType
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
	return nil
}

// Policy is what differs between the security headers of the hosts that
// show pages.
type Policy struct {
	// SameOriginForms adds form-action 'self' to the CSP. Leave it off where
	// a form's answer redirects to another origin (the link password form,
	// the OAuth consent): Chrome and Safari apply form-action to every
	// redirect after a submission (w3c/webappsec-csp#8).
	SameOriginForms bool
	// ReferrerSameOrigin sets Referrer-Policy: same-origin (not
	// no-referrer: with it, browsers send "Origin: null" on the pages' own
	// form posts, which a CSRF check refuses). If false, Referrer-Policy is
	// left to the caller.
	ReferrerSameOrigin bool
	// NoStore sets Cache-Control: no-store.
	NoStore bool
	// Scripts allows the dashboard's scripts, CopyScript and
	// PreviewScript, by their hashes, and no other script; it implies
	// SameOriginForms (the dashboard has no other policy).
	Scripts bool
}

// Policies of Hoplink's hosts.
var (
	// AccountPolicy is the sign-in, account and invitation pages'.
	AccountPolicy = Policy{SameOriginForms: true, ReferrerSameOrigin: true, NoStore: true}
	// OAuthPolicy is the authorization endpoint's and the connections
	// page's: the consent's answer redirects to the client.
	OAuthPolicy = Policy{ReferrerSameOrigin: true, NoStore: true}
	// DashboardPolicy is the dashboard's: the account pages' with the copy
	// button's and the preview card's scripts.
	DashboardPolicy = Policy{SameOriginForms: true, ReferrerSameOrigin: true, NoStore: true, Scripts: true}
	// LinkDomainPolicy is every link-domain response's: the password form's
	// answer redirects to the destination, and redirects choose their own
	// Referrer-Policy and caching.
	LinkDomainPolicy = Policy{}
)

// styleHash is the CSP source of the stylesheet.
var styleHash = func() string {
	sum := sha256.Sum256([]byte(stylesheet))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// scriptHashes are the CSP sources of CopyScript and PreviewScript.
var scriptHashes = sourceHash(CopyScript) + " " + sourceHash(PreviewScript)

// sourceHash is the CSP hash source of an inline script's text.
func sourceHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// CSP returns the Content-Security-Policy of p: no script (but CopyScript
// and PreviewScript by their hashes when p.Scripts), the one stylesheet by
// its hash, images only from data: URLs (the QR code), no framing and no
// base element; form-action 'self' when p.SameOriginForms.
func (p Policy) CSP() string { return p.csp()[0] }

func (p Policy) csp() []string {
	switch {
	case p.Scripts:
		return cspScript
	case p.SameOriginForms:
		return cspForms
	}
	return cspNoForms
}

// Header values, allocated once: SetHeaders runs on the redirect hot path.
var (
	cspNoForms = []string{"default-src 'none'; style-src " + styleHash +
		"; img-src data:; base-uri 'none'; frame-ancestors 'none'"}
	cspForms = []string{"default-src 'none'; style-src " + styleHash +
		"; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"}
	cspScript = []string{"default-src 'none'; script-src " + scriptHashes + "; style-src " + styleHash +
		"; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"}
	noSniff    = []string{"nosniff"}
	frameDeny  = []string{"DENY"}
	sameOrigin = []string{"same-origin"}
	noStore    = []string{"no-store"}
)

// SetHeaders sets the security headers of a response under p, in this one
// place for every host that shows pages:
//
//   - Content-Security-Policy: p.CSP();
//   - X-Content-Type-Options: nosniff, so that no browser runs or styles a
//     body as anything but its Content-Type says;
//   - X-Frame-Options: DENY, for browsers that do not know CSP's
//     frame-ancestors;
//   - Referrer-Policy: same-origin and Cache-Control: no-store, as p says.
func SetHeaders(h http.Header, p Policy) {
	h["Content-Security-Policy"] = p.csp()
	h["X-Content-Type-Options"] = noSniff
	h["X-Frame-Options"] = frameDeny
	if p.ReferrerSameOrigin {
		h["Referrer-Policy"] = sameOrigin
	}
	if p.NoStore {
		h["Cache-Control"] = noStore
	}
}
