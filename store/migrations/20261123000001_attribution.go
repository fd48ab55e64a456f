package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Installs and attribution attempts (issue 5). The row types below are
// frozen as of this migration.
//
// An install belongs to its organization (ON DELETE CASCADE); its app,
// link and click become NULL when they go (a deleted link deletes its
// clicks), and the install stays. The unique index on installs.click_id
// lets one install only hold a click: of concurrent claims of one click
// exactly one insert succeeds. NULL click ids never collide on either
// database. The claim also sets clicks.claimed_by_install (created with the
// clicks) on the claimed click and the same device's session.
//
// Indexes: (org_id, installed_at, id) for the newest-first list;
// (org_id, device_id, installed_at) for replay and reinstall lookups by
// device id; (app_id, fingerprint, installed_at) for replay by fingerprint;
// (org_id, created_at, id) for the attempts list. payload holds the routing
// answer as JSON, never returned by the lists. An attempt's signals are the
// decisive signals' names joined by commas.

type install struct {
	bun.BaseModel `bun:"table:installs"`

	ID              uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID           uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	AppID           *uuid.UUID `bun:"app_id,type:uuid"`
	LinkID          *uuid.UUID `bun:"link_id,type:uuid"`
	ClickID         *uuid.UUID `bun:"click_id,type:uuid"`
	MatchType       string     `bun:"match_type,notnull"`
	MatchConfidence float64    `bun:"match_confidence,notnull"`
	MatchGuaranteed bool       `bun:"match_guaranteed,notnull"`
	IsReinstall     *bool      `bun:"is_reinstall"`
	InstalledAt     time.Time  `bun:"installed_at,notnull"`
	DeviceID        *uuid.UUID `bun:"device_id,type:uuid"`
	Fingerprint     *string    `bun:"fingerprint"`
	IP              string     `bun:"ip,notnull"`
	Platform        string     `bun:"platform,notnull"`
	Payload         *string    `bun:"payload,type:text"`
}

type attributionAttempt struct {
	bun.BaseModel `bun:"table:attribution_attempts"`

	ID                 uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID              uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	AppID              *uuid.UUID `bun:"app_id,type:uuid"`
	Matched            bool       `bun:"matched,notnull"`
	FailReason         *string    `bun:"fail_reason"`
	MatchSource        *string    `bun:"match_source"`
	MatchType          *string    `bun:"match_type"`
	IPClass            *string    `bun:"ip_class"`
	Platform           string     `bun:"platform,notnull"`
	InstallID          *uuid.UUID `bun:"install_id,type:uuid"`
	CandFound          int        `bun:"cand_found,notnull"`
	CandEligible       int        `bun:"cand_eligible,notnull"`
	CandUnclaimed      int        `bun:"cand_unclaimed,notnull"`
	CandScored         int        `bun:"cand_scored,notnull"`
	TopConfidence      *float64   `bun:"top_confidence"`
	RunnerUpConfidence *float64   `bun:"runner_up_confidence"`
	Signals            string     `bun:"signals,notnull,type:text"`
	CreatedAt          time.Time  `bun:"created_at,notnull"`
}

func init() {
	Migrations.MustRegister(attributionUp, attributionDown)
}

const (
	linkSetNull    = `("link_id") REFERENCES "links" ("id") ON DELETE SET NULL`
	clickSetNull   = `("click_id") REFERENCES "clicks" ("id") ON DELETE SET NULL`
	installSetNull = `("install_id") REFERENCES "installs" ("id") ON DELETE SET NULL`
)

func attributionUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		tables := []*bun.CreateTableQuery{
			tx.NewCreateTable().Model((*install)(nil)).ForeignKey(orgCascade).ForeignKey(appSetNull).
				ForeignKey(linkSetNull).ForeignKey(clickSetNull),
			tx.NewCreateTable().Model((*attributionAttempt)(nil)).ForeignKey(orgCascade).ForeignKey(appSetNull).
				ForeignKey(installSetNull),
		}
		for _, q := range tables {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*install)(nil)).Index("installs_click_id_key").Unique().Column("click_id"),
			tx.NewCreateIndex().Model((*install)(nil)).Index("installs_org_id_installed_at_id_idx").
				Column("org_id", "installed_at", "id"),
			tx.NewCreateIndex().Model((*install)(nil)).Index("installs_org_id_device_id_installed_at_idx").
				Column("org_id", "device_id", "installed_at"),
			tx.NewCreateIndex().Model((*install)(nil)).Index("installs_app_id_fingerprint_installed_at_idx").
				Column("app_id", "fingerprint", "installed_at"),
			tx.NewCreateIndex().Model((*install)(nil)).Index("installs_link_id_idx").Column("link_id"),
			tx.NewCreateIndex().Model((*attributionAttempt)(nil)).Index("attribution_attempts_org_id_created_at_id_idx").
				Column("org_id", "created_at", "id"),
			tx.NewCreateIndex().Model((*attributionAttempt)(nil)).Index("attribution_attempts_install_id_idx").
				Column("install_id"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func attributionDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, model := range []any{(*attributionAttempt)(nil), (*install)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
