package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Saved move choices of links on an app's previous subdomain (SPEC.md, link
// move choice: PUT and DELETE /links/{id}/move-choice). The row type below
// is frozen as of this migration.
//
// A link has at most one saved choice (primary key link_id), which goes with
// the link (ON DELETE CASCADE on link_id) and with its organization. choice
// is "keep" or "new_slug"; new_slug is the slug the link moved with (NULL
// for keep). domain is the previous subdomain the choice was made on, the
// link's domain then: a keep choice counts only while the link is still
// there.

type linkMoveChoice struct {
	bun.BaseModel `bun:"table:link_move_choices"`

	LinkID    uuid.UUID `bun:"link_id,pk,type:uuid"`
	OrgID     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	Domain    string    `bun:"domain,notnull"`
	Choice    string    `bun:"choice,notnull"`
	NewSlug   *string   `bun:"new_slug"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

func init() {
	Migrations.MustRegister(linkMoveChoicesUp, linkMoveChoicesDown)
}

func linkMoveChoicesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewCreateTable().Model((*linkMoveChoice)(nil)).
			ForeignKey(linkCascade).ForeignKey(orgCascade).Exec(ctx)
		if err != nil {
			return err
		}
		// The cascade when the organization goes.
		_, err = tx.NewCreateIndex().Model((*linkMoveChoice)(nil)).Index("link_move_choices_org_id_idx").
			Column("org_id").Exec(ctx)
		return err
	})
}

func linkMoveChoicesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*linkMoveChoice)(nil)).IfExists().Exec(ctx)
		return err
	})
}
