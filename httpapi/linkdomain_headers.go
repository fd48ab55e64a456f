package httpapi

import (
	"net/http"

	"github.com/hoplink/hoplink/web"
)

// LinkDomainCSP is the Content-Security-Policy of every link-domain
// response (securityHeaders), web.LinkDomainPolicy's: no script, the pages'
// one stylesheet by its hash, data: images only, no framing, no base. The
// one policy fits every page (password form, bot preview, error pages); on
// the JSON association files it is inert.
//
// It has no form-action directive on purpose. Chrome and Safari apply
// form-action to every redirect that follows a form submission, not only to
// the form's action (w3c/webappsec-csp#8), so form-action 'self' would block
// the 302 to the destination that a correct password answers, which is
// another origin by design. The form's action is fixed by the template and
// the page runs no script, so nothing on it can retarget the form.
var LinkDomainCSP = web.LinkDomainPolicy.CSP()

// PasswordPageCSP is the Content-Security-Policy of the password form:
// LinkDomainCSP, which every link-domain response carries.
var PasswordPageCSP = LinkDomainCSP

// securityHeaders sets the security headers of every link-domain response,
// whatever its kind (redirect, preview, password form, error page or
// envelope, association file, health check), through web.SetHeaders:
// LinkDomainCSP, X-Content-Type-Options: nosniff (right for the JSON
// association files too: Apple and Google read them by their
// application/json type, never by sniffing) and X-Frame-Options: DENY.
//
// Referrer-Policy is not one of them: it differs by response on purpose
// (ReferrerPolicy on redirects, no-referrer on the password form).
func securityHeaders(hd http.Header) {
	web.SetHeaders(hd, web.LinkDomainPolicy)
}
