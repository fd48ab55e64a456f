package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// TeamMember is a member of the organization.
type TeamMember struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	// Role is "owner", "admin" or "member".
	Role     string    `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

// MemberList is a page of members.
type MemberList struct {
	Data       []TeamMember `json:"data"`
	Pagination Pagination   `json:"pagination"`
}

// Invitation is an invitation to the organization. Token is set only in
// the answers of CreateInvitation and RevokeInvitation.
type Invitation struct {
	ID    string `json:"id"`
	OrgID string `json:"org_id"`
	Email string `json:"email"`
	// Role is "admin" or "member".
	Role       string     `json:"role"`
	InvitedBy  *string    `json:"invited_by"`
	Token      string     `json:"token,omitempty"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"accepted_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// CreatedInvitation is a new invitation with the URL the invitee opens.
type CreatedInvitation struct {
	Invitation
	AcceptURL string `json:"accept_url"`
}

// InvitationList is a page of invitations (without tokens).
type InvitationList struct {
	Data       []Invitation `json:"data"`
	Pagination Pagination   `json:"pagination"`
}

// ListInvitationsParams filters ListInvitations; zero values are not sent.
type ListInvitationsParams struct {
	Page
	// Status is "pending" (the server's default), "accepted", "revoked",
	// "expired" or "all".
	Status string
}

// ListMembers returns one page of the organization's members
// (GET /members).
func (c *Client) ListMembers(ctx context.Context, p Page) (*MemberList, error) {
	return do[MemberList](ctx, c, request{method: http.MethodGet, path: "/members", query: pageQuery(p)})
}

// AllMembers walks every page of ListMembers from p.
func (c *Client) AllMembers(ctx context.Context, p Page) iter.Seq2[TeamMember, error] {
	return offsetSeq(p, func(pg Page) ([]TeamMember, Pagination, error) {
		l, err := c.ListMembers(ctx, pg)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// UpdateMember changes a member's role (PATCH /members/{user_id}).
func (c *Client) UpdateMember(ctx context.Context, userID, role string) (*TeamMember, error) {
	body := struct {
		Role string `json:"role"`
	}{role}
	return do[TeamMember](ctx, c, request{method: http.MethodPatch, path: pathf("/members/%s", userID), body: body})
}

// DeleteMember removes a member from the organization, returning them
// (DELETE /members/{user_id}).
func (c *Client) DeleteMember(ctx context.Context, userID string) (*TeamMember, error) {
	return do[TeamMember](ctx, c, request{method: http.MethodDelete, path: pathf("/members/%s", userID)})
}

// CreateInvitation invites email with role ("admin" or "member")
// (POST /invitations).
func (c *Client) CreateInvitation(ctx context.Context, email, role string) (*CreatedInvitation, error) {
	body := struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}{email, role}
	return do[CreatedInvitation](ctx, c, request{method: http.MethodPost, path: "/invitations", body: body})
}

// ListInvitations returns one page of invitations (GET /invitations).
func (c *Client) ListInvitations(ctx context.Context, p ListInvitationsParams) (*InvitationList, error) {
	q := pageQuery(p.Page)
	setString(q, "status", p.Status)
	return do[InvitationList](ctx, c, request{method: http.MethodGet, path: "/invitations", query: q})
}

// AllInvitations walks every page of ListInvitations from p.
func (c *Client) AllInvitations(ctx context.Context, p ListInvitationsParams) iter.Seq2[Invitation, error] {
	return offsetSeq(p.Page, func(pg Page) ([]Invitation, Pagination, error) {
		p.Page = pg
		l, err := c.ListInvitations(ctx, p)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// RevokeInvitation revokes a pending invitation, returning it
// (DELETE /invitations/{id}).
func (c *Client) RevokeInvitation(ctx context.Context, id string) (*Invitation, error) {
	return do[Invitation](ctx, c, request{method: http.MethodDelete, path: pathf("/invitations/%s", id)})
}
