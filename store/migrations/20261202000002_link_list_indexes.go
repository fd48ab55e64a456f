package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The dashboard's link list (issue 21) orders an organization's links by
// slug or by last change, and keeps the active or the paused ones. Only
// the newest-first order had an index (links_org_id_created_at_id_idx):
// the others sorted or filtered every link of the organization on each
// page, hundreds of milliseconds at 100,000 links. These indexes let a
// page read its 20 rows in order, and the state filter count its links
// from the index.

// linkListIndexes are the indexes, each with its columns.
var linkListIndexes = []struct {
	name    string
	columns []string
}{
	{"links_org_id_slug_domain_id_idx", []string{"org_id", "slug", "domain", "id"}},
	{"links_org_id_updated_at_id_idx", []string{"org_id", "updated_at", "id"}},
	{"links_org_id_is_active_created_at_id_idx", []string{"org_id", "is_active", "created_at", "id"}},
}

func init() {
	Migrations.MustRegister(linkListIndexesUp, linkListIndexesDown)
}

func linkListIndexesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range linkListIndexes {
			if _, err := tx.NewCreateIndex().Table("links").Index(ix.name).Column(ix.columns...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func linkListIndexesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range linkListIndexes {
			if _, err := tx.NewDropIndex().Index(ix.name).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
