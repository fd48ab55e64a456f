package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/strictjson"
	"github.com/hoplink/hoplink/version"
	"github.com/hoplink/hoplink/webhook"
)

// Path is where the endpoint is mounted on the service host.
const Path = "/mcp"

// MaxBodyBytes is the largest JSON-RPC request body accepted (1 MiB, as the
// REST API's bodies).
const MaxBodyBytes = strictjson.MaxBodyBytes

// ServerName is the name the server gives in its implementation info.
const ServerName = "hoplink"

// SessionIdleTimeout is how long a session (see Handler) is kept without a
// request before it is forgotten; a request naming a forgotten session is
// served without one.
const SessionIdleTimeout = 10 * time.Minute

// Memberships reads the organizations a user belongs to, with the user's
// current role; *account.Service implements it.
type Memberships interface {
	Memberships(ctx context.Context, userID uuid.UUID) ([]account.Membership, error)
}

// Options configure the handler.
type Options struct {
	// PublicURL is --public-url, without a trailing slash: the canonical
	// resource is PublicURL + "/mcp" and the protected-resource metadata
	// PublicURL + "/.well-known/oauth-protected-resource/mcp". Required.
	PublicURL string
	// Authenticator checks API keys; required.
	Authenticator *auth.Authenticator
	// Verifier checks OAuth access tokens. If nil, every OAuth token is
	// refused as invalid_token.
	Verifier auth.OAuthTokenVerifier
	// VerifyTimeout bounds the database work of checking one access token:
	// past it the request answers 503. If zero, dbdeadline.Default; a
	// negative value sets no deadline.
	VerifyTimeout time.Duration
	// Memberships resolves an OAuth user's organizations and role on every
	// call; required when Verifier is set.
	Memberships Memberships
	// Orgs serves list_organizations; required.
	Orgs *org.Service
	// Links serves the link tools; required.
	Links *linking.LinkService
	// Apps serves list_apps and get_app; required.
	Apps *linking.AppService
	// Lists serves list_installs and list_attribution_attempts; required.
	Lists *attribution.Lists
	// Analytics serves get_analytics; required.
	Analytics *analytics.Queries
	// Exports serves export_clicks; required.
	Exports *analytics.Exports
	// Webhooks serves list_webhooks and list_webhook_deliveries; required.
	Webhooks *webhook.Service
	// Limiter enforces the REST API's per-key rule (ratelimit.KeyRule) on API
	// keys, the same rule per OAuth connection, and ratelimit.AnonymousRule per
	// client IP on requests without valid credentials; nil disables limits.
	Limiter ratelimit.Limiter
	// ServiceHosts are the host names of the service (--service-host),
	// lowercase without ports. A request for one of them that is not the
	// public URL's host is answered with the protected-resource metadata of
	// the host it used (see ResourceFor), so a client that reaches the
	// endpoint as http://localhost:PORT/mcp while the public URL names
	// 127.0.0.1 finds a resource it accepts. If empty, only the public URL's
	// host counts.
	ServiceHosts []string
	// CORSOrigins are the browser origins (scheme://host[:port]) allowed to
	// call the endpoint from another site (--cors-origins); "*" allows every
	// origin. If empty, cross-origin browser requests are refused.
	CORSOrigins []string
	// TrustedProxies are the peers whose X-Forwarded-For is believed. If
	// empty, it is never believed: the client IP is the peer's address.
	TrustedProxies []netip.Prefix
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
}

// Handler is the MCP endpoint. It serves POST /mcp; mount it for every
// method of that path.
//
// Two of the SDK's Streamable HTTP handlers serve it, over the same tools.
// A client that initializes (the protocol revisions before 2026-07-28) gets
// a session from the stateful one: an Mcp-Session-Id that its later
// requests carry, answered by that handler while this process holds the
// session. Every other request is served by the stateless one: the
// sessionless 2026-07-28 revision, a call sent without initializing, and a
// request naming a session this process does not hold (one another replica
// or an earlier run issued, or one idle past SessionIdleTimeout), so a
// session never ties a client to one replica. A session holds only what
// initialize negotiated: each request is authenticated, counted and
// answered for its own caller, and a session is bound to the key or
// connection that opened it. DELETE does not end a session (405): another
// replica would go on serving it.
type Handler struct {
	opts     Options
	log      *slog.Logger
	sdk      http.Handler // the SDK's stateless handler
	sessions http.Handler // the SDK's stateful one, for initialized clients
	// sessionServer is the server of the stateful handler, whose sessions
	// are the ones this process holds.
	sessionServer *mcp.Server
	// owners binds each session this process opened to its caller's
	// bucket, so that another credential naming it is refused in the API's
	// envelope before the SDK would answer its own plain-text 403.
	owners   sessionOwners
	origins  *http.CrossOriginProtection
	tools    []tool
	byName   map[string]*tool
	public   *url.URL
	resource string
}

// New returns the MCP endpoint.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	base := strings.TrimRight(opts.PublicURL, "/")
	public, err := url.Parse(base)
	if err != nil {
		public = &url.URL{}
	}
	h := &Handler{
		opts:     opts,
		log:      opts.Logger,
		origins:  http.NewCrossOriginProtection(),
		public:   public,
		resource: base + Path,
	}
	for _, o := range opts.CORSOrigins {
		if o == "*" {
			// Any origin may call: a bearer token is no ambient credential,
			// so no page can act for a user who did not hand it a token.
			h.origins.AddInsecureBypassPattern("POST " + Path)
			continue
		}
		// AddTrustedOrigin refuses only malformed origins, which the
		// configuration has already refused.
		_ = h.origins.AddTrustedOrigin(o)
	}
	h.tools = tools
	h.byName = make(map[string]*tool, len(h.tools))
	for i := range h.tools {
		h.byName[h.tools[i].def.Name] = &h.tools[i]
	}
	// Requests reach these handlers only for the service host names
	// (--service-host); a rebinding page's own host name is a link domain
	// and never gets here. Origin is checked in ServeHTTP.
	stateless := h.newServer()
	h.sdk = withCaller(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return stateless }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		Logger:                     opts.Logger,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodyBytes,
	}))
	h.sessionServer = h.newServer()
	h.sessions = withCaller(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.sessionServer }, &mcp.StreamableHTTPOptions{
		JSONResponse:               true,
		SessionTimeout:             SessionIdleTimeout,
		Logger:                     opts.Logger,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodyBytes,
	}))
	return h
}

// Resource returns the canonical resource URL, {public_url}/mcp.
func (h *Handler) Resource() string { return h.resource }

// ResourceFor returns the resource URL of the endpoint as r reached it:
// the canonical {public_url}/mcp, or, when r names another service host,
// the same URL on the host (and port) r used, with https when r came over
// TLS and the public URL's scheme otherwise. Tokens are always issued for
// the canonical resource, which the endpoint checks.
func (h *Handler) ResourceFor(r *http.Request) string {
	return h.originFor(r) + h.public.Path + Path
}

// originFor is the origin of ResourceFor.
func (h *Handler) originFor(r *http.Request) string {
	canonical := h.public.Scheme + "://" + h.public.Host
	host := strings.ToLower(r.Host)
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.Trim(name, "[]")
	if host == "" || host == strings.ToLower(h.public.Host) || !slices.Contains(h.opts.ServiceHosts, name) {
		return canonical
	}
	scheme := h.public.Scheme
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host
}

// metadataFor is the protected-resource metadata URL of ResourceFor(r)
// (RFC 9728, section 3.1).
func (h *Handler) metadataFor(r *http.Request) string {
	return h.originFor(r) + "/.well-known/oauth-protected-resource" + h.public.Path + Path
}

// Scopes returns the scopes the tools use, in SPEC.md's order: the union of
// every tool's scopes, read from the tool declarations. They are the scope
// parameter of the 401 challenge and the scopes_supported of the
// authorization server's and this resource's metadata, and so the scopes a
// consent can cover; scopes no tool uses (org:delete, keys:write,
// team:write, ...) are never asked for, since an access token cannot reach
// /v1. A token needs only the scopes of the tools it calls; the consent
// page offers only those the user's role allows.
func Scopes() []auth.Scope {
	var out []auth.Scope
	for _, s := range auth.AllScopes {
		for _, t := range tools {
			if slices.Contains(t.scopes, s) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

type callerKey struct{}

// ServeHTTP implements http.Handler: method, origin, credentials, the rate
// limit and, for an OAuth token, the scopes of the tools it calls, then the
// SDK.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Request-Id", requestID(r))
	ip := clientip.FromRequest(r, h.opts.TrustedProxies)
	if r.Method != http.MethodPost {
		if h.limit(w, r, "ip:"+clientip.Key(ip), ratelimit.AnonymousRule) {
			w.Header().Set("Allow", http.MethodPost)
			httperr.Write(w, r, nil, errcode.New(errcode.MethodNotAllowed, "the MCP endpoint takes POST only"))
		}
		return
	}
	if err := h.origins.Check(r); err != nil {
		if h.limit(w, r, "ip:"+clientip.Key(ip), ratelimit.AnonymousRule) {
			httperr.Write(w, r, nil, errcode.New(errcode.Forbidden, "cross-origin requests are not allowed"))
		}
		return
	}
	c, ok := h.authenticate(w, r, ip)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httperr.Write(w, r, nil, errcode.New(errcode.PayloadTooLarge, "the request body is larger than 1 MiB"))
		} else {
			httperr.Write(w, r, nil, errcode.Field("body", "could not be read"))
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	calls, parsed := parseCalls(body)
	if !h.count(w, r, c, calls, parsed) {
		return
	}
	if c.grant != nil && parsed {
		if need := h.missingScopes(c.scopes, calls); need != nil {
			w.Header().Set("WWW-Authenticate", h.bearer(r, need, "insufficient_scope"))
			httperr.Write(w, r, nil, errcode.Newf(errcode.Forbidden,
				"this access token lacks the scope the tool needs: %s", joinScopes(need, " or ")))
			return
		}
	}
	sdk := h.sdk
	held, opens := h.inSession(r, calls, parsed)
	if held {
		if owner, ok := h.owners.owner(r.Header.Get("Mcp-Session-Id")); ok && owner != c.bucket {
			httperr.Write(w, r, nil, errcode.New(errcode.Forbidden,
				"this session was opened with another key or connection; initialize a session of your own"))
			return
		}
	}
	if held || opens {
		sdk = h.sessions
	}
	sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	if opens {
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			h.owners.add(id, c.bucket, h.sessionServer)
		}
	}
}

// inSession reports whether the stateful handler serves r: r names a
// session this process holds (held), or r names none and initializes, and
// so gets one (opens).
func (h *Handler) inSession(r *http.Request, calls []rpcCall, parsed bool) (held, opens bool) {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		for s := range h.sessionServer.Sessions() {
			if s.ID() == id {
				return true, false
			}
		}
		return false, false
	}
	return false, parsed && slices.ContainsFunc(calls, func(c rpcCall) bool { return c.Method == "initialize" })
}

// sessionOwners maps the id of each session this process opened to the
// bucket of the caller that opened it. Sessions the server no longer holds
// (idle past SessionIdleTimeout) are swept from it as it grows, so it holds
// at most about twice the live sessions.
type sessionOwners struct {
	mu      sync.Mutex
	m       map[string]string
	sweepAt int
}

// add records that bucket opened session id, first sweeping the sessions
// srv no longer holds when the map has doubled since the last sweep.
func (o *sessionOwners) add(id, bucket string, srv *mcp.Server) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = make(map[string]string)
	}
	if len(o.m) >= o.sweepAt {
		live := make(map[string]bool, len(o.m))
		for s := range srv.Sessions() {
			live[s.ID()] = true
		}
		for k := range o.m {
			if !live[k] {
				delete(o.m, k)
			}
		}
		o.sweepAt = 2*len(o.m) + 64
	}
	o.m[id] = bucket
}

// owner returns the bucket that opened session id.
func (o *sessionOwners) owner(id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.m[id]
	return b, ok
}

// withCaller hands the caller ServeHTTP authenticated to the SDK, through
// its own bearer-token middleware: the tools read it from the request's
// token info (callerOf), and the stateful handler binds a session to the
// key or connection that opened it (TokenInfo.UserID), answering 403 to
// another one.
var withCaller = sdkauth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil {
		return nil, sdkauth.ErrInvalidToken
	}
	return &sdkauth.TokenInfo{UserID: c.bucket, Extra: map[string]any{callerExtra: c}}, nil
}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})

// callerExtra is the TokenInfo.Extra key of the caller.
const callerExtra = "hoplink.caller"

// callerOf returns the caller of a tool call's request.
func callerOf(req *mcp.CallToolRequest) *caller {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	c, _ := req.Extra.TokenInfo.Extra[callerExtra].(*caller)
	return c
}

// count counts a request of caller c against its bucket (the per-key rule,
// per API key or OAuth connection) and reports whether it may go on.
// Notifications and responses (messages without an id) do not count: an
// agent's notifications/initialized costs nothing. Past the limit, a
// request that is one tools/call goes on and the tool answers with a tool
// error that says when to retry (the protocol's way to tell a model); any
// other request is answered 429 RATE_LIMIT_EXCEEDED with Retry-After.
func (h *Handler) count(w http.ResponseWriter, r *http.Request, c *caller, calls []rpcCall, parsed bool) bool {
	if h.opts.Limiter == nil {
		return true
	}
	if parsed && !slices.ContainsFunc(calls, rpcCall.isRequest) {
		return true
	}
	res, err := h.opts.Limiter.Allow(r.Context(), c.bucket, ratelimit.KeyRule)
	if err != nil {
		h.log.WarnContext(r.Context(), "rate limiter failed; letting the request through", "err", err)
		return true
	}
	res.SetHeaders(w.Header().Set)
	if res.Allowed {
		return true
	}
	if parsed && len(calls) == 1 && calls[0].Method == "tools/call" {
		c.limited = &res
		return true
	}
	httperr.Write(w, r, nil, errcode.New(errcode.RateLimitExceeded, "too many requests; retry after the time in Retry-After"))
	return false
}

// bearer returns a WWW-Authenticate value: the protected-resource metadata,
// scopes and, unless empty, the error code (RFC 6750 section 3, RFC 9728
// section 5.1).
func (h *Handler) bearer(r *http.Request, scopes []auth.Scope, code string) string {
	v := `Bearer resource_metadata="` + h.metadataFor(r) + `", scope="` + joinScopes(scopes, " ") + `"`
	if code != "" {
		v += `, error="` + code + `"`
	}
	return v
}

func joinScopes(scopes []auth.Scope, sep string) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, sep)
}

// rpcCall is the part of a JSON-RPC message the endpoint reads before the
// SDK does.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// isRequest reports whether m is a request, which expects an answer: it
// has a method and an id. Notifications have no id, responses no method.
func (m rpcCall) isRequest() bool {
	return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// parseCalls reads body, one JSON-RPC message or a batch; ok is false when
// the body is not JSON-RPC, which the SDK answers.
func parseCalls(body []byte) (calls []rpcCall, ok bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil, false
		}
		return calls, true
	}
	var one rpcCall
	if json.Unmarshal(trimmed, &one) != nil {
		return nil, false
	}
	return []rpcCall{one}, true
}

// missingScopes returns the scopes of the first tool called in calls for
// which scopes holds none of the tool's scopes; nil when every call may go
// on.
func (h *Handler) missingScopes(scopes auth.ScopeSet, calls []rpcCall) []auth.Scope {
	for _, c := range calls {
		if c.Method != "tools/call" {
			continue
		}
		t, ok := h.byName[c.Params.Name]
		if !ok {
			continue
		}
		need := t.scopes
		held := false
		for _, s := range need {
			held = held || scopes.Has(s)
		}
		if !held {
			return need
		}
	}
	return nil
}

// limit counts the request against bucket under rule, as the REST API does
// (ratelimit.Check).
func (h *Handler) limit(w http.ResponseWriter, r *http.Request, bucket string, rule ratelimit.Rule) bool {
	return ratelimit.Check(w, r, h.opts.Limiter, h.log, bucket, rule)
}

// newServer returns an MCP server with the tools, which act for the caller
// of each call's request (callerOf).
func (h *Handler) newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "Hoplink", Version: version.Get().String()}, &mcp.ServerOptions{
		Instructions: "Hoplink deep links: read and change links, read apps, installs and attribution attempts. " +
			"Tools act for one organization; call list_organizations to see which, and pass its id as org " +
			"when the connection covers several. Calls are limited to 60 a minute per key or connection; a " +
			"limited call is a tool error that says how many seconds to wait.",
		Logger:       h.log,
		Capabilities: Capabilities(),
	})
	for i := range h.tools {
		t := &h.tools[i]
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := callerOf(req)
			if c == nil {
				return nil, errors.New("mcpserver: a tool call without an authenticated caller")
			}
			return h.call(ctx, c, t, req.Params.Arguments), nil
		})
	}
	return s
}

// Capabilities returns what the server declares at initialize: tools,
// prompts and resources without listChanged (the server never sends a
// notification; prompts and resources are served as empty
// lists), and logging (logging/setLevel is answered). Completions and
// resource subscriptions are not declared, and their methods answer
// method-not-found.
func Capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{
		// logging/setLevel is answered for the protocol revisions before
		// 2026-07-28, which deprecates logging; declaring it keeps
		// declaration and service in step.
		//lint:ignore SA1019 served for the revisions that still have it
		Logging:   &mcp.LoggingCapabilities{},
		Tools:     &mcp.ToolCapabilities{},
		Prompts:   &mcp.PromptCapabilities{},
		Resources: &mcp.ResourceCapabilities{},
	}
}

// requestID returns the request's well-formed X-Request-Id (1 to 128
// printable ASCII characters), or a new random one, as the REST API does.
func requestID(r *http.Request) string {
	id := r.Header.Get("X-Request-Id")
	valid := id != "" && len(id) <= 128
	for i := 0; valid && i < len(id); i++ {
		valid = id[i] >= 0x21 && id[i] <= 0x7e
	}
	if valid {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
