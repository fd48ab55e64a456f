package org

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

// Forgetter drops cached authentications when an organization or a
// membership goes away; the auth.Authenticator is one.
type Forgetter interface {
	ForgetCreator(userID uuid.UUID)
	ForgetOrg(orgID uuid.UUID)
}

// ServiceOptions configure a Service. Every zero value means the documented
// default.
type ServiceOptions struct {
	// Forget is told of every organization deleted and of every member
	// added or removed, so that the authentication cache of this process
	// (an *auth.Authenticator) follows at once. If nil, nothing is told.
	Forget Forgetter
	// PlanListener is told of every plan change (SetPlan). If nil, nothing
	// is told.
	PlanListener PlanListener
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random is the source of the bootstrap keys; crypto/rand when nil.
	Random io.Reader
	// HashPassword hashes the passwords of new users (CreateUser);
	// identity.HashPassword (argon2id) when nil.
	HashPassword func(password string) (string, error)
}

// Service manages organizations, users and memberships.
type Service struct {
	store        Store
	forget       Forgetter
	planListener PlanListener
	clock        func() time.Time
	random       io.Reader
	hash         func(string) (string, error)
}

// NewService returns the organization service over store.
func NewService(store Store, opts ServiceOptions) *Service {
	s := &Service{store: store, forget: opts.Forget, planListener: opts.PlanListener,
		clock: opts.Clock, random: opts.Random, hash: opts.HashPassword}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.random == nil {
		s.random = rand.Reader
	}
	if s.hash == nil {
		s.hash = identity.HashPassword
	}
	return s
}

// BootstrapKeyName is the name of the key made with every organization.
const BootstrapKeyName = "Bootstrap key"

// Create creates an organization on plan (Free when empty) with a bootstrap
// API key that has every requestable scope and no creator.
func (s *Service) Create(ctx context.Context, name string, plan Plan) (*Organization, *auth.IssuedKey, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 1 || n > 255 {
		return nil, nil, errcode.Field("name", "must be 1 to 255 characters")
	}
	if plan == "" {
		plan = PlanFree
	}
	if !plan.Valid() {
		return nil, nil, errcode.Field("plan", "must be free, starter, growth or scale")
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	id, err := uuid.NewV7()
	if err != nil {
		return nil, nil, err
	}
	o := &Organization{
		ID:                 id,
		Name:               name,
		Plan:               plan,
		MonthlyClickLimit:  LimitsOf(plan).MonthlyClicks,
		BillingPeriodStart: now,
		CreatedAt:          now,
		UpdatedAt:          now,
	}
	key, err := auth.NewKey(s.random, now, id, nil, auth.CreateKeyInput{Name: BootstrapKeyName, Scopes: auth.RequestableScopes})
	if err != nil {
		return nil, nil, err
	}
	base := Slugify(name)
	for attempt := 0; ; attempt++ {
		o.Slug = base
		if attempt > 0 {
			suffix := make([]byte, 3)
			if _, err := io.ReadFull(s.random, suffix); err != nil {
				return nil, nil, err
			}
			o.Slug = base + "-" + hex.EncodeToString(suffix)
		}
		err = s.store.CreateOrganization(ctx, o, &key.Key)
		if errors.Is(err, errcode.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return o, key, nil
	}
}

// Slugify turns an organization name into a slug: lowercase ASCII letters and
// digits joined by single hyphens, at most 48 characters, "org" when nothing is left.
func Slugify(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			if b.Len() >= 48 {
				break
			}
			continue
		}
		hyphen = true
	}
	if b.Len() == 0 {
		return "org"
	}
	return b.String()
}

// ByID returns organization id, for operators (the CLI).
func (s *Service) ByID(ctx context.Context, id uuid.UUID) (*Organization, error) {
	o, err := s.store.OrganizationByID(ctx, id)
	return o, errcode.NotFoundAs(err, "organization not found")
}

// Get returns organization id to p, which may read only its own (another's is NOT_FOUND).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Organization, error) {
	if _, err := p.Authorize(auth.ScopeOrgRead, auth.ActOrgRead); err != nil {
		return nil, err
	}
	if id != p.OrgID {
		return nil, errcode.New(errcode.NotFound, "organization not found")
	}
	return s.ByID(ctx, id)
}

// List returns every organization, for operators (the CLI).
func (s *Service) List(ctx context.Context) ([]Organization, error) {
	return s.store.ListOrganizations(ctx)
}

// Count returns the number of organizations.
func (s *Service) Count(ctx context.Context) (int, error) {
	return s.store.CountOrganizations(ctx)
}

// SetPlan moves organization id to plan, with that plan's click limit, and
// then tells the plan listener (ServiceOptions.PlanListener), even when the plan is the
// same, so that setting a plan again repairs what a failed listener left.
func (s *Service) SetPlan(ctx context.Context, id uuid.UUID, plan Plan) (*Organization, error) {
	if !plan.Valid() {
		return nil, errcode.Field("plan", "must be free, starter, growth or scale")
	}
	o, err := s.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	o.Plan = plan
	o.MonthlyClickLimit = LimitsOf(plan).MonthlyClicks
	o.UpdatedAt = s.clock().UTC().Truncate(time.Millisecond)
	if err := s.store.UpdateOrganization(ctx, o); err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	if s.planListener != nil {
		if err := s.planListener.PlanChanged(ctx, id, plan); err != nil {
			return nil, fmt.Errorf("org: after the move to %s: %w", plan, err)
		}
	}
	return o, nil
}

// Delete deletes p's own organization id and everything that belongs to it.
// confirmation is the X-Confirmation-Name header (nil when absent) and must
// equal the organization's name exactly.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID, confirmation *string) (*Organization, error) {
	if _, err := p.Authorize(auth.ScopeOrgDelete, auth.ActOrgDelete); err != nil {
		return nil, err
	}
	if id != p.OrgID {
		return nil, errcode.New(errcode.NotFound, "organization not found")
	}
	o, err := s.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if confirmation == nil || *confirmation == "" {
		return nil, errcode.New(errcode.MissingConfirmation, "send the organization's name in the X-Confirmation-Name header")
	}
	if *confirmation != o.Name {
		return nil, errcode.New(errcode.ConfirmationMismatch, "X-Confirmation-Name does not match the organization's name")
	}
	if err := s.store.DeleteOrganization(ctx, id); err != nil {
		return nil, errcode.NotFoundAs(err, "organization not found")
	}
	if s.forget != nil {
		s.forget.ForgetOrg(id)
	}
	return o, nil
}

// CreateUser creates a user with email and password. The email is
// normalized (identity.NormalizeEmail) and the password must pass
// identity.CheckPassword (length, common passwords, not the email).
func (s *Service) CreateUser(ctx context.Context, email, password string) (*identity.User, error) {
	email, err := identity.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if err := identity.CheckPassword(password, email); err != nil {
		return nil, err
	}
	hash, err := s.hash(password)
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	u := &identity.User{ID: id, Email: email, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateUser(ctx, u); err != nil {
		if errors.Is(err, errcode.ErrConflict) {
			return nil, errcode.Field("email", "a user with this email exists")
		}
		return nil, err
	}
	return u, nil
}

func (s *Service) userByEmail(ctx context.Context, email string) (*identity.User, error) {
	email, err := identity.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	u, err := s.store.UserByEmail(ctx, email)
	return u, errcode.NotFoundAs(err, "user not found")
}

// AddMember makes the user with email a member of organization orgID with role.
func (s *Service) AddMember(ctx context.Context, orgID uuid.UUID, email string, role auth.Role) (*Member, error) {
	if !role.Valid() {
		return nil, errcode.Field("role", "must be owner, admin or member")
	}
	if _, err := s.ByID(ctx, orgID); err != nil {
		return nil, err
	}
	u, err := s.userByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	m := &Member{OrgID: orgID, UserID: u.ID, Email: u.Email, Role: role, CreatedAt: now, UpdatedAt: now}
	if err := s.store.AddMember(ctx, m); err != nil {
		if errors.Is(err, errcode.ErrConflict) {
			return nil, errcode.New(errcode.AlreadyMember, "the user is already a member of this organization")
		}
		return nil, err
	}
	if s.forget != nil {
		// A member who left and comes back gets their keys back at once.
		s.forget.ForgetCreator(u.ID)
	}
	return m, nil
}

// RemoveMember removes the user with email from organization orgID. The keys
// that user created stop working at once in this process and within the
// authentication cache's lifetime everywhere else.
func (s *Service) RemoveMember(ctx context.Context, orgID uuid.UUID, email string) error {
	u, err := s.userByEmail(ctx, email)
	if err != nil {
		return err
	}
	if err := s.store.RemoveMember(ctx, orgID, u.ID); err != nil {
		return errcode.NotFoundAs(err, "the user is not a member of this organization")
	}
	if s.forget != nil {
		s.forget.ForgetCreator(u.ID)
	}
	return nil
}

// Members returns the members of organization orgID.
func (s *Service) Members(ctx context.Context, orgID uuid.UUID) ([]Member, error) {
	return s.store.ListMembers(ctx, orgID)
}
