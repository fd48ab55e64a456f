package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/org"
)

// IPRetention is how long a click keeps its raw IP address and IP key
// (issue 15, item 5): attribution's longest window that reads them. The
// probabilistic match reads the IP key of clicks of the last 24 hours
// (attribution.ProbabilisticWindow); a deterministic match by the Android
// referrer's click id reads one click within its link's match window (7
// days unless the link sets match_window_hours, attribution.
// DefaultMatchWindowHours) and, through its IP key, the same device's
// clicks of the half hour before it. Past IPRetention the purge empties
// Click.IP and Click.IPKey; Country and IPClass stay. A deterministic
// match of an older click (a link with a longer window) still finds the
// click by its id; it only no longer gathers that device's other clicks.
const IPRetention = 7 * 24 * time.Hour

// Defaults of PurgerOptions.
const (
	// DefaultPurgeInterval is how often Purger.Run purges.
	DefaultPurgeInterval = time.Hour
	// DefaultPurgeBatch is how many rows one statement of the purge
	// deletes or updates at most.
	DefaultPurgeBatch = 5000
	// DefaultPurgeSegmentBatch is how many click segments one transaction
	// of the purge deletes or encodes again at most: a segment holds a
	// batch of clicks (up to MaxSegmentClicks).
	DefaultPurgeSegmentBatch = 50
)

// PurgeOrg is an organization as the purge needs it.
type PurgeOrg struct {
	ID   uuid.UUID
	Plan org.Plan
}

// PurgeStore deletes what is older than retention; package store
// implements it. Every method that deletes or updates changes at most
// limit rows (limit > 0) in one short statement or transaction and
// returns how many it changed, so that the purge repeats it until it
// changes fewer than limit: a big purge never holds a long write lock.
// Rows that another purge holds at that moment may be skipped (they are
// that purge's to change); a call that finds nothing returns 0. Every
// method returns an error wrapping errcode.ErrUnavailable when the
// database cannot be reached.
type PurgeStore interface {
	// PurgeOrgs returns every organization with its plan.
	PurgeOrgs(ctx context.Context) ([]PurgeOrg, error)
	// DeleteClicksBefore deletes orgID's clicks that occurred before
	// before. An install that claimed a deleted click keeps its record,
	// with no click (its click_id becomes NULL). The monthly click counts
	// (billing) are never deleted.
	DeleteClicksBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// DeleteInstallsBefore deletes orgID's installs made before before. An
	// attempt that names a deleted install keeps its record, with no
	// install.
	DeleteInstallsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// DeleteAttemptsBefore deletes orgID's attribution attempts made
	// before before.
	DeleteAttemptsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// DeleteUnstoredBefore deletes orgID's counts of clicks counted but not
	// stored (QueryStore.UnstoredClicks) of the quarter hours that start
	// before before.
	DeleteUnstoredBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// DeleteSegmentsBefore deletes orgID's click segments (the stored
	// clicks that exports read, in batches) whose last click occurred
	// before before, and returns how many segments it deleted.
	DeleteSegmentsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error)
	// ClearSegmentIPsBefore encodes again, without their clicks' IP
	// address and IP key (keeping country and network class), the click
	// segments of every organization whose last click occurred before
	// before and that still carry IPs, and returns how many segments it
	// changed.
	ClearSegmentIPsBefore(ctx context.Context, before time.Time, limit int) (int, error)
	// CompactDeletedLinks removes from the segments the clicks of deleted
	// links whose removal did not finish when they were deleted (the
	// readers skip those clicks meanwhile), and returns how many links it
	// finished.
	CompactDeletedLinks(ctx context.Context, limit int) (int, error)
	// ClearClickIPsBefore empties the IP key of the rows of clicks that
	// attribution reads, of every organization, that occurred before
	// before and still have one (the rows keep no IP address; the
	// segments' IPs are ClearSegmentIPsBefore's).
	ClearClickIPsBefore(ctx context.Context, before time.Time, limit int) (int, error)
	// ClearInstallIPsBefore empties the IP address of installs of every
	// organization made before before that still have one.
	ClearInstallIPsBefore(ctx context.Context, before time.Time, limit int) (int, error)
	// FoldLinkRollupDays sums, for at most limit UTC days of orgID that
	// ended a while before now and are not yet folded, each link's hourly
	// counts into its daily counts, each day in one transaction, and
	// returns how many days it folded (store/link_rollup_folds.go). It
	// deletes nothing.
	FoldLinkRollupDays(ctx context.Context, orgID uuid.UUID, now time.Time, limit int) (int, error)
}

// PurgeResult counts what one purge removed.
type PurgeResult struct {
	// ClicksDeleted counts the rows of clicks attribution reads that were
	// deleted, SegmentsDeleted the click segments (every stored click).
	ClicksDeleted   int64 `json:"clicks_deleted"`
	SegmentsDeleted int64 `json:"segments_deleted"`
	InstallsDeleted int64 `json:"installs_deleted"`
	AttemptsDeleted int64 `json:"attempts_deleted"`
	// UnstoredDeleted counts the quarter hours of unstored clicks deleted.
	UnstoredDeleted int64 `json:"unstored_deleted"`
	IPsCleared      int64 `json:"ips_cleared"`
	// InstallIPsCleared counts the installs whose IP was cleared.
	InstallIPsCleared int64 `json:"install_ips_cleared"`
	// SegmentIPsCleared counts the click segments encoded again without
	// IPs.
	SegmentIPsCleared int64 `json:"segment_ips_cleared"`
	// LinksCompacted counts the deleted links whose clicks were removed
	// from the segments by this purge.
	LinksCompacted int64 `json:"links_compacted"`
	// LinkDaysFolded counts the organizations' days whose hourly counts of
	// links were summed into daily ones.
	LinkDaysFolded int64 `json:"link_days_folded"`
}

// Empty reports whether the purge removed nothing.
func (r PurgeResult) Empty() bool { return r == PurgeResult{} }

// PurgerOptions configure a Purger. Every zero value means its default.
type PurgerOptions struct {
	// Clock is the time the purge counts retention from; time.Now when
	// nil.
	Clock func() time.Time
	// Interval is how often Run purges; DefaultPurgeInterval when zero.
	Interval time.Duration
	// BatchSize is how many rows one statement changes at most;
	// DefaultPurgeBatch when zero.
	BatchSize int
	// SegmentBatch is how many click segments one transaction changes at
	// most; DefaultPurgeSegmentBatch when zero.
	SegmentBatch int
	// Logger receives what each purge removed and its failures;
	// slog.Default() when nil.
	Logger *slog.Logger
}

// Purger enforces data retention (issue 15, item 5): it deletes each
// organization's clicks, installs, attribution attempts and counts of
// unstored clicks older than its plan keeps (org.Limits.Retention), and
// clears the IP address of every click older than IPRetention. The
// monthly click counts, which billing reads, are kept. Each kind of row
// goes in batches of BatchSize rows per statement, repeated, so that the
// purge never holds a long write lock (SQLite has one writer).
//
// Purging is idempotent, and several purgers (one per replica) may run at
// once: a row is changed by one of them, and the others skip it or find
// nothing. A plan's retention is applied as the plan is now: moving to a
// plan that keeps less deletes the older data at the next purge.
type Purger struct {
	store PurgeStore
	opts  PurgerOptions
	log   *slog.Logger
}

// NewPurger returns a Purger over store.
func NewPurger(store PurgeStore, opts PurgerOptions) *Purger {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultPurgeInterval
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultPurgeBatch
	}
	if opts.SegmentBatch <= 0 {
		opts.SegmentBatch = DefaultPurgeSegmentBatch
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Purger{store: store, opts: opts, log: log}
}

// RunOnce purges once: for each organization its clicks (the rows
// attribution reads, then the segments), then its installs, attempts and
// unstored counts older than its plan's retention; then the IP addresses
// of every click segment older than IPRetention, the clicks of deleted
// links left in segments, and the IP addresses of every click row older
// than IPRetention. It
// returns what it removed, also when it stops on an error: an
// organization whose purge fails is logged and the others are purged, and
// the errors are returned joined. It stops when ctx is done.
func (p *Purger) RunOnce(ctx context.Context) (PurgeResult, error) {
	var res PurgeResult
	now := p.opts.Clock().UTC()
	orgs, err := p.store.PurgeOrgs(ctx)
	if err != nil {
		return res, fmt.Errorf("analytics: purge: organizations: %w", err)
	}
	var errs []error
	for _, o := range orgs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		before := now.Add(-org.LimitsOf(o.Plan).Retention)
		for _, step := range []struct {
			what  string
			del   func(context.Context, uuid.UUID, time.Time, int) (int, error)
			n     *int64
			batch int
		}{
			{"clicks", p.store.DeleteClicksBefore, &res.ClicksDeleted, p.opts.BatchSize},
			{"click segments", p.store.DeleteSegmentsBefore, &res.SegmentsDeleted, p.opts.SegmentBatch},
			{"installs", p.store.DeleteInstallsBefore, &res.InstallsDeleted, p.opts.BatchSize},
			{"attempts", p.store.DeleteAttemptsBefore, &res.AttemptsDeleted, p.opts.BatchSize},
			{"unstored clicks", p.store.DeleteUnstoredBefore, &res.UnstoredDeleted, p.opts.BatchSize},
		} {
			err := p.batches(ctx, step.n, step.batch, func(ctx context.Context, limit int) (int, error) {
				return step.del(ctx, o.ID, before, limit)
			})
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				p.log.Warn("analytics: purge failed", "org_id", o.ID, "rows", step.what, "err", err)
				errs = append(errs, fmt.Errorf("analytics: purge %s of %s: %w", step.what, o.ID, err))
				break
			}
		}
		err := p.batches(ctx, &res.LinkDaysFolded, p.opts.BatchSize, func(ctx context.Context, limit int) (int, error) {
			return p.store.FoldLinkRollupDays(ctx, o.ID, now, limit)
		})
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			p.log.Warn("analytics: folding link rollups failed", "org_id", o.ID, "err", err)
			errs = append(errs, fmt.Errorf("analytics: fold link rollups of %s: %w", o.ID, err))
		}
	}
	before := now.Add(-IPRetention)
	for _, step := range []struct {
		what string
		n    *int64
		run  func(context.Context, int) (int, error)
	}{
		{"segment IPs", &res.SegmentIPsCleared, func(ctx context.Context, limit int) (int, error) {
			return p.store.ClearSegmentIPsBefore(ctx, before, limit)
		}},
		{"deleted links' clicks", &res.LinksCompacted, p.store.CompactDeletedLinks},
	} {
		if err := p.batches(ctx, step.n, p.opts.SegmentBatch, step.run); err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			errs = append(errs, fmt.Errorf("analytics: purge %s: %w", step.what, err))
		}
	}
	if err := p.batches(ctx, &res.IPsCleared, p.opts.BatchSize, func(ctx context.Context, limit int) (int, error) {
		return p.store.ClearClickIPsBefore(ctx, before, limit)
	}); err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		errs = append(errs, fmt.Errorf("analytics: purge click IPs: %w", err))
	}
	if err := p.batches(ctx, &res.InstallIPsCleared, p.opts.BatchSize, func(ctx context.Context, limit int) (int, error) {
		return p.store.ClearInstallIPsBefore(ctx, before, limit)
	}); err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		errs = append(errs, fmt.Errorf("analytics: purge install IPs: %w", err))
	}
	return res, errors.Join(errs...)
}

// batches calls step with size until it changes fewer rows, adding what
// it changes to n.
func (p *Purger) batches(ctx context.Context, n *int64, size int, step func(context.Context, int) (int, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := step(ctx, size)
		*n += int64(k)
		if err != nil {
			return err
		}
		if k < size {
			return nil
		}
	}
}

// Run purges at once and then every Interval until ctx is done; a purge
// that fails is logged and tried again at the next interval. It returns
// nil when ctx is done.
func (p *Purger) Run(ctx context.Context) error {
	t := time.NewTicker(p.opts.Interval)
	defer t.Stop()
	for {
		res, err := p.RunOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			p.log.Warn("analytics: purge", "err", err)
		}
		// Not only deletions: a purge that only cleared IPs, compacted
		// deleted links or folded days says so too.
		if !res.Empty() {
			p.log.Info("analytics: purge done", "clicks", res.ClicksDeleted,
				"installs", res.InstallsDeleted, "attempts", res.AttemptsDeleted,
				"unstored_quarter_hours", res.UnstoredDeleted, "ips_cleared", res.IPsCleared,
				"install_ips_cleared", res.InstallIPsCleared, "segments", res.SegmentsDeleted,
				"segment_ips_cleared", res.SegmentIPsCleared, "links_compacted", res.LinksCompacted,
				"link_days_folded", res.LinkDaysFolded)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
