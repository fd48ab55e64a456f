package migrations

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// The marks of the click spools (issue 16, item 1). A recorder with a
// spool writes each chunk of it as one batch numbered in its spool, and
// the batch's transaction records the number here, so that a chunk
// replayed after a crash is seen as committed and written only once. The
// row type below is frozen as of this migration.
//
// A spool belongs to a process, not to an organization: no foreign key.

type clickSpoolMark struct {
	bun.BaseModel `bun:"table:click_spool_marks"`

	SpoolID   string    `bun:"spool_id,pk"`
	Seq       int64     `bun:"seq,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

func init() {
	Migrations.MustRegister(clickSpoolMarksUp, clickSpoolMarksDown)
}

func clickSpoolMarksUp(ctx context.Context, db *bun.DB) error {
	_, err := db.NewCreateTable().Model((*clickSpoolMark)(nil)).Exec(ctx)
	return err
}

func clickSpoolMarksDown(ctx context.Context, db *bun.DB) error {
	_, err := db.NewDropTable().Model((*clickSpoolMark)(nil)).IfExists().Exec(ctx)
	return err
}
