package ratelimit

import (
	"log/slog"
	"net/http"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
)

// errLimited is the answer to a request whose bucket is spent (SPEC.md,
// Limits).
var errLimited = errcode.New(errcode.RateLimitExceeded, "too many requests; retry after the time in Retry-After")

// Check counts r against bucket under rule with l, sets the rate-limit
// headers on w (Result.SetHeaders) and, when the bucket is spent, writes
// 429 RATE_LIMIT_EXCEEDED as the error envelope and returns false; the
// caller then writes nothing more. A nil l allows every request and sets no
// header. A limiter that fails lets the request through without headers and
// logs a warning on log (slog.Default when nil), so that an outage of a
// shared counter does not take the API down.
func Check(w http.ResponseWriter, r *http.Request, l Limiter, log *slog.Logger, bucket string, rule Rule) bool {
	if l == nil {
		return true
	}
	res, err := l.Allow(r.Context(), bucket, rule)
	if err != nil {
		if log == nil {
			log = slog.Default()
		}
		log.WarnContext(r.Context(), "rate limiter failed; letting the request through", "err", err)
		return true
	}
	res.SetHeaders(w.Header().Set)
	if !res.Allowed {
		httperr.Write(w, r, nil, errLimited)
		return false
	}
	return true
}
