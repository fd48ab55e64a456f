package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Accounts: organizations' security policies, dashboard sessions, sign-ins
// waiting for their second factor, authenticator secrets and backup codes.
// The row types below are frozen as of this migration.
//
// Tokens and backup codes are stored only as hex SHA-256 hashes; the TOTP
// secret is stored encrypted (AES-GCM under a key derived from the server
// secret, see package account). Every row belongs to a user or an
// organization and goes with it (ON DELETE CASCADE).

type orgSecurityPolicy struct {
	bun.BaseModel `bun:"table:org_security_policies"`

	OrgID                uuid.UUID `bun:"org_id,pk,type:uuid"`
	RequireTwoFactor     bool      `bun:"require_two_factor,notnull"`
	SessionLifetimeHours int64     `bun:"session_lifetime_hours,notnull"`
	IdleTimeoutMinutes   int64     `bun:"idle_timeout_minutes,notnull"`
	UpdatedAt            time.Time `bun:"updated_at,notnull"`
}

type userSession struct {
	bun.BaseModel `bun:"table:user_sessions"`

	ID              uuid.UUID `bun:"id,pk,type:uuid"`
	TokenHash       string    `bun:"token_hash,notnull,unique"`
	UserID          uuid.UUID `bun:"user_id,notnull,type:uuid"`
	TwoFactorPassed bool      `bun:"two_factor_passed,notnull"`
	IP              string    `bun:"ip,notnull"`
	UserAgent       string    `bun:"user_agent,notnull"`
	CreatedAt       time.Time `bun:"created_at,notnull"`
	LastSeenAt      time.Time `bun:"last_seen_at,notnull"`
	ExpiresAt       time.Time `bun:"expires_at,notnull"`
}

type pendingSignIn struct {
	bun.BaseModel `bun:"table:pending_sign_ins"`

	TokenHash string    `bun:"token_hash,pk"`
	UserID    uuid.UUID `bun:"user_id,notnull,type:uuid"`
	IP        string    `bun:"ip,notnull"`
	UserAgent string    `bun:"user_agent,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}

type userTOTP struct {
	bun.BaseModel `bun:"table:user_totp"`

	UserID    uuid.UUID  `bun:"user_id,pk,type:uuid"`
	Secret    string     `bun:"secret,notnull"`
	LastStep  int64      `bun:"last_step,notnull"`
	EnabledAt *time.Time `bun:"enabled_at"`
	CreatedAt time.Time  `bun:"created_at,notnull"`
	UpdatedAt time.Time  `bun:"updated_at,notnull"`
}

type userBackupCode struct {
	bun.BaseModel `bun:"table:user_backup_codes"`

	UserID    uuid.UUID  `bun:"user_id,pk,type:uuid"`
	CodeHash  string     `bun:"code_hash,pk"`
	UsedAt    *time.Time `bun:"used_at"`
	CreatedAt time.Time  `bun:"created_at,notnull"`
}

func init() {
	Migrations.MustRegister(accountsUp, accountsDown)
}

func accountsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		tables := []*bun.CreateTableQuery{
			tx.NewCreateTable().Model((*orgSecurityPolicy)(nil)).ForeignKey(orgCascade),
			tx.NewCreateTable().Model((*userSession)(nil)).ForeignKey(userCascade),
			tx.NewCreateTable().Model((*pendingSignIn)(nil)).ForeignKey(userCascade),
			tx.NewCreateTable().Model((*userTOTP)(nil)).ForeignKey(userCascade),
			tx.NewCreateTable().Model((*userBackupCode)(nil)).ForeignKey(userCascade),
		}
		for _, q := range tables {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		indexes := []*bun.CreateIndexQuery{
			// A user's sessions (the account page, revoke all) and the cascade.
			tx.NewCreateIndex().Model((*userSession)(nil)).Index("user_sessions_user_id_idx").Column("user_id"),
			// The purge of expired rows.
			tx.NewCreateIndex().Model((*userSession)(nil)).Index("user_sessions_expires_at_idx").Column("expires_at"),
			tx.NewCreateIndex().Model((*pendingSignIn)(nil)).Index("pending_sign_ins_user_id_idx").Column("user_id"),
			tx.NewCreateIndex().Model((*pendingSignIn)(nil)).Index("pending_sign_ins_expires_at_idx").Column("expires_at"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func accountsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, model := range []any{(*userBackupCode)(nil), (*userTOTP)(nil), (*pendingSignIn)(nil), (*userSession)(nil), (*orgSecurityPolicy)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
