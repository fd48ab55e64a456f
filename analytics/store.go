package analytics

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Store is the click storage the recorder writes to; package store
// implements it.
type Store interface {
	// InsertClicks writes clicks in one transaction: one multi-row insert of
	// the clicks that are not CountOnly, skipping a click whose tap id the
	// organization already has (and a click whose link or organization no
	// longer exists), and adds to each organization's counter for the
	// billing month of each click the clicks inserted plus the CountOnly
	// ones (each counting Click.Clicks()), and adds the CountOnly ones to
	// the organization's unstored clicks of their quarter hour (SlotOf),
	// which QueryStore.UnstoredClicks reads. It returns how many rows it
	// inserted. Clicks must be normalized
	// (Click.Normalize) and have ids. On error nothing is written; the
	// error wraps errcode.ErrUnavailable when the database cannot be
	// reached.
	InsertClicks(ctx context.Context, clicks []Click) (inserted int, err error)
	// ClickCount returns the organization's click counter for the billing
	// month that starts at periodStart (org.PeriodStart), 0 when it has
	// none.
	ClickCount(ctx context.Context, orgID uuid.UUID, periodStart time.Time) (int64, error)
}

// Batch is a batch of clicks with its identity in a click spool: the
// Recorder with a SpoolDir writes the chunks of its spool as Batches, one
// chunk or several that waited together, numbered by the last.
type Batch struct {
	// Spool is the id of the spool the batch comes from; empty means the
	// batch has no identity and is written as InsertClicks writes.
	Spool string
	// Seq is the batch's sequence number in its spool (its last chunk's),
	// above 0. A spool's batches are committed in increasing order.
	Seq    int64
	Clicks []Click
}

// ErrBatchCommitted is returned by BatchStore.InsertClickBatch for a batch
// whose spool has committed it, or a later one, already.
var ErrBatchCommitted = errors.New("analytics: the click batch was committed already")

// BatchStore is the click storage of a Recorder with a spool: it writes a
// batch exactly once. Package store implements it.
type BatchStore interface {
	Store
	// InsertClickBatch writes b.Clicks as InsertClicks does and, in the same
	// transaction, records b.Seq as b.Spool's mark, the highest sequence
	// number committed. When the mark is b.Seq or more already, it writes
	// nothing, counts nothing and returns an error wrapping
	// ErrBatchCommitted: a batch replayed after a crash is stored once. An
	// empty b.Spool records no mark. b.Clicks is the caller's, reused once
	// the call returns: an implementation keeps no reference to it.
	InsertClickBatch(ctx context.Context, b Batch) (inserted int, err error)
	// SpoolMark returns the mark of the spool id, 0 when it has none.
	SpoolMark(ctx context.Context, spool string) (int64, error)
}

// Usage is an organization's click allowance for its current billing month.
type Usage struct {
	// Limit is the organization's monthly_click_limit.
	Limit int64
	// PeriodStart is the start of the billing month that holds the time
	// asked about.
	PeriodStart time.Time
	// Count is the clicks counted in that month so far.
	Count int64
}

// UsageStore reads an organization's click allowance; package store
// implements it.
type UsageStore interface {
	// ClickUsage returns orgID's limit, the billing month that holds at and
	// the clicks counted in it. It returns an error wrapping
	// errcode.ErrNotFound when the organization does not exist.
	ClickUsage(ctx context.Context, orgID uuid.UUID, at time.Time) (Usage, error)
}
