package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The unique (org_id, tap_id) index of clicks becomes partial, WHERE tap_id
// IS NOT NULL. Only SDK resolves carry a tap id; every redirect click added
// an entry with a NULL tap id that no lookup reads and no constraint needs
// (NULLs never collide). Writing clicks is the redirect's hot path, so one
// index entry fewer per redirect counts. ON CONFLICT DO NOTHING without a
// conflict target still skips a repeated tap on both databases.

const (
	clicksTapIndex = "clicks_org_id_tap_id_key"
	// tapIndexPredicate is the partial index's condition.
	tapIndexPredicate = "tap_id IS NOT NULL"
)

func init() {
	Migrations.MustRegister(clicksTapIndexUp, clicksTapIndexDown)
}

func clicksTapIndexUp(ctx context.Context, db *bun.DB) error {
	return replaceTapIndex(ctx, db, tapIndexPredicate)
}

func clicksTapIndexDown(ctx context.Context, db *bun.DB) error {
	return replaceTapIndex(ctx, db, "")
}

// replaceTapIndex recreates the tap index, partial when where is not empty.
func replaceTapIndex(ctx context.Context, db *bun.DB, where string) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropIndex().Index(clicksTapIndex).IfExists().Exec(ctx); err != nil {
			return err
		}
		q := tx.NewCreateIndex().Table("clicks").Index(clicksTapIndex).Unique().Column("org_id", "tap_id")
		if where != "" {
			q = q.Where(where)
		}
		_, err := q.Exec(ctx)
		return err
	})
}
