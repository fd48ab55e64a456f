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
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/google/uuid"
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
	"github.com/hoplink/hoplink/webhook"
)

// Path is where the endpoint is mounted on the service host.
const Path = "/mcp"

// MaxBodyBytes is the largest JSON-RPC request body accepted (1 MiB, as the
// REST API's bodies).
const MaxBodyBytes = strictjson.MaxBodyBytes

// ServerName is the name the server gives in its implementation info.
const ServerName = "hoplink"

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
	// TrustedProxies are the peers whose X-Forwarded-For is believed. If
	// empty, it is never believed: the client IP is the peer's address.
	TrustedProxies []netip.Prefix
	// Logger receives unexpected errors; slog.Default when nil.
	Logger *slog.Logger
}

// Handler is the MCP endpoint. It serves POST /mcp; mount it for every
// method of that path.
type Handler struct {
	opts     Options
	log      *slog.Logger
	sdk      *mcp.StreamableHTTPHandler
	origins  *http.CrossOriginProtection
	tools    []tool
	byName   map[string]*tool
	resource string
	metadata string
	// challenge is the WWW-Authenticate value of a request without credentials.
	challenge string
}

// New returns the MCP endpoint.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	base := strings.TrimRight(opts.PublicURL, "/")
	h := &Handler{
		opts:     opts,
		log:      opts.Logger,
		origins:  http.NewCrossOriginProtection(),
		resource: base + Path,
		metadata: base + "/.well-known/oauth-protected-resource" + Path,
	}
	h.tools = tools
	h.byName = make(map[string]*tool, len(h.tools))
	for i := range h.tools {
		h.byName[h.tools[i].def.Name] = &h.tools[i]
	}
	h.challenge = h.bearer(Scopes(), "")
	h.sdk = mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       opts.Logger,
		// Requests reach this handler only for the service host names
		// (--service-host); a rebinding page's own host name is a link
		// domain and never gets here. Origin is checked below.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodyBytes,
	})
	return h
}

// Resource returns the canonical resource URL, {public_url}/mcp.
func (h *Handler) Resource() string { return h.resource }

// Scopes returns every scope an OAuth client may ask for: the scope
// parameter of the 401 challenge (issue 7: "all scopes"), the same list as
// scopes_supported in the authorization server's and this resource's
// metadata. A token needs only the scopes of the tools it calls; the
// consent page offers only those the user's role allows.
func Scopes() []auth.Scope {
	return slices.Clone(auth.RequestableScopes)
}

type callerKey struct{}

// ServeHTTP implements http.Handler: method, origin, credentials and, for an
// OAuth token, the scopes of the tools it calls, then the SDK.
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
	if c.grant != nil {
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
		if need := h.missingScopes(c.scopes, body); need != nil {
			w.Header().Set("WWW-Authenticate", h.bearer(need, "insufficient_scope"))
			httperr.Write(w, r, nil, errcode.Newf(errcode.Forbidden,
				"this access token lacks the scope the tool needs: %s", joinScopes(need, " or ")))
			return
		}
	}
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// bearer returns a WWW-Authenticate value: the protected-resource metadata,
// scopes and, unless empty, the error code (RFC 6750 section 3, RFC 9728
// section 5.1).
func (h *Handler) bearer(scopes []auth.Scope, code string) string {
	v := `Bearer resource_metadata="` + h.metadata + `", scope="` + joinScopes(scopes, " ") + `"`
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

// rpcCall is the part of a JSON-RPC request the scope check reads.
type rpcCall struct {
	Method string `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// missingScopes returns the scopes of the first tool called in body (one
// JSON-RPC message or a batch) for which scopes holds none of the tool's
// scopes; nil when every call may go on. Bodies it cannot read are left to
// the SDK, which answers them.
func (h *Handler) missingScopes(scopes auth.ScopeSet, body []byte) []auth.Scope {
	var calls []rpcCall
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil
		}
	} else {
		var one rpcCall
		if json.Unmarshal(trimmed, &one) != nil {
			return nil
		}
		calls = []rpcCall{one}
	}
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

// server returns the MCP server of one request: stateless, so each request
// gets a server whose tools act for the request's caller.
func (h *Handler) server(r *http.Request) *mcp.Server {
	c, _ := r.Context().Value(callerKey{}).(*caller)
	if c == nil {
		return nil
	}
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "Hoplink"}, &mcp.ServerOptions{
		Instructions: "Hoplink deep links: read and change links, read apps, installs and attribution attempts. " +
			"Tools act for one organization; call list_organizations to see which, and pass its id as org " +
			"when the connection covers several.",
		Logger: h.log,
	})
	for i := range h.tools {
		t := &h.tools[i]
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return h.call(ctx, c, t, req.Params.Arguments), nil
		})
	}
	return s
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
