package app

import (
	"bufio"
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	w := &logWriter{out: out, buf: bufio.NewWriterSize(out, 64<<10), stopTick: make(chan struct{})}
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
