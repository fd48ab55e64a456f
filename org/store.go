package org

import (
	"context"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/identity"
)

// Store is the storage that organizations, users and members need.
// Implementations wrap errcode.ErrNotFound, errcode.ErrConflict and
// errcode.ErrUnavailable.
type Store interface {
	// CreateOrganization inserts o and, when bootstrap is not nil, the
	// organization's bootstrap key, in one transaction. It wraps
	// errcode.ErrConflict when the slug is taken.
	CreateOrganization(ctx context.Context, o *Organization, bootstrap *auth.Key) error
	// OrganizationByID returns organization id; errcode.ErrNotFound when none.
	OrganizationByID(ctx context.Context, id uuid.UUID) (*Organization, error)
	// ListOrganizations returns every organization, oldest first.
	ListOrganizations(ctx context.Context) ([]Organization, error)
	// CountOrganizations returns how many organizations exist.
	CountOrganizations(ctx context.Context) (int, error)
	// UpdateOrganization writes o's name, plan, click limit, billing period
	// start and updated_at; errcode.ErrNotFound when o does not exist.
	UpdateOrganization(ctx context.Context, o *Organization) error
	// DeleteOrganization deletes organization id and, by the database's
	// cascade, every row that belongs to it; errcode.ErrNotFound when none.
	DeleteOrganization(ctx context.Context, id uuid.UUID) error

	// CreateUser inserts u; errcode.ErrConflict when the email is taken.
	CreateUser(ctx context.Context, u *identity.User) error
	// UserByEmail returns the user with that (normalized) email;
	// errcode.ErrNotFound when none.
	UserByEmail(ctx context.Context, email string) (*identity.User, error)

	// AddMember inserts m; errcode.ErrConflict when the user is already a
	// member of the organization.
	AddMember(ctx context.Context, m *Member) error
	// RemoveMember deletes the membership of userID in orgID;
	// errcode.ErrNotFound when there is none.
	RemoveMember(ctx context.Context, orgID, userID uuid.UUID) error
	// ListMembers returns the members of orgID with their emails, oldest first.
	ListMembers(ctx context.Context, orgID uuid.UUID) ([]Member, error)
}
