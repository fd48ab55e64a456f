package store

import (
	"context"
	"sync"
	"time"
)

// A SQLite file in WAL mode is written by appending pages to its
// write-ahead log; a checkpoint copies them back into the database file and
// waits for the disk. Left to SQLite, the checkpoint is run by whichever
// commit takes the log past wal_autocheckpoint pages (1,000 by default),
// inside that request: a checkpoint of 1,000 pages takes 8 to 11 ms on the
// benchmarks' machine, paid by one attribution match or API write whose own
// work is a fraction of a millisecond (BENCHMARKS.md, "Where a match's
// time goes"). The store checkpoints in the background instead, every
// sqliteCheckpointEvery, in PASSIVE mode (it waits for no reader or writer
// and copies what no reader still needs). The interval keeps the log short
// under the redirect's load: with a second between checkpoints the mixed
// load test ran slower than with the commits' own checkpoints, with a
// tenth of a second faster (a page still in the log is read from it, not
// through the memory map). The commits' own checkpoint stays as a
// backstop, at sqliteAutoCheckpointPages, for a log that grows faster than
// the background keeps up with.
const (
	// sqliteCheckpointEvery is how often a SQLite file is checkpointed in
	// the background.
	sqliteCheckpointEvery = 100 * time.Millisecond
	// sqliteAutoCheckpointPages is the log's size, in pages, past which a
	// commit checkpoints itself (about 40 MB of 4 KiB pages).
	sqliteAutoCheckpointPages = "10000"
)

// checkpointInBackground checkpoints the database every interval until the
// returned function is called; that function waits for a checkpoint under
// way to end.
func (s *Store) checkpointInBackground(interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// A failed checkpoint (the file busy, the disk full) is
				// tried again at the next tick; the commits' own
				// checkpoint is the backstop.
				_ = s.checkpoint(ctx)
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// checkpoint copies the SQLite write-ahead log's pages into the database
// file as far as no reader still needs them, without waiting for readers
// or writers (PRAGMA wal_checkpoint(PASSIVE)).
func (s *Store) checkpoint(ctx context.Context) error {
	var busy, logPages, copied int
	err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logPages, &copied)
	return s.err("checkpoint", err)
}
