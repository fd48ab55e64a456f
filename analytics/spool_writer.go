package analytics

import (
	"context"
	"errors"
	"runtime"

	"github.com/google/uuid"
)

// recordSpooled appends c to the spool, or adds it to the overflow sums
// when the spool is full or cannot be written. c gets its id here, so that
// a replay of its chunk writes the same click. It is normalized by the
// writer, off the request's path, unless it is too long for a record.
func (r *Recorder) recordSpooled(c *Click) {
	if c.ID == uuid.Nil {
		c.ID = uuid.Must(uuid.NewV7())
	}
	ok, err := r.spool.append(c, false)
	if ok {
		r.accepted.Add(1)
		if err != nil {
			r.log.Error("rotating the click spool failed", "error", err)
		}
		return
	}
	if err != nil {
		r.log.Error("writing to the click spool failed; the click is counted but not stored", "error", err)
	} else if r.spoolFull.CompareAndSwap(false, true) {
		r.log.Warn("click spool full: clicks are counted but not stored until it drains",
			"spool_bytes", r.spool.size.Load(), "spool_max_bytes", r.opts.SpoolMaxBytes)
	}
	r.addOverflow(c)
}

// spoolBytes is the size of the spool's chunks, 0 without a spool.
func (r *Recorder) spoolBytes() int64 {
	if r.spool == nil {
		return 0
	}
	return r.spool.size.Load()
}

// runSpool is Run with a spool: it writes each chunk as it is rotated (a
// full batch) and rotates the active chunk every FlushInterval, writing
// the chunks an earlier process left first.
func (r *Recorder) runSpool(ctx context.Context) error {
	defer r.spool.close()
	write := context.WithoutCancel(ctx)
	r.readMark(write)
	tick, stop := r.clock.NewTicker(r.opts.FlushInterval)
	defer stop()
	// The first drain (chunks an earlier process left) and the tick's
	// write whatever waits; a full chunk's rotation, GatherChunks of them,
	// as do the batches that follow the first.
	gather := r.opts.GatherChunks
	least := 1
	for {
		r.drain(ctx, write, least, gather)
		select {
		case <-r.spool.rotated:
			least = gather
		case <-tick:
			least = 1
			r.spoolOverflow()
			if err := r.spool.rotate(); err != nil {
				r.log.Error("rotating the click spool failed", "error", err)
			}
		case <-ctx.Done():
			r.shutdownSpool(write)
			return nil
		}
	}
}

// readMark asks the store which chunks of the spool it has committed, so
// that the chunks an earlier process wrote and could not delete are
// deleted unread. When the store does not answer, they are replayed and
// the store skips them.
func (r *Recorder) readMark(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.WriteTimeout)
	defer cancel()
	mark, err := r.batches.SpoolMark(ctx, r.spool.id)
	if err != nil {
		r.log.Warn("reading the click spool's mark failed; chunks left from before are written and the store skips those it has", "error", err)
		return
	}
	if err := r.spool.committed(mark); err != nil {
		r.log.Error("clearing committed click spool chunks failed", "error", err)
		return
	}
	r.markKnown = true
}

// spoolOverflow appends the overflow sums to the spool, past its bound
// (they are a few records per organization and minute), so that the
// clicks counted only are as durable as the others.
func (r *Recorder) spoolOverflow() {
	for _, c := range r.takeOverflow(nil) {
		if ok, err := r.spool.append(&c, true); !ok {
			r.log.Error("writing the overflow sums to the click spool failed; kept in memory", "error", err)
			r.putOverflow(c)
		}
	}
}

// putOverflow adds the sum c back to the overflow sums.
func (r *Recorder) putOverflow(c Click) {
	k := overflowKey{org: c.OrgID, minute: c.OccurredAt.Unix() / 60}
	r.overflowMu.Lock()
	defer r.overflowMu.Unlock()
	if sum := r.overflow[k]; sum != nil {
		sum.Weight += c.Weight
		return
	}
	if r.overflow == nil {
		r.overflow = map[overflowKey]*Click{}
	}
	r.overflow[k] = &c
}

// maxMergedClicks bounds the clicks of one batch that merges chunks.
const maxMergedClicks = 10_000

// drain writes the chunks waiting, oldest first, each until it is written
// (trying again after a growing wait, capped at MaxRetryBackoff), and
// deletes each once written. It returns when none waits or stop is done;
// inserts run under write.
//
// Chunks that wait together are written as one batch (merge), up to
// maxMergedClicks clicks: under load the writer's transactions grow with
// the backlog instead of their number, so that what a transaction costs
// whatever its size (the rollup rows, the segment, the commit) is paid
// once for many chunks. It writes a first batch when at least first
// chunks wait, and the next ones while at least then wait
// (RecorderOptions.GatherChunks); fewer wait for a later call.
func (r *Recorder) drain(stop, write context.Context, first, then int) {
	backoff := r.opts.RetryBackoff
	least := first
	for stop.Err() == nil {
		if least > 1 && len(r.spool.waiting(least)) < least {
			return
		}
		seqs := r.merge()
		if len(seqs) == 0 {
			return
		}
		err := r.writeChunks(write, seqs)
		if err == nil {
			least = then
			if r.failing {
				r.failing = false
				r.log.Info("writing clicks again; the spool drains", "spool_bytes", r.spool.size.Load())
			}
			backoff = r.opts.RetryBackoff
			if r.spoolFull.Load() && r.spool.size.Load() <= r.opts.SpoolMaxBytes-r.opts.SpoolMaxBytes/10 {
				r.spoolFull.Store(false)
				r.log.Info("click spool has room again: clicks are stored again", "spool_bytes", r.spool.size.Load())
			}
			continue
		}
		r.failedFlushes.Add(1)
		if !r.failing {
			r.failing = true
			r.log.Warn("writing clicks failed; they stay in the click spool and are tried again until written",
				"chunk", seqs[len(seqs)-1], "error", err)
		}
		select {
		case <-r.clock.After(backoff):
		case <-stop.Done():
		}
		backoff = min(backoff*2, r.opts.MaxRetryBackoff)
	}
}

// merge returns the numbers of the chunks the next batch writes: the
// oldest waiting and, when the store's mark was read at start, the ones
// that wait after it, up to maxMergedClicks clicks. A chunk an earlier
// process left is a batch of its own: the store may have committed it
// (when the mark could not be read), and a batch is refused whole; so is
// a chunk this writer committed and could not delete.
func (r *Recorder) merge() []int64 {
	n := 1
	if r.markKnown {
		n = max(1, maxMergedClicks/r.opts.BatchSize)
	}
	seqs := r.spool.waiting(n)
	if len(seqs) > 0 && (seqs[0] < r.spool.firstSeq || seqs[0] <= r.committed) {
		seqs = seqs[:1]
	}
	return seqs
}

// writeChunks writes the chunks seqs, oldest first, as one batch whose
// number is the last one's, and deletes them once committed.
func (r *Recorder) writeChunks(ctx context.Context, seqs []int64) error {
	sizes := make([]int64, len(seqs))
	// The chunks' clicks are decoded into one slice, kept with the buffer
	// the chunks are read into from batch to batch: made for each batch,
	// they were the writer's largest allocations.
	batch := r.batchBuf[:0]
	defer func() {
		clear(batch)
		if cap(batch) <= maxMergedClicks {
			r.batchBuf = batch[:0]
		}
		if cap(r.readBuf) > 4*maxChunkBytes {
			r.readBuf = nil
		}
	}()
	for i, seq := range seqs {
		var torn int
		var err error
		batch, sizes[i], torn, err = r.spool.readInto(seq, &r.readBuf, batch)
		if err != nil {
			return err
		}
		if torn > 0 {
			// Only a machine that stopped mid-write leaves one.
			r.log.Warn("a click spool chunk ends with a torn record, which is dropped", "chunk", seq, "bytes", torn)
		}
	}
	last := seqs[len(seqs)-1]
	if len(batch) > 0 {
		clicks, countOnly := r.prepare(batch)
		ctx, cancel := context.WithTimeout(ctx, r.opts.WriteTimeout)
		began := r.clock.Now()
		inserted, err := r.batches.InsertClickBatch(ctx, Batch{Spool: r.spool.id, Seq: last, Clicks: batch})
		cancel()
		r.flushed(len(batch), began, err)
		switch {
		case errors.Is(err, ErrBatchCommitted):
			// Written by an earlier process that died before deleting it.
			r.duplicates.Add(clicks)
		case err != nil:
			return err
		case inserted < 0 || inserted > len(batch):
			return errors.New("analytics: store reported an impossible insert count")
		default:
			r.written.Add(uint64(inserted))
			r.countedOnly.Add(countOnly)
			r.duplicates.Add(clicks - uint64(inserted) - countOnly)
			r.committed = last
		}
		if seqs[0] < r.spool.firstSeq {
			r.replayed.Add(clicks)
		}
	}
	for i, seq := range seqs {
		if err := r.spool.remove(seq, sizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// shutdownSpool stops Record, waits for the Records under way, appends the
// overflow sums, rotates the active chunk and writes what it can within
// ShutdownTimeout. The rest stays in the spool for the next start.
func (r *Recorder) shutdownSpool(write context.Context) {
	r.closed.Store(true)
	for r.inflight.Load() != 0 {
		runtime.Gosched()
	}
	r.spoolOverflow()
	if err := r.spool.rotate(); err != nil {
		r.log.Error("rotating the click spool failed", "error", err)
	}
	ctx, cancel := context.WithTimeout(write, r.opts.ShutdownTimeout)
	defer cancel()
	r.drain(ctx, ctx, 1, 1)
	if left := r.spool.size.Load(); left > 0 {
		if _, waiting := r.spool.next(); waiting {
			r.log.Warn("clicks not written by the shutdown stay in the click spool for the next start",
				"spool_bytes", left, "timeout", r.opts.ShutdownTimeout)
		}
	}
}
