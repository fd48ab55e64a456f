package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// failureSummaryEvery is how often, at most, a failureLog writes a summary
// while failures last.
const failureSummaryEvery = 10 * time.Second

// failureLog logs the failures of one kind of operation (what, such as
// "link lookups") by state change instead of one line per failure, so that
// an outage under load writes a handful of lines, not thousands:
//
//   - the first failure writes an ERROR "{what} are failing" with its error;
//   - further failures are counted silently, and while they last a WARN
//     "{what} are still failing" with the count, the time since the first
//     and the latest error is written at most every `every`;
//   - the first success after failures writes an INFO "{what} are
//     succeeding again" with how many failed and for how long.
//
// A success is not proof that the cause is gone: the link-domain handler
// answers cached links without the database, so during an outage
// successes and failures alternate. A failure less than `every` after the
// run last recovered therefore resumes the same run (counts and start kept)
// without a new ERROR, and a later recovery of a resumed run is written no
// sooner than `every` after the last line (by the next success after that,
// or before the ERROR of a new run): the log then writes at most one line
// per `every` for the whole outage.
//
// Successes, which are most calls, cost one atomic load while there is
// nothing to report. The methods are safe for concurrent use.
type failureLog struct {
	log   *slog.Logger
	clock func() time.Time
	every time.Duration
	what  string

	// busy is true while failing or a recovery is unreported: success has
	// work.
	busy atomic.Bool

	mu          sync.Mutex
	failing     bool
	count       int64     // failures of the run
	since       time.Time // the run's first failure; zero before any run
	lastLine    time.Time // when the last line was written
	recovered   time.Time // when the run last recovered
	told        bool      // a recovery of this run was written
	unreported  bool      // the run's last recovery is not written yet
	lastErrText string
}

func newFailureLog(log *slog.Logger, clock func() time.Time, every time.Duration, what string) *failureLog {
	return &failureLog{log: log, clock: clock, every: every, what: what}
}

// failure records one failure with err.
func (f *failureLog) failure(ctx context.Context, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock()
	f.lastErrText = err.Error()
	if !f.failing {
		f.failing = true
		f.busy.Store(true)
		if f.since.IsZero() || now.Sub(f.recovered) >= f.every {
			f.flushRecovery(ctx, now)
			f.since, f.count, f.told = now, 1, false
			f.line(ctx, now, slog.LevelError, f.what+" are failing", slog.String("err", f.lastErrText))
			return
		}
		// Failing again soon after the run recovered: the same outage, whose
		// recovery is no longer news.
		f.unreported = false
	}
	f.count++
	if now.Sub(f.lastLine) >= f.every {
		f.line(ctx, now, slog.LevelWarn, f.what+" are still failing", slog.Int64("failed", f.count),
			slog.Duration("for", now.Sub(f.since)), slog.String("err", f.lastErrText))
	}
}

// success records one success.
func (f *failureLog) success(ctx context.Context) {
	if !f.busy.Load() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock()
	if f.failing {
		f.failing = false
		f.recovered = now
		f.unreported = true
		if !f.told || now.Sub(f.lastLine) >= f.every {
			f.flushRecovery(ctx, now)
		}
	} else if f.unreported && now.Sub(f.lastLine) >= f.every {
		f.flushRecovery(ctx, now)
	}
	f.busy.Store(f.failing || f.unreported)
}

// flushRecovery writes the run's recovery if it is unreported.
func (f *failureLog) flushRecovery(ctx context.Context, now time.Time) {
	if !f.unreported {
		return
	}
	f.unreported, f.told = false, true
	f.line(ctx, now, slog.LevelInfo, f.what+" are succeeding again", slog.Int64("failed", f.count),
		slog.Duration("for", f.recovered.Sub(f.since)))
}

func (f *failureLog) line(ctx context.Context, now time.Time, level slog.Level, msg string, attrs ...slog.Attr) {
	f.lastLine = now
	f.log.LogAttrs(ctx, level, msg, attrs...)
}
