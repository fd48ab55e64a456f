package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
)

// PageSessions gives other server-rendered pages on the service host (the
// OAuth consent and connections pages) the account pages' session and CSRF
// protection, so that there is one session reader and one CSRF scheme. It
// reads the session cookie that /login sets and never writes one.
type PageSessions struct {
	p *accountPages
}

// NewPageSessions returns the session reader of the account pages
// configured by opts over accounts. Give it the same options as
// Options.AccountPages so that tokens and cookies are shared.
func NewPageSessions(accounts *account.Service, opts AccountPagesOptions) *PageSessions {
	a := &API{opts: Options{Accounts: accounts}}
	return &PageSessions{p: newAccountPages(a, opts)}
}

// SignedIn returns r's signed-in user, nil when there is none (no cookie,
// or a session unknown, revoked, expired or idle too long).
func (s *PageSessions) SignedIn(r *http.Request) (*account.Authenticated, error) {
	return s.p.signedIn(r)
}

// CSRFToken returns a form token (field csrf_token) bound to the browser's
// CSRF cookie, setting the cookie on w when r has none.
func (s *PageSessions) CSRFToken(w http.ResponseWriter, r *http.Request) (string, error) {
	var token string
	err := s.p.withCSRF(w, r, func(t string) { token = t })
	return token, err
}

// ValidCSRF checks a parsed POST form's csrf_token against the browser's
// cookie and the request's origin.
func (s *PageSessions) ValidCSRF(r *http.Request) bool {
	return s.p.validCSRF(r)
}

// Route is an endpoint served on the service host outside /v1 as it is:
// no API key, no error envelope (the OAuth endpoints write their own RFC
// 6749 errors). Requests still get a request id and the client IP.
type Route struct {
	Method  string
	Path    string
	Handler http.Handler
}

// mount registers the extra routes.
func (a *API) mount(root routes, extra []Route) {
	for _, rt := range extra {
		// The route's parameters travel in the request's context
		// (bunrouter.ParamsFromContext), for the handler and its logs.
		root.handle(rt.Method, rt.Path, bunrouter.HTTPHandler(rt.Handler))
	}
}
