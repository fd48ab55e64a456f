package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordedLog keeps the lines of a slog.Logger, each as
// "LEVEL message key=value ...".
type recordedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordedLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordedLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *recordedLog) WithGroup(string) slog.Handler            { return l }

func (l *recordedLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.lines = append(l.lines, b.String())
	l.mu.Unlock()
	return nil
}

// take returns the lines written since the last take.
func (l *recordedLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.lines
	l.lines = nil
	return lines
}

func TestFailureLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rec := &recordedLog{}
	f := newFailureLog(slog.New(rec), clock, 10*time.Second, "link lookups")
	down := errors.New("connection refused")

	t.Run("successes alone write nothing", func(t *testing.T) {
		for range 100 {
			f.success(ctx)
		}
		assert.Empty(t, rec.take())
	})

	t.Run("the first failure is one ERROR, the next are counted silently", func(t *testing.T) {
		f.failure(ctx, down)
		assert.Equal(t, []string{"ERROR link lookups are failing err=connection refused"}, rec.take())
		for range 999 {
			now = now.Add(5 * time.Millisecond) // 1,000 failures in 5 s
			f.failure(ctx, down)
		}
		assert.Empty(t, rec.take())
	})

	t.Run("a lasting outage writes a WARN summary at most every 10 s", func(t *testing.T) {
		now = now.Add(5 * time.Second) // 9.995 s after the ERROR
		f.failure(ctx, down)
		assert.Empty(t, rec.take())
		now = now.Add(5 * time.Millisecond)
		f.failure(ctx, errors.New("timeout"))
		assert.Equal(t, []string{"WARN link lookups are still failing failed=1002 for=10s err=timeout"}, rec.take())
		for range 100 {
			now = now.Add(99 * time.Millisecond)
			f.failure(ctx, down)
		}
		assert.Empty(t, rec.take(), "9.9 s after the WARN")
		now = now.Add(100 * time.Millisecond)
		f.failure(ctx, down)
		assert.Equal(t, []string{"WARN link lookups are still failing failed=1103 for=20s err=connection refused"}, rec.take())
	})

	t.Run("the first success is one INFO with the count and the time", func(t *testing.T) {
		now = now.Add(2 * time.Second)
		f.success(ctx)
		assert.Equal(t, []string{"INFO link lookups are succeeding again failed=1103 for=22s"}, rec.take())
		for range 100 {
			f.success(ctx)
		}
		assert.Empty(t, rec.take())
	})

	t.Run("failures and successes that alternate write one line per 10 s", func(t *testing.T) {
		// Cached links succeed while the others fail: the same outage.
		for range 50 {
			now = now.Add(100 * time.Millisecond)
			f.failure(ctx, down)
			f.success(ctx)
		}
		assert.Empty(t, rec.take(), "5 s of flapping after the INFO")
		for range 49 {
			now = now.Add(100 * time.Millisecond)
			f.failure(ctx, down)
			f.success(ctx)
		}
		assert.Empty(t, rec.take())
		now = now.Add(100 * time.Millisecond)
		f.failure(ctx, down)
		assert.Equal(t, []string{"WARN link lookups are still failing failed=1203 for=32s err=connection refused"}, rec.take())
		now = now.Add(time.Second)
		f.success(ctx)
		assert.Empty(t, rec.take(), "a recovery 1 s after the WARN waits")
		now = now.Add(9 * time.Second)
		f.success(ctx)
		assert.Equal(t, []string{"INFO link lookups are succeeding again failed=1203 for=33s"}, rec.take(),
			"written by the first success 10 s after the WARN, with the time until the recovery")
		f.success(ctx)
		assert.Empty(t, rec.take())
	})

	t.Run("a failure long after the recovery is a new outage", func(t *testing.T) {
		now = now.Add(10 * time.Second)
		f.failure(ctx, down)
		assert.Equal(t, []string{"ERROR link lookups are failing err=connection refused"}, rec.take())
		now = now.Add(3 * time.Second)
		f.success(ctx)
		assert.Equal(t, []string{"INFO link lookups are succeeding again failed=1 for=3s"}, rec.take())
	})

	t.Run("an unwritten recovery is written before a new outage's ERROR", func(t *testing.T) {
		now = now.Add(time.Second)
		f.failure(ctx, down) // resumes the run: 1 s after the INFO
		f.success(ctx)       // its recovery waits
		assert.Empty(t, rec.take())
		now = now.Add(time.Minute)
		f.failure(ctx, down)
		assert.Equal(t, []string{
			"INFO link lookups are succeeding again failed=2 for=4s",
			"ERROR link lookups are failing err=connection refused",
		}, rec.take())
	})
}

func TestFailureLogConcurrent(t *testing.T) {
	t.Parallel()
	rec := &recordedLog{}
	f := newFailureLog(slog.New(rec), time.Now, time.Hour, "link lookups")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				f.failure(context.Background(), errors.New("down"))
			}
		})
	}
	wg.Wait()
	f.success(context.Background())
	lines := rec.take()
	require.Len(t, lines, 2)
	assert.Equal(t, "ERROR link lookups are failing err=down", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "INFO link lookups are succeeding again failed=8000 for="), lines[1])
}
