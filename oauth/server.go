package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/secretkey"
)

// Token lifetimes.
const (
	// AccessTokenLifetime is how long an access token is valid.
	AccessTokenLifetime = time.Hour
	// RefreshTokenLifetime is how long a refresh token is valid; each use
	// rotates it, so an active client keeps its connection indefinitely.
	RefreshTokenLifetime = 30 * 24 * time.Hour
	// AuthorizeCodeLifetime is how long an authorization code is valid.
	AuthorizeCodeLifetime = 10 * time.Minute
	// RefreshGracePeriod is how long a rotated refresh token still works,
	// so that two concurrent refreshes of a client both succeed; after it,
	// presenting the old token is reuse and revokes the whole grant.
	RefreshGracePeriod = 10 * time.Second
	// touchInterval is how often a connection's last use is written.
	touchInterval = time.Minute
)

// RegisterRule limits dynamic client registrations per client IP.
var RegisterRule = ratelimit.Rule{Limit: 20, Window: time.Hour}

// Sessions reads the account pages' browser session and CSRF tokens; the
// httpapi package's PageSessions implements it. This package never writes
// a session of its own.
type Sessions interface {
	// SignedIn returns the request's signed-in user, nil when there is none.
	SignedIn(r *http.Request) (*account.Authenticated, error)
	// CSRFToken returns a form token bound to the browser, giving it a CSRF
	// cookie when it has none.
	CSRFToken(w http.ResponseWriter, r *http.Request) (string, error)
	// ValidCSRF checks a parsed POST form's token (field csrf_token) and the
	// request's origin.
	ValidCSRF(r *http.Request) bool
}

// Memberships lists a user's organizations and roles (account.Service).
type Memberships interface {
	Memberships(ctx context.Context, userID uuid.UUID) ([]account.Membership, error)
}

// Options configure the server.
type Options struct {
	// PublicURL is --public-url: the issuer is its scheme and host, the
	// canonical resource is PublicURL + "/mcp". Required.
	PublicURL *url.URL
	// Secret is the server secret; a key derived from it keys fosite's
	// HMAC token strategy. Required (at least 32 bytes).
	Secret []byte
	// Store keeps clients, connections and tokens. Required.
	Store Store
	// Sessions reads the signed-in user. Required.
	Sessions Sessions
	// Members lists the user's organizations. Required.
	Members Memberships
	// Scopes are the scopes the protected resource uses (the MCP tools'
	// scopes, mcpserver.Scopes): scopes_supported of both metadata
	// documents, the default scope of a registration, and all that a
	// consent can grant. If empty, ScopesSupported.
	Scopes []string
	// ServiceHosts are the host names of the service (--service-host),
	// lowercase without ports. A request for one of them that is not the
	// public URL's host gets the protected-resource metadata of that host
	// (ResourceFor), and that host's resource is accepted as the resource
	// parameter; tokens are still issued for the canonical resource. If
	// empty, only the public URL's host counts.
	ServiceHosts []string
	// Limiter limits registrations per IP; nil disables the limit.
	Limiter ratelimit.Limiter
	// ClientIP returns a request's client IP; the peer address when nil.
	ClientIP func(r *http.Request) netip.Addr
	// Clock is time.Now when nil. fosite itself reads time.Now for token
	// expiry.
	Clock func() time.Time
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
	// OnTokenIssued, when not nil, is told of every token response of
	// POST /oauth/token, by its grant type (authorization_code or
	// refresh_token), on the request's goroutine; it must not block.
	OnTokenIssued func(grantType string)
}

// Server is the authorization server. Its Routes are mounted on the service
// host; it implements auth.OAuthTokenVerifier.
type Server struct {
	opts     Options
	store    Store
	provider fosite.OAuth2Provider
	config   *fosite.Config
	issuer   string
	resource string
	scopes   []string
	log      *slog.Logger
}

// Route is one endpoint of the server.
type Route struct {
	Method  string
	Path    string
	Handler http.HandlerFunc
}

// New returns the server.
func New(opts Options) (*Server, error) {
	if opts.PublicURL == nil || opts.Store == nil || opts.Sessions == nil || opts.Members == nil {
		return nil, errors.New("oauth: PublicURL, Store, Sessions and Members are required")
	}
	if len(opts.Secret) < 32 {
		return nil, errors.New("oauth: the secret must have at least 32 bytes")
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ClientIP == nil {
		opts.ClientIP = peerIP
	}
	s := &Server{opts: opts, store: opts.Store, log: opts.Logger,
		issuer:   Issuer(opts.PublicURL),
		resource: Resource(opts.PublicURL),
		scopes:   slices.Clone(opts.Scopes)}
	if len(s.scopes) == 0 {
		s.scopes = ScopesSupported()
	}
	s.config = &fosite.Config{
		AccessTokenLifespan:            AccessTokenLifetime,
		RefreshTokenLifespan:           RefreshTokenLifetime,
		AuthorizeCodeLifespan:          AuthorizeCodeLifetime,
		GlobalSecret:                   secretkey.Derive(opts.Secret, "hoplink oauth hmac v1"),
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		// Refresh tokens are issued whatever the scopes; offline_access is
		// not required (MCP clients rarely ask for it).
		RefreshTokenScopes:       []string{},
		ScopeStrategy:            fosite.ExactScopeStrategy,
		AudienceMatchingStrategy: fosite.ExactAudienceMatchingStrategy,
		// https, http on loopback, or a private-use scheme that
		// registration allowed a public client (RFC 8252, section 7.1).
		RedirectSecureChecker: redirectSecure,
		// state is any non-empty value: PKCE binds the answer to the
		// request, and native clients send short states.
		MinParameterEntropy:        1,
		TokenURL:                   s.issuer + "/oauth/token",
		AccessTokenIssuer:          s.issuer,
		IDTokenIssuer:              s.issuer,
		SendDebugMessagesToClients: false,
	}
	s.provider = compose.Compose(s.config, opts.Store, compose.NewOAuth2HMACStrategy(s.config),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2PKCEFactory,
	)
	return s, nil
}

// Issuer returns the issuer of publicURL: its scheme and host, without a
// path (RFC 8414, section 2).
func Issuer(publicURL *url.URL) string {
	return (&url.URL{Scheme: publicURL.Scheme, Host: publicURL.Host}).String()
}

// Resource returns the canonical resource of the MCP endpoint,
// {public_url}/mcp (RFC 8707, RFC 9728).
func Resource(publicURL *url.URL) string {
	return strings.TrimSuffix(publicURL.String(), "/") + "/mcp"
}

// Issuer returns the server's issuer.
func (s *Server) Issuer() string { return s.issuer }

// Resource returns the canonical resource, the audience of every token.
func (s *Server) Resource() string { return s.resource }

// Routes returns the server's endpoints, to be served on the service host.
func (s *Server) Routes() []Route {
	return []Route{
		{http.MethodGet, "/.well-known/oauth-authorization-server", s.authorizationServerMetadata},
		{http.MethodGet, "/.well-known/oauth-protected-resource", s.rootResourceMetadata},
		{http.MethodGet, "/.well-known/oauth-protected-resource/mcp", s.protectedResourceMetadata},
		{http.MethodPost, "/oauth/register", s.register},
		{http.MethodGet, "/oauth/authorize", s.authorize},
		{http.MethodPost, "/oauth/authorize", s.authorize},
		{http.MethodPost, "/oauth/token", s.token},
		{http.MethodPost, "/oauth/revoke", s.revoke},
		{http.MethodPost, "/oauth/introspect", s.introspect},
		{http.MethodGet, "/account/connections", s.connectionsPage},
		{http.MethodPost, "/account/connections/revoke", s.revokeConnection},
	}
}

// CleanUp deletes the token rows that expired, and returns how many.
func (s *Server) CleanUp(ctx context.Context) (int, error) {
	return s.store.DeleteExpiredOAuth(ctx, s.opts.Clock())
}

func peerIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

func (s *Server) now() time.Time { return s.opts.Clock().UTC().Truncate(time.Millisecond) }
