package httpapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// AccessLog returns next with one structured line logged per request at
// info level, once the response is written: the method, the host, the path
// (never the query string, which may carry secrets such as a password
// form's values or tokens, and with an invitation page's token replaced
// by ":token"), the status, the response bytes, the duration
// and the request id. A request without a well-formed X-Request-Id is given
// a new one, which the REST API then keeps (and echoes) and which a
// link-domain response echoes too, so that a visitor's report can be found
// in the log. When log does not log at info level, next is returned as it
// is, at no cost per request.
func AccessLog(next http.Handler, log *slog.Logger) http.Handler {
	if log == nil || !log.Enabled(context.Background(), slog.LevelInfo) {
		return next
	}
	return &accessLog{next: next, log: log}
}

type accessLog struct {
	next http.Handler
	log  *slog.Logger
}

var accessWriters = sync.Pool{New: func() any { return new(accessWriter) }}

func (a *accessLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if !validRequestID(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
		// One slice for both headers (neither is changed later): an
		// allocation less on the redirect's path.
		v := []string{id}
		r.Header["X-Request-Id"] = v
		w.Header()["X-Request-Id"] = v
	}
	aw := accessWriters.Get().(*accessWriter)
	*aw = accessWriter{ResponseWriter: w}
	defer func() {
		status := aw.status
		if status == 0 {
			// Nothing written: net/http answers 200, or the handler panicked
			// (net/http then drops the connection).
			status = http.StatusOK
		}
		a.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("host", r.Host),
			slog.String("path", logPath(r.URL.Path)),
			slog.Int("status", status),
			slog.Int64("bytes", aw.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", id))
		*aw = accessWriter{}
		accessWriters.Put(aw)
	}()
	a.next.ServeHTTP(aw, r)
}

// secretPathPrefixes start the paths whose next segment is a secret: the
// invitation pages' token. The access log writes ":token" in its place,
// as the error log writes route patterns (logRoute), for routed and
// unrouted requests alike.
var secretPathPrefixes = []string{"/invitations/"}

// logPath is path as the access log writes it: with a secret segment
// replaced (secretPathPrefixes). Other paths are returned as they are,
// without an allocation.
func logPath(path string) string {
	for _, prefix := range secretPathPrefixes {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return prefix + ":token" + rest[i:]
		}
		return prefix + ":token"
	}
	return path
}

// accessWriter records the status and the size of a response. It passes
// Flush and Hijack through, and Unwrap serves http.ResponseController.
type accessWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *accessWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *accessWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *accessWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

func (w *accessWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *accessWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
