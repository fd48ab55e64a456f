package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Invitations of team members. The row type below is frozen as of this
// migration.
//
// The token is stored twice and never in clear: token_hash (hex SHA-256,
// unique) finds an invitation from the link the invitee follows, and
// token_sealed (AES-GCM under a key derived from the server secret) lets the
// revoke response carry the token as SPEC.md says. An invitation belongs to
// its organization (ON DELETE CASCADE); invited_by is the member whose key
// created it, NULL when the key had no creator or the user is gone.

type invitationV1 struct {
	bun.BaseModel `bun:"table:invitations"`

	ID          uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID       uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	Email       string     `bun:"email,notnull"`
	Role        string     `bun:"role,notnull"`
	InvitedBy   *uuid.UUID `bun:"invited_by,type:uuid"`
	TokenHash   string     `bun:"token_hash,notnull,unique"`
	TokenSealed string     `bun:"token_sealed,notnull"`
	ExpiresAt   time.Time  `bun:"expires_at,notnull"`
	AcceptedAt  *time.Time `bun:"accepted_at"`
	RevokedAt   *time.Time `bun:"revoked_at"`
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	UpdatedAt   time.Time  `bun:"updated_at,notnull"`
}

const invitedBySetNull = `("invited_by") REFERENCES "users" ("id") ON DELETE SET NULL`

func init() {
	Migrations.MustRegister(invitationsUp, invitationsDown)
}

func invitationsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*invitationV1)(nil)).ForeignKey(orgCascade).ForeignKey(invitedBySetNull).Exec(ctx); err != nil {
			return err
		}
		// The list of one organization's invitations and the pending check by email.
		_, err := tx.NewCreateIndex().Model((*invitationV1)(nil)).Index("invitations_org_id_email_idx").Column("org_id", "email").Exec(ctx)
		return err
	})
}

func invitationsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*invitationV1)(nil)).IfExists().Exec(ctx)
		return err
	})
}
