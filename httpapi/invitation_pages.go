package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/web"
)

// The invitation acceptance pages (Hoplink's design; SPEC.md leaves
// acceptance to the implementation), beside the sign-in pages and with
// their sessions, CSRF tokens, headers and templates:
//
//   - GET /invitations/{token} names the organization and the role. A
//     browser signed in with the invited email gets an Accept button; one
//     signed in with another email is refused (403: an invitation is for its
//     email alone); a signed-out one gets a link to /login that comes back
//     here and a form that creates the account of the invited email.
//   - POST /invitations/{token}/account (password, password_confirm) creates
//     the account through org.Service.CreateUser (the password policy of
//     package identity applies), signs it in and accepts the invitation in
//     the same step.
//   - POST /invitations/{token}/accept makes the signed-in user a member with
//     the invited role and marks the invitation accepted in one
//     transaction, records member.added with the user as actor, and goes to
//     /account?joined={org_id}, which confirms the membership.
//
// A token no invitation has is 404; an expired, revoked or accepted
// invitation is 410 Gone, as it will never be acceptable again. The seats
// are counted again at acceptance: a full organization is 403.

// Messages of the invitation pages.
const (
	msgInvitationNotFound = "This invitation link is not valid. Check that you copied the whole link, or ask for a new invitation."
	msgInvitationExpired  = "This invitation has expired: invitations are valid for 7 days. Ask an owner or admin of the organization to invite you again."
	msgInvitationRevoked  = "This invitation has been withdrawn. Ask an owner or admin of the organization to invite you again."
	msgInvitationAccepted = "This invitation has been accepted already."
	msgPasswordsDiffer    = "The passwords do not match."
	msgAccountExists      = "An account with this email exists already. Sign in to accept the invitation."
)

func (p *accountPages) invitationRoutes(root routes) {
	root.handle(http.MethodGet, "/invitations/:token", p.invitationPage(p.showInvitationPage))
	root.handle(http.MethodPost, "/invitations/:token/account", p.invitationPage(p.invitationAccount))
	root.handle(http.MethodPost, "/invitations/:token/accept", p.invitationPage(p.acceptInvitation))
}

type invitationTokenKey struct{}

// invitationPage is page for a route with a token, which the handler
// reads with invitationToken.
func (p *accountPages) invitationPage(h func(w http.ResponseWriter, r *http.Request) error) bunrouter.HandlerFunc {
	page := p.page(h)
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		return page(w, req.WithContext(context.WithValue(req.Context(), invitationTokenKey{}, req.Param("token"))))
	}
}

// invitationToken returns the route's token.
func invitationToken(r *http.Request) string {
	token, _ := r.Context().Value(invitationTokenKey{}).(string)
	return token
}

// invitationPath is the page of token.
func invitationPath(token string) string { return "/invitations/" + url.PathEscape(token) }

// offer reads the invitation of r's token. When it is unknown or not
// pending it writes the closed page and returns nil.
func (p *accountPages) offer(w http.ResponseWriter, r *http.Request) (*org.InvitationOffer, error) {
	off, err := p.a.opts.Invitations.Offer(r.Context(), invitationToken(r))
	if err != nil {
		if errcode.CodeOf(err) == errcode.NotFound {
			return nil, p.showClosedInvitation(w, r, nil, err)
		}
		return nil, err
	}
	if off.State != org.InvitationPending {
		return nil, p.showClosedInvitation(w, r, off, nil)
	}
	return off, nil
}

// showClosedInvitation writes the page of an unknown (404) or expired,
// revoked or accepted (410) invitation; err is the service's refusal when
// off is nil or not current.
func (p *accountPages) showClosedInvitation(w http.ResponseWriter, r *http.Request, off *org.InvitationOffer, err error) error {
	d := pageData{Title: "Invitation", Invitation: &web.Invitation{}}
	if off != nil {
		d.Invitation.OrgName = off.OrgName
	}
	status := http.StatusGone
	code := errcode.CodeOf(err)
	switch {
	case code == errcode.NotFound:
		status, d.Title, d.Error = http.StatusNotFound, "Invitation not found", msgInvitationNotFound
	case code == errcode.InvitationAlreadyAccepted || err == nil && off.State == org.InvitationAccepted:
		d.Title, d.Error = "Invitation accepted already", msgInvitationAccepted
	case code == errcode.InvitationAlreadyRevoked || err == nil && off.State == org.InvitationRevoked:
		d.Title, d.Error = "Invitation withdrawn", msgInvitationRevoked
	default:
		d.Title, d.Error = "Invitation expired", msgInvitationExpired
	}
	return p.renderForm(w, r, status, "invitation-closed", d)
}

// showInvitation writes the page of a pending invitation for the browser's
// user, if any: 403 when that user's email is not the invitation's.
func (p *accountPages) showInvitation(w http.ResponseWriter, r *http.Request, status int, off *org.InvitationOffer, signedInAs string, d pageData) error {
	token := invitationToken(r)
	v := &web.Invitation{
		Token: token, Path: invitationPath(token), OrgName: off.OrgName, Role: string(off.Role), Email: off.Email,
		SignedInAs: signedInAs, Mismatch: signedInAs != "" && signedInAs != off.Email,
		LoginURL: "/login?" + url.Values{ReturnToField: {invitationPath(token)}}.Encode(),
	}
	if v.Mismatch {
		status = http.StatusForbidden
		if d.Error == "" {
			d.Error = "This invitation is for " + off.Email + ", and you are signed in as " + signedInAs + "."
		}
	}
	d.Title, d.Invitation = "Join "+off.OrgName, v
	return p.renderForm(w, r, status, "invitation", d)
}

// showInvitationPage answers GET /invitations/{token}.
func (p *accountPages) showInvitationPage(w http.ResponseWriter, r *http.Request) error {
	off, err := p.offer(w, r)
	if off == nil || err != nil {
		return err
	}
	who, err := p.signedIn(r)
	if err != nil {
		return err
	}
	signedInAs := ""
	if who != nil {
		signedInAs = who.User.Email
	}
	return p.showInvitation(w, r, http.StatusOK, off, signedInAs, pageData{})
}

// invitationAccount answers POST /invitations/{token}/account: it creates
// the invited email's account with password (twice, as password_confirm),
// signs it in and sends the browser back to the invitation.
func (p *accountPages) invitationAccount(w http.ResponseWriter, r *http.Request) error {
	off, err := p.offer(w, r)
	if off == nil || err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return p.showInvitation(w, r, http.StatusBadRequest, off, "", pageData{Error: msgPageBadForm})
	}
	if !p.validCSRF(r) {
		return p.showInvitation(w, r, http.StatusForbidden, off, "", pageData{Error: msgPageBadToken})
	}
	back := invitationPath(invitationToken(r))
	who, err := p.signedIn(r)
	if err != nil {
		return err
	}
	if who != nil {
		// Signed in meanwhile (another tab): the page offers what fits.
		seeOther(w, back)
		return nil
	}
	password := r.PostForm.Get("password")
	if password != r.PostForm.Get("password_confirm") {
		return p.showInvitation(w, r, http.StatusBadRequest, off, "", pageData{Error: msgPasswordsDiffer})
	}
	// The email is the invitation's; the form's read-only field is ignored.
	if _, err := p.a.opts.Orgs.CreateUser(r.Context(), off.Email, password); err != nil {
		e, ok := errcode.As(err)
		if ok && e.Code == errcode.ValidationError && len(e.Fields) > 0 {
			f := e.Fields[0]
			if f.Field == "email" {
				return p.showInvitation(w, r, http.StatusConflict, off, "", pageData{Error: msgAccountExists})
			}
			return p.showInvitation(w, r, http.StatusBadRequest, off, "", pageData{Error: "The password " + f.Message + "."})
		}
		return err
	}
	res, err := p.accounts.SignIn(r.Context(), off.Email, password, p.client(r))
	if err != nil {
		return err
	}
	if res.Pending != "" {
		// A new account has no second factor; should one exist, the
		// sign-in page finishes the job.
		seeOther(w, "/login?"+url.Values{ReturnToField: {back}}.Encode())
		return nil
	}
	// Creating the account accepts the invitation in the same step.
	p.startSession(w, r, res)
	return p.accept(w, r, off, res.UserID, off.Email)
}

// acceptInvitation answers POST /invitations/{token}/accept for the
// signed-in user.
func (p *accountPages) acceptInvitation(w http.ResponseWriter, r *http.Request) error {
	off, err := p.offer(w, r)
	if off == nil || err != nil {
		return err
	}
	who, err := p.signedIn(r)
	if err != nil {
		return err
	}
	back := invitationPath(invitationToken(r))
	if who == nil {
		p.clearSession(w)
		seeOther(w, "/login?"+url.Values{ReturnToField: {back}}.Encode())
		return nil
	}
	email := who.User.Email
	if err := parseForm(w, r); err != nil {
		return p.showInvitation(w, r, http.StatusBadRequest, off, email, pageData{Error: msgPageBadForm})
	}
	if !p.validCSRF(r) {
		return p.showInvitation(w, r, http.StatusForbidden, off, email, pageData{Error: msgPageBadToken})
	}
	return p.accept(w, r, off, who.User.ID, email)
}

// accept makes user (of email) a member by the invitation of r's token and
// sends the browser to the account page, which confirms it.
func (p *accountPages) accept(w http.ResponseWriter, r *http.Request, off *org.InvitationOffer, user uuid.UUID, email string) error {
	accepted, m, err := p.a.opts.Invitations.Accept(r.Context(), invitationToken(r), user, email)
	if err != nil {
		e, ok := errcode.As(err)
		if !ok {
			return err
		}
		switch e.Code {
		case errcode.NotFound, errcode.InvitationAlreadyAccepted, errcode.InvitationAlreadyRevoked, errcode.InvitationExpired:
			return p.showClosedInvitation(w, r, off, err)
		case errcode.Forbidden:
			return p.showInvitation(w, r, http.StatusForbidden, off, email, pageData{})
		case errcode.SeatLimitExceeded:
			return p.showInvitation(w, r, http.StatusForbidden, off, email, pageData{Error: e.Message + "."})
		case errcode.AlreadyMember:
			return p.showInvitation(w, r, http.StatusConflict, off, email, pageData{Error: capitalize(e.Message) + "."})
		}
		return err
	}
	orgID := accepted.OrgID
	p.record(r, &user, audit.Event{Action: audit.MemberAdded, OrgID: &orgID, TargetType: "user", TargetID: m.UserID.String(),
		Details: map[string]string{"role": string(m.Role), "invitation_id": accepted.ID.String()}})
	seeOther(w, "/account?"+url.Values{joinedParam: {orgID.String()}}.Encode())
	return nil
}

// joinedParam is the account page's parameter naming the organization
// just joined.
const joinedParam = "joined"

// capitalize upper-cases a message's first letter when it is ASCII.
func capitalize(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
