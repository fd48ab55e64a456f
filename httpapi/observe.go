package httpapi

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
)

// RequestObserver is told of every request a handler from Instrument
// answered: the route pattern that served it (SetRoute; "" when none
// did), its status and how long it took. It runs on the request's
// goroutine and must not block.
type RequestObserver func(route string, status int, took time.Duration)

// The route patterns of the link-domain handler, which has no router:
// a short link, the health checks and the association files (AASAPath,
// AssetLinksPath) are named by their path.
const (
	// RouteShortLink is the route of every address a slug could match.
	RouteShortLink = "/:slug"
)

// Instrument returns next telling observe of each request once it is
// answered. The handlers below it name the route that served a request
// with SetRoute: the API its bunrouter pattern, the link-domain handler
// one of its few routes, so that a label is never a raw path.
//
// Instrument and AccessLog share one handler: either given the other's
// handler (AccessLog(Instrument(h, o), log), as serve wraps it, or the
// reverse) returns one that does both with one response writer and one
// pair of clock reads per request.
func Instrument(next http.Handler, observe RequestObserver) http.Handler {
	if observe == nil {
		return next
	}
	if w, ok := next.(*watched); ok && w.observe == nil {
		both := *w
		both.observe = observe
		return &both
	}
	return &watched{next: next, observe: observe}
}

// watched is the handler of Instrument and AccessLog: it gives next a
// pooled watchWriter, and once next has answered tells observe (when set)
// and logs the access line (when log is set).
type watched struct {
	next    http.Handler
	observe RequestObserver
	log     *slog.Logger
	// lines, when set, is log's handler, which takes the access line as
	// it is (AccessLogger).
	lines AccessLogger
}

var watchWriters = sync.Pool{New: func() any { return new(watchWriter) }}

func (h *watched) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var id string
	if h.log != nil {
		id = requestID(w, r)
	}
	ww := watchWriters.Get().(*watchWriter)
	*ww = watchWriter{ResponseWriter: w}
	defer h.done(ww, r, start, id)
	h.next.ServeHTTP(ww, r)
}

// done reports the request w answered, which started at start, and puts w
// back in the pool.
func (h *watched) done(w *watchWriter, r *http.Request, start time.Time, id string) {
	now := time.Now()
	took := now.Sub(start)
	status := w.status
	if status == 0 {
		// Nothing written: net/http answers 200, or the handler panicked
		// (net/http then drops the connection).
		status = http.StatusOK
	}
	if h.observe != nil {
		h.observe(w.route, status, took)
	}
	if h.log != nil {
		logAccess(h.log, h.lines, r, now, status, w.bytes, took, id)
	}
	*w = watchWriter{}
	watchWriters.Put(w)
}

// SetRoute names pattern as the route that serves the request w answers,
// for Instrument's observer; it does nothing when w does not come from
// Instrument (looking through writers that have an Unwrap method). pattern
// must be one of a fixed set (a router's pattern, a constant), never a
// request's path: it becomes a metric's label.
func SetRoute(w http.ResponseWriter, pattern string) {
	for {
		switch x := w.(type) {
		case *watchWriter:
			x.route = pattern
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// watchWriter records the status and the size of a response and the
// route that served it. It passes Flush and Hijack through, and Unwrap
// serves http.ResponseController.
type watchWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	route  string
}

func (w *watchWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *watchWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *watchWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

func (w *watchWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *watchWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// nameRoute is the API's first middleware: it names the bunrouter pattern
// that matched (SetRoute), "" when none did.
func nameRoute(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		SetRoute(w, req.Route())
		return next(w, req)
	}
}

// Outcome is how the link-domain handler answered a request for a short
// link (RouteShortLink); LinkDomainOptions.OnOutcome is told of each.
type Outcome uint8

// The outcomes of a short link.
const (
	// OutcomeRedirect: 302 to the link's target (a password given or
	// remembered included).
	OutcomeRedirect Outcome = iota
	// OutcomeMoved: 301 from an old address of a moved link.
	OutcomeMoved
	// OutcomePreview: a bot's preview page.
	OutcomePreview
	// OutcomePassword: the password form of a protected link, shown or
	// shown again (a wrong password, too many attempts).
	OutcomePassword
	// OutcomeNotFound: 404, no link served there.
	OutcomeNotFound
	// OutcomeGone: 410, the link has expired.
	OutcomeGone
	// OutcomeUnavailable: 503, the database could not be asked and no
	// stale answer was allowed.
	OutcomeUnavailable
	// OutcomeError: any other answer (405, 500).
	OutcomeError
	// NumOutcomes is the number of outcomes, for arrays indexed by them.
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"redirect", "moved", "preview", "password", "not_found", "gone", "unavailable", "error"}

// String returns the outcome's name: redirect, moved, preview, password,
// not_found, gone, unavailable or error.
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return "error"
}

// outcomeOf is the outcome of a short link answered with err.
func outcomeOf(err error) Outcome {
	switch httperr.StatusOf(errcode.CodeOf(err)) {
	case http.StatusNotFound:
		return OutcomeNotFound
	case http.StatusGone:
		return OutcomeGone
	case http.StatusServiceUnavailable:
		return OutcomeUnavailable
	}
	return OutcomeError
}

// outcome tells OnOutcome of o.
func (h *LinkDomain) outcome(o Outcome) {
	if h.opts.OnOutcome != nil {
		h.opts.OnOutcome(o)
	}
}
