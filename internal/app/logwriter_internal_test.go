package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi"
)

// lockedBuffer is an output the log writer's ticker may write to while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Info lines wait in the buffer; a warning brings them out at once, in
// order; after Stop every line is written as it comes.
func TestLogWriterBuffersInfoAndFlushesWarnings(t *testing.T) {
	out := &lockedBuffer{}
	// Without its ticker, so that nothing is flushed but by the rules.
	w := newLogWriterUnflushed(out)
	log := slog.New(flushingHandler{slog.NewTextHandler(w, nil), w}).With("component", "test")

	log.Info("request one")
	log.Info("request two")
	assert.Empty(t, out.String(), "info lines wait in the buffer")
	log.Warn("something failed")
	s := out.String()
	require.Contains(t, s, "something failed", "a warning is written at once")
	assert.Less(t, strings.Index(s, "request one"), strings.Index(s, "request two"))
	assert.Less(t, strings.Index(s, "request two"), strings.Index(s, "something failed"))
	assert.Equal(t, 3, strings.Count(s, "component=test"))

	log.Info("buffered at stop")
	require.NoError(t, w.Stop())
	assert.Contains(t, out.String(), "buffered at stop", "Stop flushes")
	log.Info("after stop")
	assert.Contains(t, out.String(), "after stop", "after Stop lines are written unbuffered")
	require.NoError(t, w.Stop(), "a second Stop does nothing")
}

// The ticker writes what waits within the flush interval.
func TestLogWriterFlushesOnItsTick(t *testing.T) {
	out := &lockedBuffer{}
	w := newLogWriter(out)
	t.Cleanup(func() { _ = w.Stop() })
	_, err := w.Write([]byte("a line\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return out.String() == "a line\n" }, 10*time.Second, 10*time.Millisecond)
}

// gatedWriter is an output whose writes wait for release, as a standard
// error nobody reads does; started is told that a write began.
type gatedWriter struct {
	lockedBuffer
	started chan struct{}
	release chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case g.started <- struct{}{}:
	default:
	}
	<-g.release
	return g.lockedBuffer.Write(p)
}

// fillLine is a line that fills a buffer in a few.
var fillLine = []byte(strings.Repeat("x", 1000) + "\n")

// The line that fills a buffer hands it to the flushing goroutine and
// does not write it: while the output is stuck in that write, lines go on
// into the second buffer. Once the output takes them, every line is
// written, in order.
func TestLogWriterHandsAFullBufferToTheFlusher(t *testing.T) {
	out := &gatedWriter{started: make(chan struct{}, 1), release: make(chan struct{})}
	w := newLogWriter(out)
	perBuffer := logBufferBytes / len(fillLine)
	line := func(i int) []byte { return fmt.Appendf(nil, "%06d%s", i, fillLine[6:]) }
	// One buffer and one line more: the first buffer is handed over.
	for i := range perBuffer + 1 {
		_, err := w.Write(line(i))
		require.NoError(t, err)
	}
	<-out.started // the flushing goroutine writes it, and is stuck
	// Lines go on while the output is stuck (this goroutine would hang
	// here if a write of the output were on its path).
	for i := perBuffer + 1; i < 2*perBuffer; i++ {
		_, err := w.Write(line(i))
		require.NoError(t, err)
	}
	close(out.release)
	require.NoError(t, w.Stop())
	s := out.String()
	require.Equal(t, 2*perBuffer*len(fillLine), len(s), "every line is written")
	for i := range 2 * perBuffer {
		require.Equal(t, string(line(i)), s[i*len(fillLine):(i+1)*len(fillLine)], "line %d", i)
	}
}

// Goroutines logging at once while the output is slow lose no line and
// keep each goroutine's lines in order; Stop leaves none behind.
func TestLogWriterKeepsEveryLineOfConcurrentLoggers(t *testing.T) {
	out := &lockedBuffer{}
	w := newLogWriter(out)
	const loggers, lines = 4, 3000
	var wg sync.WaitGroup
	for g := range loggers {
		wg.Go(func() {
			for i := range lines {
				l := httpapi.AccessLine{Method: "GET", Host: "h", Path: fmt.Sprintf("/%d/%d", g, i), RequestID: "r"}
				require.NoError(t, w.LogAccess(&l))
			}
		})
	}
	wg.Wait()
	require.NoError(t, w.Stop())
	next := make([]int, loggers)
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var g, i int
		_, err := fmt.Sscanf(l[strings.Index(l, "path=/")+len("path=/"):], "%d/%d", &g, &i)
		require.NoError(t, err, l)
		require.Equal(t, next[g], i, "logger %d", g)
		next[g]++
	}
	assert.Equal(t, []int{lines, lines, lines, lines}, next)
}

// failingWriter fails every write.
type failingWriter struct{ lockedBuffer }

var errStderr = errors.New("standard error is gone")

func (f *failingWriter) Write(p []byte) (int, error) { return 0, errStderr }

// A failed write of the output fails the lines after it (they are
// dropped, the memory bounded) and every flush, as the buffered writer's
// sticky error did; after Stop lines go to the output as they come.
func TestLogWriterAfterAFailedWrite(t *testing.T) {
	out := &failingWriter{}
	w := newLogWriterUnflushed(out)
	_, err := w.Write([]byte("a line\n"))
	require.NoError(t, err, "buffered")
	require.ErrorIs(t, w.Flush(), errStderr)
	_, err = w.Write([]byte("a later line\n"))
	require.ErrorIs(t, err, errStderr)
	for range 2 * logBufferBytes / len(fillLine) {
		_, _ = w.Write(fillLine)
	}
	assert.Zero(t, len(w.buf)+len(w.full), "nothing is kept after the failure")
	require.ErrorIs(t, w.Stop(), errStderr)
	_, err = w.Write([]byte("after stop\n"))
	require.ErrorIs(t, err, errStderr, "written as it comes, the output's error returned")
}

// The text logger of NewLogger takes the access line as it is, and logs
// it at info level only; a logger with attributes of its own goes through
// slog (its attributes must be on the line).
func TestTextLoggerTakesTheAccessLine(t *testing.T) {
	out := &lockedBuffer{}
	w := newLogWriterUnflushed(out)
	log := newTextLogger(w, &slog.HandlerOptions{Level: slog.LevelInfo})
	lines, ok := log.Handler().(httpapi.AccessLogger)
	require.True(t, ok)
	_, ok = log.With("component", "x").Handler().(httpapi.AccessLogger)
	assert.False(t, ok, "With's handler writes its attributes")
	_, ok = log.WithGroup("g").Handler().(httpapi.AccessLogger)
	assert.False(t, ok)

	l := httpapi.AccessLine{Time: time.Now(), Method: "GET", Host: "hop.example", Path: "/a b", Status: 302,
		Bytes: 5, Duration: 1500 * time.Microsecond, RequestID: "id"}
	lines.LogAccess(context.Background(), l)
	require.NoError(t, w.Flush())
	assert.Equal(t, string(l.AppendText(nil)), out.String())

	quiet := newTextLogger(w, &slog.HandlerOptions{Level: slog.LevelWarn})
	quiet.Handler().(httpapi.AccessLogger).LogAccess(context.Background(), l)
	require.NoError(t, w.Flush())
	assert.Equal(t, string(l.AppendText(nil)), out.String(), "below its level nothing is logged")
}

// The access line reaches the buffer without an allocation, buffers
// handed over included.
func TestLogAccessDoesNotAllocate(t *testing.T) {
	w := newLogWriterUnflushed(io.Discard)
	log := newTextLogger(w, nil)
	lines := log.Handler().(httpapi.AccessLogger)
	l := httpapi.AccessLine{Time: time.Now(), Method: "GET", Host: "hop.example", Path: "/spring sale",
		Status: 302, Bytes: 57, Duration: 81234 * time.Nanosecond, RequestID: "0123456789abcdef01234567"}
	ctx := context.Background()
	// 2,000 lines fill several buffers.
	allocs := testing.AllocsPerRun(2000, func() { lines.LogAccess(ctx, l) })
	assert.Zero(t, allocs)
}
