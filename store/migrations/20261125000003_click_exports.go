package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Click export jobs (issue 15, item 3). The row type below is frozen as of
// this migration.
//
// A job holds what its export covers (the organization, the filters as
// JSON, the resolved window, and links_of for a member's export), its
// state, and what lets any replica run it and another resume it: the rows
// counted so far up to the click (after_time, after_id), the attempts, and
// the lease (lease_owner, lease_expires_at) that a worker takes with a
// conditional update. The CSV itself is never stored: a download reads the
// clicks again.
//
// created_by and links_of reference nothing: a member who leaves keeps
// nothing here that a cascade should remove, and their keys stop working
// anyway.
//
// Indexes: (org_id, created_at) for the list, newest first; (status,
// created_at) for the workers' claim of the oldest waiting job.

type clickExport struct {
	bun.BaseModel `bun:"table:click_exports"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID          uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	CreatedBy      *uuid.UUID `bun:"created_by,type:uuid"`
	LinksOf        *uuid.UUID `bun:"links_of,type:uuid"`
	Filters        string     `bun:"filters,notnull"`
	WindowFrom     time.Time  `bun:"window_from,notnull"`
	WindowTo       time.Time  `bun:"window_to,notnull"`
	Status         string     `bun:"status,notnull"`
	RowCount       int64      `bun:"row_count,notnull"`
	Failure        *string    `bun:"failure"`
	AfterTime      *time.Time `bun:"after_time"`
	AfterID        *uuid.UUID `bun:"after_id,type:uuid"`
	Attempts       int        `bun:"attempts,notnull"`
	LeaseOwner     string     `bun:"lease_owner,notnull"`
	LeaseExpiresAt *time.Time `bun:"lease_expires_at"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
	CompletedAt    *time.Time `bun:"completed_at"`
	ExpiresAt      *time.Time `bun:"expires_at"`
}

func init() {
	Migrations.MustRegister(clickExportsUp, clickExportsDown)
}

func clickExportsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*clickExport)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		for name, cols := range map[string][]string{
			"click_exports_org_id_created_at_idx": {"org_id", "created_at"},
			"click_exports_status_created_at_idx": {"status", "created_at"},
		} {
			if _, err := tx.NewCreateIndex().Model((*clickExport)(nil)).Index(name).Column(cols...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func clickExportsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*clickExport)(nil)).IfExists().Exec(ctx)
		return err
	})
}
