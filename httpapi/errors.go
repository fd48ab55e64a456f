package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode/httperr"
)

// writeError writes err as the error envelope (httperr.Write). An
// unexpected error is logged with the request's route pattern and id; a
// client's own mistakes are not. route is the pattern of a handler that
// knows it; "" reads it from r's context.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, route string) {
	httperr.Write(w, r, log, err, "route", logRoute(r, route), "request_id", RequestID(r.Context()))
}

// writeJSON writes v as a JSON answer (httperr.WriteJSON).
func writeJSON(w http.ResponseWriter, status int, v any) { httperr.WriteJSON(w, status, v) }

// logRoute names r's route for a log line: the route pattern
// ("/invitations/:token") when the router matched one, so that a secret in
// the path, such as an invitation token, never reaches the log;
// "(unrouted)" otherwise. A non-empty route is the pattern the caller
// knows already.
func logRoute(r *http.Request, route string) string {
	if route == "" {
		route = bunrouter.ParamsFromContext(r.Context()).Route()
	}
	if route == "" {
		return "(unrouted)"
	}
	return route
}
