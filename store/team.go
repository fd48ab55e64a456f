package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/webhook"
)

var _ org.TeamStore = (*Store)(nil)

// changeMember runs change on userID's membership of orgID in a transaction
// that first locks the organization's row (PostgreSQL: FOR NO KEY UPDATE;
// SQLite's transactions take the write lock at BEGIN), so that concurrent
// changes of one organization's owners take turns. change gets the member
// and how many owners the organization has.
func (s *Store) changeMember(ctx context.Context, op string, orgID, userID uuid.UUID,
	change func(tx bun.Tx, m *memberRow, owners int) error) (*org.Member, error) {
	var row memberRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", orgID)
		if tx.Dialect().Name() == dialect.PG {
			q.For("NO KEY UPDATE")
		}
		var id uuid.UUID
		if err := q.Scan(ctx, &id); err != nil {
			return err
		}
		err := tx.NewSelect().Model(&row).ColumnExpr("m.*").ColumnExpr("u.email").
			Join("JOIN users AS u ON u.id = m.user_id").
			Where("m.org_id = ? AND m.user_id = ?", orgID, userID).Scan(ctx)
		if err != nil {
			return err
		}
		owners, err := tx.NewSelect().Model((*memberRow)(nil)).Where("m.org_id = ? AND m.role = ?", orgID, string(auth.RoleOwner)).Count(ctx)
		if err != nil {
			return err
		}
		return change(tx, &row, int(owners))
	})
	if errors.Is(err, org.ErrLastOwner) {
		return nil, fmt.Errorf("store: %s: %w", op, err)
	}
	if err != nil {
		return nil, s.err(op, err)
	}
	m := toMember(&row)
	return &m, nil
}

// SetMemberRole implements org.TeamStore.
func (s *Store) SetMemberRole(ctx context.Context, orgID, userID uuid.UUID, role auth.Role, at time.Time) (*org.Member, error) {
	return s.changeMember(ctx, "set member role", orgID, userID, func(tx bun.Tx, m *memberRow, owners int) error {
		if m.Role == string(auth.RoleOwner) && role != auth.RoleOwner && owners <= 1 {
			return org.ErrLastOwner
		}
		m.Role, m.UpdatedAt = string(role), utc(at)
		_, err := tx.NewUpdate().Model((*memberRow)(nil)).Set("role = ?", m.Role).Set("updated_at = ?", m.UpdatedAt).
			Where("org_id = ? AND user_id = ?", orgID, userID).Exec(ctx)
		return err
	})
}

// DeleteMember implements org.TeamStore.
func (s *Store) DeleteMember(ctx context.Context, orgID, userID uuid.UUID) (*org.Member, error) {
	return s.changeMember(ctx, "delete member", orgID, userID, func(tx bun.Tx, m *memberRow, owners int) error {
		if m.Role == string(auth.RoleOwner) && owners <= 1 {
			return org.ErrLastOwner
		}
		_, err := tx.NewDelete().Model((*memberRow)(nil)).Where("org_id = ? AND user_id = ?", orgID, userID).Exec(ctx)
		if err != nil {
			return err
		}
		return s.emitMember(ctx, tx, webhook.MemberRemoved, toMember(m), time.Now())
	})
}
