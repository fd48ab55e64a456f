package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Links, and the organizations' parameter defaults. The row types below are
// frozen as of this migration.
//
// A slug is unique on its domain (SPEC.md, domain rule 8) through the unique
// index links_domain_slug_key: concurrent creates of one slug on one domain
// are decided by the database, not by a read before the write. Slugs and
// domains are stored lowercase, so the index compares them exactly.
//
// tags holds a JSON array of strings and parameters a LinkParamConfig as JSON
// (NULL when the link inherits its organization's defaults), as text on both
// databases. created_by has no foreign key: a link keeps the id of the member
// who created it after that member leaves.

type link struct {
	bun.BaseModel `bun:"table:links"`

	ID                 uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID              uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	AppID              *uuid.UUID `bun:"app_id,type:uuid"`
	Domain             string     `bun:"domain,notnull"`
	Slug               string     `bun:"slug,notnull"`
	Name               *string    `bun:"name"`
	DestinationURL     string     `bun:"destination_url,notnull"`
	IOSURL             *string    `bun:"ios_url"`
	IOSFallbackURL     *string    `bun:"ios_fallback_url"`
	AndroidURL         *string    `bun:"android_url"`
	AndroidFallbackURL *string    `bun:"android_fallback_url"`
	OGTitle            *string    `bun:"og_title"`
	OGDescription      *string    `bun:"og_description"`
	OGImageURL         *string    `bun:"og_image_url"`
	UTMSource          *string    `bun:"utm_source"`
	UTMMedium          *string    `bun:"utm_medium"`
	UTMCampaign        *string    `bun:"utm_campaign"`
	MatchWindowHours   *int64     `bun:"match_window_hours"`
	ExpiresAt          *time.Time `bun:"expires_at"`
	IsActive           bool       `bun:"is_active,notnull"`
	Tags               string     `bun:"tags,notnull,type:text"`
	Parameters         *string    `bun:"parameters,type:text"`
	PasswordHash       *string    `bun:"password_hash"`
	CreatedBy          *uuid.UUID `bun:"created_by,type:uuid"`
	CreatedAt          time.Time  `bun:"created_at,notnull"`
	UpdatedAt          time.Time  `bun:"updated_at,notnull"`
}

// organizationParameters is the column this migration adds to organizations.
type organizationParameters struct {
	bun.BaseModel `bun:"table:organizations"`
}

func init() {
	Migrations.MustRegister(linksUp, linksDown)
}

const appSetNull = `("app_id") REFERENCES "apps" ("id") ON DELETE SET NULL`

func linksUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*link)(nil)).ForeignKey(orgCascade).ForeignKey(appSetNull).Exec(ctx); err != nil {
			return err
		}
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*link)(nil)).Index("links_domain_slug_key").Unique().Column("domain", "slug"),
			// The list (newest first), the monthly count and the cascade.
			tx.NewCreateIndex().Model((*link)(nil)).Index("links_org_id_created_at_id_idx").Column("org_id", "created_at", "id"),
			// ON DELETE SET NULL when an app goes.
			tx.NewCreateIndex().Model((*link)(nil)).Index("links_app_id_idx").Column("app_id"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		_, err := tx.NewAddColumn().Model((*organizationParameters)(nil)).ColumnExpr("parameters text").Exec(ctx)
		return err
	})
}

func linksDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropTable().Model((*link)(nil)).IfExists().Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDropColumn().Model((*organizationParameters)(nil)).Column("parameters").Exec(ctx)
		return err
	})
}
