package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/ratelimit"
)

// PagesOptions configure NewPages.
type PagesOptions struct {
	// Accounts serves the sign-in and account pages; required.
	Accounts *account.Service
	// AccountPages are the pages' options; give the ones the API uses, so
	// that both read one session cookie and CSRF scheme. Its zero value is
	// documented with AccountPagesOptions.
	AccountPages AccountPagesOptions
	// Audit records the pages' events (sign-in, two-factor changes); nil
	// records none.
	Audit *audit.Service
	// Limiter enforces the pages' rate limits; nil disables them.
	Limiter ratelimit.Limiter
	// Ready reports whether the service can serve (the database answers); nil is always ready.
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds Ready as Options.ReadyTimeout does.
	ReadyTimeout time.Duration
	// TrustedProxies are the peers whose X-Forwarded-For is believed. If
	// empty, it is never believed: the client IP is the peer's address.
	TrustedProxies []netip.Prefix
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
	// Routes are served as they are (the OAuth endpoints); nil adds none.
	Routes []Route
}

// Pages is the handler of a service host that serves pages but not the
// REST API: /healthz, /readyz, the sign-in and account pages (/login,
// /logout, /account, /account/2fa) and extra routes, answering every other
// path, /v1 included, with 404 NOT_FOUND (but a browser's GET of "/", sent
// to /login). It builds no /v1 resource and
// needs no API service; hoplink-auth serves it.
type Pages struct {
	a *API
}

// NewPages returns the pages handler.
func NewPages(opts PagesOptions) *Pages {
	pages := opts.AccountPages
	a, root := newRouter(Options{
		Accounts:       opts.Accounts,
		Audit:          opts.Audit,
		AccountPages:   &pages,
		Limiter:        opts.Limiter,
		Ready:          opts.Ready,
		ReadyTimeout:   opts.ReadyTimeout,
		TrustedProxies: opts.TrustedProxies,
		Logger:         opts.Logger,
		Routes:         opts.Routes,
	})
	newAccountPages(a, pages).routes(root)
	a.mount(root, opts.Routes)
	return &Pages{a: a}
}

// ServeHTTP implements http.Handler.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.a.ServeHTTP(w, r)
}
