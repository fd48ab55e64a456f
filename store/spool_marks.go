package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

var _ analytics.BatchStore = (*Store)(nil)

// spoolMarkRow is a row of click_spool_marks: the highest batch of a click
// spool committed.
type spoolMarkRow struct {
	bun.BaseModel `bun:"table:click_spool_marks,alias:csm"`

	SpoolID   string    `bun:"spool_id,pk"`
	Seq       int64     `bun:"seq"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// batchKey carries a batch's identity from InsertClickBatch to the
// transaction of InsertClicks, so that the body of InsertClicks needs one
// call (markSpoolBatch) and no second signature.
type batchKey struct{}

type batchIdentity struct {
	spool string
	seq   int64
}

// InsertClickBatch implements analytics.BatchStore: InsertClicks, whose
// transaction first moves the spool's mark to b.Seq (markSpoolBatch).
func (s *Store) InsertClickBatch(ctx context.Context, b analytics.Batch) (int, error) {
	if b.Spool == "" {
		return s.InsertClicks(ctx, b.Clicks)
	}
	if b.Seq <= 0 {
		return 0, fmt.Errorf("store: insert click batch: sequence number %d is not above 0", b.Seq)
	}
	if len(b.Clicks) == 0 {
		// InsertClicks opens no transaction for no clicks: the mark stays,
		// and a later batch moves it past this one.
		return 0, nil
	}
	return s.InsertClicks(context.WithValue(ctx, batchKey{}, batchIdentity{b.Spool, b.Seq}), b.Clicks)
}

// markSpoolBatch moves the mark of the batch that ctx carries (see
// InsertClickBatch) to its sequence number in tx, the transaction that
// writes its clicks and counts. It returns an error wrapping
// analytics.ErrBatchCommitted, which rolls tx back, when the mark is there
// or beyond already; it does nothing for a batch without an identity.
//
// One statement decides: an insert whose conflict updates the row only
// when its number is lower, so that two transactions of one batch cannot
// both pass (the second waits on the row and then finds it moved).
func markSpoolBatch(ctx context.Context, tx bun.Tx) error {
	id, ok := ctx.Value(batchKey{}).(batchIdentity)
	if !ok {
		return nil
	}
	row := spoolMarkRow{SpoolID: id.spool, Seq: id.seq, UpdatedAt: time.Now().UTC()}
	res, err := tx.NewInsert().Model(&row).
		On("CONFLICT (spool_id) DO UPDATE").
		Set("seq = EXCLUDED.seq").
		Set("updated_at = EXCLUDED.updated_at").
		Where("csm.seq < EXCLUDED.seq").
		Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("spool %s batch %d: %w", id.spool, id.seq, analytics.ErrBatchCommitted)
	}
	return nil
}

// SpoolMark implements analytics.BatchStore.
func (s *Store) SpoolMark(ctx context.Context, spool string) (int64, error) {
	var seq int64
	err := s.db.NewSelect().Model((*spoolMarkRow)(nil)).Column("seq").
		Where("spool_id = ?", spool).Scan(ctx, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, s.err("spool mark", err)
}
