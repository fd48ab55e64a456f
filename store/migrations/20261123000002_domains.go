package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Custom domains. The row type below is frozen as of this migration.
//
// A domain belongs to its organization (ON DELETE CASCADE). An organization
// has a name once (domains_org_id_domain_key, DUPLICATE_DOMAIN), and a name
// is verified by one organization at most: a partial unique index over the
// verified rows (domains_verified_domain_key) decides between concurrent
// verifications, while any number of organizations may hold the name
// unverified. suspended_at is set while the organization's plan has no
// custom domains.

type domainV1 struct {
	bun.BaseModel `bun:"table:domains"`

	ID                uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID             uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	Domain            string     `bun:"domain,notnull"`
	Verified          bool       `bun:"verified,notnull"`
	VerificationToken string     `bun:"verification_token,notnull"`
	VerifiedAt        *time.Time `bun:"verified_at"`
	SuspendedAt       *time.Time `bun:"suspended_at"`
	CreatedAt         time.Time  `bun:"created_at,notnull"`
	UpdatedAt         time.Time  `bun:"updated_at,notnull"`
}

func init() {
	Migrations.MustRegister(domainsUp, domainsDown)
}

func domainsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*domainV1)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*domainV1)(nil)).Index("domains_org_id_domain_key").Unique().Column("org_id", "domain"),
			tx.NewCreateIndex().Model((*domainV1)(nil)).Index("domains_verified_domain_key").Unique().Column("domain").
				Where("verified = ?", true),
			// The link-domain handler's and the TLS question's lookup by name.
			tx.NewCreateIndex().Model((*domainV1)(nil)).Index("domains_domain_idx").Column("domain"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func domainsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*domainV1)(nil)).IfExists().Exec(ctx)
		return err
	})
}
