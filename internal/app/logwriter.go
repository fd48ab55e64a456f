package app

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hoplink/hoplink/httpapi"
)

// logFlushInterval is how long an info line may wait in the log buffer.
const logFlushInterval = 200 * time.Millisecond

// logBufferBytes is the size of each of the log writer's two buffers.
const logBufferBytes = 64 << 10

// logWriter buffers the log's lines so that a busy server (the access log
// writes one line per request) makes a write system call per batch of
// lines rather than per line. Lines reach the output within
// logFlushInterval, at once for a warning or an error (flushingHandler),
// and when the application stops, after which every line is written as it
// comes. A crash of the process loses at most the info lines of the last
// interval.
//
// It has two buffers: the line that fills one hands it to the flushing
// goroutine (tick) and goes on in the other, so that no request waits for
// the write(2) of a full buffer, as none waits for the tick's. Only when
// the output is so slow that the second buffer fills before the first is
// written does a logging goroutine wait, as it waited for a write before:
// no line is dropped and the memory stays bounded. The first failed write
// makes later lines fail and be dropped until Stop, as a bufio.Writer's
// sticky error did.
type logWriter struct {
	mu  sync.Mutex
	out io.Writer
	// buf takes the lines; spare is the other buffer, nil while full
	// holds it.
	buf, spare []byte
	// full is a buffer handed over to be written, nil when none is;
	// writing is set while it is written (without mu held).
	full    []byte
	writing bool
	// written is signalled (with mu) when a full buffer was written.
	written sync.Cond
	// line is where an access line is formatted (LogAccess).
	line     []byte
	err      error
	stopped  bool
	stopTick chan struct{}
	// handed wakes the flushing goroutine when a buffer is full.
	handed chan struct{}
}

// newLogWriter returns a logWriter of out, with its flushing goroutine.
func newLogWriter(out io.Writer) *logWriter {
	w := newLogWriterUnflushed(out)
	go w.tick()
	return w
}

// newLogWriterUnflushed returns a logWriter of out whose flushing
// goroutine is not started (tests start it when they mean to).
func newLogWriterUnflushed(out io.Writer) *logWriter {
	w := &logWriter{
		out:      out,
		buf:      make([]byte, 0, logBufferBytes),
		spare:    make([]byte, 0, logBufferBytes),
		line:     make([]byte, 0, 1024),
		stopTick: make(chan struct{}),
		handed:   make(chan struct{}, 1),
	}
	w.written.L = &w.mu
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(p)
}

// LogAccess formats the access line l (httpapi.AccessLine.AppendText)
// into the buffer, without an allocation.
func (w *logWriter) LogAccess(l *httpapi.AccessLine) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		w.line = l.AppendText(w.line[:0])
		if w.stopped || w.err != nil || w.fitsLocked(len(w.line)) {
			break
		}
		// w.mu is released meanwhile, and w.line may be another's then.
		w.handOverLocked()
	}
	_, err := w.writeLocked(w.line)
	if cap(w.line) > 64<<10 {
		w.line = make([]byte, 0, 1024) // a line of a huge path is not kept
	}
	return err
}

// writeLocked buffers p, handing the buffer to the flushing goroutine
// first when p does not fit. w.mu is held.
func (w *logWriter) writeLocked(p []byte) (int, error) {
	for {
		if w.stopped {
			return w.out.Write(p)
		}
		if w.err != nil {
			return 0, w.err
		}
		if w.fitsLocked(len(p)) {
			w.buf = append(w.buf, p...)
			return len(p), nil
		}
		w.handOverLocked()
	}
}

// fitsLocked reports whether n bytes are to be added to the buffer as it
// is: when they fit, or when it is empty (a line longer than the buffer
// grows it).
func (w *logWriter) fitsLocked(n int) bool {
	return len(w.buf) == 0 || len(w.buf)+n <= cap(w.buf)
}

// handOverLocked hands the buffer to the flushing goroutine and goes on
// in the other. When both are full (the output is slower than the lines
// come) it waits for the output as a write would, or writes the full
// buffer itself when the flushing goroutine has not begun; w.mu is
// released meanwhile, so the caller checks again what it found.
func (w *logWriter) handOverLocked() {
	w.settleLocked()
	if w.stopped || w.err != nil || len(w.buf) == 0 {
		return
	}
	w.full, w.buf, w.spare = w.buf, w.spare, nil
	select {
	case w.handed <- struct{}{}:
	default:
	}
}

// settleLocked writes the buffer handed over, if any, or waits for its
// write under way, until none is. w.mu is held, and released while
// writing or waiting.
func (w *logWriter) settleLocked() {
	for w.full != nil {
		if w.writing {
			w.written.Wait()
			continue
		}
		b := w.full
		w.writing = true
		w.mu.Unlock()
		_, err := w.out.Write(b)
		w.mu.Lock()
		w.writing = false
		w.full, w.spare = nil, b[:0]
		if err != nil && w.err == nil {
			w.err = err
		}
		w.written.Broadcast()
	}
}

// Flush writes the lines buffered when it is called (later ones may wait
// for the next flush), in order, without holding up the lines logged
// meanwhile.
func (w *logWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settleLocked()
	if len(w.buf) > 0 && w.err == nil && !w.stopped {
		w.full, w.buf, w.spare = w.buf, w.spare, nil
		w.settleLocked()
	}
	return w.err
}

// Stop flushes the buffers and writes every later line unbuffered.
func (w *logWriter) Stop() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return nil
	}
	close(w.stopTick)
	w.settleLocked()
	// The last lines are written with w.mu held, so that no line logged
	// after Stop is written before them.
	if len(w.buf) > 0 && w.err == nil {
		if _, err := w.out.Write(w.buf); err != nil {
			w.err = err
		}
		w.buf = w.buf[:0]
	}
	w.stopped = true
	return w.err
}

// tick writes the buffers handed over as they are, and flushes every
// logFlushInterval.
func (w *logWriter) tick() {
	t := time.NewTicker(logFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-w.handed:
			w.mu.Lock()
			w.settleLocked()
			w.mu.Unlock()
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

// textHandler is flushingHandler over slog's TextHandler with no
// attribute, group or ReplaceAttr of its own: it takes the access line as
// it is (httpapi.AccessLogger), which it writes as the TextHandler would.
type textHandler struct {
	flushingHandler
}

func (h textHandler) LogAccess(ctx context.Context, l httpapi.AccessLine) {
	if h.Enabled(ctx, slog.LevelInfo) {
		_ = h.w.LogAccess(&l)
	}
}
