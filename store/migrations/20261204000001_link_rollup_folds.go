package migrations

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// Link rollups' days folded from their hours (issue 15). The click writer
// wrote two rows of click_link_rollups for each link of a batch, its hour
// and its day; it now writes the day only for the days before the
// organization's mark, days_from, and the hours alone from it on. Once a
// day has ended, the purge folds its hours into its day rows and moves
// the mark on (store/link_rollup_folds.go). An organization without a row
// here has every day's rows, as before this migration; the first fold
// gives it a mark, the start of the next UTC day.
//
// Down, every organization's days from its mark get day rows, the sums of
// their hours, so that a writer and a reader of before this migration
// find every day whole.

// linkRollupFold is a row of click_link_rollup_folds, frozen as of this
// migration.
type linkRollupFold struct {
	bun.BaseModel `bun:"table:click_link_rollup_folds"`

	OrgID    uuid.UUID `bun:"org_id,pk,type:uuid"`
	DaysFrom int64     `bun:"days_from,notnull"`
}

// Link rollup spans, in seconds, as of this migration.
const (
	linkRollupFoldHour = 3600
	linkRollupFoldDay  = 86400
)

func init() {
	Migrations.MustRegister(linkRollupFoldsUp, linkRollupFoldsDown)
}

func linkRollupFoldsUp(ctx context.Context, db *bun.DB) error {
	_, err := db.NewCreateTable().Model((*linkRollupFold)(nil)).ForeignKey(orgCascade).Exec(ctx)
	return err
}

func linkRollupFoldsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var marks []linkRollupFold
		if err := tx.NewSelect().Model(&marks).OrderExpr("org_id").Scan(ctx); err != nil {
			return err
		}
		for _, m := range marks {
			if err := unfoldLinkRollupDays(ctx, tx, m); err != nil {
				return err
			}
		}
		_, err := tx.NewDropTable().Model((*linkRollupFold)(nil)).Exec(ctx)
		return err
	})
}

// unfoldLinkRollupDays replaces the day rows of m's organization for the
// days from its mark on with the sums of their hours (every writer writes
// the hours).
func unfoldLinkRollupDays(ctx context.Context, tx bun.Tx, m linkRollupFold) error {
	var hours []linkRollupByStart
	if err := tx.NewSelect().Model(&hours).
		Where("org_id = ? AND span = ? AND start >= ?", m.OrgID, linkRollupFoldHour, m.DaysFrom).
		OrderExpr("start, link_id").Scan(ctx); err != nil {
		return err
	}
	if _, err := tx.NewDelete().Model((*linkRollupByStart)(nil)).
		Where("org_id = ? AND span = ? AND start >= ?", m.OrgID, linkRollupFoldDay, m.DaysFrom).Exec(ctx); err != nil {
		return err
	}
	type key struct {
		link uuid.UUID
		day  int64
	}
	sums := map[key]*analytics.LinkRollup{}
	var order []key
	for i := range hours {
		h := &hours[i]
		r, err := analytics.DecodeLinkRollup(h.Data)
		if err != nil {
			return err
		}
		k := key{h.LinkID, h.Start - h.Start%linkRollupFoldDay}
		if sums[k] == nil {
			sums[k] = &analytics.LinkRollup{}
			order = append(order, k)
		}
		sums[k] = analytics.AddLinkRollups(sums[k], r)
	}
	for _, k := range order {
		data, err := analytics.EncodeLinkRollup(nil, sums[k])
		if err != nil {
			return err
		}
		row := &linkRollupByStart{OrgID: m.OrgID, Span: linkRollupFoldDay, Start: k.day, LinkID: k.link, Data: data}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
