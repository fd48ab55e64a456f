package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

var _ account.Store = (*Store)(nil)

// orgPolicyRow is a row of org_security_policies.
type orgPolicyRow struct {
	bun.BaseModel `bun:"table:org_security_policies,alias:p"`

	OrgID                uuid.UUID `bun:",pk"`
	RequireTwoFactor     bool
	SessionLifetimeHours int64
	IdleTimeoutMinutes   int64
	UpdatedAt            time.Time
}

// memberPolicyRow is a membership with its organization's policy, whose
// columns are NULL when the organization has not set one.
type memberPolicyRow struct {
	RequireTwoFactor     *bool  `bun:"require_two_factor"`
	SessionLifetimeHours *int64 `bun:"session_lifetime_hours"`
	IdleTimeoutMinutes   *int64 `bun:"idle_timeout_minutes"`
}

func (r *memberPolicyRow) policy() account.Policy {
	if r.RequireTwoFactor == nil || r.SessionLifetimeHours == nil || r.IdleTimeoutMinutes == nil {
		return account.DefaultPolicy()
	}
	return account.Policy{
		RequireTwoFactor: *r.RequireTwoFactor,
		SessionLifetime:  time.Duration(*r.SessionLifetimeHours) * time.Hour,
		IdleTimeout:      time.Duration(*r.IdleTimeoutMinutes) * time.Minute,
	}
}

// sessionRow is a row of user_sessions; the scan-only columns are read from
// users and user_totp by SessionByTokenHash.
type sessionRow struct {
	bun.BaseModel `bun:"table:user_sessions,alias:s"`

	ID              uuid.UUID `bun:",pk"`
	TokenHash       string
	UserID          uuid.UUID
	TwoFactorPassed bool
	IP              string `bun:"ip"`
	UserAgent       string
	CreatedAt       time.Time
	LastSeenAt      time.Time
	ExpiresAt       time.Time

	UserEmail        string    `bun:",scanonly"`
	UserPasswordHash string    `bun:",scanonly"`
	UserCreatedAt    time.Time `bun:",scanonly"`
	UserUpdatedAt    time.Time `bun:",scanonly"`
	TwoFactorEnabled bool      `bun:",scanonly"`
}

func fromSession(s *account.Session) *sessionRow {
	return &sessionRow{
		ID: s.ID, TokenHash: s.TokenHash, UserID: s.UserID, TwoFactorPassed: s.TwoFactorPassed,
		IP: s.IP, UserAgent: s.UserAgent,
		CreatedAt: utc(s.CreatedAt), LastSeenAt: utc(s.LastSeenAt), ExpiresAt: utc(s.ExpiresAt),
	}
}

func toSession(r *sessionRow) account.Session {
	return account.Session{
		ID: r.ID, UserID: r.UserID, TokenHash: r.TokenHash, TwoFactorPassed: r.TwoFactorPassed,
		IP: r.IP, UserAgent: r.UserAgent,
		CreatedAt: utc(r.CreatedAt), LastSeenAt: utc(r.LastSeenAt), ExpiresAt: utc(r.ExpiresAt),
	}
}

// pendingRow is a row of pending_sign_ins.
type pendingRow struct {
	bun.BaseModel `bun:"table:pending_sign_ins,alias:ps"`

	TokenHash string `bun:",pk"`
	UserID    uuid.UUID
	IP        string `bun:"ip"`
	UserAgent string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// totpRow is a row of user_totp.
type totpRow struct {
	bun.BaseModel `bun:"table:user_totp,alias:t"`

	UserID    uuid.UUID `bun:",pk"`
	Secret    string
	LastStep  int64
	EnabledAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// backupCodeRow is a row of user_backup_codes.
type backupCodeRow struct {
	bun.BaseModel `bun:"table:user_backup_codes,alias:b"`

	UserID    uuid.UUID `bun:",pk"`
	CodeHash  string    `bun:",pk"`
	UsedAt    *time.Time
	CreatedAt time.Time
}

// UserByID implements account.Store.
func (s *Store) UserByID(ctx context.Context, id uuid.UUID) (*identity.User, error) {
	var row userRow
	if err := s.db.NewSelect().Model(&row).Where("u.id = ?", id).Scan(ctx); err != nil {
		return nil, s.err("user by id", err)
	}
	u := toUser(&row)
	return &u, nil
}

// UpdatePassword implements account.Store.
func (s *Store) UpdatePassword(ctx context.Context, userID uuid.UUID, hash string, at time.Time) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*userRow)(nil)).
			Set("password_hash = ?", hash).Set("updated_at = ?", utc(at)).
			Where("id = ?", userID).Exec(ctx)
		if err := oneRow(res, err); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*sessionRow)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewDelete().Model((*pendingRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
		return err
	})
	return s.err("update password", err)
}

// UserMemberships implements account.Store.
func (s *Store) UserMemberships(ctx context.Context, userID uuid.UUID) ([]account.Membership, error) {
	var rows []struct {
		OrgID   uuid.UUID `bun:"org_id"`
		OrgName string    `bun:"org_name"`
		Role    string    `bun:"role"`
	}
	err := s.db.NewSelect().TableExpr("memberships AS m").
		ColumnExpr("m.org_id, o.name AS org_name, m.role").
		Join("JOIN organizations AS o ON o.id = m.org_id").
		Where("m.user_id = ?", userID).
		OrderExpr("o.name, m.org_id").
		Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("user memberships", err)
	}
	out := make([]account.Membership, len(rows))
	for i, r := range rows {
		out[i] = account.Membership{OrgID: r.OrgID, OrgName: r.OrgName, Role: auth.Role(r.Role)}
	}
	return out, nil
}

// UserPolicies implements account.Store.
func (s *Store) UserPolicies(ctx context.Context, userID uuid.UUID) ([]account.Policy, error) {
	var rows []memberPolicyRow
	err := s.db.NewSelect().TableExpr("memberships AS m").
		ColumnExpr("p.require_two_factor, p.session_lifetime_hours, p.idle_timeout_minutes").
		Join("LEFT JOIN org_security_policies AS p ON p.org_id = m.org_id").
		Where("m.user_id = ?", userID).
		Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("user policies", err)
	}
	out := make([]account.Policy, len(rows))
	for i := range rows {
		out[i] = rows[i].policy()
	}
	return out, nil
}

// OrgSecurityPolicy implements account.Store.
func (s *Store) OrgSecurityPolicy(ctx context.Context, orgID uuid.UUID) (account.Policy, error) {
	var row memberPolicyRow
	err := s.db.NewSelect().TableExpr("organizations AS o").
		ColumnExpr("p.require_two_factor, p.session_lifetime_hours, p.idle_timeout_minutes").
		Join("LEFT JOIN org_security_policies AS p ON p.org_id = o.id").
		Where("o.id = ?", orgID).
		Scan(ctx, &row)
	if err != nil {
		return account.Policy{}, s.err("org security policy", err)
	}
	return row.policy(), nil
}

// SetOrgSecurityPolicy implements account.Store.
func (s *Store) SetOrgSecurityPolicy(ctx context.Context, orgID uuid.UUID, p account.Policy, at time.Time) error {
	row := &orgPolicyRow{
		OrgID:                orgID,
		RequireTwoFactor:     p.RequireTwoFactor,
		SessionLifetimeHours: int64(p.SessionLifetime / time.Hour),
		IdleTimeoutMinutes:   int64(p.IdleTimeout / time.Minute),
		UpdatedAt:            utc(at),
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		exists, err := tx.NewSelect().TableExpr("organizations").Where("id = ?", orgID).Exists(ctx)
		if err != nil {
			return err
		}
		if !exists {
			return sql.ErrNoRows
		}
		_, err = tx.NewInsert().Model(row).
			On("CONFLICT (org_id) DO UPDATE").
			Set("require_two_factor = EXCLUDED.require_two_factor").
			Set("session_lifetime_hours = EXCLUDED.session_lifetime_hours").
			Set("idle_timeout_minutes = EXCLUDED.idle_timeout_minutes").
			Set("updated_at = EXCLUDED.updated_at").
			Exec(ctx)
		return err
	})
	return s.err("set org security policy", err)
}

// CreateSession implements account.Store.
func (s *Store) CreateSession(ctx context.Context, sess *account.Session, replaces string) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if replaces != "" {
			if _, err := tx.NewDelete().Model((*sessionRow)(nil)).Where("token_hash = ?", replaces).Exec(ctx); err != nil {
				return err
			}
		}
		_, err := tx.NewInsert().Model(fromSession(sess)).Exec(ctx)
		return err
	})
	return s.err("create session", err)
}

// SessionByTokenHash implements account.Store.
func (s *Store) SessionByTokenHash(ctx context.Context, hash string) (*account.SessionUser, error) {
	var row sessionRow
	err := s.db.NewSelect().Model(&row).
		ColumnExpr("s.*").
		ColumnExpr("u.email AS user_email, u.password_hash AS user_password_hash").
		ColumnExpr("u.created_at AS user_created_at, u.updated_at AS user_updated_at").
		ColumnExpr("EXISTS (SELECT 1 FROM user_totp AS t WHERE t.user_id = s.user_id AND t.enabled_at IS NOT NULL) AS two_factor_enabled").
		Join("JOIN users AS u ON u.id = s.user_id").
		Where("s.token_hash = ?", hash).
		Scan(ctx)
	if err != nil {
		return nil, s.err("session by token hash", err)
	}
	return &account.SessionUser{
		Session: toSession(&row),
		User: identity.User{
			ID: row.UserID, Email: row.UserEmail, PasswordHash: row.UserPasswordHash,
			CreatedAt: utc(row.UserCreatedAt), UpdatedAt: utc(row.UserUpdatedAt),
		},
		TwoFactorEnabled: row.TwoFactorEnabled,
	}, nil
}

// TouchSession implements account.Store.
func (s *Store) TouchSession(ctx context.Context, id uuid.UUID, at time.Time) error {
	_, err := s.db.NewUpdate().Model((*sessionRow)(nil)).
		Set("last_seen_at = ?", utc(at)).
		Where("id = ? AND last_seen_at < ?", id, utc(at)).Exec(ctx)
	return s.err("touch session", err)
}

// DeleteSession implements account.Store.
func (s *Store) DeleteSession(ctx context.Context, userID, id uuid.UUID) error {
	res, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	return s.err("delete session", oneRow(res, err))
}

// DeleteSessionByTokenHash implements account.Store.
func (s *Store) DeleteSessionByTokenHash(ctx context.Context, hash string) error {
	_, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("token_hash = ?", hash).Exec(ctx)
	return s.err("delete session by token hash", err)
}

// DeleteUserSessions implements account.Store.
func (s *Store) DeleteUserSessions(ctx context.Context, userID uuid.UUID) error {
	_, err := s.db.NewDelete().Model((*sessionRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
	return s.err("delete user sessions", err)
}

// ListSessions implements account.Store.
func (s *Store) ListSessions(ctx context.Context, userID uuid.UUID, now time.Time) ([]account.Session, error) {
	var rows []sessionRow
	err := s.db.NewSelect().Model(&rows).
		Where("s.user_id = ? AND s.expires_at > ?", userID, utc(now)).
		OrderExpr("s.last_seen_at DESC, s.id DESC").
		Scan(ctx)
	if err != nil {
		return nil, s.err("list sessions", err)
	}
	out := make([]account.Session, len(rows))
	for i := range rows {
		out[i] = toSession(&rows[i])
	}
	return out, nil
}

// DeleteExpired implements account.Store.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for _, model := range []any{(*sessionRow)(nil), (*pendingRow)(nil)} {
		res, err := s.db.NewDelete().Model(model).Where("expires_at <= ?", utc(now)).Exec(ctx)
		if err != nil {
			return total, s.err("delete expired", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, s.err("delete expired", err)
		}
		total += int(n)
	}
	return total, nil
}

// CreatePendingSignIn implements account.Store.
func (s *Store) CreatePendingSignIn(ctx context.Context, p *account.PendingSignIn) error {
	row := &pendingRow{TokenHash: p.TokenHash, UserID: p.UserID, IP: p.IP, UserAgent: p.UserAgent,
		CreatedAt: utc(p.CreatedAt), ExpiresAt: utc(p.ExpiresAt)}
	_, err := s.db.NewInsert().Model(row).Exec(ctx)
	return s.err("create pending sign-in", err)
}

// PendingSignInByTokenHash implements account.Store.
func (s *Store) PendingSignInByTokenHash(ctx context.Context, hash string) (*account.PendingSignIn, error) {
	var row pendingRow
	if err := s.db.NewSelect().Model(&row).Where("ps.token_hash = ?", hash).Scan(ctx); err != nil {
		return nil, s.err("pending sign-in", err)
	}
	return &account.PendingSignIn{TokenHash: row.TokenHash, UserID: row.UserID, IP: row.IP, UserAgent: row.UserAgent,
		CreatedAt: utc(row.CreatedAt), ExpiresAt: utc(row.ExpiresAt)}, nil
}

// DeletePendingSignIn implements account.Store.
func (s *Store) DeletePendingSignIn(ctx context.Context, hash string) error {
	res, err := s.db.NewDelete().Model((*pendingRow)(nil)).Where("token_hash = ?", hash).Exec(ctx)
	return s.err("delete pending sign-in", oneRow(res, err))
}

// TOTP implements account.Store.
func (s *Store) TOTP(ctx context.Context, userID uuid.UUID) (*account.TOTP, error) {
	var row totpRow
	if err := s.db.NewSelect().Model(&row).Where("t.user_id = ?", userID).Scan(ctx); err != nil {
		return nil, s.err("totp", err)
	}
	return &account.TOTP{UserID: row.UserID, SealedSecret: row.Secret, LastStep: row.LastStep,
		EnabledAt: utcPtr(row.EnabledAt), CreatedAt: utc(row.CreatedAt), UpdatedAt: utc(row.UpdatedAt)}, nil
}

// errEnabled stops StartTOTP's transaction when two-factor is on.
var errEnabled = errors.New("two-factor authentication is enabled")

// StartTOTP implements account.Store.
func (s *Store) StartTOTP(ctx context.Context, t *account.TOTP) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		enabled, err := tx.NewSelect().Model((*totpRow)(nil)).
			Where("t.user_id = ? AND t.enabled_at IS NOT NULL", t.UserID).Exists(ctx)
		if err != nil {
			return err
		}
		if enabled {
			return errEnabled
		}
		if _, err := tx.NewDelete().Model((*totpRow)(nil)).Where("user_id = ?", t.UserID).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&totpRow{UserID: t.UserID, Secret: t.SealedSecret, LastStep: t.LastStep,
			CreatedAt: utc(t.CreatedAt), UpdatedAt: utc(t.UpdatedAt)}).Exec(ctx)
		return err
	})
	if errors.Is(err, errEnabled) {
		return fmt.Errorf("store: start totp: %w: %w", errcode.ErrConflict, err)
	}
	return s.err("start totp", err)
}

// EnableTOTP implements account.Store.
func (s *Store) EnableTOTP(ctx context.Context, userID uuid.UUID, step int64, at time.Time, backupHashes []string) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*totpRow)(nil)).
			Set("enabled_at = ?", utc(at)).Set("last_step = ?", step).Set("updated_at = ?", utc(at)).
			Where("user_id = ? AND enabled_at IS NULL", userID).Exec(ctx)
		if err := oneRow(res, err); err != nil {
			return err
		}
		return replaceBackupCodes(ctx, tx, userID, backupHashes, at)
	})
	return s.err("enable totp", err)
}

// UseTOTPStep implements account.Store.
func (s *Store) UseTOTPStep(ctx context.Context, userID uuid.UUID, step int64, at time.Time) error {
	res, err := s.db.NewUpdate().Model((*totpRow)(nil)).
		Set("last_step = ?", step).Set("updated_at = ?", utc(at)).
		Where("user_id = ? AND enabled_at IS NOT NULL AND last_step < ?", userID, step).Exec(ctx)
	return s.err("use totp step", oneRow(res, err))
}

// DeleteTOTP implements account.Store.
func (s *Store) DeleteTOTP(ctx context.Context, userID uuid.UUID) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*totpRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
		if err := oneRow(res, err); err != nil {
			return err
		}
		_, err = tx.NewDelete().Model((*backupCodeRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
		return err
	})
	return s.err("delete totp", err)
}

// UnusedBackupCodes implements account.Store.
func (s *Store) UnusedBackupCodes(ctx context.Context, userID uuid.UUID) ([]string, error) {
	var hashes []string
	err := s.db.NewSelect().Model((*backupCodeRow)(nil)).Column("code_hash").
		Where("b.user_id = ? AND b.used_at IS NULL", userID).
		OrderExpr("b.code_hash").
		Scan(ctx, &hashes)
	if err != nil {
		return nil, s.err("unused backup codes", err)
	}
	return hashes, nil
}

// UseBackupCode implements account.Store.
func (s *Store) UseBackupCode(ctx context.Context, userID uuid.UUID, hash string, at time.Time) error {
	res, err := s.db.NewUpdate().Model((*backupCodeRow)(nil)).
		Set("used_at = ?", utc(at)).
		Where("user_id = ? AND code_hash = ? AND used_at IS NULL", userID, hash).Exec(ctx)
	return s.err("use backup code", oneRow(res, err))
}

// ReplaceBackupCodes implements account.Store.
func (s *Store) ReplaceBackupCodes(ctx context.Context, userID uuid.UUID, hashes []string, at time.Time) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return replaceBackupCodes(ctx, tx, userID, hashes, at)
	})
	return s.err("replace backup codes", err)
}

func replaceBackupCodes(ctx context.Context, tx bun.Tx, userID uuid.UUID, hashes []string, at time.Time) error {
	if _, err := tx.NewDelete().Model((*backupCodeRow)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return err
	}
	if len(hashes) == 0 {
		return nil
	}
	rows := make([]backupCodeRow, len(hashes))
	for i, h := range hashes {
		rows[i] = backupCodeRow{UserID: userID, CodeHash: h, CreatedAt: utc(at)}
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}
