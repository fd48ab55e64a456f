package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Two lists read more rows than they show (issue 21's page benchmark):
//   - an organization's keys, in (created_at, id) order, read the index on
//     (org_id, created_at) and sorted every key again for the id: the
//     index now ends with id, so the keys stream out in order;
//   - an install's attempts, newest first, were read through the
//     organization's (org_id, created_at, id) index, which gives the order
//     but not the install: SQLite walked every attempt of the organization
//     to find the install's few. The index on install_id now carries the
//     order too, so it serves both.

// listOrderIndexes are the indexes this migration adds, each with the one
// it replaces.
var listOrderIndexes = []struct {
	table, name string
	columns     []string
	old         string
	oldColumns  []string
}{
	{"api_keys", "api_keys_org_id_created_at_id_idx", []string{"org_id", "created_at", "id"},
		"api_keys_org_id_created_at_idx", []string{"org_id", "created_at"}},
	{"attribution_attempts", "attribution_attempts_install_id_created_at_id_idx", []string{"install_id", "created_at", "id"},
		"attribution_attempts_install_id_idx", []string{"install_id"}},
}

func init() {
	Migrations.MustRegister(listOrderIndexesUp, listOrderIndexesDown)
}

func listOrderIndexesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range listOrderIndexes {
			if _, err := tx.NewCreateIndex().Table(ix.table).Index(ix.name).Column(ix.columns...).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewDropIndex().Index(ix.old).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func listOrderIndexesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range listOrderIndexes {
			if _, err := tx.NewCreateIndex().Table(ix.table).Index(ix.old).Column(ix.oldColumns...).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewDropIndex().Index(ix.name).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
