package org

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// TeamStore is the storage the team endpoints need. Implementations wrap
// errcode.ErrNotFound and errcode.ErrUnavailable.
type TeamStore interface {
	// ListMembers returns the members of orgID with their emails, oldest first.
	ListMembers(ctx context.Context, orgID uuid.UUID) ([]Member, error)
	// SetMemberRole sets the role and updated_at of userID's membership of
	// orgID and returns it; errcode.ErrNotFound when there is none;
	// ErrLastOwner when the change would leave orgID without an owner. The
	// owner count and the change are one transaction that no concurrent
	// SetMemberRole or DeleteMember of orgID interleaves with.
	SetMemberRole(ctx context.Context, orgID, userID uuid.UUID, role auth.Role, at time.Time) (*Member, error)
	// DeleteMember deletes userID's membership of orgID and returns it as it
	// was; errcode.ErrNotFound when there is none; ErrLastOwner, as
	// SetMemberRole, when it is the organization's last owner.
	DeleteMember(ctx context.Context, orgID, userID uuid.UUID) (*Member, error)
}

// ErrLastOwner is returned (wrapped) by a TeamStore asked to demote or remove
// an organization's last owner.
var ErrLastOwner = errors.New("the organization's last owner")

// TeamMember is a member as GET /v1/members shows it.
type TeamMember struct {
	UserID   uuid.UUID `json:"user_id"`
	Email    string    `json:"email"`
	Role     auth.Role `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

func teamMember(m *Member) *TeamMember {
	return &TeamMember{UserID: m.UserID, Email: m.Email, Role: m.Role, JoinedAt: m.CreatedAt}
}

// MemberPage is one page of GET /v1/members, oldest membership first.
type MemberPage struct {
	Data       []*TeamMember      `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

// UpdateMemberInput is the body of PATCH /v1/members/{user_id}.
type UpdateMemberInput struct {
	// Role is the new role: owner, admin or member; required.
	Role *auth.Role `json:"role"`
}

// Team manages an organization's members through the API (our design; SPEC.md
// leaves the team endpoints unshown): reading needs team:read (every role),
// changing team:write (owners and admins), and anything that makes, changes
// or removes an owner also the owners.manage action (owners only). An
// organization always keeps at least one owner. It is safe for concurrent use.
type Team struct {
	store  TeamStore
	forget Forgetter
	clock  func() time.Time
}

// TeamOptions configure a Team service. Every zero value means the
// documented default.
type TeamOptions struct {
	// Forget is told of every member whose role changed or who left, so
	// that the keys they created are checked against their new role (or
	// refused) at once in this process. If nil, nothing is told.
	Forget Forgetter
	// Clock is time.Now when nil.
	Clock func() time.Time
}

// NewTeam returns the team service over store.
func NewTeam(store TeamStore, opts TeamOptions) *Team {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Team{store: store, forget: opts.Forget, clock: opts.Clock}
}

// List returns one page of p's organization's members, oldest first.
// Errors: VALIDATION_ERROR naming limit or offset.
func (t *Team) List(ctx context.Context, p *auth.Principal, limit, offset *int) (*MemberPage, error) {
	if _, err := p.Authorize(auth.ScopeTeamRead, auth.ActTeamRead); err != nil {
		return nil, err
	}
	l, o, err := apitype.PageBounds(limit, offset)
	if err != nil {
		return nil, err
	}
	all, err := t.store.ListMembers(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	page := &MemberPage{Data: []*TeamMember{}, Pagination: apitype.NewPagination(len(all), l, o)}
	for i := o; i < len(all) && i < o+l; i++ {
		page.Data = append(page.Data, teamMember(&all[i]))
	}
	return page, nil
}

// Get returns member userID of p's organization, as List shows it (the
// dashboard's confirmation pages name the member). Errors: FORBIDDEN
// without team:read; NOT_FOUND.
func (t *Team) Get(ctx context.Context, p *auth.Principal, userID uuid.UUID) (*TeamMember, error) {
	if _, err := p.Authorize(auth.ScopeTeamRead, auth.ActTeamRead); err != nil {
		return nil, err
	}
	m, err := t.member(ctx, p.OrgID, userID)
	if err != nil {
		return nil, err
	}
	return teamMember(m), nil
}

// member returns userID's membership of p's organization, NOT_FOUND when none.
func (t *Team) member(ctx context.Context, orgID, userID uuid.UUID) (*Member, error) {
	all, err := t.store.ListMembers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].UserID == userID {
			return &all[i], nil
		}
	}
	return nil, errMemberNotFound
}

var (
	errMemberNotFound = errcode.New(errcode.NotFound, "member not found")
	errLastOwner      = errcode.New(errcode.LastOwner, "an organization keeps at least one owner; make another member owner first")
)

// UpdateRole changes the role of member userID of p's organization and
// returns the member. Errors: VALIDATION_ERROR (role missing or not owner,
// admin or member); NOT_FOUND; FORBIDDEN when the change makes or unmakes
// an owner and p is not an owner's key (or a key without a creator); 409
// LAST_OWNER when it would leave the organization without an owner.
func (t *Team) UpdateRole(ctx context.Context, p *auth.Principal, userID uuid.UUID, in UpdateMemberInput) (*TeamMember, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActTeamWrite); err != nil {
		return nil, err
	}
	if in.Role == nil || !in.Role.Valid() {
		return nil, errcode.Field("role", "must be owner, admin or member")
	}
	m, err := t.member(ctx, p.OrgID, userID)
	if err != nil {
		return nil, err
	}
	if m.Role == auth.RoleOwner || *in.Role == auth.RoleOwner {
		if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActOwnersManage); err != nil {
			return nil, errcode.New(errcode.Forbidden, "only owners make, change or remove owners")
		}
	}
	if m.Role == *in.Role {
		return teamMember(m), nil
	}
	updated, err := t.store.SetMemberRole(ctx, p.OrgID, userID, *in.Role, t.clock().UTC().Truncate(time.Millisecond))
	if err != nil {
		return nil, teamError(err)
	}
	if t.forget != nil {
		t.forget.ForgetCreator(userID)
	}
	return teamMember(updated), nil
}

// Remove removes member userID from p's organization and returns the member
// as it was. The keys the member created answer 403 FORBIDDEN from then on
// (the role layer, SPEC.md Authentication rule 8b): at once in this process,
// within the authentication cache's lifetime elsewhere. Errors: NOT_FOUND;
// FORBIDDEN for an owner unless p is an owner's key (or has no creator);
// 409 LAST_OWNER for the last owner.
func (t *Team) Remove(ctx context.Context, p *auth.Principal, userID uuid.UUID) (*TeamMember, error) {
	if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActTeamWrite); err != nil {
		return nil, err
	}
	m, err := t.member(ctx, p.OrgID, userID)
	if err != nil {
		return nil, err
	}
	if m.Role == auth.RoleOwner {
		if _, err := p.Authorize(auth.ScopeTeamWrite, auth.ActOwnersManage); err != nil {
			return nil, errcode.New(errcode.Forbidden, "only owners make, change or remove owners")
		}
	}
	removed, err := t.store.DeleteMember(ctx, p.OrgID, userID)
	if err != nil {
		return nil, teamError(err)
	}
	if t.forget != nil {
		t.forget.ForgetCreator(userID)
	}
	return teamMember(removed), nil
}

func teamError(err error) error {
	if errors.Is(err, ErrLastOwner) {
		return errLastOwner
	}
	return errcode.NotFoundAs(err, "member not found")
}
