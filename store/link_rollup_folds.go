package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// A link's day rows are folded from its hour rows once the day has ended
// (migration 20261204000001). Each organization may have a mark, days_from
// in click_link_rollup_folds, the start of a UTC day:
//   - the days before the mark have whole day rows: the writer adds a late
//     click of such a day to its day row as well as to its hour row;
//   - from the mark on there are hour rows only: the writer writes a
//     batch's link a row instead of two, and a reader sums the day's hours
//     (a day or two at most while the purge runs);
//   - a new organization's mark is the start of the day it was created
//     (it has no day rows to keep whole); one without a mark (any from
//     before the migration) has whole day rows for every day: the first
//     fold gives it one, the start of the next UTC day, so that today's
//     day rows stay whole.
//
// The purge folds a day (FoldLinkRollupDays) once it has ended, plus
// linkRollupFoldGrace for the spool to drain: the sums of the day's hour
// rows replace its day rows and the mark moves to the next day, in one
// transaction. On PostgreSQL a writer locks click_link_rollups in ROW
// EXCLUSIVE mode before it reads the mark, and the fold in SHARE ROW
// EXCLUSIVE, which conflicts with it and with itself: a fold waits for
// every writer that read the old mark to commit, so that it sums their
// hour rows, and a writer waits for the fold, so that it reads the new
// mark; two folds take turns. On SQLite each transaction writes alone.

// linkRollupFoldRow is a row of click_link_rollup_folds.
type linkRollupFoldRow struct {
	bun.BaseModel `bun:"table:click_link_rollup_folds,alias:lf"`

	OrgID    uuid.UUID `bun:"org_id,pk"`
	DaysFrom int64     `bun:"days_from"`
}

// noFoldMark is the mark of an organization that has none: every day has
// day rows.
const noFoldMark = math.MaxInt64

// linkRollupFoldGrace is how long after a day's end its hours wait to be
// folded: clicks of the day still in a spool reach the database
// meanwhile. A later one is added to the day row too.
const linkRollupFoldGrace = 15 * time.Minute

// lockLinkRollups takes the lock on click_link_rollups that mode names, on
// PostgreSQL; SQLite's transactions write one at a time.
func lockLinkRollups(ctx context.Context, tx bun.Tx, mode string) error {
	if tx.Dialect().Name() != dialect.PG {
		return nil
	}
	_, err := tx.ExecContext(ctx, "LOCK TABLE click_link_rollups IN "+mode+" MODE")
	return err
}

// linkFoldMarks returns the marks of orgs, noFoldMark for one without.
func linkFoldMarks(ctx context.Context, db bun.IDB, orgs []uuid.UUID) (map[uuid.UUID]int64, error) {
	marks := make(map[uuid.UUID]int64, len(orgs))
	for _, o := range orgs {
		marks[o] = noFoldMark
	}
	if len(orgs) == 0 {
		return marks, nil
	}
	var rows []linkRollupFoldRow
	if err := db.NewSelect().Model(&rows).Where("lf.org_id IN (?)", bun.List(orgs)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, r := range rows {
		marks[r.OrgID] = r.DaysFrom
	}
	return marks, nil
}

// FoldLinkRollupDays implements analytics.PurgeStore: it folds the days
// of organization orgID's link rollups that ended linkRollupFoldGrace
// before now, from its mark on, at most limit days, and returns how many
// it folded. A day with hour rows is folded in a transaction of its own;
// a run of days without (an idle organization) is passed in one. An
// organization without a mark is given one (which folds nothing).
func (s *Store) FoldLinkRollupDays(ctx context.Context, orgID uuid.UUID, now time.Time, limit int) (int, error) {
	n := 0
	for n < limit {
		days, err := s.foldLinkRollupDays(ctx, orgID, now, limit-n)
		if err != nil {
			return n, s.err("fold link rollups", err)
		}
		if days == 0 {
			break
		}
		n += days
	}
	return n, nil
}

// foldLinkRollupDays folds the day at orgID's mark, or passes the days
// without hour rows from it, at most limit, when they ended
// linkRollupFoldGrace before now, and returns how many days the mark
// moved.
func (s *Store) foldLinkRollupDays(ctx context.Context, orgID uuid.UUID, now time.Time, limit int) (int, error) {
	moved := 0
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		moved = 0
		if err := lockLinkRollups(ctx, tx, "SHARE ROW EXCLUSIVE"); err != nil {
			return err
		}
		var mark linkRollupFoldRow
		err := tx.NewSelect().Model(&mark).Where("lf.org_id = ?", orgID).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			today := now.UTC().Unix() / linkRollupDay * linkRollupDay
			_, err = tx.NewInsert().Model(&linkRollupFoldRow{OrgID: orgID, DaysFrom: today + linkRollupDay}).
				On("CONFLICT DO NOTHING").Exec(ctx)
			return err
		}
		if err != nil {
			return err
		}
		day := mark.DaysFrom
		// The days before ended are the ones folded.
		ended := now.Add(-linkRollupFoldGrace).Unix() / linkRollupDay * linkRollupDay
		if day >= ended {
			return nil
		}
		// The first hour row from the mark on says which day is next to
		// fold; the days before it have none.
		var next []int64
		if err := tx.NewSelect().Model((*linkRollupRow)(nil)).Column("start").
			Where("lr.org_id = ? AND lr.span = ? AND lr.start >= ?", orgID, linkRollupHour, day).
			OrderExpr("lr.start").Limit(1).Scan(ctx, &next); err != nil {
			return err
		}
		until := day + linkRollupDay
		if len(next) == 0 || next[0] >= until {
			until = ended
			if len(next) > 0 {
				until = min(until, next[0]/linkRollupDay*linkRollupDay)
			}
			until = min(until, day+int64(limit)*linkRollupDay)
		}
		var rows []linkRollupRow
		if err := tx.NewSelect().Model(&rows).
			Where("lr.org_id = ? AND lr.span = ? AND lr.start >= ? AND lr.start < ?", orgID, linkRollupHour, day, until).
			Scan(ctx); err != nil {
			return err
		}
		// Every writer writes a day's hour rows, so their sum is the day:
		// it replaces a day row there (a click's, written before the
		// organization had a mark, of a day then still to come).
		if _, err := tx.NewDelete().Model((*linkRollupRow)(nil)).
			Where("lr.org_id = ? AND lr.span = ? AND lr.start >= ? AND lr.start < ?", orgID, linkRollupDay, day, until).
			Exec(ctx); err != nil {
			return err
		}
		sums := map[uuid.UUID]*analytics.LinkRollup{}
		var links []uuid.UUID
		for _, r := range rows {
			lr, err := analytics.DecodeLinkRollup(r.Data)
			if err != nil {
				return err
			}
			if sums[r.LinkID] == nil {
				sums[r.LinkID] = &analytics.LinkRollup{}
				links = append(links, r.LinkID)
			}
			sums[r.LinkID] = analytics.AddLinkRollups(sums[r.LinkID], lr)
		}
		if len(links) > 0 {
			out := make([]linkRollupRow, len(links))
			for i, id := range links {
				data, err := analytics.EncodeLinkRollup(nil, sums[id])
				if err != nil {
					return err
				}
				out[i] = linkRollupRow{OrgID: orgID, Span: linkRollupDay, Start: day, LinkID: id, Data: data}
			}
			for chunk := range slices.Chunk(out, 500) {
				if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if _, err := tx.NewUpdate().Model((*linkRollupFoldRow)(nil)).Set("days_from = ?", until).
			Where("lf.org_id = ?", orgID).Exec(ctx); err != nil {
			return err
		}
		moved = int((until - day) / linkRollupDay)
		return nil
	})
	return moved, err
}
