package migrations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Click rollups per hour (issue 21): a breakdown of a window that ends now
// read whole days from click_rollup_dim_days and the two partial days at
// its edges from click_rollup_dims, up to 2 x 96 quarter hours of every
// value of the dimension, each row through the index on (org_id, dim,
// slot) and a lookup in the table; that was most of the organization's
// analytics page. click_rollup_dim_hours holds the same counts per UTC
// hour, so that the edges are whole hours read here and at most three
// quarter hours on each side read from click_rollup_dims.
//
// Its key is the order of the read, (org_id, dim, hour, value): one range
// per edge. On SQLite the table is WITHOUT ROWID, so that the rows are
// stored in that order and the range reads them without a lookup. The
// counts are backfilled from click_rollup_dims, the sum of an hour's four
// quarter hours.

// clickRollupHour is a row of click_rollup_dim_hours, frozen as of this
// migration. Hour is the Unix second at which a UTC hour starts.
type clickRollupHour struct {
	bun.BaseModel `bun:"table:click_rollup_dim_hours,alias:rdh"`

	OrgID    uuid.UUID `bun:"org_id,pk,type:uuid"`
	Dim      string    `bun:"dim,pk"`
	Hour     int64     `bun:"hour,pk"`
	Value    string    `bun:"value,pk"`
	Clicks   int64     `bun:"clicks,notnull"`
	Installs int64     `bun:"installs,notnull"`
}

func init() {
	Migrations.MustRegister(clickRollupHoursUp, clickRollupHoursDown)
}

func clickRollupHoursUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// bun has no option for WITHOUT ROWID: the statement it builds
		// gets the clause appended.
		create := tx.NewCreateTable().Model((*clickRollupHour)(nil)).ForeignKey(orgCascade).String()
		if db.Dialect().Name() == dialect.SQLite {
			create += " WITHOUT ROWID"
		}
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO click_rollup_dim_hours (org_id, dim, hour, value, clicks, installs)
			SELECT org_id, dim, slot - slot % 3600, value, sum(clicks), sum(installs)
			FROM click_rollup_dims
			GROUP BY org_id, dim, slot - slot % 3600, value
			ORDER BY 1, 2, 3, 4`)
		return err
	})
}

func clickRollupHoursDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*clickRollupHour)(nil)).IfExists().Exec(ctx)
		return err
	})
}
