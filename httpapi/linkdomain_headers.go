package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
)

// LinkDomainCSP is the Content-Security-Policy of every link-domain
// response (securityHeaders): no script, no resources, no framing, no
// base, and one inline style, the password form's, allowed by its hash.
// The other pages (the bot preview, the redirect's short body, the error
// pages) have no style and load nothing, so the one policy fits them all;
// on the JSON association files it is inert.
//
// It has no form-action directive on purpose. Chrome and Safari apply
// form-action to every redirect that follows a form submission, not only to
// the form's action (w3c/webappsec-csp#8), so form-action 'self' would block
// the 302 to the destination that a correct password answers, which is
// another origin by design. The form's action is fixed by the template and
// the page runs no script, so nothing on it can retarget the form.
var LinkDomainCSP = func() string {
	sum := sha256.Sum256([]byte(passwordStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; frame-ancestors 'none'"
}()

// PasswordPageCSP is the Content-Security-Policy of the password form:
// LinkDomainCSP, which every link-domain response carries.
var PasswordPageCSP = LinkDomainCSP

// Values of the security headers (never modified).
var (
	linkDomainCSP = []string{LinkDomainCSP}
	noSniff       = []string{"nosniff"}
	frameDeny     = []string{"DENY"}
)

// securityHeaders sets the security headers of every link-domain response,
// whatever its kind (redirect, preview, password form, error page or
// envelope, association file, health check), in this one place:
//
//   - Content-Security-Policy: LinkDomainCSP;
//   - X-Content-Type-Options: nosniff, so that no browser runs or styles a
//     body as anything but its Content-Type says (right for the JSON
//     association files too: Apple and Google read them by their
//     application/json type, never by sniffing);
//   - X-Frame-Options: DENY, for browsers that do not know CSP's
//     frame-ancestors.
//
// Referrer-Policy is not one of them: it differs by response on purpose
// (ReferrerPolicy on redirects, no-referrer on the password form).
func securityHeaders(hd http.Header) {
	hd["Content-Security-Policy"] = linkDomainCSP
	hd["X-Content-Type-Options"] = noSniff
	hd["X-Frame-Options"] = frameDeny
}
