package app

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logFlushInterval is how long an info line may wait in the log buffer.
const logFlushInterval = 200 * time.Millisecond

// logWriter buffers the log's lines so that a busy server (the access log
// writes one line per request) makes a write system call per batch of
// lines rather than per line. Lines reach the output within
// logFlushInterval, at once for a warning or an error (flushingHandler),
// and when the application stops, after which every line is written as it
// comes. A crash of the process loses at most the info lines of the last
// interval.
type logWriter struct {
	mu       sync.Mutex
	out      io.Writer
	buf      *bufio.Writer
	stopped  bool
	stopTick chan struct{}
}

func newLogWriter(out io.Writer) *logWriter {
	w := &logWriter{out: out, buf: bufio.NewWriterSize(out, 64<<10), stopTick: make(chan struct{})}
	go w.tick()
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return w.out.Write(p)
	}
	return w.buf.Write(p)
}

// Flush writes the buffered lines.
func (w *logWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Flush()
}

// Stop flushes the buffer and writes every later line unbuffered.
func (w *logWriter) Stop() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return nil
	}
	w.stopped = true
	close(w.stopTick)
	return w.buf.Flush()
}

func (w *logWriter) tick() {
	t := time.NewTicker(logFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = w.Flush()
		case <-w.stopTick:
			return
		}
	}
}

// flushingHandler flushes its logWriter after every record at warning
// level or above, so that what goes wrong is seen at once.
type flushingHandler struct {
	slog.Handler
	w *logWriter
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.w}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.w}
}
