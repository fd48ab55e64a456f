package oauth

import (
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

// Consent form fields (DESIGN.md: web pages).
const (
	// FieldOrgID is the consent page's select: an organization id, or
	// OrgAll for all of the user's organizations.
	FieldOrgID = "org_id"
	// OrgAll is FieldOrgID's value for all of the user's organizations.
	OrgAll = "all"
	// FieldDecision is the consent page's submit button: DecisionAllow or
	// DecisionDeny.
	FieldDecision = "decision"
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	// FieldCSRF is the CSRF token field of the account pages.
	FieldCSRF = "csrf_token"
)

// errInvalidTarget is RFC 8707's error for a resource other than the
// canonical MCP resource.
func errInvalidTarget() *fosite.RFC6749Error {
	return &fosite.RFC6749Error{ErrorField: "invalid_target", CodeField: http.StatusBadRequest,
		DescriptionField: "The requested resource is invalid, unknown, or malformed.",
		HintField:        "The resource parameter must be the MCP endpoint, the resource named by /.well-known/oauth-protected-resource."}
}

// validResource reports whether the resource parameters of form are absent
// or, once, a name of the MCP endpoint: {public_url}/mcp, or its origin
// (which the root protected-resource metadata names), on the public URL's
// host or another service host, with any port, as ResourceFor names it to
// a client that used that host. Whatever it says, the token is issued for
// the canonical resource.
func (s *Server) validResource(form url.Values) bool {
	res, ok := form["resource"]
	if !ok {
		return true
	}
	if len(res) != 1 {
		return false
	}
	if res[0] == s.resource {
		return true
	}
	u, err := url.Parse(res[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.RawQuery != "" ||
		u.Fragment != "" || strings.Contains(res[0], "#") {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host != strings.ToLower(s.opts.PublicURL.Hostname()) && !slices.Contains(s.opts.ServiceHosts, host) {
		return false
	}
	return u.Path == s.opts.PublicURL.Path+"/mcp" || u.Path == "" || u.Path == "/"
}

// noStatePrefix marks a state the server made up for a request that had
// none. state is optional here: PKCE, required of every client, already
// binds the response to the request that started it (RFC 9700, section
// 2.1.1), and the TypeScript MCP SDK's client sends no state; fosite
// insists on one, so the server gives it one and leaves it out of the
// answer to the client.
const noStatePrefix = "hoplink-no-state-"

// issWriter adds the iss parameter (RFC 9207) to the authorization
// response's redirect to the client, success or error; the server's own
// redirects (to /login, to /account/2fa) are relative and left alone.
type issWriter struct {
	http.ResponseWriter
	iss string
}

func (w *issWriter) WriteHeader(status int) {
	if loc := w.Header().Get("Location"); loc != "" && status >= 300 && status < 400 {
		if u, err := url.Parse(loc); err == nil && u.IsAbs() {
			q := u.Query()
			if strings.HasPrefix(q.Get("state"), noStatePrefix) {
				q.Del("state")
			}
			if !q.Has("iss") {
				q.Set("iss", w.iss)
			}
			u.RawQuery = q.Encode()
			w.Header().Set("Location", u.String())
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

// authorize answers GET and POST /oauth/authorize. GET validates the
// request (client, exact redirect URI, response type code, PKCE S256,
// resource) and shows the consent page, after sending a browser that is
// not signed in to /login and back; POST is the consent form's answer.
// Errors that can be returned to the client are redirects carrying error
// and iss; a request with an unknown client or redirect URI is answered
// with a JSON error and no redirect (RFC 6749, section 4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	w = &issWriter{ResponseWriter: w, iss: s.issuer}
	pageHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request", Description: "the request could not be read"})
		return
	}
	if r.Form.Get("state") == "" {
		r.Form.Set("state", noStatePrefix+randomString(12))
	}
	// Only the query response mode is served. Another one is refused in
	// the query too, where iss is added: fosite would answer it in the
	// fragment or a posted form, without iss (RFC 9207).
	mode, modeGiven := r.Form["response_mode"]
	r.Form.Del("response_mode")
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		if !ar.IsRedirectURIValid() && acceptsHTML(r) {
			// The answer cannot go back to the client (RFC 6749 section
			// 4.1.2.1): a person in a browser gets a page, not JSON.
			s.authorizeErrorPage(w, r, err)
			return
		}
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	if modeGiven && (len(mode) != 1 || mode[0] != "query") {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrUnsupportedResponseMode.WithHint("Only the query response mode is supported."))
		return
	}
	form := ar.GetRequestForm()
	if !s.validResource(form) {
		s.provider.WriteAuthorizeError(ctx, w, ar, errInvalidTarget())
		return
	}
	if form.Get("code_challenge") == "" || form.Get("code_challenge_method") != "S256" {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("PKCE with code_challenge_method S256 is required."))
		return
	}
	who, err := s.opts.Sessions.SignedIn(r)
	if err != nil {
		s.pageError(w, r, "reading the session", err)
		return
	}
	if who == nil {
		back := "/oauth/authorize?" + form.Encode()
		if r.Method == http.MethodGet {
			back = r.URL.RequestURI()
		}
		seeOther(w, "/login?"+url.Values{"return_to": {back}}.Encode())
		return
	}
	if who.EnrolmentRequired {
		// An organization of the user requires two-factor authentication
		// and the user has none: enrol before any consent.
		seeOther(w, "/account/2fa")
		return
	}
	members, err := s.opts.Members.Memberships(ctx, who.User.ID)
	if err != nil {
		s.pageError(w, r, "listing memberships", err)
		return
	}
	if len(members) == 0 {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user belongs to no organization."))
		return
	}
	requested := s.requestedScopes(ar)
	if r.Method == http.MethodGet {
		s.showConsent(w, r, http.StatusOK, ar, who, members, requested, "")
		return
	}

	if !s.opts.Sessions.ValidCSRF(r) {
		s.showConsent(w, r, http.StatusForbidden, ar, who, members, requested, "This form has expired or did not come from this site. Please try again.")
		return
	}
	switch r.PostForm.Get(FieldDecision) {
	case DecisionDeny:
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
		return
	case DecisionAllow:
	default:
		s.showConsent(w, r, http.StatusBadRequest, ar, who, members, requested, "Please choose Allow or Deny.")
		return
	}
	orgID, roles, ok := chosenOrganization(r.PostForm.Get(FieldOrgID), members)
	if !ok {
		s.showConsent(w, r, http.StatusBadRequest, ar, who, members, requested, "Please choose one of your organizations.")
		return
	}
	granted := GrantableScopes(requested, roles)
	if len(granted) == 0 {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrInvalidScope.WithHint("Your role allows none of the requested scopes."))
		return
	}
	conn := &Connection{ID: uuid.Must(uuid.NewV7()), UserID: who.User.ID, ClientID: ar.GetClient().GetID(),
		OrgID: orgID, Scopes: granted, CreatedAt: s.now()}
	if err := s.store.CreateConnection(ctx, conn); err != nil {
		s.pageError(w, r, "creating a connection", err)
		return
	}
	// Every token of this consent carries the connection's id as its
	// request id: revoking the connection revokes all of them.
	ar.SetID(conn.ID.String())
	for _, sc := range granted {
		ar.GrantScope(sc)
	}
	ar.GrantAudience(s.resource)
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, &Session{UserID: who.User.ID, ConnectionID: conn.ID, OrgID: orgID})
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}

// requestedScopes returns the scopes the request asks for, every scope the
// client may have when it names none, keeping only the resource's scopes
// (Options.Scopes): a client registered before the list narrowed asks for
// no more than the tools use.
func (s *Server) requestedScopes(ar fosite.AuthorizeRequester) []string {
	asked := []string(ar.GetRequestedScopes())
	if len(asked) == 0 {
		asked = ar.GetClient().GetScopes()
	}
	supported := s.scopes
	var out []string
	for _, sc := range supported {
		if slices.Contains(asked, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// chosenOrganization reads the consent's org_id: one of the user's
// organizations, or OrgAll; it returns the organization (nil for all) and
// the roles that decide the grantable scopes.
func chosenOrganization(v string, members []account.Membership) (*uuid.UUID, []auth.Role, bool) {
	if v == OrgAll {
		roles := make([]auth.Role, 0, len(members))
		for _, m := range members {
			roles = append(roles, m.Role)
		}
		return nil, roles, true
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return nil, nil, false
	}
	for _, m := range members {
		if m.OrgID == id {
			return &id, []auth.Role{m.Role}, true
		}
	}
	return nil, nil, false
}

// GrantableScopes returns the scopes of requested that at least one of
// roles allows (auth.RoleGrants), in SPEC.md's order. The MCP endpoint
// still checks the member's current role in the organization of each call.
func GrantableScopes(requested []string, roles []auth.Role) []string {
	var out []string
	for _, sc := range requested {
		for _, role := range roles {
			if auth.RoleGrants(role, auth.Scope(sc)) {
				out = append(out, sc)
				break
			}
		}
	}
	return out
}

func seeOther(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}

// redirectHost returns where the request's answer goes: the host of an
// http or https redirect URI, or for a private-use scheme the scheme and
// host ("cursor://callback", "com.example.app:").
func redirectHost(ar fosite.AuthorizeRequester) string {
	u := ar.GetRedirectURI()
	switch {
	case u == nil:
		return ""
	case u.Scheme == "http" || u.Scheme == "https":
		return u.Host
	case u.Host != "":
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

// hiddenParams returns the authorization request's parameters for the
// consent form, without the form's own fields.
func hiddenParams(form url.Values) [][2]string {
	var out [][2]string
	keys := make([]string, 0, len(form))
	for k := range form {
		if k == FieldCSRF || k == FieldDecision || k == FieldOrgID {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range form[k] {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// acceptsHTML reports whether r comes from a browser: its Accept lists
// text/html.
func acceptsHTML(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/html")
}

// authorizeErrorPage answers an authorization request whose answer cannot
// go back to its client (an unknown client, an unregistered redirect URI)
// with a page that says what went wrong, with the status fosite would give
// its JSON.
func (s *Server) authorizeErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	rfc := fosite.ErrorToRFC6749Error(err)
	status := rfc.CodeField
	if status < 400 {
		status = http.StatusBadRequest
	}
	text := "The application that sent you here could not be identified, or asked for the answer to go to an " +
		"address it did not register, so nothing can be sent back to it and nothing was shared. " +
		"Go back to the application and connect again; if this keeps happening, its makers should register it again."
	v := web.MessageView{Frame: web.Frame{Title: "This connection request cannot be completed", Error: rfc.GetDescription()},
		Text: text, Link: "/account", LinkText: "Go to your account"}
	if web.Render(w, r, status, web.PageMessage, v) != nil {
		writeJSON(w, status, oauthError{Error: rfc.ErrorField, Description: rfc.GetDescription()})
	}
}
