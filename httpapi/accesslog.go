package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
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
// is, at no cost per request. When log's handler is an AccessLogger, the
// line is handed to it as it is (AccessLine) rather than as a record.
func AccessLog(next http.Handler, log *slog.Logger) http.Handler {
	if log == nil || !log.Enabled(context.Background(), slog.LevelInfo) {
		return next
	}
	lines, _ := log.Handler().(AccessLogger)
	if w, ok := next.(*watched); ok && w.log == nil {
		both := *w
		both.log, both.lines = log, lines
		return &both
	}
	return &watched{next: next, log: log, lines: lines}
}

// requestID returns the request's X-Request-Id, giving it a new one (in r
// and in w's headers) when it has none that is well-formed.
func requestID(w http.ResponseWriter, r *http.Request) string {
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
	return id
}

// logAccess logs the access line of r, answered with status and n bytes
// in took, at now: through lines when it is set, else as a record of log.
func logAccess(log *slog.Logger, lines AccessLogger, r *http.Request, now time.Time, status int, n int64, took time.Duration, id string) {
	if lines != nil {
		lines.LogAccess(r.Context(), AccessLine{Time: now, Method: r.Method, Host: r.Host, Path: logPath(r.URL.Path),
			Status: status, Bytes: n, Duration: took, RequestID: id})
		return
	}
	log.LogAttrs(r.Context(), slog.LevelInfo, "request",
		slog.String("method", r.Method),
		slog.String("host", r.Host),
		slog.String("path", logPath(r.URL.Path)),
		slog.Int("status", status),
		slog.Int64("bytes", n),
		slog.Duration("duration", took),
		slog.String("request_id", id))
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
