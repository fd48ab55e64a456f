package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"go.uber.org/fx"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/mcpserver"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

// OAuthCleanUpInterval is how often expired OAuth codes and tokens are
// deleted.
const OAuthCleanUpInterval = 15 * time.Minute

// APIRoutes are the routes other modules add to the service host's API
// handler (httpapi.Options.Routes), through the "api_routes" value group.
type APIRoutes struct {
	fx.In
	Routes []httpapi.Route `group:"api_routes"`
}

// OAuth provides the OAuth authorization server: its endpoints and pages as
// API routes, its access token verifier for the MCP endpoint, and the
// periodic clean-up of expired tokens.
var OAuth = fx.Module("oauth",
	fx.Provide(
		NewOAuthServer,
		func(s *oauth.Server) auth.OAuthTokenVerifier { return s },
		fx.Annotate(OAuthRoutes, fx.ResultTags(`group:"api_routes,flatten"`)),
	),
)

// OAuthServerDeps are the dependencies of the authorization server.
type OAuthServerDeps struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    Config
	Log       *slog.Logger
	Store     *store.Store
	Secret    Secret
	Limiter   ratelimit.Limiter
	Accounts  *account.Service
	Metrics   *Metrics
}

// NewOAuthServer returns the authorization server over the store, its
// issuer and resource derived from --public-url, its HMAC key from the
// server secret, reading the account pages' sessions; it deletes expired
// codes and tokens every OAuthCleanUpInterval while the application runs.
func NewOAuthServer(d OAuthServerDeps) (*oauth.Server, error) {
	cfg, log := d.Config, d.Log
	srv, err := oauth.New(oauth.Options{
		PublicURL: cfg.PublicURL,
		Secret:    d.Secret,
		Store:     d.Store.OAuth(nil, oauth.RefreshGracePeriod),
		Sessions:  httpapi.NewPageSessions(d.Accounts, accountPagesOptions(cfg, d.Secret)),
		Members:   d.Accounts,
		Limiter:   d.Limiter,
		ClientIP:  func(r *http.Request) netip.Addr { return httpapi.ClientIPFrom(r.Context()) },
		Logger:    log,
		// Counts the tokens issued, when the metrics are on.
		OnTokenIssued: d.Metrics.OnTokenIssued(),
		// Consents cover only what the MCP tools use: the token reaches
		// /mcp, never /v1.
		Scopes:       mcpScopes(),
		ServiceHosts: cfg.ServiceHosts,
	})
	if err != nil {
		return nil, err
	}
	runInBackground(d.Lifecycle, "oauth: expired token clean-up", func(ctx context.Context) error {
		t := time.NewTicker(OAuthCleanUpInterval)
		defer t.Stop()
		cleanUpOAuth(ctx, srv, log, t.C)
		return nil
	})
	return srv, nil
}

// mcpScopes are the MCP tools' scopes as strings (mcpserver.Scopes).
func mcpScopes() []string {
	var out []string
	for _, s := range mcpserver.Scopes() {
		out = append(out, string(s))
	}
	return out
}

// cleanUpOAuth deletes expired OAuth rows on every tick until ctx ends; a
// failure is logged and the next tick tries again.
func cleanUpOAuth(ctx context.Context, srv *oauth.Server, log *slog.Logger, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			n, err := srv.CleanUp(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("deleting expired OAuth tokens failed", "err", err)
				continue
			}
			if n > 0 {
				log.Debug("deleted expired OAuth tokens", "count", n)
			}
		}
	}
}

// OAuthRoutes returns the authorization server's endpoints as API routes.
func OAuthRoutes(srv *oauth.Server) []httpapi.Route {
	var out []httpapi.Route
	for _, r := range srv.Routes() {
		out = append(out, httpapi.Route{Method: r.Method, Path: r.Path, Handler: r.Handler})
	}
	return out
}

// accountPagesOptions are the sign-in pages' options, shared by the API and
// the OAuth pages so that both read one session cookie and CSRF scheme.
func accountPagesOptions(cfg Config, secret Secret) httpapi.AccountPagesOptions {
	return httpapi.AccountPagesOptions{Secret: secret, PublicURL: cfg.PublicURL}
}

// AuthPages is hoplink-auth's pages handler: the health checks, the sign-in
// and account pages and the API routes (the OAuth endpoints), without the
// REST API.
type AuthPages struct{ *httpapi.Pages }

// AuthPagesDeps are the dependencies of hoplink-auth's pages handler.
type AuthPagesDeps struct {
	fx.In
	Config   Config
	Log      *slog.Logger
	Store    *store.Store
	Secret   Secret
	Limiter  ratelimit.Limiter
	Accounts *account.Service
	Audit    *audit.Service
	// Extra are the routes other modules add (the OAuth endpoints).
	Extra APIRoutes
}

// NewAuthPages returns hoplink-auth's pages handler.
func NewAuthPages(d AuthPagesDeps) AuthPages {
	return AuthPages{httpapi.NewPages(httpapi.PagesOptions{
		Accounts:       d.Accounts,
		AccountPages:   accountPagesOptions(d.Config, d.Secret),
		Audit:          d.Audit,
		Limiter:        d.Limiter,
		Ready:          d.Store.Ping,
		ReadyTimeout:   zeroDisables(d.Config.DBTimeout),
		TrustedProxies: d.Config.TrustedProxies,
		Logger:         d.Log,
		Routes:         d.Extra.Routes,
	})}
}
