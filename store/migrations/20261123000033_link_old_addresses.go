package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Old addresses of moved links (SPEC.md, GET /links/resolve/{slug} rule 4,
// domain rule 8 and the link move choice). The row type below is frozen as
// of this migration.
//
// An old address is a domain and slug, stored as links store theirs
// (normalized domain, lowercase slug), where a link was served before it
// moved: it now redirects (301) to the link's current address. The primary
// key (domain, slug) keeps one address to one link. An old address lives as
// long as its link: deleting the link deletes it (ON DELETE CASCADE on
// link_id), which frees the address for a new link. began_at is when the
// address began to redirect (the Link resource's redirected_from.since).

type linkOldAddress struct {
	bun.BaseModel `bun:"table:link_old_addresses"`

	Domain  string    `bun:"domain,pk"`
	Slug    string    `bun:"slug,pk"`
	LinkID  uuid.UUID `bun:"link_id,notnull,type:uuid"`
	OrgID   uuid.UUID `bun:"org_id,notnull,type:uuid"`
	BeganAt time.Time `bun:"began_at,notnull"`
}

func init() {
	Migrations.MustRegister(linkOldAddressesUp, linkOldAddressesDown)
}

func linkOldAddressesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewCreateTable().Model((*linkOldAddress)(nil)).
			ForeignKey(linkCascade).ForeignKey(orgCascade).Exec(ctx)
		if err != nil {
			return err
		}
		// A link's old addresses, oldest first (redirected_from), and the
		// cascade when the link goes.
		_, err = tx.NewCreateIndex().Model((*linkOldAddress)(nil)).Index("link_old_addresses_link_id_began_at_idx").
			Column("link_id", "began_at").Exec(ctx)
		if err != nil {
			return err
		}
		// The cascade when the organization goes.
		_, err = tx.NewCreateIndex().Model((*linkOldAddress)(nil)).Index("link_old_addresses_org_id_idx").
			Column("org_id").Exec(ctx)
		return err
	})
}

func linkOldAddressesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*linkOldAddress)(nil)).IfExists().Exec(ctx)
		return err
	})
}
