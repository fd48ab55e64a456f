package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/secretkey"
	"github.com/hoplink/hoplink/web"
)

// The sign-in and account pages on the service host (SPEC.md,
// Authentication rule 11; the pages are Hoplink's design): /login,
// /logout, /account and /account/2fa. They are server-rendered HTML that
// works without JavaScript; every form carries a CSRF token.
const (
	// SessionCookieName is the session cookie's name over plain HTTP
	// (http://localhost); over HTTPS it is SecureSessionCookieName.
	SessionCookieName = "hop_session"
	// SecureSessionCookieName is the session cookie's name when the public
	// URL is HTTPS: the __Host- prefix makes browsers refuse it unless it is
	// Secure, has Path=/ and no Domain, so no subdomain can plant or
	// overwrite it (RFC 6265bis, section 4.1.3.2).
	SecureSessionCookieName = "__Host-" + SessionCookieName
	// CSRFCookieName and SecureCSRFCookieName hold the browser's CSRF
	// secret, to which every form's token is bound.
	CSRFCookieName       = "hop_csrf"
	SecureCSRFCookieName = "__Host-" + CSRFCookieName
	// AccountCSRFField is the forms' CSRF token field.
	AccountCSRFField = "csrf_token"
	// AccountCSRFMaxAge is how long a form's token is accepted.
	AccountCSRFMaxAge = 2 * time.Hour
	// ReturnToField is the parameter naming where to go after signing in.
	ReturnToField = "return_to"
	// accountFormMaxBytes bounds the body of a page's form POST.
	accountFormMaxBytes = 16 << 10
	// defaultReturnTo is where a sign-in goes without a usable return_to.
	defaultReturnTo = "/account"
)

// AccountPagesOptions configure the sign-in and account pages. The pages are
// served when Options.Accounts is set too.
type AccountPagesOptions struct {
	// Secret is the server secret; keys derived from it sign the forms'
	// CSRF tokens. A random per-process secret when empty (tokens then do
	// not survive a restart or cross replicas).
	Secret []byte
	// PublicURL is the external URL of the service host. When its scheme
	// is https, the cookies are Secure and __Host- prefixed.
	PublicURL *url.URL
	// Clock is time.Now when nil.
	Clock func() time.Time
}

// accountPages serves the pages.
type accountPages struct {
	a        *API
	accounts *account.Service
	csrfKey  []byte
	secure   bool
	// publicHost is the public URL's host, an origin the forms may come
	// from besides the request's own Host (a proxy may rewrite Host).
	publicHost string
	clock      func() time.Time
}

func newAccountPages(a *API, opts AccountPagesOptions) *accountPages {
	secret := opts.Secret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	p := &accountPages{
		a:        a,
		accounts: a.opts.Accounts,
		csrfKey:  secretkey.Derive(secret, "hoplink account pages csrf v1"),
		secure:   opts.PublicURL != nil && opts.PublicURL.Scheme == "https",
		clock:    opts.Clock,
	}
	if opts.PublicURL != nil {
		p.publicHost = opts.PublicURL.Host
	}
	if p.clock == nil {
		p.clock = time.Now
	}
	return p
}

// routes registers the pages on the root group.
func (p *accountPages) routes(root routes) {
	root.handle(http.MethodGet, "/login", p.page(p.loginForm))
	root.handle(http.MethodPost, "/login", p.page(p.login))
	root.handle(http.MethodPost, "/logout", p.page(p.logout))
	root.handle(http.MethodGet, "/account", p.page(p.accountPage))
	root.handle(http.MethodPost, "/account/password", p.page(p.changePassword))
	root.handle(http.MethodPost, "/account/sessions/revoke", p.page(p.revokeSession))
	root.handle(http.MethodGet, "/account/2fa", p.page(p.twoFactorPage))
	root.handle(http.MethodPost, "/account/2fa", p.page(p.twoFactor))
	if p.a.opts.Invitations != nil && p.a.opts.Orgs != nil {
		p.invitationRoutes(root)
	}
	if p.a.opts.Links != nil {
		p.dashboardRoutes(root)
	}
}

// page adapts a page handler: every answer carries the pages' security
// headers, and an error a handler returns becomes an HTML error page.
func (p *accountPages) page(h func(w http.ResponseWriter, r *http.Request) error) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		web.SetHeaders(w.Header(), web.AccountPolicy)
		if err := h(w, req.Request); err != nil {
			if !errors.Is(err, context.Canceled) {
				// The route, not the path: an invitation's path holds its token.
				p.a.log.ErrorContext(req.Context(), "serving an account page", "route", req.Route(), "err", err)
			}
			p.renderMessage(w, req.Request, http.StatusInternalServerError, web.MessageView{
				Frame: web.Frame{Title: "Something went wrong", Error: "Something went wrong on our side. Please try again."},
				Link:  "/account", LinkText: "Back to your account"})
		}
		return nil
	}
}

// sessionCookie and csrfCookie return the cookie names for this service.
func (p *accountPages) sessionCookie() string {
	if p.secure {
		return SecureSessionCookieName
	}
	return SessionCookieName
}

func (p *accountPages) csrfCookie() string {
	if p.secure {
		return SecureCSRFCookieName
	}
	return CSRFCookieName
}

// sessionToken returns the session cookie's value, "" when none.
func (p *accountPages) sessionToken(r *http.Request) string {
	c, err := r.Cookie(p.sessionCookie())
	if err != nil {
		return ""
	}
	return c.Value
}

func (p *accountPages) setSession(w http.ResponseWriter, s *account.IssuedSession) {
	http.SetCookie(w, &http.Cookie{
		Name: p.sessionCookie(), Value: s.Token, Path: "/",
		Expires:  s.Session.ExpiresAt,
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode,
	})
}

func (p *accountPages) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: p.sessionCookie(), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode,
	})
}

// client describes r's browser for the account service.
func (p *accountPages) client(r *http.Request) account.Client {
	c := account.Client{UserAgent: r.UserAgent(), Previous: p.sessionToken(r)}
	if ip := ClientIPFrom(r.Context()); ip.IsValid() {
		c.IP = ip.String()
	}
	return c
}

// record writes an audit event of user (nil: an unknown one) with r's
// client, logging a failure.
func (p *accountPages) record(r *http.Request, user *uuid.UUID, e audit.Event) {
	e.ActorType, e.ActorID = audit.ActorUser, user
	if user == nil {
		e.ActorType = audit.ActorAnonymous
	}
	p.a.recordEvent(r, e)
}

// signedIn returns the request's signed-in user, nil when there is none
// (no cookie, or a session unknown, revoked, expired or idle too long).
func (p *accountPages) signedIn(r *http.Request) (*account.Authenticated, error) {
	token := p.sessionToken(r)
	if token == "" {
		return nil, nil
	}
	who, err := p.accounts.Authenticate(r.Context(), token)
	if errcode.CodeOf(err) == errcode.Unauthorized {
		return nil, nil
	}
	return who, err
}

// requireUser returns the signed-in user, or redirects to /login (back to
// this page afterwards) and returns nil. Unless enrolling is true, a user
// whose organization requires two-factor authentication and who has none
// is sent to /account/2fa first.
func (p *accountPages) requireUser(w http.ResponseWriter, r *http.Request, enrolling bool) (*account.Authenticated, error) {
	who, err := p.signedIn(r)
	if err != nil {
		return nil, err
	}
	if who == nil {
		p.clearSession(w)
		back := r.URL.Path
		if r.Method != http.MethodGet {
			back = defaultReturnTo
		}
		seeOther(w, "/login?"+url.Values{ReturnToField: {back}}.Encode())
		return nil, nil
	}
	if who.EnrolmentRequired && !enrolling {
		seeOther(w, "/account/2fa")
		return nil, nil
	}
	return who, nil
}

func seeOther(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}

// SafeReturnTo returns s when it is a path on the service host that a
// sign-in may send the browser to, and "" otherwise. Only an absolute path
// is accepted: it must start with one "/" followed by something other than
// "/" or "\" (browsers read "//evil" and "/\evil" as another host), and
// it may hold no backslash, no control character (browsers drop tabs and
// newlines, so "/\t/evil" would become "//evil"), no scheme, host or user
// information. A query is kept; a fragment is not allowed.
func SafeReturnTo(s string) string {
	if len(s) == 0 || len(s) > 2048 || s[0] != '/' {
		return ""
	}
	if len(s) > 1 && (s[1] == '/' || s[1] == '\\') {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == 0x7f || c == '\\' || c == '#' {
			return ""
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return ""
	}
	// A path whose decoded form starts with two slashes is refused too, for
	// servers in front that decode before they route.
	if strings.HasPrefix(u.Path, "//") || strings.HasPrefix(u.Path, "/\\") {
		return ""
	}
	return s
}

// returnTo returns the usable return_to of r's query or form, or "".
func returnTo(r *http.Request) string {
	return SafeReturnTo(r.FormValue(ReturnToField))
}

// parseForm reads a POST form of at most accountFormMaxBytes.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, accountFormMaxBytes)
	return r.ParseForm()
}

// Messages of the pages.
const (
	msgPageBadToken    = "This form has expired or did not come from this site. Please try again."
	msgPageBadForm     = "The form could not be read. Please try again."
	msgBadCredentials  = "The email or password is incorrect."
	msgBadCode         = "That code is incorrect or was used already."
	msgSignInExpired   = "Your sign-in has expired. Please enter your email and password again."
	msgPasswordChanged = "Your password has been changed. Your other sessions have been signed out."
)

// tooManyMessage returns the lockout message of err and sets Retry-After.
func tooManyMessage(w http.ResponseWriter, err *errcode.Error) string {
	secs, _ := err.Details["retry_after_seconds"].(int)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return tooManyAttempts(secs)
}

// loginForm answers GET /login: the sign-in form, or, for a browser already
// signed in, a redirect to return_to.
func (p *accountPages) loginForm(w http.ResponseWriter, r *http.Request) error {
	who, err := p.signedIn(r)
	if err != nil {
		return err
	}
	back := returnTo(r)
	if who != nil {
		seeOther(w, orDefault(back))
		return nil
	}
	return p.showLogin(w, r, http.StatusOK, pageData{ReturnTo: back})
}

func orDefault(back string) string {
	if back == "" {
		return defaultReturnTo
	}
	return back
}

func (p *accountPages) showLogin(w http.ResponseWriter, r *http.Request, status int, d pageData) error {
	d.Title = "Sign in"
	return p.renderForm(w, r, status, "login", d)
}

func (p *accountPages) showOTP(w http.ResponseWriter, r *http.Request, status int, d pageData) error {
	d.Title = "Two-factor authentication"
	return p.renderForm(w, r, status, "otp", d)
}

// login answers POST /login. Without a pending field it checks email and
// password; with one it is the second step, checking the code in otp (a
// TOTP code or a backup code). Success sets the session cookie and
// redirects (303) to return_to, or to /account/2fa first when an
// organization of the user requires two-factor authentication and the
// user has none.
func (p *accountPages) login(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return p.showLogin(w, r, http.StatusBadRequest, pageData{Error: msgPageBadForm})
	}
	back := returnTo(r)
	if !p.validCSRF(r) {
		return p.showLogin(w, r, http.StatusForbidden, pageData{ReturnTo: back, Error: msgPageBadToken})
	}
	if pending := r.PostForm.Get("pending"); pending != "" {
		return p.secondStep(w, r, pending, back)
	}
	email := r.PostForm.Get("email")
	res, err := p.accounts.SignIn(r.Context(), email, r.PostForm.Get("password"), p.client(r))
	if err != nil {
		e, ok := errcode.As(err)
		switch {
		case ok && e.Code == errcode.RateLimitExceeded:
			p.recordFailure(r, res, "locked")
			return p.showLogin(w, r, http.StatusTooManyRequests, pageData{ReturnTo: back, Email: email, Error: tooManyMessage(w, e)})
		case ok && e.Code == errcode.Unauthorized:
			p.recordFailure(r, res, "password")
			return p.showLogin(w, r, http.StatusUnauthorized, pageData{ReturnTo: back, Email: email, Error: msgBadCredentials})
		}
		return err
	}
	if res.Pending != "" {
		return p.showOTP(w, r, http.StatusOK, pageData{ReturnTo: back, Pending: res.Pending})
	}
	return p.signedInAs(w, r, res, back)
}

func (p *accountPages) recordFailure(r *http.Request, res *account.SignInResult, reason string) {
	var user *uuid.UUID
	if res != nil && res.UserID != uuid.Nil {
		user = &res.UserID
	}
	p.record(r, user, audit.Event{Action: audit.SignInFailed, Details: map[string]string{"reason": reason}})
}

func (p *accountPages) secondStep(w http.ResponseWriter, r *http.Request, pending, back string) error {
	res, err := p.accounts.SecondStep(r.Context(), pending, r.PostForm.Get("otp"), p.client(r))
	if err != nil {
		e, ok := errcode.As(err)
		switch {
		case errors.Is(err, account.ErrSignInExpired):
			return p.showLogin(w, r, http.StatusUnauthorized, pageData{ReturnTo: back, Error: msgSignInExpired})
		case ok && e.Code == errcode.RateLimitExceeded:
			p.recordFailure(r, res, "locked")
			return p.showOTP(w, r, http.StatusTooManyRequests, pageData{ReturnTo: back, Pending: pending, Error: tooManyMessage(w, e)})
		case ok && e.Code == errcode.Unauthorized:
			p.recordFailure(r, res, "code")
			return p.showOTP(w, r, http.StatusUnauthorized, pageData{ReturnTo: back, Pending: pending, Error: msgBadCode})
		}
		return err
	}
	return p.signedInAs(w, r, res, back)
}

// signedInAs finishes a successful sign-in.
func (p *accountPages) signedInAs(w http.ResponseWriter, r *http.Request, res *account.SignInResult, back string) error {
	p.startSession(w, r, res)
	if !res.Session.Session.TwoFactorPassed {
		pol, err := p.accounts.EffectivePolicy(r.Context(), res.UserID)
		if err != nil {
			return err
		}
		if pol.RequireTwoFactor {
			// A user who passed no second factor has none: enrol first.
			seeOther(w, "/account/2fa?"+url.Values{ReturnToField: {orDefault(back)}}.Encode())
			return nil
		}
	}
	seeOther(w, orDefault(back))
	return nil
}

// startSession sets the cookie of a successful sign-in and records it.
func (p *accountPages) startSession(w http.ResponseWriter, r *http.Request, res *account.SignInResult) {
	p.setSession(w, res.Session)
	factor := "password"
	if res.Session.Session.TwoFactorPassed {
		factor = "totp"
		if res.BackupCodeUsed {
			factor = "backup_code"
		}
	}
	p.record(r, &res.UserID, audit.Event{Action: audit.SignInSucceeded, TargetType: "session",
		TargetID: res.Session.Session.ID.String(), Details: map[string]string{"factor": factor}})
	if res.BackupCodeUsed {
		p.record(r, &res.UserID, audit.Event{Action: audit.BackupCodeUsed})
	}
}

// logout answers POST /logout: the session ends, its cookie is cleared and
// the browser goes to /login.
func (p *accountPages) logout(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil || !p.validCSRF(r) {
		return p.showLogin(w, r, http.StatusForbidden, pageData{Error: msgPageBadToken})
	}
	who, err := p.signedIn(r)
	if err != nil {
		return err
	}
	if err := p.accounts.SignOut(r.Context(), p.sessionToken(r)); err != nil {
		return err
	}
	p.clearSession(w)
	if who != nil {
		p.record(r, &who.User.ID, audit.Event{Action: audit.SignedOut, TargetType: "session", TargetID: who.Session.ID.String()})
	}
	login := "/login"
	if back := returnTo(r); back != "" {
		// The invitation page's sign-out comes back to the invitation.
		login += "?" + url.Values{ReturnToField: {back}}.Encode()
	}
	seeOther(w, login)
	return nil
}

// accountPage answers GET /account.
func (p *accountPages) accountPage(w http.ResponseWriter, r *http.Request) error {
	who, err := p.requireUser(w, r, false)
	if who == nil || err != nil {
		return err
	}
	d := pageData{}
	if r.URL.Query().Get("changed") == "password" {
		d.Notice = msgPasswordChanged
	}
	d.joined = r.URL.Query().Get(joinedParam)
	return p.showAccount(w, r, http.StatusOK, who, d)
}

func (p *accountPages) showAccount(w http.ResponseWriter, r *http.Request, status int, who *account.Authenticated, d pageData) error {
	ms, err := p.accounts.Memberships(r.Context(), who.User.ID)
	if err != nil {
		return err
	}
	ss, err := p.accounts.Sessions(r.Context(), who.User.ID)
	if err != nil {
		return err
	}
	d.Title = "Your account"
	d.Email = who.User.Email
	d.TwoFactorEnabled = who.TwoFactorEnabled
	d.Memberships = ms
	for _, m := range ms {
		if d.joined != "" && m.OrgID.String() == d.joined {
			// The confirmation of an accepted invitation.
			d.Notice = "You joined " + m.OrgName + " as " + string(m.Role) + "."
		}
	}
	d.Connections = slices.Contains(p.a.allowed("/account/connections"), http.MethodGet)
	d.APIDescription = slices.Contains(p.a.allowed("/v1/openapi.json"), http.MethodGet)
	d.Dashboard = slices.Contains(p.a.allowed("/dashboard"), http.MethodGet)
	for _, s := range ss {
		d.Sessions = append(d.Sessions, web.Session{
			ID: s.ID.String(), Browser: browserName(s.UserAgent), UserAgent: s.UserAgent, IP: s.IP,
			Created: s.CreatedAt.UTC().Format(time.RFC1123), LastSeen: s.LastSeenAt.UTC().Format(time.RFC1123),
			Current: s.ID == who.Session.ID,
		})
	}
	return p.renderForm(w, r, status, "account", d)
}

// fieldLabels name the pages' form fields in messages.
var fieldLabels = map[string]string{
	"password":         "New password",
	"current_password": "Current password",
	"otp":              "Code",
}

// pageError returns the status and message a page shows for a service
// error, or ok false for an unexpected error.
func pageError(w http.ResponseWriter, err error) (status int, msg string, ok bool) {
	e, isCoded := errcode.As(err)
	if !isCoded {
		return 0, "", false
	}
	switch e.Code {
	case errcode.ValidationError:
		if len(e.Fields) == 0 {
			return http.StatusBadRequest, e.Message, true
		}
		f := e.Fields[0]
		if strings.HasPrefix(f.Message, "the ") {
			// A whole sentence: "the password is incorrect".
			return http.StatusBadRequest, "T" + f.Message[1:] + ".", true
		}
		label := fieldLabels[f.Field]
		if label == "" {
			label = f.Field
		}
		return http.StatusBadRequest, label + " " + f.Message + ".", true
	case errcode.RateLimitExceeded:
		return http.StatusTooManyRequests, tooManyMessage(w, e), true
	case errcode.NotFound:
		return http.StatusNotFound, "That was not found; it may have been removed already.", true
	case errcode.Forbidden, errcode.Unauthorized:
		return http.StatusForbidden, e.Message, true
	}
	return 0, "", false
}

// changePassword answers POST /account/password (current_password,
// password): every session of the user ends and this browser gets a new one.
func (p *accountPages) changePassword(w http.ResponseWriter, r *http.Request) error {
	who, err := p.requireUser(w, r, false)
	if who == nil || err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil || !p.validCSRF(r) {
		return p.showAccount(w, r, http.StatusForbidden, who, pageData{Error: msgPageBadToken})
	}
	c := p.client(r)
	issued, err := p.accounts.ChangePassword(r.Context(), p.sessionToken(r), r.PostForm.Get("current_password"), r.PostForm.Get("password"), c)
	if err != nil {
		if status, msg, ok := pageError(w, err); ok {
			return p.showAccount(w, r, status, who, pageData{Error: msg})
		}
		return err
	}
	p.setSession(w, issued)
	p.record(r, &who.User.ID, audit.Event{Action: audit.PasswordChanged, TargetType: "user", TargetID: who.User.ID.String()})
	seeOther(w, "/account?changed=password")
	return nil
}

// revokeSession answers POST /account/sessions/revoke (session_id). Revoking
// the current session signs this browser out.
func (p *accountPages) revokeSession(w http.ResponseWriter, r *http.Request) error {
	who, err := p.requireUser(w, r, false)
	if who == nil || err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil || !p.validCSRF(r) {
		return p.showAccount(w, r, http.StatusForbidden, who, pageData{Error: msgPageBadToken})
	}
	id, err := uuid.Parse(r.PostForm.Get("session_id"))
	if err != nil {
		return p.showAccount(w, r, http.StatusBadRequest, who, pageData{Error: msgPageBadForm})
	}
	if err := p.accounts.RevokeSession(r.Context(), who.User.ID, id); err != nil {
		if status, msg, ok := pageError(w, err); ok {
			return p.showAccount(w, r, status, who, pageData{Error: msg})
		}
		return err
	}
	p.record(r, &who.User.ID, audit.Event{Action: audit.SessionRevoked, TargetType: "session", TargetID: id.String()})
	if id == who.Session.ID {
		p.clearSession(w)
		seeOther(w, "/login")
		return nil
	}
	seeOther(w, "/account")
	return nil
}

// twoFactorPage answers GET /account/2fa: the enrolment (secret, otpauth
// URI and QR code) for a user without two-factor authentication, or the
// form that turns it off.
func (p *accountPages) twoFactorPage(w http.ResponseWriter, r *http.Request) error {
	who, err := p.requireUser(w, r, true)
	if who == nil || err != nil {
		return err
	}
	return p.showTwoFactor(w, r, http.StatusOK, who, pageData{ReturnTo: returnTo(r)})
}

func (p *accountPages) showTwoFactor(w http.ResponseWriter, r *http.Request, status int, who *account.Authenticated, d pageData) error {
	d.Title = "Two-factor authentication"
	d.Email = who.User.Email
	d.EnrolmentRequired = who.EnrolmentRequired
	if who.TwoFactorEnabled {
		d.TwoFactorEnabled = true
		return p.renderForm(w, r, status, "2fa-manage", d)
	}
	en, err := p.accounts.Enrolment(r.Context(), who.User.ID)
	if err != nil {
		return err
	}
	png, err := qrPNG(en.URI)
	if err != nil {
		return err
	}
	d.Secret = en.Secret
	d.URI = template.URL(en.URI)
	d.QR = qrDataURL(png)
	return p.renderForm(w, r, status, "2fa-enrol", d)
}

// twoFactor answers POST /account/2fa: action=confirm with otp enables
// two-factor authentication and shows the ten backup codes, once;
// action=disable with password and otp turns it off.
func (p *accountPages) twoFactor(w http.ResponseWriter, r *http.Request) error {
	who, err := p.requireUser(w, r, true)
	if who == nil || err != nil {
		return err
	}
	back := ""
	if err := parseForm(w, r); err == nil {
		back = returnTo(r)
	}
	if r.PostForm == nil || !p.validCSRF(r) {
		return p.showTwoFactor(w, r, http.StatusForbidden, who, pageData{ReturnTo: back, Error: msgPageBadToken})
	}
	switch r.PostForm.Get("action") {
	case "confirm":
		if who.TwoFactorEnabled {
			// The backup codes' page sent again (a refresh after enabling).
			p.codesShownAlready(w, r)
			return nil
		}
		codes, err := p.accounts.ConfirmTOTP(r.Context(), who.User.ID, r.PostForm.Get("otp"))
		if errcode.CodeOf(err) == errcode.Forbidden {
			// Enabled meanwhile, in another tab.
			p.codesShownAlready(w, r)
			return nil
		}
		if err != nil {
			if status, msg, ok := pageError(w, err); ok {
				if status == http.StatusBadRequest {
					msg = msgBadCode
				}
				return p.showTwoFactor(w, r, status, who, pageData{ReturnTo: back, Error: msg})
			}
			return err
		}
		p.record(r, &who.User.ID, audit.Event{Action: audit.TwoFactorEnrolled, TargetType: "user", TargetID: who.User.ID.String()})
		return p.renderForm(w, r, http.StatusOK, "2fa-codes", pageData{Title: "Your backup codes", BackupCodes: codes, ReturnTo: orDefault(back)})
	case "disable":
		err := p.accounts.DisableTOTP(r.Context(), who.User.ID, r.PostForm.Get("password"), r.PostForm.Get("otp"))
		if err != nil {
			if status, msg, ok := pageError(w, err); ok {
				return p.showTwoFactor(w, r, status, who, pageData{Error: msg})
			}
			return err
		}
		p.record(r, &who.User.ID, audit.Event{Action: audit.TwoFactorDisabled, TargetType: "user", TargetID: who.User.ID.String()})
		seeOther(w, "/account")
		return nil
	}
	return p.showTwoFactor(w, r, http.StatusBadRequest, who, pageData{ReturnTo: back, Error: msgPageBadForm})
}

// AccountPageCSP is the pages' Content-Security-Policy (web.AccountPolicy):
// no script, the one stylesheet by hash, images only from data: URLs (the
// QR code), forms only to this origin, no framing, no base.
var AccountPageCSP = web.AccountPolicy.CSP()

// renderMessage writes a page with a message and a link onwards.
func (p *accountPages) renderMessage(w http.ResponseWriter, r *http.Request, status int, v web.MessageView) {
	if err := web.Render(w, r, status, web.PageMessage, v); err != nil {
		p.a.log.ErrorContext(r.Context(), "rendering an account page", "page", web.PageMessage, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// browserName names the browser and system of a stored User-Agent for
// people ("Firefox on Linux"), read by the parser that classifies clicks.
func browserName(userAgent string) string {
	d := linking.ClassifyDevice(userAgent)
	browser, system := d.Browser, d.OS
	if d.Model == "iPad" {
		system = "iPadOS"
	}
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	case userAgent == "":
		return "Unknown browser"
	}
	return "Other client"
}

// msgCodesShownAlready explains a second confirmation of two-factor
// authentication, as a refresh of the backup codes' page sends.
const msgCodesShownAlready = "Two-factor authentication is on already. Your backup codes were shown once, when you turned it on, and cannot be shown again."

// codesShownAlready answers a confirmation of two-factor authentication for
// a user who has it on: 409, with what to do.
func (p *accountPages) codesShownAlready(w http.ResponseWriter, r *http.Request) {
	p.renderMessage(w, r, http.StatusConflict, web.MessageView{
		Frame: web.Frame{Title: "Backup codes shown already", Error: msgCodesShownAlready},
		Text:  "If you did not keep them, turn two-factor authentication off and on again on your account page: that gives you new codes.",
		Link:  "/account/2fa", LinkText: "Manage two-factor authentication"})
}
