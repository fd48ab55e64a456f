package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The audit log (package audit). The row type below is frozen as of this
// migration.
//
// org_id and actor_id reference nothing on purpose: an event outlives the
// organization, user or key it names, so that "organization deleted" and
// the events before it stay on record for the operator (no API reads the
// events of an organization that no longer exists). org_id is NULL for an
// event that concerns no organization, such as a failed sign-in with an
// unknown email.
//
// Index: (org_id, occurred_at, id), the order GET /v1/audit-events reads
// an organization's events in, newest first.

type auditEvent struct {
	bun.BaseModel `bun:"table:audit_events"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID      *uuid.UUID `bun:"org_id,type:uuid"`
	OccurredAt time.Time  `bun:"occurred_at,notnull"`
	Action     string     `bun:"action,notnull"`
	ActorType  string     `bun:"actor_type,notnull"`
	ActorID    *uuid.UUID `bun:"actor_id,type:uuid"`
	TargetType string     `bun:"target_type,notnull"`
	TargetID   string     `bun:"target_id,notnull"`
	IP         string     `bun:"ip,notnull"`
	UserAgent  string     `bun:"user_agent,notnull"`
	Details    string     `bun:"details,notnull"`
}

func init() {
	Migrations.MustRegister(auditUp, auditDown)
}

func auditUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*auditEvent)(nil)).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewCreateIndex().Model((*auditEvent)(nil)).Index("audit_events_org_id_occurred_at_idx").
			Column("org_id", "occurred_at", "id").Exec(ctx)
		return err
	})
}

func auditDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*auditEvent)(nil)).IfExists().Exec(ctx)
		return err
	})
}
