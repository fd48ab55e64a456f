package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ory/fosite"

	"github.com/hoplink/hoplink/clientip"
)

// Client authentication methods at the token endpoint.
const (
	AuthMethodNone        = "none"
	AuthMethodSecretBasic = "client_secret_basic"
	AuthMethodSecretPost  = "client_secret_post"
)

// Registration limits.
const (
	maxRegistrationBytes = 32 << 10
	maxRedirectURIs      = 10
	maxRedirectURILength = 2000
	maxClientNameLength  = 200
)

// RegistrationRequest is the client metadata of RFC 7591, section 2, that
// the server understands; other members are ignored, as section 3.1 asks.
type RegistrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
}

// RegistrationError is a refused registration: Code is invalid_redirect_uri
// or invalid_client_metadata (RFC 7591, section 3.2.2).
type RegistrationError struct {
	Code        string
	Description string
}

func (e *RegistrationError) Error() string { return "oauth: " + e.Code + ": " + e.Description }

func invalidMetadata(desc string) error {
	return &RegistrationError{Code: "invalid_client_metadata", Description: desc}
}

// ValidateRegistration checks req and returns the client it describes,
// without id, secret or creation time. Redirect URIs must be absolute,
// without fragment, and HTTPS, HTTP on a loopback host (127.0.0.1, [::1]
// or localhost), or, for a public client (token_endpoint_auth_method
// none, which PKCE protects), a private-use URI scheme (RFC 8252, section
// 7.1: "cursor://callback", "com.example.app:/cb") other than the schemes
// a browser runs or reads itself (javascript, data, file, ...). The
// default method is client_secret_basic (RFC 7591); grant types default
// to authorization_code and refresh_token, and only those two and the
// response type code are accepted. scopes are the scopes offered
// (ScopesSupported when empty): the scope defaults to all of them; a
// requested Hoplink scope outside them is dropped (RFC 7591, section 2
// lets the server narrow it), an unknown one refused. Every client gets
// audience, the canonical resource.
func ValidateRegistration(req RegistrationRequest, audience string, scopes []string) (*Client, error) {
	if len(req.RedirectURIs) == 0 {
		return nil, &RegistrationError{Code: "invalid_redirect_uri", Description: "redirect_uris is required"}
	}
	if len(req.RedirectURIs) > maxRedirectURIs {
		return nil, &RegistrationError{Code: "invalid_redirect_uri", Description: "at most " + strconv.Itoa(maxRedirectURIs) + " redirect_uris"}
	}
	method := req.TokenEndpointAuthMethod
	if method == "" {
		method = AuthMethodSecretBasic
	}
	for _, u := range req.RedirectURIs {
		if err := validRedirectURI(u, method == AuthMethodNone); err != nil {
			return nil, &RegistrationError{Code: "invalid_redirect_uri", Description: err.Error()}
		}
	}
	name := strings.TrimSpace(req.ClientName)
	if len(name) > maxClientNameLength {
		return nil, invalidMetadata("client_name is too long")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return nil, invalidMetadata("client_name holds a control character")
		}
	}
	if method != AuthMethodNone && method != AuthMethodSecretBasic && method != AuthMethodSecretPost {
		return nil, invalidMetadata("token_endpoint_auth_method must be none, client_secret_basic or client_secret_post")
	}
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, invalidMetadata("grant_types may hold only authorization_code and refresh_token")
		}
	}
	if !slices.Contains(grants, "authorization_code") {
		return nil, invalidMetadata("grant_types must include authorization_code")
	}
	responses := req.ResponseTypes
	if len(responses) == 0 {
		responses = []string{"code"}
	}
	for _, rt := range responses {
		if rt != "code" {
			return nil, invalidMetadata("response_types may hold only code")
		}
	}
	supported := scopes
	if len(supported) == 0 {
		supported = ScopesSupported()
	}
	scopes = slices.Clone(supported)
	if req.Scope != "" {
		scopes = nil
		for _, sc := range strings.Fields(req.Scope) {
			if !slices.Contains(ScopesSupported(), sc) {
				return nil, invalidMetadata("unknown scope " + strconv.Quote(sc))
			}
			if slices.Contains(supported, sc) && !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
		if len(scopes) == 0 {
			return nil, invalidMetadata("none of the requested scopes is offered; offered: " + strings.Join(supported, " "))
		}
	}
	return &Client{
		Name: name, RedirectURIs: slices.Clone(req.RedirectURIs),
		GrantTypes: slices.Compact(slices.Sorted(slices.Values(grants))), ResponseTypes: []string{"code"},
		// offline_access is accepted (and ignored) so that clients that ask
		// for it out of habit are not refused.
		Scopes:                  append(scopes, "offline_access"),
		Audience:                []string{audience},
		TokenEndpointAuthMethod: method,
	}, nil
}

// validRedirectURI checks one redirect URI; public says whether the
// client is public, which a private-use scheme requires.
func validRedirectURI(raw string, public bool) error {
	if len(raw) > maxRedirectURILength {
		return errors.New("a redirect URI is too long")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return errors.New("a redirect URI must be an absolute URL")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("a redirect URI must not have a fragment")
	}
	if u.User != nil {
		return errors.New("a redirect URI must not hold user information")
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return errors.New("a redirect URI must be an absolute URL")
		}
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return errors.New("an http redirect URI must be on a loopback host (127.0.0.1, [::1] or localhost); use https")
	}
	if reservedSchemes[u.Scheme] {
		return errors.New("a redirect URI must not use the " + u.Scheme + ": scheme")
	}
	if u.Host == "" && !strings.HasPrefix(u.Path, "/") {
		return errors.New("a private-use scheme redirect URI must name a host or an absolute path (com.example.app:/callback)")
	}
	if !public {
		return errors.New("a private-use scheme redirect URI (RFC 8252, section 7.1) is for public clients: register with token_endpoint_auth_method none")
	}
	return nil
}

// reservedSchemes are the URI schemes that no native app can own: schemes
// a browser runs, reads or hands to another program itself. A redirect to
// one of them would hand the code to the browser or the system, not to
// the client.
var reservedSchemes = map[string]bool{
	"javascript": true, "vbscript": true, "data": true, "file": true, "blob": true, "filesystem": true,
	"about": true, "view-source": true, "ftp": true, "ws": true, "wss": true, "mailto": true, "tel": true,
	"sms": true, "urn": true, "chrome": true, "chrome-extension": true, "moz-extension": true, "resource": true,
	"intent": true,
}

// redirectSecure is fosite's RedirectSecureChecker: https, http on a
// loopback host, or a private-use scheme, which registration admits for
// public clients only (validRedirectURI); fosite also requires PKCE.
func redirectSecure(_ context.Context, u *url.URL) bool {
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return fosite.IsLocalhost(u)
	}
	return u.Scheme != "" && !reservedSchemes[u.Scheme]
}

// registrationResponse is RFC 7591's client information response.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

// register answers POST /oauth/register (RFC 7591): 201 with the client's
// information, 400 invalid_redirect_uri or invalid_client_metadata, 429
// when the client IP registered too often.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.opts.Limiter != nil {
		ip := s.opts.ClientIP(r)
		res, err := s.opts.Limiter.Allow(r.Context(), "oauth-register:ip:"+clientip.Key(ip), RegisterRule)
		if err != nil {
			s.log.WarnContext(r.Context(), "registration rate limit unavailable", "err", err)
		} else if !res.Allowed {
			w.Header().Set("Retry-After", strconv.Itoa(res.RetryAfterSeconds()))
			writeJSON(w, http.StatusTooManyRequests, oauthError{Error: "too_many_requests", Description: "too many registrations from this address; try again later"})
			return
		}
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_client_metadata", Description: "the body must be application/json"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_client_metadata", Description: "the body is too large or unreadable"})
		return
	}
	var req RegistrationRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_client_metadata", Description: "the body is not valid client metadata JSON"})
		return
	}
	c, err := ValidateRegistration(req, s.resource, s.scopes)
	var re *RegistrationError
	if errors.As(err, &re) {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: re.Code, Description: re.Description})
		return
	}
	c.ID = randomString(24)
	c.CreatedAt = s.now()
	var secret string
	if !c.Public() {
		secret = randomString(32)
		c.SecretHash, err = s.config.GetSecretsHasher(r.Context()).Hash(r.Context(), []byte(secret))
		if err != nil {
			s.serverError(w, r, "hashing a client secret", err)
			return
		}
	}
	if err := s.store.CreateClient(r.Context(), c); err != nil {
		s.serverError(w, r, "creating a client", err)
		return
	}
	resp := registrationResponse{
		ClientID: c.ID, ClientSecret: secret, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: c.ResponseTypes,
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
		Scope:                   strings.Join(slices.DeleteFunc(slices.Clone(c.Scopes), func(s string) bool { return s == "offline_access" }), " "),
	}
	if secret != "" {
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.ErrorContext(r.Context(), "oauth: "+what, "err", err)
	writeJSON(w, http.StatusInternalServerError, oauthError{Error: "server_error", Description: "something went wrong on our side"})
}

// randomString returns n random bytes, base64url without padding.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
