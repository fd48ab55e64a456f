package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/webhook"
)

// userRow is a row of users.
type userRow struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           uuid.UUID `bun:",pk"`
	Email        string
	PasswordHash string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func fromUser(u *identity.User) *userRow {
	return &userRow{
		ID:           u.ID,
		Email:        u.Email,
		PasswordHash: u.PasswordHash,
		CreatedAt:    utc(u.CreatedAt),
		UpdatedAt:    utc(u.UpdatedAt),
	}
}

func toUser(r *userRow) identity.User {
	return identity.User{
		ID:           r.ID,
		Email:        r.Email,
		PasswordHash: r.PasswordHash,
		CreatedAt:    utc(r.CreatedAt),
		UpdatedAt:    utc(r.UpdatedAt),
	}
}

// memberRow is a row of memberships; Email is read from users.
type memberRow struct {
	bun.BaseModel `bun:"table:memberships,alias:m"`

	OrgID     uuid.UUID `bun:",pk"`
	UserID    uuid.UUID `bun:",pk"`
	Role      string
	CreatedAt time.Time
	UpdatedAt time.Time

	Email string `bun:",scanonly"`
}

func fromMember(m *org.Member) *memberRow {
	return &memberRow{
		OrgID:     m.OrgID,
		UserID:    m.UserID,
		Role:      string(m.Role),
		CreatedAt: utc(m.CreatedAt),
		UpdatedAt: utc(m.UpdatedAt),
	}
}

func toMember(r *memberRow) org.Member {
	return org.Member{
		OrgID:     r.OrgID,
		UserID:    r.UserID,
		Email:     r.Email,
		Role:      auth.Role(r.Role),
		CreatedAt: utc(r.CreatedAt),
		UpdatedAt: utc(r.UpdatedAt),
	}
}

// CreateUser implements org.Store.
func (s *Store) CreateUser(ctx context.Context, u *identity.User) error {
	_, err := s.db.NewInsert().Model(fromUser(u)).Exec(ctx)
	return s.err("create user", err)
}

// UserByEmail implements org.Store. The email is compared as stored: the
// service normalizes it first.
func (s *Store) UserByEmail(ctx context.Context, email string) (*identity.User, error) {
	var row userRow
	if err := s.db.NewSelect().Model(&row).Where("u.email = ?", email).Scan(ctx); err != nil {
		return nil, s.err("user by email", err)
	}
	u := toUser(&row)
	return &u, nil
}

// AddMember implements org.Store. m.Email is not stored; it is read from
// users.
func (s *Store) AddMember(ctx context.Context, m *org.Member) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(fromMember(m)).Exec(ctx); err != nil {
			return err
		}
		return s.emitMember(ctx, tx, webhook.MemberJoined, *m, m.CreatedAt)
	})
	return s.err("add member", err)
}

// RemoveMember implements org.Store.
func (s *Store) RemoveMember(ctx context.Context, orgID, userID uuid.UUID) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row memberRow
		err := tx.NewDelete().Model(&row).Where("org_id = ? AND user_id = ?", orgID, userID).Returning("*").Scan(ctx)
		if err != nil {
			return err
		}
		return s.emitMember(ctx, tx, webhook.MemberRemoved, toMember(&row), time.Now())
	})
	return s.err("remove member", err)
}

// emitMember announces a member's joining or leaving (t) through tx; a
// member without an email (the rows hold none) gets the user's.
func (s *Store) emitMember(ctx context.Context, tx bun.IDB, t webhook.Type, m org.Member, at time.Time) error {
	if m.Email == "" {
		err := tx.NewSelect().Table("users").Column("email").Where("id = ?", m.UserID).Scan(ctx, &m.Email)
		if err != nil {
			return err
		}
	}
	ev, err := memberEvent(t, &m, at)
	if err != nil {
		return err
	}
	return s.emit(ctx, tx, ev)
}

// ListMembers implements org.Store. Members come in (created_at, user_id)
// order.
func (s *Store) ListMembers(ctx context.Context, orgID uuid.UUID) ([]org.Member, error) {
	var rows []memberRow
	err := s.db.NewSelect().Model(&rows).
		ColumnExpr("m.*").
		ColumnExpr("u.email").
		Join("JOIN users AS u ON u.id = m.user_id").
		Where("m.org_id = ?", orgID).
		OrderExpr("m.created_at, m.user_id").
		Scan(ctx)
	if err != nil {
		return nil, s.err("list members", err)
	}
	members := make([]org.Member, len(rows))
	for i := range rows {
		members[i] = toMember(&rows[i])
	}
	return members, nil
}
