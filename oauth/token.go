package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/ory/fosite"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/web"
)

// maxFormBytes bounds the form bodies of the OAuth endpoints.
const maxFormBytes = 64 << 10

// token answers POST /oauth/token: the authorization_code grant (with the
// PKCE verifier) and the refresh_token grant, which rotates the refresh
// token. A resource parameter other than the canonical resource is
// invalid_target. Reusing a code or a rotated refresh token (after
// RefreshGracePeriod) revokes the whole grant.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.provider.WriteAccessError(ctx, w, nil, fosite.ErrInvalidRequest.WithHint("The request body could not be read."))
		return
	}
	if !s.validResource(r.PostForm) {
		s.provider.WriteAccessError(ctx, w, nil, errInvalidTarget())
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != "" && gt != "authorization_code" && gt != "refresh_token" {
		// fosite answers a grant type no handler takes as invalid_request;
		// RFC 6749, section 5.2, names it unsupported_grant_type.
		s.provider.WriteAccessError(ctx, w, nil, fosite.ErrUnsupportedGrantType.WithHint("The grant types supported are authorization_code and refresh_token."))
		return
	}
	sess := &Session{}
	ar, err := s.provider.NewAccessRequest(ctx, r, sess)
	if err != nil {
		s.logUnexpected(ctx, "token request", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.logUnexpected(ctx, "token response", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	if id, err := uuid.Parse(ar.GetID()); err == nil {
		if err := s.store.TouchConnection(ctx, id, s.now()); err != nil {
			s.log.WarnContext(ctx, "oauth: recording a connection's use", "err", err)
		}
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
	if s.opts.OnTokenIssued != nil {
		// The grant type was checked above: one of two.
		s.opts.OnTokenIssued(r.PostForm.Get("grant_type"))
	}
}

// revoke answers POST /oauth/revoke (RFC 7009). Revoking an access or a
// refresh token revokes the whole grant (the connection and all its
// tokens); an unknown token is a success, as the RFC asks.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	err := s.provider.NewRevocationRequest(ctx, r)
	s.logUnexpected(ctx, "revocation", err)
	s.provider.WriteRevocationResponse(ctx, w, err)
}

// introspect answers POST /oauth/introspect (RFC 7662) for confidential
// clients (HTTP Basic) and bearers of an active access token.
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	resp, err := s.provider.NewIntrospectionRequest(ctx, r, &Session{})
	if err != nil {
		s.logUnexpected(ctx, "introspection", err)
		s.provider.WriteIntrospectionError(ctx, w, err)
		return
	}
	s.provider.WriteIntrospectionResponse(ctx, w, resp)
}

// logUnexpected logs err when it is a server error, not a refusal.
func (s *Server) logUnexpected(ctx context.Context, what string, err error) {
	if err == nil {
		return
	}
	rfc := fosite.ErrorToRFC6749Error(err)
	if rfc.CodeField >= 500 {
		s.log.ErrorContext(ctx, "oauth: "+what, "err", rfc.WithExposeDebug(true).GetDescription(), "cause", errors.Unwrap(err))
	}
}

var _ auth.OAuthTokenVerifier = (*Server)(nil)

// VerifyAccessToken implements auth.OAuthTokenVerifier: token must be an
// active, unexpired access token of this server whose granted audience
// includes resource and whose connection is not revoked. It records the
// connection's use (at most once per minute).
func (s *Server) VerifyAccessToken(ctx context.Context, token, resource string) (*auth.OAuthGrant, error) {
	sess := &Session{}
	use, ar, err := s.provider.IntrospectToken(ctx, token, fosite.AccessToken, sess)
	if err == nil && use != fosite.AccessToken {
		// fosite falls back to the other token types: a refresh token is
		// not a credential for the resource.
		return nil, fmt.Errorf("%w: not an access token", auth.ErrInvalidToken)
	}
	if err != nil {
		rfc := fosite.ErrorToRFC6749Error(err)
		if rfc.CodeField >= 500 {
			return nil, fmt.Errorf("oauth: verifying an access token: %w", err)
		}
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, rfc.ErrorField)
	}
	if !slices.Contains(ar.GetGrantedAudience(), resource) {
		return nil, fmt.Errorf("%w: the token's audience is not %s", auth.ErrInvalidToken, resource)
	}
	conn, err := s.store.Connection(ctx, sess.ConnectionID)
	if errors.Is(err, fosite.ErrNotFound) {
		return nil, fmt.Errorf("%w: unknown connection", auth.ErrInvalidToken)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: verifying an access token: %w", err)
	}
	if conn.RevokedAt != nil {
		return nil, fmt.Errorf("%w: the connection was revoked", auth.ErrInvalidToken)
	}
	now := s.now()
	if conn.LastUsedAt == nil || now.Sub(*conn.LastUsedAt) >= touchInterval {
		if err := s.store.TouchConnection(ctx, conn.ID, now); err != nil {
			s.log.WarnContext(ctx, "oauth: recording a connection's use", "err", err)
		}
	}
	return &auth.OAuthGrant{
		UserID: conn.UserID, ClientID: conn.ClientID, ConnectionID: conn.ID,
		Scopes: slices.Clone([]string(ar.GetGrantedScopes())), OrgID: conn.OrgID,
		ExpiresAt: sess.GetExpiresAt(fosite.AccessToken),
	}, nil
}

// connectionsPage answers GET /account/connections: the user's OAuth
// connections (client, organizations, scopes, last use), each with a
// revoke button.
func (s *Server) connectionsPage(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	who, ok := s.requireUser(w, r)
	if !ok {
		return
	}
	s.showConnections(w, r, http.StatusOK, who.User.ID, "")
}

func (s *Server) showConnections(w http.ResponseWriter, r *http.Request, status int, userID uuid.UUID, msg string) {
	ctx := r.Context()
	conns, err := s.store.UserConnections(ctx, userID)
	if err != nil {
		s.pageError(w, r, "listing connections", err)
		return
	}
	members, err := s.opts.Members.Memberships(ctx, userID)
	if err != nil {
		s.pageError(w, r, "listing memberships", err)
		return
	}
	names := map[uuid.UUID]string{}
	for _, m := range members {
		names[m.OrgID] = m.OrgName
	}
	v := &web.ConnectionsView{Frame: web.Frame{Title: "Connected applications", Error: msg}}
	hosts := map[string]string{}
	for _, c := range conns {
		orgs := "All my organizations"
		if c.OrgID != nil {
			orgs = names[*c.OrgID]
			if orgs == "" {
				orgs = "An organization you left"
			}
		}
		client := c.ClientName
		if client == "" {
			client = c.ClientID
		}
		redirects, ok := hosts[c.ClientID]
		if !ok {
			redirects = s.redirectHosts(ctx, c.ClientID)
			hosts[c.ClientID] = redirects
		}
		created := c.CreatedAt
		id := c.ID.String()
		v.Connections = append(v.Connections, web.Connection{ID: id, Label: id[len(id)-6:], Client: client, Orgs: orgs,
			Scopes: joinScopes(c.Scopes), RedirectHosts: redirects,
			Created: formatTime(&created), LastUsed: formatTime(c.LastUsedAt)})
	}
	s.render(w, r, status, web.PageConnections, v, func(token string) { v.CSRF = token })
}

// redirectHosts names where the answers of client clientID go: the hosts of
// its redirect URIs (a private-use scheme where there is no host), "" when
// the client is gone.
func (s *Server) redirectHosts(ctx context.Context, clientID string) string {
	c, err := s.store.GetClient(ctx, clientID)
	if err != nil {
		return ""
	}
	var out []string
	for _, raw := range c.GetRedirectURIs() {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		h := u.Host
		if h == "" {
			h = u.Scheme + ":"
		}
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return strings.Join(out, ", ")
}

// revokeConnection answers POST /account/connections/revoke (fields
// csrf_token and id): the connection and every token of it stop working at
// once.
func (s *Server) revokeConnection(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	who, ok := s.requireUser(w, r)
	if !ok {
		return
	}
	if !s.opts.Sessions.ValidCSRF(r) {
		s.showConnections(w, r, http.StatusForbidden, who.User.ID, "This form has expired or did not come from this site. Please try again.")
		return
	}
	id, err := uuid.Parse(r.PostForm.Get("id"))
	if err == nil {
		err = s.store.RevokeConnection(r.Context(), who.User.ID, id, s.now())
	}
	if err != nil && !errors.Is(err, fosite.ErrNotFound) {
		s.pageError(w, r, "revoking a connection", err)
		return
	}
	if err != nil {
		s.showConnections(w, r, http.StatusNotFound, who.User.ID, "That connection does not exist or was already revoked.")
		return
	}
	seeOther(w, "/account/connections")
}

// requireUser returns the signed-in user, or sends the browser to /login
// (back to the connections page afterwards) and reports false.
func (s *Server) requireUser(w http.ResponseWriter, r *http.Request) (*account.Authenticated, bool) {
	who, err := s.opts.Sessions.SignedIn(r)
	if err != nil {
		s.pageError(w, r, "reading the session", err)
		return nil, false
	}
	if who == nil {
		seeOther(w, "/login?return_to=%2Faccount%2Fconnections")
		return nil, false
	}
	if who.EnrolmentRequired {
		seeOther(w, "/account/2fa")
		return nil, false
	}
	return who, true
}

func joinScopes(scopes []string) string {
	out := ""
	for i, sc := range scopes {
		if i > 0 {
			out += " "
		}
		out += sc
	}
	return out
}
