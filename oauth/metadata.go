package oauth

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/hoplink/hoplink/auth"
)

// ScopesSupported are the scopes a client may request: every scope an API
// key may carry (attribution:write belongs to SDK keys only).
func ScopesSupported() []string {
	out := make([]string, 0, len(auth.RequestableScopes))
	for _, sc := range auth.RequestableScopes {
		out = append(out, string(sc))
	}
	return out
}

// authorizationServerMetadata answers GET
// /.well-known/oauth-authorization-server (RFC 8414).
func (s *Server) authorizationServerMetadata(w http.ResponseWriter, r *http.Request) {
	authMethods := []string{AuthMethodNone, AuthMethodSecretBasic, AuthMethodSecretPost}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/oauth/authorize",
		"token_endpoint":                                 s.issuer + "/oauth/token",
		"registration_endpoint":                          s.issuer + "/oauth/register",
		"revocation_endpoint":                            s.issuer + "/oauth/revoke",
		"introspection_endpoint":                         s.issuer + "/oauth/introspect",
		"scopes_supported":                               s.scopes,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          authMethods,
		"revocation_endpoint_auth_methods_supported":     authMethods,
		"introspection_endpoint_auth_methods_supported":  []string{AuthMethodSecretBasic},
		"code_challenge_methods_supported":               []string{"S256"},
		"authorization_response_iss_parameter_supported": true,
	})
}

// protectedResourceMetadata answers GET
// /.well-known/oauth-protected-resource/mcp (RFC 9728): the MCP endpoint,
// on the host the client used when that is a service host (ResourceFor).
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	s.writeResourceMetadata(w, s.ResourceFor(r))
}

// rootResourceMetadata answers GET /.well-known/oauth-protected-resource.
// Its resource is the origin the document was fetched from, as RFC 9728,
// section 3.3 requires of the URL the well-known path was derived from; a
// token asked for that resource is a token for the MCP endpoint.
func (s *Server) rootResourceMetadata(w http.ResponseWriter, r *http.Request) {
	s.writeResourceMetadata(w, s.originFor(r))
}

func (s *Server) writeResourceMetadata(w http.ResponseWriter, resource string) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{s.issuer},
		"scopes_supported":         s.scopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Hoplink MCP server",
	})
}

// ResourceFor returns the MCP endpoint's resource as r reached the server:
// the canonical {public_url}/mcp, or, when r names another service host,
// the same URL on that host and port, with https when r came over TLS and
// the public URL's scheme otherwise.
func (s *Server) ResourceFor(r *http.Request) string {
	return s.originFor(r) + s.opts.PublicURL.Path + "/mcp"
}

// originFor is the origin of ResourceFor.
func (s *Server) originFor(r *http.Request) string {
	host := strings.ToLower(r.Host)
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.Trim(name, "[]")
	if host == "" || host == strings.ToLower(s.opts.PublicURL.Host) || !slices.Contains(s.opts.ServiceHosts, name) {
		return s.issuer
	}
	scheme := s.opts.PublicURL.Scheme
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host
}

// writeJSON writes v with status; OAuth answers are never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// oauthError is RFC 6749's error body, also used by RFC 7591.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}
