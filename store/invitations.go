package store

import (
	"context"
	"database/sql"
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

var _ org.InvitationStore = (*Store)(nil)

// invitationRow is a row of invitations.
type invitationRow struct {
	bun.BaseModel `bun:"table:invitations,alias:i"`

	ID          uuid.UUID  `bun:"id,pk"`
	OrgID       uuid.UUID  `bun:"org_id"`
	Email       string     `bun:"email"`
	Role        string     `bun:"role"`
	InvitedBy   *uuid.UUID `bun:"invited_by"`
	TokenHash   string     `bun:"token_hash"`
	TokenSealed string     `bun:"token_sealed"`
	ExpiresAt   time.Time  `bun:"expires_at"`
	AcceptedAt  *time.Time `bun:"accepted_at"`
	RevokedAt   *time.Time `bun:"revoked_at"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
}

func fromInvitation(i *org.Invitation) *invitationRow {
	return &invitationRow{
		ID: i.ID, OrgID: i.OrgID, Email: i.Email, Role: string(i.Role), InvitedBy: i.InvitedBy,
		TokenHash: i.TokenHash, TokenSealed: i.TokenSealed, ExpiresAt: utc(i.ExpiresAt),
		AcceptedAt: utcPtr(i.AcceptedAt), RevokedAt: utcPtr(i.RevokedAt),
		CreatedAt: utc(i.CreatedAt), UpdatedAt: utc(i.UpdatedAt),
	}
}

func toInvitation(r *invitationRow) *org.Invitation {
	return &org.Invitation{
		ID: r.ID, OrgID: r.OrgID, Email: r.Email, Role: auth.Role(r.Role), InvitedBy: r.InvitedBy,
		TokenHash: r.TokenHash, TokenSealed: r.TokenSealed, ExpiresAt: utc(r.ExpiresAt),
		AcceptedAt: utcPtr(r.AcceptedAt), RevokedAt: utcPtr(r.RevokedAt),
		CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}

// pendingAt is the condition, on a row aliased i, of an invitation pending at ?.
const pendingAt = "i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ?"

// CreateInvitation implements org.InvitationStore. On PostgreSQL the
// organization's row is locked (FOR NO KEY UPDATE) first, so that
// concurrent invitations of one organization count seats in turn; SQLite's
// transactions take the write lock at BEGIN.
func (s *Store) CreateInvitation(ctx context.Context, inv *org.Invitation, seats int, now time.Time) error {
	row := fromInvitation(inv)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", inv.OrgID)
		if tx.Dialect().Name() == dialect.PG {
			q.For("NO KEY UPDATE")
		}
		var id uuid.UUID
		if err := q.Scan(ctx, &id); err != nil {
			return err
		}
		member, err := tx.NewSelect().Model((*memberRow)(nil)).
			Join("JOIN users AS u ON u.id = m.user_id").
			Where("m.org_id = ? AND u.email = ?", inv.OrgID, inv.Email).Exists(ctx)
		if err != nil {
			return err
		}
		if member {
			return org.ErrAlreadyMember
		}
		dup, err := tx.NewSelect().Model((*invitationRow)(nil)).
			Where("i.org_id = ? AND i.email = ? AND "+pendingAt, inv.OrgID, inv.Email, utc(now)).Exists(ctx)
		if err != nil {
			return err
		}
		if dup {
			return org.ErrDuplicateInvitation
		}
		members, err := tx.NewSelect().Model((*memberRow)(nil)).Where("m.org_id = ?", inv.OrgID).Count(ctx)
		if err != nil {
			return err
		}
		pending, err := tx.NewSelect().Model((*invitationRow)(nil)).Where("i.org_id = ? AND "+pendingAt, inv.OrgID, utc(now)).Count(ctx)
		if err != nil {
			return err
		}
		if int(members+pending) >= seats {
			return org.ErrSeatLimit
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	if errors.Is(err, org.ErrAlreadyMember) || errors.Is(err, org.ErrDuplicateInvitation) || errors.Is(err, org.ErrSeatLimit) {
		return fmt.Errorf("store: create invitation: %w", err)
	}
	return s.err("create invitation", err)
}

// ListInvitations implements org.InvitationStore, in (created_at, id)
// order, newest first.
func (s *Store) ListInvitations(ctx context.Context, orgID uuid.UUID, state string, now time.Time, limit, offset int) ([]*org.Invitation, int, error) {
	var rows []invitationRow
	q := s.db.NewSelect().Model(&rows).Where("i.org_id = ?", orgID)
	at := utc(now)
	switch state {
	case org.InvitationPending:
		q.Where(pendingAt, at)
	case org.InvitationAccepted:
		q.Where("i.accepted_at IS NOT NULL")
	case org.InvitationRevoked:
		q.Where("i.accepted_at IS NULL AND i.revoked_at IS NOT NULL")
	case org.InvitationExpired:
		q.Where("i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at <= ?", at)
	case org.InvitationAll:
	default:
		return nil, 0, fmt.Errorf("store: list invitations: unknown state %q", state)
	}
	q.OrderExpr("i.created_at DESC, i.id DESC").Limit(int64(limit)).Offset(int64(offset))
	total, err := q.ScanAndCount(ctx)
	if err != nil {
		return nil, 0, s.err("list invitations", err)
	}
	out := make([]*org.Invitation, len(rows))
	for i := range rows {
		out[i] = toInvitation(&rows[i])
	}
	return out, int(total), nil
}

// InvitationByID implements org.InvitationStore.
func (s *Store) InvitationByID(ctx context.Context, orgID, id uuid.UUID) (*org.Invitation, error) {
	var row invitationRow
	if err := s.db.NewSelect().Model(&row).Where("i.id = ? AND i.org_id = ?", id, orgID).Scan(ctx); err != nil {
		return nil, s.err("invitation by id", err)
	}
	return toInvitation(&row), nil
}

// RevokeInvitation implements org.InvitationStore with one conditional
// update, so that of concurrent revocations exactly one revokes.
func (s *Store) RevokeInvitation(ctx context.Context, orgID, id uuid.UUID, at time.Time) (*org.Invitation, bool, error) {
	res, err := s.db.NewUpdate().Model((*invitationRow)(nil)).
		Set("revoked_at = ?", utc(at)).Set("updated_at = ?", utc(at)).
		Where("i.id = ? AND i.org_id = ? AND "+pendingAt, id, orgID, utc(at)).
		Exec(ctx)
	if err != nil {
		return nil, false, s.err("revoke invitation", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, false, s.err("revoke invitation", err)
	}
	inv, err := s.InvitationByID(ctx, orgID, id)
	if err != nil {
		return nil, false, err
	}
	return inv, n == 1, nil
}

// InvitationByTokenHash implements org.InvitationStore. The token is the
// credential of the acceptance page, so the lookup names no organization.
func (s *Store) InvitationByTokenHash(ctx context.Context, hash string) (*org.Invitation, error) {
	var row invitationRow
	if err := s.db.NewSelect().Model(&row).Where("i.token_hash = ?", hash).Scan(ctx); err != nil {
		return nil, s.err("invitation by token", err)
	}
	return toInvitation(&row), nil
}

// AcceptInvitation implements org.InvitationStore. As CreateInvitation, it
// locks the organization's row first on PostgreSQL; the membership insert
// and the conditional update of the invitation are one transaction.
func (s *Store) AcceptInvitation(ctx context.Context, id uuid.UUID, m *org.Member, seats int, at time.Time) (*org.Invitation, error) {
	var inv *org.Invitation
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", m.OrgID)
		if tx.Dialect().Name() == dialect.PG {
			q.For("NO KEY UPDATE")
		}
		var orgID uuid.UUID
		if err := q.Scan(ctx, &orgID); err != nil {
			return err
		}
		var row invitationRow
		if err := tx.NewSelect().Model(&row).Where("i.id = ? AND i.org_id = ?", id, m.OrgID).Scan(ctx); err != nil {
			return err
		}
		if toInvitation(&row).State(utc(at)) != org.InvitationPending {
			return org.ErrInvitationNotPending
		}
		member, err := tx.NewSelect().Model((*memberRow)(nil)).
			Where("m.org_id = ? AND m.user_id = ?", m.OrgID, m.UserID).Exists(ctx)
		if err != nil {
			return err
		}
		if member {
			return org.ErrAlreadyMember
		}
		members, err := tx.NewSelect().Model((*memberRow)(nil)).Where("m.org_id = ?", m.OrgID).Count(ctx)
		if err != nil {
			return err
		}
		if int(members) >= seats {
			return org.ErrSeatLimit
		}
		if _, err := tx.NewInsert().Model(fromMember(m)).Exec(ctx); err != nil {
			return err
		}
		if err := s.emitMember(ctx, tx, webhook.MemberJoined, *m, at); err != nil {
			return err
		}
		res, err := tx.NewUpdate().Model((*invitationRow)(nil)).
			Set("accepted_at = ?", utc(at)).Set("updated_at = ?", utc(at)).
			Where("i.id = ? AND i.org_id = ? AND "+pendingAt, id, m.OrgID, utc(at)).
			Exec(ctx)
		if err := oneRow(res, err); errors.Is(err, sql.ErrNoRows) {
			// Revoked meanwhile (revocations take no lock): the insert is
			// rolled back with the transaction.
			return org.ErrInvitationNotPending
		} else if err != nil {
			return err
		}
		row.AcceptedAt, row.UpdatedAt = ptr(utc(at)), utc(at)
		inv = toInvitation(&row)
		return nil
	})
	if errors.Is(err, org.ErrInvitationNotPending) || errors.Is(err, org.ErrAlreadyMember) || errors.Is(err, org.ErrSeatLimit) {
		return nil, fmt.Errorf("store: accept invitation: %w", err)
	}
	if err != nil {
		return nil, s.err("accept invitation", err)
	}
	return inv, nil
}
