package app

import (
	"log/slog"
	"net/http"
	"strings"

	"go.uber.org/fx"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/cors"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/webhook"
)

// ServiceRoute is a handler the service host serves beside its main handler
// (the REST API in serve, the health checks in hoplink-auth). Modules
// provide them into the "service_routes" value group.
type ServiceRoute struct {
	// Path is an exact path ("/mcp") or, ending in "/", a path prefix.
	Path    string
	Handler http.Handler
}

// ServiceRoutes collects the service routes of the modules of a binary.
type ServiceRoutes struct {
	fx.In
	Routes []ServiceRoute `group:"service_routes"`
}

// serviceHandler serves routes in front of fallback. It is not an
// http.ServeMux on purpose: the mux cleans paths with redirects, and the
// REST API answers a path that is not in canonical form with 404 itself.
type serviceHandler struct {
	exact    map[string]http.Handler
	prefixes []ServiceRoute
	fallback http.Handler
}

// NewServiceHandler returns the service host's handler: each route of
// routes, and fallback for every other path, behind the CORS rules of cfg
// (CORSRules).
func NewServiceHandler(cfg Config, fallback http.Handler, routes []ServiceRoute) http.Handler {
	return cors.New(newServiceRoutes(fallback, routes), CORSRules(cfg)...)
}

// newServiceRoutes returns a handler serving each route of routes, and
// fallback for every other path.
func newServiceRoutes(fallback http.Handler, routes []ServiceRoute) http.Handler {
	h := &serviceHandler{exact: map[string]http.Handler{}, fallback: fallback}
	for _, r := range routes {
		if strings.HasSuffix(r.Path, "/") {
			h.prefixes = append(h.prefixes, r)
		} else {
			h.exact[r.Path] = r.Handler
		}
	}
	return h
}

func (h *serviceHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if route, ok := h.exact[r.URL.Path]; ok {
		// The path is one of the routes': a bounded label.
		httpapi.SetRoute(w, r.URL.Path)
		route.ServeHTTP(w, r)
		return
	}
	for _, p := range h.prefixes {
		if strings.HasPrefix(r.URL.Path, p.Path) {
			httpapi.SetRoute(w, p.Path+"*")
			p.Handler.ServeHTTP(w, r)
			return
		}
	}
	h.fallback.ServeHTTP(w, r)
}

// MCP provides the MCP endpoint as the service route /mcp. It takes an
// auth.OAuthTokenVerifier when a module provides one (the OAuth
// authorization server); without one every OAuth access token is refused
// as invalid_token and only API keys work.
var MCP = fx.Module("mcp",
	fx.Provide(
		NewMCP,
		fx.Annotate(func(h *mcpserver.Handler) ServiceRoute {
			return ServiceRoute{Path: mcpserver.Path, Handler: h}
		}, fx.ResultTags(`group:"service_routes"`)),
	),
)

// MCPDeps are the dependencies of the MCP endpoint.
type MCPDeps struct {
	fx.In
	Config        Config
	Log           *slog.Logger
	Authenticator *auth.Authenticator
	Verifier      auth.OAuthTokenVerifier `optional:"true"`
	Accounts      *account.Service
	Orgs          *org.Service
	Links         *linking.LinkService
	Apps          *linking.AppService
	Lists         *attribution.Lists
	Queries       *analytics.Queries
	Exports       *analytics.Exports
	Webhooks      *webhook.Service
	Limiter       ratelimit.Limiter
}

// NewMCP returns the MCP endpoint over the REST API's services, with its
// canonical resource {public_url}/mcp. The installs and attempts lists are
// the REST lists' attribution.Lists, so their windows and cursors agree.
func NewMCP(d MCPDeps) *mcpserver.Handler {
	return mcpserver.New(mcpserver.Options{
		PublicURL:      strings.TrimRight(d.Config.PublicURL.String(), "/"),
		Authenticator:  d.Authenticator,
		Verifier:       d.Verifier,
		VerifyTimeout:  zeroDisables(d.Config.DBTimeout),
		Memberships:    d.Accounts,
		Orgs:           d.Orgs,
		Links:          d.Links,
		Apps:           d.Apps,
		Lists:          d.Lists,
		Analytics:      d.Queries,
		Exports:        d.Exports,
		Webhooks:       d.Webhooks,
		Limiter:        d.Limiter,
		TrustedProxies: d.Config.TrustedProxies,
		ServiceHosts:   d.Config.ServiceHosts,
		CORSOrigins:    d.Config.CORSOrigins,
		Logger:         d.Log,
	})
}

// OAuthMetadataPaths are the OAuth metadata documents, public to every
// origin.
var OAuthMetadataPaths = []string{
	"/.well-known/oauth-authorization-server",
	"/.well-known/oauth-protected-resource",
	"/.well-known/oauth-protected-resource" + mcpserver.Path,
}

// CORSRules are the service host's CORS rules: the OAuth metadata
// documents for any origin; /mcp and the OAuth token, registration and
// revocation endpoints for the origins of --cors-origins (none by
// default). Every other path answers no preflight.
func CORSRules(cfg Config) []cors.Rule {
	return []cors.Rule{
		{Paths: OAuthMetadataPaths, Origins: []string{"*"}, Methods: []string{http.MethodGet}},
		{Paths: []string{mcpserver.Path}, Origins: cfg.CORSOrigins, Methods: []string{http.MethodPost},
			Headers: []string{"Authorization", "Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id",
				"Last-Event-ID", "X-Request-Id"},
			Expose: []string{"WWW-Authenticate", "Mcp-Session-Id", "Mcp-Protocol-Version", "Retry-After",
				"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"}},
		{Paths: []string{"/oauth/token", "/oauth/register", "/oauth/revoke"}, Origins: cfg.CORSOrigins,
			Methods: []string{http.MethodPost}, Headers: []string{"Authorization", "Content-Type", "Accept"},
			Expose: []string{"Retry-After", "WWW-Authenticate"}},
	}
}
