package org

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/secretkey"
)

// InvitationValidity is how long an invitation can be accepted (our design;
// SPEC.md leaves it unshown).
const InvitationValidity = 7 * 24 * time.Hour

// Invitation states, also the values of GET /invitations' status filter
// (with InvitationAll).
const (
	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationRevoked  = "revoked"
	InvitationExpired  = "expired"
	InvitationAll      = "all"
)

// Invitation is an invitation of a team member (SPEC.md, Invitation). Token
// is set only in the create and revoke responses; the list omits it.
type Invitation struct {
	ID    uuid.UUID `json:"id"`
	OrgID uuid.UUID `json:"org_id"`
	// Email is normalized (identity.NormalizeEmail).
	Email string    `json:"email"`
	Role  auth.Role `json:"role"`
	// InvitedBy is the member whose key created the invitation; nil for a
	// key without a creator.
	InvitedBy  *uuid.UUID `json:"invited_by"`
	Token      string     `json:"token,omitempty"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"accepted_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`

	// TokenHash is the token's hex SHA-256, by which it is found.
	TokenHash string `json:"-"`
	// TokenSealed is the token encrypted with a key derived from the server
	// secret, so that the revoke response can show it again.
	TokenSealed string `json:"-"`
}

// State returns the invitation's state at now: accepted, else revoked, else
// expired (now at or after expires_at), else pending.
func (i *Invitation) State(now time.Time) string {
	switch {
	case i.AcceptedAt != nil:
		return InvitationAccepted
	case i.RevokedAt != nil:
		return InvitationRevoked
	case !now.Before(i.ExpiresAt):
		return InvitationExpired
	}
	return InvitationPending
}

// InvitationStore is the storage invitations need. Implementations wrap
// errcode.ErrNotFound and errcode.ErrUnavailable.
type InvitationStore interface {
	// CreateInvitation inserts inv in one transaction that no concurrent
	// CreateInvitation or membership change of the organization interleaves
	// with, checking in this order: a member of the organization has the
	// email (ErrAlreadyMember); a pending invitation (at now) of the
	// organization has it (ErrDuplicateInvitation); members plus pending
	// invitations already number seats or more (ErrSeatLimit).
	CreateInvitation(ctx context.Context, inv *Invitation, seats int, now time.Time) error
	// ListInvitations returns one page of orgID's invitations in state
	// (one of the Invitation* states, InvitationAll for every one) at now,
	// newest first, and how many match in all.
	ListInvitations(ctx context.Context, orgID uuid.UUID, state string, now time.Time, limit, offset int) ([]*Invitation, int, error)
	// InvitationByID returns invitation id of orgID; errcode.ErrNotFound when
	// there is none in orgID.
	InvitationByID(ctx context.Context, orgID, id uuid.UUID) (*Invitation, error)
	// RevokeInvitation sets revoked_at and updated_at of invitation id of
	// orgID to at when it is pending at at, and returns it as it is then and
	// whether it was revoked now (false: it was not pending and is
	// unchanged); errcode.ErrNotFound when there is none in orgID.
	RevokeInvitation(ctx context.Context, orgID, id uuid.UUID, at time.Time) (*Invitation, bool, error)
	// InvitationByTokenHash returns the invitation, of any organization,
	// whose token hashes to hash (HashInvitationToken);
	// errcode.ErrNotFound when there is none.
	InvitationByTokenHash(ctx context.Context, hash string) (*Invitation, error)
	// AcceptInvitation makes m a membership and sets accepted_at and
	// updated_at of invitation id of m.OrgID to at, in one transaction that
	// no concurrent CreateInvitation or AcceptInvitation of the organization
	// interleaves with, checking in this order: the invitation is pending
	// at at (ErrInvitationNotPending); m.UserID is not a member
	// (ErrAlreadyMember); the members number fewer than seats
	// (ErrSeatLimit). It returns the invitation as it is then;
	// errcode.ErrNotFound when there is none in m.OrgID.
	AcceptInvitation(ctx context.Context, id uuid.UUID, m *Member, seats int, at time.Time) (*Invitation, error)
}

// Errors an InvitationStore returns (wrapped) for the refusals of CreateInvitation.
var (
	ErrAlreadyMember       = errors.New("the email is already a member")
	ErrDuplicateInvitation = errors.New("a pending invitation has the email")
	ErrSeatLimit           = errors.New("seat limit reached")
	// ErrInvitationNotPending is returned (wrapped) by AcceptInvitation for
	// an invitation accepted, revoked or expired meanwhile.
	ErrInvitationNotPending = errors.New("the invitation is not pending")
)

// CreateInvitationInput is the body of POST /invitations.
type CreateInvitationInput struct {
	Email *string    `json:"email"`
	Role  *auth.Role `json:"role"`
}

// InvitationPage is one page of GET /invitations.
type InvitationPage struct {
	Data       []*Invitation      `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

// Invitations manages invitations (SPEC.md, Invitations): reading needs
// team:read (every role), creating and revoking team:write (owners and
// admins). Offer and Accept serve the acceptance page, where the token is
// the credential. It is safe for concurrent use.
type Invitations struct {
	store  InvitationStore
	orgs   Store
	forget Forgetter
	box    cipher.AEAD // seals and opens "v2:" tokens
	legacy cipher.AEAD // opens "v1:" tokens
	clock  func() time.Time
	random io.Reader
}

// InvitationsOptions configure an Invitations service. Every zero value
// means the documented default.
type InvitationsOptions struct {
	// Forget is told of every member an accepted invitation makes, so that
	// keys a returning member created work again at once in this process.
	// If nil, nothing is told.
	Forget Forgetter
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random is the source of invitation tokens; crypto/rand when nil.
	Random io.Reader
}

// NewInvitations returns the invitations service over store, reading
// organizations from orgs. serverSecret (32 bytes or more) keys the
// encryption of the tokens at rest.
func NewInvitations(store InvitationStore, orgs Store, serverSecret []byte, opts InvitationsOptions) (*Invitations, error) {
	if len(serverSecret) < 32 {
		return nil, errors.New("org: the server secret must be at least 32 bytes")
	}
	box, err := newGCM(secretkey.Derive(serverSecret, sealPurpose))
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, serverSecret, nil, legacySealLabel, 32)
	if err != nil {
		return nil, fmt.Errorf("org: derive key: %w", err)
	}
	legacy, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	return &Invitations{store: store, orgs: orgs, forget: opts.Forget, box: box, legacy: legacy,
		clock: opts.Clock, random: opts.Random}, nil
}

// HashInvitationToken returns the hex SHA-256 by which a token is stored and found.
func HashInvitationToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// The versions of a sealed token. v2 is sealed under
// secretkey.Derive(secret, sealPurpose); v1, which the first releases wrote,
// under an HKDF-SHA256 key of legacySealLabel and is only opened, so that
// invitations created before the change can still be shown and accepted.
const (
	sealedPrefix       = "v2:"
	sealPurpose        = "hoplink invitation token v2"
	legacySealedPrefix = "v1:"
	legacySealLabel    = "hoplink invitation token v1"
)

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts token, bound to invitation id.
func (s *Invitations) seal(token string, id uuid.UUID) (string, error) {
	nonce := make([]byte, s.box.NonceSize())
	if _, err := io.ReadFull(s.random, nonce); err != nil {
		return "", fmt.Errorf("org: nonce: %w", err)
	}
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(s.box.Seal(nonce, nonce, []byte(token), id[:])), nil
}

// open decrypts a sealed token of invitation id, of either version.
func (s *Invitations) open(sealed string, id uuid.UUID) (string, error) {
	box := s.box
	rest, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		box = s.legacy
		rest, ok = strings.CutPrefix(sealed, legacySealedPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	n := box.NonceSize()
	if err != nil || !ok || len(raw) < n {
		return "", errors.New("org: sealed invitation token cannot be opened")
	}
	plain, err := box.Open(nil, raw[:n], raw[n:], id[:])
	if err != nil {
		return "", errors.New("org: sealed invitation token cannot be opened (wrong server secret?)")
	}
	return string(plain), nil
}

func (s *Invitations) now() time.Time { return s.clock().UTC().Truncate(time.Millisecond) }

// Create invites email to p's organization with role, valid for
// InvitationValidity, and returns the invitation with its token. Checks, in
// order: scope and role (403); the body (400 VALIDATION_ERROR naming email
// and role: email required, an address of at most 255 characters, stored
// lowercase; role admin or member); then in one transaction 409
// ALREADY_MEMBER, 409 DUPLICATE_INVITATION (a pending invitation for the
// email) and 403 SEAT_LIMIT_EXCEEDED (members plus pending invitations
// reach the plan's seats).
func (s *Invitations) Create(ctx context.Context, p *auth.Principal, in CreateInvitationInput) (*Invitation, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActTeamWrite); err != nil {
		return nil, err
	}
	var fields []errcode.FieldError
	var email string
	if in.Email == nil {
		fields = append(fields, errcode.FieldError{Field: "email", Message: "is required"})
	} else if e, err := identity.NormalizeEmail(*in.Email); err != nil {
		fields = append(fields, errcode.FieldError{Field: "email", Message: "must be an email address of at most 255 characters"})
	} else {
		email = e
	}
	if in.Role == nil || (*in.Role != auth.RoleAdmin && *in.Role != auth.RoleMember) {
		fields = append(fields, errcode.FieldError{Field: "role", Message: "must be admin or member"})
	}
	if len(fields) > 0 {
		return nil, errcode.Validation(fields...)
	}
	o, err := s.orgs.OrganizationByID(ctx, p.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	if _, err := io.ReadFull(s.random, raw); err != nil {
		return nil, fmt.Errorf("org: invitation token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	sealed, err := s.seal(token, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	inv := &Invitation{
		ID: id, OrgID: p.OrgID, Email: email, Role: *in.Role, InvitedBy: p.CreatedBy,
		ExpiresAt: now.Add(InvitationValidity), CreatedAt: now, UpdatedAt: now,
		TokenHash: HashInvitationToken(token), TokenSealed: sealed,
	}
	seats := LimitsOf(o.Plan).Seats
	switch err := s.store.CreateInvitation(ctx, inv, seats, now); {
	case errors.Is(err, ErrAlreadyMember):
		return nil, errcode.Newf(errcode.AlreadyMember, "%s is already a member of this organization", email)
	case errors.Is(err, ErrDuplicateInvitation):
		return nil, errcode.Newf(errcode.DuplicateInvitation, "%s already has a pending invitation; revoke it to invite again", email)
	case errors.Is(err, ErrSeatLimit):
		return nil, errcode.Newf(errcode.SeatLimitExceeded,
			"the %s plan has %d seats, counting members and pending invitations; remove one or upgrade the plan", o.Plan, seats)
	case err != nil:
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	inv.Token = token
	return inv, nil
}

// List returns one page of p's organization's invitations in state (pending
// when nil; pending, accepted, revoked, expired or all), newest first,
// without tokens. Errors: VALIDATION_ERROR naming status, limit or offset.
func (s *Invitations) List(ctx context.Context, p *auth.Principal, state *string, limit, offset *int) (*InvitationPage, error) {
	if _, err := p.Authorize(auth.ScopeTeamRead, auth.ActTeamRead); err != nil {
		return nil, err
	}
	var fields []errcode.FieldError
	st := InvitationPending
	if state != nil {
		switch st = *state; st {
		case InvitationPending, InvitationAccepted, InvitationRevoked, InvitationExpired, InvitationAll:
		default:
			fields = append(fields, errcode.FieldError{Field: "status", Message: "must be pending, accepted, revoked, expired or all"})
		}
	}
	l, o, err := apitype.PageBounds(limit, offset)
	if e, ok := errcode.As(err); ok {
		// One VALIDATION_ERROR names status, limit and offset together.
		fields = append(fields, e.Fields...)
	}
	if len(fields) > 0 {
		return nil, errcode.Validation(fields...)
	}
	invs, total, err := s.store.ListInvitations(ctx, p.OrgID, st, s.now(), l, o)
	if err != nil {
		return nil, err
	}
	if invs == nil {
		invs = []*Invitation{}
	}
	return &InvitationPage{Data: invs, Pagination: apitype.NewPagination(total, l, o)}, nil
}

// Get returns invitation id of p's organization without its token, as
// List shows it (the dashboard's confirmation page names the invitation).
// Errors: FORBIDDEN without team:read; NOT_FOUND.
func (s *Invitations) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Invitation, error) {
	if _, err := p.Authorize(auth.ScopeTeamRead, auth.ActTeamRead); err != nil {
		return nil, err
	}
	inv, err := s.store.InvitationByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "invitation not found")
	}
	return inv, nil
}

// Revoke revokes invitation id of p's organization and returns it with its
// token (SPEC.md, Invitation states): a pending invitation gets revoked_at;
// an accepted one is 400 INVITATION_ALREADY_ACCEPTED, a revoked one 400
// INVITATION_ALREADY_REVOKED, an expired one 400 INVITATION_EXPIRED, and
// none of them changes. NOT_FOUND when there is no such invitation.
func (s *Invitations) Revoke(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Invitation, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActTeamWrite); err != nil {
		return nil, err
	}
	now := s.now()
	inv, revoked, err := s.store.RevokeInvitation(ctx, p.OrgID, id, now)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "invitation not found")
	}
	if !revoked {
		switch inv.State(now) {
		case InvitationAccepted:
			return nil, errcode.New(errcode.InvitationAlreadyAccepted, "the invitation was accepted; remove the member instead")
		case InvitationRevoked:
			return nil, errcode.New(errcode.InvitationAlreadyRevoked, "the invitation is already revoked")
		case InvitationExpired:
			return nil, errcode.New(errcode.InvitationExpired, "the invitation has expired")
		}
		return nil, fmt.Errorf("org: invitation %s is pending but was not revoked", id)
	}
	if inv.Token, err = s.open(inv.TokenSealed, inv.ID); err != nil {
		return nil, err
	}
	return inv, nil
}

// Token returns the token of inv, an invitation List returned for p, so
// that an owner or admin can send its acceptance link again (the dashboard
// shows it beside each pending invitation; the API's list never carries
// it). It needs team:write, as Create does: the token lets the invited
// email join. Errors: FORBIDDEN; NOT_FOUND when inv is not of p's
// organization.
func (s *Invitations) Token(p *auth.Principal, inv *Invitation) (string, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActTeamWrite); err != nil {
		return "", err
	}
	if inv.OrgID != p.OrgID {
		return "", errcode.New(errcode.NotFound, "invitation not found")
	}
	return s.open(inv.TokenSealed, inv.ID)
}

// InvitationOffer is an invitation as its acceptance page shows it.
type InvitationOffer struct {
	*Invitation
	// OrgName is the inviting organization's name.
	OrgName string
	// State is the invitation's state when it was read.
	State string

	org *Organization
}

// Offer returns the invitation whose token is token, with its
// organization's name and its state now; NOT_FOUND when no invitation has
// the token.
func (s *Invitations) Offer(ctx context.Context, token string) (*InvitationOffer, error) {
	return s.offer(ctx, token, s.now())
}

func (s *Invitations) offer(ctx context.Context, token string, now time.Time) (*InvitationOffer, error) {
	if token == "" {
		return nil, errcode.New(errcode.NotFound, "invitation not found")
	}
	inv, err := s.store.InvitationByTokenHash(ctx, HashInvitationToken(token))
	if err != nil {
		return nil, errcode.NotFoundAs(err, "invitation not found")
	}
	o, err := s.orgs.OrganizationByID(ctx, inv.OrgID)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "invitation not found")
	}
	return &InvitationOffer{Invitation: inv, OrgName: o.Name, State: inv.State(now), org: o}, nil
}

// notPending returns the error of an invitation in state, which is not pending.
func notPending(state string) error {
	switch state {
	case InvitationAccepted:
		return errcode.New(errcode.InvitationAlreadyAccepted, "the invitation has been accepted already")
	case InvitationRevoked:
		return errcode.New(errcode.InvitationAlreadyRevoked, "the invitation has been revoked")
	}
	return errcode.New(errcode.InvitationExpired, "the invitation has expired")
}

// Accept makes the user userID, whose email is email, a member of the
// organization of the invitation whose token is token, with the invited
// role, and marks the invitation accepted, in one transaction (our design).
// Errors, in order: NOT_FOUND for no such invitation;
// INVITATION_ALREADY_ACCEPTED, INVITATION_ALREADY_REVOKED or
// INVITATION_EXPIRED when it is not pending; FORBIDDEN when email is not
// the invitation's (an invitation is for its email alone); ALREADY_MEMBER
// when the user is a member already; SEAT_LIMIT_EXCEEDED when the
// organization's members fill its plan's seats now (pending invitations do
// not count here: each was counted when it was made).
func (s *Invitations) Accept(ctx context.Context, token string, userID uuid.UUID, email string) (*InvitationOffer, *Member, error) {
	now := s.now()
	off, err := s.offer(ctx, token, now)
	if err != nil {
		return nil, nil, err
	}
	if off.State != InvitationPending {
		return nil, nil, notPending(off.State)
	}
	if norm, err := identity.NormalizeEmail(email); err != nil || norm != off.Email {
		return nil, nil, errcode.Newf(errcode.Forbidden, "this invitation is for %s; sign in with that email to accept it", off.Email)
	}
	o := off.org
	seats := LimitsOf(o.Plan).Seats
	m := &Member{OrgID: off.OrgID, UserID: userID, Email: off.Email, Role: off.Role, CreatedAt: now, UpdatedAt: now}
	inv, err := s.store.AcceptInvitation(ctx, off.ID, m, seats, now)
	switch {
	case errors.Is(err, ErrInvitationNotPending):
		cur, err := s.store.InvitationByID(ctx, off.OrgID, off.ID)
		if err != nil {
			return nil, nil, errcode.NotFoundAs(err, "organization not found")
		}
		return nil, nil, notPending(cur.State(now))
	case errors.Is(err, ErrAlreadyMember), errors.Is(err, errcode.ErrConflict):
		// A conflict: the membership was made meanwhile by another way in.
		return nil, nil, errcode.Newf(errcode.AlreadyMember, "you are already a member of %s", o.Name)
	case errors.Is(err, ErrSeatLimit):
		return nil, nil, errcode.Newf(errcode.SeatLimitExceeded,
			"%s has no free seat: its %s plan has %d; an owner can upgrade the plan or remove a member", o.Name, o.Plan, seats)
	case err != nil:
		return nil, nil, errcode.NotFoundAs(err, "invitation not found")
	}
	if s.forget != nil {
		s.forget.ForgetCreator(userID)
	}
	off.Invitation, off.State = inv, InvitationAccepted
	return off, m, nil
}
