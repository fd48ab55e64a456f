package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Clicks and the per-organization monthly click counters. The row types
// below are frozen as of this migration.
//
// A click belongs to its link (ON DELETE CASCADE: deleting a link removes
// its click history, SPEC.md Link states) and to its organization (ON
// DELETE CASCADE, like every organization's row). app_id follows the link's
// own rule: it becomes NULL when the app goes, and the click stays.
//
// Indexes: (link_id, occurred_at) for a link's history and the cascade;
// (org_id, occurred_at) for the organization's analytics and its cascade;
// (app_id, platform, ip_key, occurred_at) for attribution's candidate
// lookup; and the unique (org_id, tap_id), so that one SDK tap records one
// click however often it is retried (SPEC.md, resolve rule 3). NULL tap ids
// never collide on either database.
//
// click_counts holds one row per organization and billing month (the
// period's start, org.PeriodStart), bumped by every batch of clicks, so that
// the allowance check reads one row instead of counting clicks.

type click struct {
	bun.BaseModel `bun:"table:clicks"`

	ID               uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID            uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	LinkID           uuid.UUID  `bun:"link_id,notnull,type:uuid"`
	AppID            *uuid.UUID `bun:"app_id,type:uuid"`
	Domain           string     `bun:"domain,notnull"`
	Slug             string     `bun:"slug,notnull"`
	OccurredAt       time.Time  `bun:"occurred_at,notnull"`
	Source           string     `bun:"source,notnull"`
	Platform         string     `bun:"platform,notnull"`
	OS               string     `bun:"os,notnull"`
	OSVersion        string     `bun:"os_version,notnull"`
	DeviceModel      string     `bun:"device_model,notnull"`
	Browser          string     `bun:"browser,notnull"`
	InAppBrowser     string     `bun:"in_app_browser,notnull"`
	IP               string     `bun:"ip,notnull"`
	IPKey            string     `bun:"ip_key,notnull"`
	UserAgent        string     `bun:"user_agent,notnull"`
	AcceptLanguage   string     `bun:"accept_language,notnull"`
	Referer          string     `bun:"referer,notnull"`
	UTMSource        string     `bun:"utm_source,notnull"`
	UTMMedium        string     `bun:"utm_medium,notnull"`
	UTMCampaign      string     `bun:"utm_campaign,notnull"`
	UTMTerm          string     `bun:"utm_term,notnull"`
	UTMContent       string     `bun:"utm_content,notnull"`
	TapID            *uuid.UUID `bun:"tap_id,type:uuid"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install,type:uuid"`
}

type clickCount struct {
	bun.BaseModel `bun:"table:click_counts"`

	OrgID       uuid.UUID `bun:"org_id,pk,type:uuid"`
	PeriodStart time.Time `bun:"period_start,pk"`
	Count       int64     `bun:"count,notnull"`
}

func init() {
	Migrations.MustRegister(clicksUp, clicksDown)
}

const linkCascade = `("link_id") REFERENCES "links" ("id") ON DELETE CASCADE`

func clicksUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		tables := []*bun.CreateTableQuery{
			tx.NewCreateTable().Model((*click)(nil)).ForeignKey(orgCascade).ForeignKey(linkCascade).ForeignKey(appSetNull),
			tx.NewCreateTable().Model((*clickCount)(nil)).ForeignKey(orgCascade),
		}
		for _, q := range tables {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*click)(nil)).Index("clicks_link_id_occurred_at_idx").Column("link_id", "occurred_at"),
			tx.NewCreateIndex().Model((*click)(nil)).Index("clicks_org_id_occurred_at_idx").Column("org_id", "occurred_at"),
			tx.NewCreateIndex().Model((*click)(nil)).Index("clicks_app_id_platform_ip_key_occurred_at_idx").
				Column("app_id", "platform", "ip_key", "occurred_at"),
			tx.NewCreateIndex().Model((*click)(nil)).Index("clicks_org_id_tap_id_key").Unique().Column("org_id", "tap_id"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func clicksDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, model := range []any{(*clickCount)(nil), (*click)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
