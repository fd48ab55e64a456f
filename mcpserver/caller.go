package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"net/netip"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/ratelimit"
)

// caller is who sent a request: an API key's principal or an OAuth grant.
type caller struct {
	key    *auth.Principal
	grant  *auth.OAuthGrant
	scopes auth.ScopeSet // the grant's scopes, links:write implying links:read
	// bucket is the rate-limit bucket of the key or the connection.
	bucket string
	// limited is set when the request is one tools/call past the rate
	// limit: the tool answers with a tool error instead of running.
	limited *ratelimit.Result
}

var errSDKKey = errcode.New(errcode.SDKKeyRouteForbidden, "SDK keys may call only the SDK routes, not the MCP endpoint")

// authenticate returns the caller of r, or answers r and returns false:
// 401 with the challenge without credentials or with a bad one, 403
// SDK_KEY_ROUTE_FORBIDDEN for an SDK key (429 past its rate limit). A valid
// caller's request is counted later (Handler.count), once its body shows
// whether it is a request or a notification.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, ip netip.Addr) (*caller, bool) {
	ctx := r.Context()
	refuse := func(err error, challenge string) (*caller, bool) {
		if !h.limit(w, r, "ip:"+clientip.Key(ip), ratelimit.AnonymousRule) {
			return nil, false
		}
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", challenge)
		}
		httperr.Write(w, r, h.log, err)
		return nil, false
	}
	header := r.Header.Get("Authorization")
	if header == "" {
		return refuse(errcode.New(errcode.Unauthorized, "an API key or an OAuth access token is required"), h.bearer(r, Scopes(), ""))
	}
	token, ok := auth.BearerToken(header)
	if !ok {
		return refuse(errcode.New(errcode.Unauthorized, "the Authorization header must be Bearer and a token"),
			h.bearer(r, Scopes(), "invalid_token"))
	}
	invalid := h.bearer(r, Scopes(), "invalid_token")
	if _, isKey := auth.KeyPrefix(token); isKey {
		p, err := h.opts.Authenticator.Authenticate(ctx, token)
		if err != nil {
			if errcode.CodeOf(err) == errcode.Unauthorized {
				return refuse(err, invalid)
			}
			return refuse(err, "")
		}
		bucket := "key:" + p.KeyID.String()
		if p.Type == auth.KeyTypeSDK {
			if h.limit(w, r, bucket, ratelimit.KeyRule) {
				httperr.Write(w, r, h.log, errSDKKey)
			}
			return nil, false
		}
		return &caller{key: p, scopes: p.Scopes, bucket: bucket}, true
	}
	if h.opts.Verifier == nil {
		return refuse(errcode.New(errcode.Unauthorized, "invalid or expired access token"), invalid)
	}
	vctx, cancel := dbdeadline.Context(ctx, dbdeadline.Or(h.opts.VerifyTimeout, dbdeadline.Default))
	g, err := h.opts.Verifier.VerifyAccessToken(vctx, token, h.resource)
	err = dbdeadline.Err(vctx, err)
	cancel()
	if err != nil {
		if errors.Is(err, auth.ErrInvalidToken) {
			return refuse(errcode.New(errcode.Unauthorized, "invalid or expired access token"), invalid)
		}
		return refuse(err, "")
	}
	scopes := make([]auth.Scope, len(g.Scopes))
	for i, s := range g.Scopes {
		scopes[i] = auth.Scope(s)
	}
	return &caller{grant: g, scopes: auth.NewScopeSet(auth.NormalizeScopes(scopes)),
		bucket: "oauth:" + g.ConnectionID.String()}, true
}

// orgChoice is one organization an OAuth user may name in org.
type orgChoice struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	Role auth.Role `json:"role"`
}

// principal resolves the organization a tool call acts for from the caller
// and the tool's org argument (empty when absent), and returns the
// principal the services check. For an OAuth caller the membership and
// role are read now, so a removed member or a changed role counts at once.
func (h *Handler) principal(ctx context.Context, c *caller, orgArg string) (*auth.Principal, error) {
	var want *uuid.UUID
	if orgArg != "" {
		id, err := uuid.Parse(orgArg)
		if err != nil || len(orgArg) != 36 {
			return nil, errcode.Field("org", "must be an organization id (a UUID)")
		}
		want = &id
	}
	if c.key != nil {
		if want != nil && *want != c.key.OrgID {
			return nil, errcode.New(errcode.Forbidden, "this API key belongs to another organization; leave org empty or give its own id")
		}
		return c.key, nil
	}
	g := c.grant
	if h.opts.Memberships == nil {
		return nil, errors.New("mcpserver: OAuth caller without Options.Memberships")
	}
	ms, err := h.opts.Memberships.Memberships(ctx, g.UserID)
	if err != nil {
		return nil, err
	}
	var target uuid.UUID
	switch {
	case g.OrgID != nil:
		if want != nil && *want != *g.OrgID {
			return nil, errcode.Newf(errcode.Forbidden,
				"this connection was made for organization %s only; leave org empty or give that id", g.OrgID)
		}
		target = *g.OrgID
	case want != nil:
		target = *want
	default:
		return nil, orgRequired(ms)
	}
	for _, m := range ms {
		if m.OrgID == target {
			return grantPrincipal(g, c.scopes, m), nil
		}
	}
	if g.OrgID == nil {
		return nil, orgRequired(ms).WithDetail("org", target)
	}
	return nil, errcode.New(errcode.Forbidden, "you are no longer a member of this connection's organization")
}

// orgRequired is the tool error of an all-organizations connection whose
// call names no organization, or one the user is not a member of.
func orgRequired(ms []account.Membership) *errcode.Error {
	choices := make([]orgChoice, len(ms))
	msg := "is required: this connection covers all your organizations; give the id of one of them"
	if len(ms) == 0 {
		msg = "is required, but you are not a member of any organization"
	}
	for i, m := range ms {
		choices[i] = orgChoice{ID: m.OrgID, Name: m.OrgName, Role: m.Role}
		if i == 0 {
			msg += ": "
		} else {
			msg += ", "
		}
		msg += m.OrgName + " (" + m.OrgID.String() + ")"
	}
	return errcode.Validation(errcode.FieldError{Field: "org", Message: msg}).WithDetail("organizations", choices)
}

// grantPrincipal is the principal of OAuth grant g in membership m: the
// user as the creator, m's role, and the granted scopes that the role
// holds. KeyID is the connection id, which names the grant as a key id
// names a key.
func grantPrincipal(g *auth.OAuthGrant, granted auth.ScopeSet, m account.Membership) *auth.Principal {
	var scopes []auth.Scope
	for _, s := range granted.Scopes() {
		if auth.RoleGrants(m.Role, s) {
			scopes = append(scopes, s)
		}
	}
	user := g.UserID
	return &auth.Principal{
		KeyID:     g.ConnectionID,
		OrgID:     m.OrgID,
		Type:      auth.KeyTypeAPI,
		Scopes:    auth.NewScopeSet(scopes),
		CreatedBy: &user,
		Role:      m.Role,
	}
}
