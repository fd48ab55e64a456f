package account

import (
	"context"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
)

// Membership is one organization a user belongs to, with the user's role.
type Membership struct {
	OrgID   uuid.UUID
	OrgName string
	Role    auth.Role
}

// Memberships returns the organizations userID belongs to, by name, for the
// account page.
func (s *Service) Memberships(ctx context.Context, userID uuid.UUID) ([]Membership, error) {
	return s.store.UserMemberships(ctx, userID)
}
