package analytics

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/geo"
)

// Clock is the time and the timers the recorder uses. Tests pass a fake
// whose ticks and timers fire when the test says so.
type Clock interface {
	Now() time.Time
	// NewTicker returns a channel that receives every d, and a function
	// that stops it.
	NewTicker(d time.Duration) (c <-chan time.Time, stop func())
	// After returns a channel that receives once, after d.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the Clock of package time.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// NewTicker wraps time.NewTicker.
func (SystemClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// After wraps time.After.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// RecorderOptions configure a Recorder. Every zero value means its default.
type RecorderOptions struct {
	// BufferSize is how many clicks may wait to be written. Clicks that
	// arrive while it is full are counted but not stored (see the package
	// doc). Default 20,000.
	BufferSize int
	// BatchSize is how many clicks one insert writes at most; a batch is
	// written as soon as it is full. Default 500.
	BatchSize int
	// FlushInterval is how often a partial batch is written. Default 1s.
	FlushInterval time.Duration
	// GatherChunks, with a spool, is how many full chunks (of BatchSize
	// clicks) wait before they are written as one batch ahead of the
	// FlushInterval tick, which writes whatever waits. Default 1: each
	// chunk as soon as it is full. More makes fewer, larger batches under
	// load, whose rollup rows are shared by more clicks; a click then
	// reaches the database up to FlushInterval later.
	GatherChunks int
	// Retries is how many times a failed batch is tried again before its
	// clicks are dropped. Default 3; negative means none.
	Retries int
	// RetryBackoff is the wait before the first retry, doubled for each
	// next one. Default 100ms.
	RetryBackoff time.Duration
	// WriteTimeout bounds one insert while running. Default 10s.
	WriteTimeout time.Duration
	// ShutdownTimeout bounds the final drain once Run's context is done;
	// clicks still unwritten then are dropped and logged. Default 10s.
	ShutdownTimeout time.Duration
	// Allowance, when set, decides for each click whether it is stored or
	// only counted (Click.CountOnly); see the package doc. Nil stores every
	// click.
	Allowance *Allowance
	// Locator fills each click's Country, Region and City from its IP when
	// Country is empty, in the writer, off the request's path. Nil is
	// geo.Builtin(): countries only.
	Locator geo.Locator
	// Logger receives flush failures and drops; it never sees an IP or a
	// user agent. slog.Default() when nil.
	Logger *slog.Logger
	// Clock is SystemClock when nil.
	Clock Clock

	// SpoolDir, when set, keeps accepted clicks in a durable spool in this
	// directory instead of the memory buffer (see the package doc, The
	// click spool); OpenRecorder opens it and the store must be a
	// BatchStore. Empty keeps clicks in memory (BufferSize).
	SpoolDir string
	// SpoolMaxBytes bounds the spool's chunk files; clicks that arrive
	// while it is full are counted but not stored, as over a full buffer.
	// Default 1 GiB.
	SpoolMaxBytes int64
	// MaxRetryBackoff caps the wait between two attempts at writing a
	// chunk of the spool, which is tried again until it is written.
	// Default 5s.
	MaxRetryBackoff time.Duration
	// OnFlush, when not nil, is told of every insert of a batch, on the
	// writer's goroutine: the clicks it held, how long it took and its
	// error (nil once written). It must not block.
	OnFlush func(clicks int, took time.Duration, err error)
}

// DefaultSpoolMaxBytes is RecorderOptions.SpoolMaxBytes when zero.
const DefaultSpoolMaxBytes = 1 << 30

// Stats are a recorder's counters since it was made. Once Run has returned,
// Accepted = Written + Duplicates + CountedOnly + Failed.
type Stats struct {
	// Accepted is the clicks Record took, Overflowed included.
	Accepted uint64
	// Dropped is the clicks Record refused because the recorder had shut
	// down.
	Dropped uint64
	// Overflowed is the clicks that arrived while the buffer was full:
	// taken to be counted, without a row. They are part of CountedOnly
	// once written.
	Overflowed uint64
	// Written is the click rows inserted.
	Written uint64
	// Duplicates is the clicks the store skipped: a tap id already recorded,
	// or a link deleted before the click was written.
	Duplicates uint64
	// CountedOnly is the clicks counted but not stored: past the allowance,
	// or over the buffer.
	CountedOnly uint64
	// OverAllowance is the clicks Record marked to be counted but not
	// stored because their organization was past its monthly allowance.
	OverAllowance uint64
	// Failed is the accepted clicks given up on: their batch failed every
	// retry, or the shutdown timeout passed.
	Failed uint64
	// FailedFlushes is the inserts that returned an error, retried or not.
	FailedFlushes uint64
	// Buffered is the clicks waiting in the memory buffer now (0 with a
	// spool).
	Buffered int
	// Replayed is the clicks read back from chunks an earlier process left
	// in the spool; they are counted in Written, Duplicates or CountedOnly
	// once written.
	Replayed uint64
	// SpoolBytes is the size of the spool's chunk files now, and
	// SpoolFull whether the last click that tried found it full.
	SpoolBytes int64
	SpoolFull  bool
}

// Recorder buffers clicks in memory and writes them in batches, so that a
// redirect never waits on the database (DESIGN.md, hot paths). Record is
// safe for concurrent use; Run must run once.
type Recorder struct {
	store Store
	opts  RecorderOptions
	log   *slog.Logger
	clock Clock
	ch    chan Click
	// full tells Run that a batch is waiting. Run does not receive from ch
	// while idle, so a Record into a buffer with room wakes no goroutine.
	full chan struct{}

	closed   atomic.Bool
	inflight atomic.Int64
	// waiting counts the clicks taken from Record and not yet written:
	// those in ch and those Run holds in its partial batch. Record wakes
	// Run when they make a full batch, counting both, so that a batch
	// completed by a click that arrives just after Run took the others
	// from ch is not left to the next tick.
	waiting atomic.Int64

	// overflow sums the clicks that arrived while the buffer was full, by
	// organization and minute, until Run writes them as CountOnly clicks.
	overflowMu sync.Mutex
	overflow   map[overflowKey]*Click

	accepted, dropped, overflowed, written, duplicates, countedOnly, failed, failedFlushes, overAllowance atomic.Uint64

	// spool, when set, holds the accepted clicks instead of ch, and
	// batches writes them (spool_writer.go).
	spool     *spool
	batches   BatchStore
	spoolFull atomic.Bool
	replayed  atomic.Uint64
	// failing is whether the last attempt at writing a chunk failed, so
	// that an outage is logged when it begins and when it ends.
	failing bool
	// markKnown is whether the store told the writer the spool's mark at
	// start, so that every chunk of this process is past it and ready
	// chunks may be merged into one batch.
	markKnown bool
	// committed is the number of the last batch this writer committed:
	// a chunk up to it that is still waiting (its deletion failed) is
	// written alone, and refused by the store.
	committed int64
	// batchBuf and readBuf are the writer's, reused from batch to batch
	// (writeChunks): the clicks of a batch and the bytes of a chunk.
	batchBuf []Click
	readBuf  []byte
}

// overflowKey groups overflowing clicks by organization and minute. The
// sum is counted in the billing month of the minute's first overflowing
// click: only a month that starts inside that very minute can receive a
// few clicks of the month before.
type overflowKey struct {
	org    uuid.UUID
	minute int64
}

// NewRecorder returns a recorder that keeps clicks in memory and writes
// them to store. Start it with Run. It panics when opts.SpoolDir is set:
// a spool is opened with OpenRecorder, which can fail.
func NewRecorder(store Store, opts RecorderOptions) *Recorder {
	if opts.SpoolDir != "" {
		panic("analytics: NewRecorder with a SpoolDir; use OpenRecorder")
	}
	r := newRecorder(store, opts)
	r.ch = make(chan Click, r.opts.BufferSize)
	return r
}

// OpenRecorder returns a recorder that writes to store, keeping accepted
// clicks in the spool directory opts.SpoolDir (created when missing) or,
// when it is empty, in memory as NewRecorder does. With a spool, store
// must implement BatchStore. It fails with an error wrapping
// ErrSpoolLocked when another process uses the directory. Start the
// recorder with Run, which closes the spool when it returns.
func OpenRecorder(store Store, opts RecorderOptions) (*Recorder, error) {
	if opts.SpoolDir == "" {
		return NewRecorder(store, opts), nil
	}
	batches, ok := store.(BatchStore)
	if !ok {
		return nil, errors.New("analytics: a click spool needs a store that implements BatchStore")
	}
	r := newRecorder(store, opts)
	sp, err := openSpool(opts.SpoolDir, r.opts.SpoolMaxBytes, r.opts.BatchSize)
	if err != nil {
		return nil, err
	}
	r.spool, r.batches = sp, batches
	return r, nil
}

func newRecorder(store Store, opts RecorderOptions) *Recorder {
	if opts.BufferSize <= 0 {
		opts.BufferSize = 20_000
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 500
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = time.Second
	}
	opts.GatherChunks = max(opts.GatherChunks, 1)
	if opts.Retries == 0 {
		opts.Retries = 3
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = 100 * time.Millisecond
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Locator == nil {
		opts.Locator = geo.Builtin()
	}
	if opts.SpoolMaxBytes <= 0 {
		opts.SpoolMaxBytes = DefaultSpoolMaxBytes
	}
	if opts.MaxRetryBackoff <= 0 {
		opts.MaxRetryBackoff = 5 * time.Second
	}
	return &Recorder{
		store: store,
		opts:  opts,
		log:   opts.Logger.With("component", "analytics.recorder"),
		clock: opts.Clock,
		full:  make(chan struct{}, 1),
	}
}

// Record queues c to be written and reports whether it was taken. It never
// blocks and never touches the database. When the buffer is full, c is
// added to a per-organization sum that Run counts with the next batch, and
// no row is stored for it (Stats.Overflowed). Once Run has begun shutting
// down, Record drops c, counts it in Stats.Dropped and returns false. With
// an Allowance, it marks c CountOnly when the organization is past its
// monthly allowance.
func (r *Recorder) Record(c Click) bool {
	r.inflight.Add(1)
	defer r.inflight.Add(-1)
	if r.closed.Load() {
		r.dropped.Add(1)
		return false
	}
	if r.opts.Allowance != nil && !r.opts.Allowance.Store(c.OrgID) {
		c.CountOnly = true
		r.overAllowance.Add(1)
	}
	if r.spool != nil {
		r.recordSpooled(&c)
		return true
	}
	select {
	case r.ch <- c:
		r.accepted.Add(1)
		if r.waiting.Add(1) >= int64(r.opts.BatchSize) {
			select {
			case r.full <- struct{}{}:
			default: // Run has been told already
			}
		}
		return true
	default:
		r.addOverflow(&c)
		return true
	}
}

// addOverflow counts c, which found the buffer full, in the overflow sums.
func (r *Recorder) addOverflow(c *Click) {
	k := overflowKey{org: c.OrgID, minute: c.OccurredAt.Unix() / 60}
	r.overflowMu.Lock()
	if sum := r.overflow[k]; sum != nil {
		sum.Weight++
	} else {
		if r.overflow == nil {
			r.overflow = map[overflowKey]*Click{}
		}
		r.overflow[k] = &Click{
			OrgID: c.OrgID, LinkID: c.LinkID, OccurredAt: c.OccurredAt, Source: c.Source,
			CountOnly: true, Weight: 1,
		}
	}
	r.overflowMu.Unlock()
	r.accepted.Add(1)
	r.overflowed.Add(1)
}

// takeOverflow appends the overflow sums to batch and clears them.
func (r *Recorder) takeOverflow(batch []Click) []Click {
	r.overflowMu.Lock()
	defer r.overflowMu.Unlock()
	for _, c := range r.overflow {
		batch = append(batch, *c)
	}
	clear(r.overflow)
	return batch
}

// Stats returns the recorder's counters.
func (r *Recorder) Stats() Stats {
	return Stats{
		Accepted:      r.accepted.Load(),
		Dropped:       r.dropped.Load(),
		Overflowed:    r.overflowed.Load(),
		Written:       r.written.Load(),
		Duplicates:    r.duplicates.Load(),
		CountedOnly:   r.countedOnly.Load(),
		OverAllowance: r.overAllowance.Load(),
		Failed:        r.failed.Load(),
		FailedFlushes: r.failedFlushes.Load(),
		Buffered:      len(r.ch),
		Replayed:      r.replayed.Load(),
		SpoolBytes:    r.spoolBytes(),
		SpoolFull:     r.spoolFull.Load(),
	}
}

// Run writes buffered clicks until ctx is done: a batch as soon as
// BatchSize clicks wait, and whatever waits every FlushInterval. When ctx
// is done, Record stops taking clicks and Run writes every click it took,
// within ShutdownTimeout, then returns nil. With a spool, what is not
// written by then stays in the spool for the next start (see the package
// doc). Run must be called once.
func (r *Recorder) Run(ctx context.Context) error {
	if r.spool != nil {
		return r.runSpool(ctx)
	}
	tick, stop := r.clock.NewTicker(r.opts.FlushInterval)
	defer stop()
	write := context.WithoutCancel(ctx)
	batch := make([]Click, 0, r.opts.BatchSize)
	for {
		select {
		case <-r.full:
			// Write the full batches; a partial one waits for the tick.
			batch = r.fill(write, batch)
		case <-tick:
			// Take what waits now too, so that a tick writes everything
			// recorded before it, overflow sums included.
			batch = r.fill(write, batch)
			taken := len(batch)
			batch = r.takeOverflow(batch)
			if len(batch) > 0 {
				r.flush(write, batch, r.opts.WriteTimeout)
				r.waiting.Add(-int64(taken))
				batch = batch[:0]
			}
		case <-ctx.Done():
			r.shutdown(write, batch)
			return nil
		}
	}
}

// fill moves waiting clicks into batch, writing every full batch, and
// returns the partial batch left.
func (r *Recorder) fill(ctx context.Context, batch []Click) []Click {
	for {
		select {
		case c := <-r.ch:
			batch = append(batch, c)
			if len(batch) == r.opts.BatchSize {
				r.flush(ctx, batch, r.opts.WriteTimeout)
				r.waiting.Add(-int64(len(batch)))
				batch = batch[:0]
			}
		default:
			return batch
		}
	}
}

// shutdown stops Record, waits for the Records already under way, and
// writes everything taken, within ShutdownTimeout.
func (r *Recorder) shutdown(ctx context.Context, batch []Click) {
	r.closed.Store(true)
	ctx, cancel := context.WithTimeout(ctx, r.opts.ShutdownTimeout)
	defer cancel()
	for {
		batch = r.fill(ctx, batch)
		// A Record that saw closed false has announced itself in inflight
		// first; once none is under way and the buffer is empty, no click
		// can arrive any more.
		if r.inflight.Load() == 0 && len(r.ch) == 0 {
			break
		}
		runtime.Gosched()
	}
	batch = r.takeOverflow(batch)
	if len(batch) > 0 {
		r.flush(ctx, batch, r.opts.WriteTimeout)
	}
}

// flush writes batch, trying again after a growing wait when it fails, and
// drops it after Retries retries or once ctx is done.
func (r *Recorder) flush(ctx context.Context, batch []Click, timeout time.Duration) {
	clicks, countOnly := r.prepare(batch)
	backoff := r.opts.RetryBackoff
	for attempt := 0; ; attempt++ {
		err := ctx.Err()
		if err == nil {
			var inserted int
			inserted, err = r.insert(ctx, batch, timeout)
			if err == nil {
				r.written.Add(uint64(inserted))
				r.countedOnly.Add(countOnly)
				r.duplicates.Add(clicks - uint64(inserted) - countOnly)
				return
			}
			r.failedFlushes.Add(1)
		}
		if attempt >= r.opts.Retries || ctx.Err() != nil {
			r.failed.Add(clicks)
			r.log.Error("dropping clicks that could not be written",
				"clicks", clicks, "attempts", attempt+1, "error", err)
			return
		}
		r.log.Warn("writing clicks failed; retrying",
			"clicks", len(batch), "attempt", attempt+1, "backoff", backoff, "error", err)
		select {
		case <-r.clock.After(backoff):
		case <-ctx.Done():
		}
		backoff *= 2
	}
}

// prepare gives the clicks of batch an id, a location and their normal
// form, and returns how many clicks they count for, and how many of those
// are only counted.
func (r *Recorder) prepare(batch []Click) (clicks, countOnly uint64) {
	for i := range batch {
		if batch[i].ID == uuid.Nil {
			batch[i].ID = uuid.Must(uuid.NewV7())
		}
		locate(&batch[i], r.opts.Locator)
		batch[i].Normalize()
		n := uint64(batch[i].Clicks())
		clicks += n
		if batch[i].CountOnly {
			countOnly += n
		}
	}
	return clicks, countOnly
}

// locate fills c's location from its IP with l, unless c has a country
// already or is only counted (it gets no row).
func locate(c *Click, l geo.Locator) {
	if c.Country != "" || c.CountOnly {
		return
	}
	ip, err := netip.ParseAddr(c.IP)
	if err != nil {
		return
	}
	loc := l.Locate(ip)
	c.Country, c.Region, c.City = loc.Country, loc.Region, loc.City
}

func (r *Recorder) insert(ctx context.Context, batch []Click, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := r.clock.Now()
	n, err := r.store.InsertClicks(ctx, batch)
	if err == nil && (n < 0 || n > len(batch)) {
		err = errors.New("analytics: store reported an impossible insert count")
	}
	r.flushed(len(batch), began, err)
	return n, err
}

// flushed tells OnFlush of an insert of clicks that began at began.
func (r *Recorder) flushed(clicks int, began time.Time, err error) {
	if r.opts.OnFlush != nil {
		r.opts.OnFlush(clicks, r.clock.Now().Sub(began), err)
	}
}
