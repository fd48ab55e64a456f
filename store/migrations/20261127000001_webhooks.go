package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Webhooks (issue 19; package webhook). The row types below are frozen as
// of this migration.
//
// webhooks holds an organization's endpoints. events, link_ids and app_ids
// are JSON arrays; secret and previous_secret are the signing secrets
// sealed by the webhook service (never a hash: the worker signs with them),
// previous_secret signing until previous_secret_until after a rotation.
// failing_since and disabled_at track an endpoint that keeps failing.
//
// webhook_events is the outbox: one row per event some endpoint subscribed
// to, holding the request body, written in the transaction of the change
// that caused it. webhook_deliveries holds one row per event and endpoint:
// its state, attempts and the lease (lease_id, lease_until) under which one
// worker sends it. Both go with their organization, a delivery with its
// endpoint and its event (ON DELETE CASCADE).
//
// Indexes: deliveries by (status, next_attempt_at), what workers claim by;
// by (webhook_id, created_at, id), the deliveries list; by event_id, for
// the cascade; endpoints and events by org_id.

type webhookRow struct {
	bun.BaseModel `bun:"table:webhooks"`

	ID                  uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID               uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	URL                 string     `bun:"url,notnull"`
	Description         string     `bun:"description,notnull"`
	Events              string     `bun:"events,notnull,type:text"`
	LinkIDs             string     `bun:"link_ids,notnull,type:text"`
	AppIDs              string     `bun:"app_ids,notnull,type:text"`
	Secret              string     `bun:"secret,notnull"`
	PreviousSecret      string     `bun:"previous_secret,notnull"`
	PreviousSecretUntil *time.Time `bun:"previous_secret_until"`
	FailingSince        *time.Time `bun:"failing_since"`
	DisabledAt          *time.Time `bun:"disabled_at"`
	CreatedAt           time.Time  `bun:"created_at,notnull"`
	UpdatedAt           time.Time  `bun:"updated_at,notnull"`
}

type webhookEventRow struct {
	bun.BaseModel `bun:"table:webhook_events"`

	ID         uuid.UUID `bun:"id,pk,type:uuid"`
	OrgID      uuid.UUID `bun:"org_id,notnull,type:uuid"`
	Type       string    `bun:"type,notnull"`
	OccurredAt time.Time `bun:"occurred_at,notnull"`
	Body       string    `bun:"body,notnull,type:text"`
}

type webhookDeliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID          uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	WebhookID      uuid.UUID  `bun:"webhook_id,notnull,type:uuid"`
	EventID        uuid.UUID  `bun:"event_id,notnull,type:uuid"`
	EventType      string     `bun:"event_type,notnull"`
	Status         string     `bun:"status,notnull"`
	Attempts       int        `bun:"attempts,notnull"`
	NextAttemptAt  *time.Time `bun:"next_attempt_at"`
	LeaseID        *uuid.UUID `bun:"lease_id,type:uuid"`
	LeaseUntil     *time.Time `bun:"lease_until"`
	LastAttemptAt  *time.Time `bun:"last_attempt_at"`
	LastStatusCode *int       `bun:"last_status_code"`
	LastResponseMS *int       `bun:"last_response_ms"`
	LastError      string     `bun:"last_error,notnull"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
	UpdatedAt      time.Time  `bun:"updated_at,notnull"`
}

func init() {
	Migrations.MustRegister(webhooksUp, webhooksDown)
}

func webhooksUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*webhookRow)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateTable().Model((*webhookEventRow)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewCreateTable().Model((*webhookDeliveryRow)(nil)).ForeignKey(orgCascade).
			ForeignKey(`("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE`).
			ForeignKey(`("event_id") REFERENCES "webhook_events" ("id") ON DELETE CASCADE`).Exec(ctx)
		if err != nil {
			return err
		}
		indexes := []struct {
			model   any
			name    string
			columns []string
		}{
			{(*webhookRow)(nil), "webhooks_org_id_idx", []string{"org_id"}},
			{(*webhookEventRow)(nil), "webhook_events_org_id_idx", []string{"org_id"}},
			{(*webhookDeliveryRow)(nil), "webhook_deliveries_due_idx", []string{"status", "next_attempt_at"}},
			{(*webhookDeliveryRow)(nil), "webhook_deliveries_webhook_idx", []string{"webhook_id", "created_at", "id"}},
			{(*webhookDeliveryRow)(nil), "webhook_deliveries_event_id_idx", []string{"event_id"}},
			{(*webhookDeliveryRow)(nil), "webhook_deliveries_org_id_idx", []string{"org_id"}},
		}
		for _, ix := range indexes {
			if _, err := tx.NewCreateIndex().Model(ix.model).Index(ix.name).Column(ix.columns...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func webhooksDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, m := range []any{(*webhookDeliveryRow)(nil), (*webhookEventRow)(nil), (*webhookRow)(nil)} {
			if _, err := tx.NewDropTable().Model(m).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
