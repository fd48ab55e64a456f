package oauth

import (
	"encoding/json"
	"net/http"

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
		"scopes_supported":                               ScopesSupported(),
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
// /.well-known/oauth-protected-resource and its /mcp variant (RFC 9728):
// the MCP endpoint is the one protected resource.
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.resource,
		"authorization_servers":    []string{s.issuer},
		"scopes_supported":         ScopesSupported(),
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Hoplink MCP server",
	})
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
