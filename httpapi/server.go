package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/webhook"
)

// Options configure the API handler. Services left nil leave their routes out.
type Options struct {
	// Authenticator authenticates every /v1 request; nil serves /healthz and
	// /readyz alone.
	Authenticator *auth.Authenticator
	// Keys serves /v1/keys.
	Keys *auth.Keys
	// Orgs serves /v1/organizations.
	Orgs *org.Service
	// Apps serves /v1/apps.
	Apps *linking.AppService
	// Links serves /v1/links.
	Links *linking.LinkService
	// Parameters serves /v1/organizations/{id}/parameters.
	Parameters *org.Parameters
	// Domains serves /v1/domains and, without a key, /v1/internal/tls/ask.
	Domains *linking.DomainService
	// Team serves /v1/members.
	Team *org.Team
	// Invitations serves /v1/invitations.
	Invitations *org.Invitations
	// Accounts serves /v1/organizations/{id}/security.
	Accounts *account.Service
	// Webhooks serves /v1/webhooks.
	Webhooks *webhook.Service
	// Audit serves /v1/audit-events and records the events of the
	// handlers above; nil records none.
	Audit *audit.Service
	// AccountPages, with Accounts, serves the sign-in and account pages
	// (/login, /logout, /account, /account/2fa).
	AccountPages *AccountPagesOptions
	// Resolver serves GET /v1/links/resolve/{slug}. Give it the link-domain
	// handler's *linking.Resolver, so that both read through one cache.
	Resolver LinkResolver
	// DefaultLinkDomain is {default_link_domain}: the resolve's domain when
	// the request names none; required with Resolver.
	DefaultLinkDomain string
	// Params are the options of params.Apply; give the resolve the ones the
	// link-domain handler uses, so that both build the same URLs. The zero
	// value is params' defaults.
	Params params.Options
	// Clicks records the clicks of SDK resolves (source app_open); the
	// redirect's recorder. Nil records none.
	Clicks ClickRecorder
	// Clock is the time of clicks and attribution requests; time.Now when nil.
	Clock func() time.Time
	// Attribution serves POST /v1/attribution/match.
	Attribution *attribution.Matcher
	// MatchTimeout bounds the database work of one attribution match
	// (several reads and the transaction that records the install): past
	// it the request answers 503. If zero, twice dbdeadline.Default; a
	// negative value sets no deadline.
	MatchTimeout time.Duration
	// Lists serves GET /v1/installs and GET /v1/attribution/attempts.
	Lists *attribution.Lists
	// Analytics serves GET /v1/analytics/timeseries and GET
	// /v1/analytics/breakdown; nil serves neither.
	Analytics *analytics.Queries
	// Exports serves /v1/analytics/exports.
	Exports *analytics.Exports
	// Limiter enforces the rate limits; nil disables them.
	Limiter ratelimit.Limiter
	// Ready reports whether the service can serve (the database answers); nil is always ready.
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds Ready: a database that does not answer within
	// it is not ready (/readyz answers 503). If zero, dbdeadline.Default;
	// a negative value sets no deadline.
	ReadyTimeout time.Duration
	// TrustedProxies are the peers whose X-Forwarded-For is believed. If
	// empty, it is never believed: the client IP is the peer's address.
	TrustedProxies []netip.Prefix
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
	// Routes are served on the service host as they are, outside /v1 (the
	// OAuth endpoints, the MCP endpoint); they need an Authenticator. Nil
	// adds none.
	Routes []Route
}

// API is the service host's HTTP handler: /v1, /healthz and /readyz.
type API struct {
	opts   Options
	log    *slog.Logger
	router *bunrouter.Router

	// Both maps are filled while New registers the routes and only read
	// afterwards, so requests read them without a lock.
	methods map[string][]string // route pattern -> methods
	sdk     map[string]bool     // "METHOD pattern" of SDK routes
	// devices remembers the classification of the user agents resolves see.
	devices *linking.DeviceCache
}

// New returns the API handler.
func New(opts Options) *API {
	a, root := newRouter(opts)
	if opts.Authenticator == nil {
		return a
	}
	root.handle(http.MethodGet, "/v1/openapi.json", a.openAPI)
	if opts.Accounts != nil && opts.AccountPages != nil {
		newAccountPages(a, *opts.AccountPages).routes(root)
	}
	a.mount(root, opts.Routes)

	v1 := routes{a: a, g: a.router.NewGroup("/v1", bunrouter.Use(a.authenticate)), prefix: "/v1"}
	if opts.Keys != nil {
		v1.handle(http.MethodPost, "/keys", a.createKey)
		v1.handle(http.MethodGet, "/keys", a.listKeys)
		v1.handle(http.MethodGet, "/keys/:id", a.getKey)
		v1.handle(http.MethodDelete, "/keys/:id", a.deleteKey)
	}
	if opts.Orgs != nil {
		v1.handle(http.MethodGet, "/organizations/:id", a.getOrganization)
		v1.handle(http.MethodDelete, "/organizations/:id", a.deleteOrganization)
	}
	if opts.Apps != nil {
		a.appRoutes(v1)
	}
	if opts.Links != nil {
		a.linkRoutes(v1)
	}
	if opts.Parameters != nil {
		a.parameterRoutes(v1)
	}
	if opts.Domains != nil {
		a.domainRoutes(root, v1)
	}
	if opts.Team != nil {
		a.memberRoutes(v1)
	}
	if opts.Invitations != nil {
		a.invitationRoutes(v1)
	}
	if opts.Accounts != nil {
		a.securityRoutes(v1)
	}
	if opts.Audit != nil {
		a.auditRoutes(v1)
	}
	if opts.Webhooks != nil {
		a.webhookRoutes(v1)
	}
	v1.handleSDK(http.MethodGet, "/sdk/validate", a.validateSDK)
	if opts.Resolver != nil {
		v1.handleSDK(http.MethodGet, "/links/resolve/:slug", a.resolveLink)
	}
	if opts.Attribution != nil {
		a.attributionRoutes(v1)
	}
	if opts.Lists != nil {
		a.listRoutes(v1)
	}
	if opts.Analytics != nil {
		a.analyticsRoutes(v1)
	}
	if opts.Exports != nil {
		a.exportRoutes(v1)
	}
	a.refuseOtherMethods()
	return a
}

// refuseOtherMethods registers the 405 answer for every other method on
// each route with a path parameter. bunrouter gives a wrong method 405 on
// most routes, but on a route whose parameter is followed by more path
// (/organizations/:id/parameters) it loses the route and answers 404.
// The answers are registered on the root group, so that a wrong method is
// 405 with or without a key, as elsewhere.
func (a *API) refuseOtherMethods() {
	for route, methods := range a.methods {
		if !strings.Contains(route, ":") {
			continue
		}
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(methods, m) {
				a.router.Handle(m, route, a.methodNotAllowed)
			}
		}
	}
}

// newRouter returns a handler with the middleware, the error answers and
// the health checks, and its root group, on which New and NewPages
// register the rest.
func newRouter(opts Options) (*API, routes) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	a := &API{opts: opts, log: opts.Logger, methods: map[string][]string{}, sdk: map[string]bool{},
		devices: linking.NewDeviceCache(0)}
	a.router = bunrouter.New(
		bunrouter.Use(nameRoute, a.recoverer, a.requestID),
		bunrouter.WithNotFoundHandler(a.notFound),
		bunrouter.WithMethodNotAllowedHandler(a.methodNotAllowed),
	)
	root := routes{a: a, g: &a.router.Group}
	root.handle(http.MethodGet, "/healthz", a.healthz)
	root.handle(http.MethodGet, "/readyz", a.readyz)
	return a, root
}

// ServeHTTP implements http.Handler. A path that is not in canonical form
// (a trailing slash, a double slash, dot segments) is 404: the router would
// redirect it, and a redirected POST would arrive as a GET.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	if path != "/" && (strings.HasSuffix(path, "/") || bunrouter.CleanPath(path) != path) {
		// Through requestID, like every routed request: the answer carries
		// X-Request-Id, and the per-IP limit counts the real client.
		_ = a.requestID(a.notFound)(w, bunrouter.NewRequest(r))
		return
	}
	a.router.ServeHTTP(w, r)
}

// routes registers handlers on one route group.
type routes struct {
	a      *API
	g      *bunrouter.Group
	prefix string // the group's path
}

// handle registers h for method and path, recording the method so that a
// wrong one gets 405 with Allow.
func (r routes) handle(method, path string, h bunrouter.HandlerFunc) {
	methods := []string{method}
	if method == http.MethodGet {
		// HEAD answers as GET does; net/http drops the body.
		methods = append(methods, http.MethodHead)
	}
	full := r.prefix + path
	r.a.methods[full] = append(r.a.methods[full], methods...)
	for _, m := range methods {
		r.g.Handle(m, path, r.a.errors(h))
	}
}

// handleSDK registers an SDK route: SDK keys may call it, and it is limited
// per key per client IP.
func (r routes) handleSDK(method, path string, h bunrouter.HandlerFunc) {
	r.a.sdk[method+" "+r.prefix+path] = true
	if method == http.MethodGet {
		r.a.sdk[http.MethodHead+" "+r.prefix+path] = true
	}
	r.handle(method, path, h)
}

func (a *API) isSDKRoute(method, route string) bool {
	return a.sdk[method+" "+route]
}

// allowed returns the methods of route; callers must not change the slice.
func (a *API) allowed(route string) []string {
	return a.methods[route]
}

// errors turns a handler's returned error into the error envelope.
func (a *API) errors(h bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		if err := h(w, req); err != nil {
			writeError(w, req.Request, a.log, err, req.Route())
		}
		return nil
	}
}

func (a *API) notFound(w http.ResponseWriter, req bunrouter.Request) error {
	if a.browserAtRoot(req.Request) {
		// A person who typed the service's address: the sign-in page, which
		// sends a signed-in browser on to its account.
		seeOther(w, "/login")
		return nil
	}
	if a.anonymousLimit(w, req.Request) {
		writeError(w, req.Request, a.log, errNotFound, "")
	}
	return nil
}

func (a *API) methodNotAllowed(w http.ResponseWriter, req bunrouter.Request) error {
	if a.anonymousLimit(w, req.Request) {
		writeMethodNotAllowed(w, req.Request, a.allowed(req.Route()))
	}
	return nil
}

// anonymousLimit applies the per-IP limit to a /v1 request that reached no
// keyed handler, so that every /v1 response carries the rate-limit headers.
func (a *API) anonymousLimit(w http.ResponseWriter, r *http.Request) bool {
	if a.opts.Authenticator == nil || !strings.HasPrefix(r.URL.Path, "/v1/") {
		return true
	}
	return a.limit(w, r, "ip:"+clientip.Key(ClientIPFrom(r.Context())), ratelimit.AnonymousRule)
}

func writeMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, r, nil, errMethodNotAllowed, "")
}

// browserAtRoot reports whether r is a browser's GET or HEAD of "/" on a
// service host that serves the sign-in pages. A browser lists text/html in
// Accept (and does not rank JSON above it); API clients, which do not,
// keep the JSON 404 of every unknown path.
func (a *API) browserAtRoot(r *http.Request) bool {
	if r.URL.Path != "/" || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if a.opts.AccountPages == nil || a.opts.Accounts == nil {
		return false
	}
	accept := r.Header.Get("Accept")
	return strings.Contains(strings.ToLower(accept), "text/html") && !prefersJSON(accept)
}
