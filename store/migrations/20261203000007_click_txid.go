package migrations

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The transaction that wrote each row of clicks, on PostgreSQL (issue 15):
// the candidate index (store/candidates.go) follows the rows committed
// since its last read by it. Unlike a sequence's values, which transactions
// may commit out of their order, a snapshot tells exactly which
// transactions had committed: the rows of those at or after its xmax, or
// among its in-progress list, are the only ones the next read may find.
//
// The column is added without a value for the rows there (no rewrite of
// the table; rows written before the index is built are read by the build,
// never by transaction), and new rows take the inserting transaction's id
// by default (the top-level one inside a savepoint). SQLite follows the
// rows by rowid and gets nothing.

func init() {
	Migrations.MustRegister(clickTxidUp, clickTxidDown)
}

func clickTxidUp(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			`ALTER TABLE clicks ADD COLUMN txid xid8`,
			`ALTER TABLE clicks ALTER COLUMN txid SET DEFAULT pg_current_xact_id()`,
			`CREATE INDEX clicks_txid_idx ON clicks (txid)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

func clickTxidDown(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	_, err := db.ExecContext(ctx, `ALTER TABLE clicks DROP COLUMN txid`)
	return err
}
