package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode"
)

// statuses maps every error code to its HTTP status (SPEC.md, Errors).
var statuses = map[errcode.Code]int{
	errcode.ValidationError:            http.StatusBadRequest,
	errcode.ImmutableField:             http.StatusBadRequest,
	errcode.InvalidID:                  http.StatusBadRequest,
	errcode.InvalidAppID:               http.StatusBadRequest,
	errcode.SlugUnchanged:              http.StatusBadRequest,
	errcode.CursorInvalid:              http.StatusBadRequest,
	errcode.MissingConfirmation:        http.StatusBadRequest,
	errcode.ParamConfigTooLarge:        http.StatusBadRequest,
	errcode.InvitationAlreadyAccepted:  http.StatusBadRequest,
	errcode.InvitationAlreadyRevoked:   http.StatusBadRequest,
	errcode.InvitationExpired:          http.StatusBadRequest,
	errcode.Unauthorized:               http.StatusUnauthorized,
	errcode.Forbidden:                  http.StatusForbidden,
	errcode.SDKKeyRouteForbidden:       http.StatusForbidden,
	errcode.KeyAppMismatch:             http.StatusForbidden,
	errcode.AttributedKeyRequired:      http.StatusForbidden,
	errcode.PasswordRequired:           http.StatusForbidden,
	errcode.LookbackExceeded:           http.StatusForbidden,
	errcode.ConfirmationMismatch:       http.StatusForbidden,
	errcode.PlanUpgradeRequired:        http.StatusForbidden,
	errcode.DomainLimitExceeded:        http.StatusForbidden,
	errcode.LinkLimitExceeded:          http.StatusForbidden,
	errcode.AppLimitExceeded:           http.StatusForbidden,
	errcode.SeatLimitExceeded:          http.StatusForbidden,
	errcode.AppRequired:                http.StatusForbidden,
	errcode.NotFound:                   http.StatusNotFound,
	errcode.MethodNotAllowed:           http.StatusMethodNotAllowed,
	errcode.PayloadTooLarge:            http.StatusRequestEntityTooLarge,
	errcode.SlugTaken:                  http.StatusConflict,
	errcode.AppHandleTaken:             http.StatusConflict,
	errcode.AppHandleHeld:              http.StatusConflict,
	errcode.ConfirmationRequired:       http.StatusConflict,
	errcode.AppLinkStateChanged:        http.StatusConflict,
	errcode.DefaultDomainUnavailable:   http.StatusConflict,
	errcode.RenamePeriodOpen:           http.StatusConflict,
	errcode.RenamePeriodNotOpen:        http.StatusConflict,
	errcode.RenameExtensionLimit:       http.StatusConflict,
	errcode.LinkMoveNotPending:         http.StatusConflict,
	errcode.DuplicateApp:               http.StatusConflict,
	errcode.DomainClaimed:              http.StatusConflict,
	errcode.LastOwner:                  http.StatusConflict,
	errcode.DuplicateDomain:            http.StatusConflict,
	errcode.AlreadyMember:              http.StatusConflict,
	errcode.DuplicateInvitation:        http.StatusConflict,
	errcode.Gone:                       http.StatusGone,
	errcode.InvalidDomain:              http.StatusUnprocessableEntity,
	errcode.RetentionWindowUnavailable: http.StatusUnprocessableEntity,
	errcode.RateLimitExceeded:          http.StatusTooManyRequests,
	errcode.InternalError:              http.StatusInternalServerError,
	errcode.ServiceUnavailable:         http.StatusServiceUnavailable,
}

// StatusOf returns the HTTP status of code; 500 for a code it does not know.
func StatusOf(code errcode.Code) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503.
const RetryAfterUnavailable = "5"

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code    errcode.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// Envelope returns the SPEC.md error envelope of err with its HTTP status.
// Errors without a code become 500 INTERNAL_ERROR, and a database that cannot
// be reached 503 SERVICE_UNAVAILABLE, with a generic message: internals never
// reach the client.
func Envelope(err error) (int, any) {
	e, ok := errcode.As(err)
	if !ok {
		code := errcode.CodeOf(err)
		msg := "an unexpected error occurred"
		if code == errcode.ServiceUnavailable {
			msg = "the service is temporarily unavailable; retry shortly"
		}
		e = errcode.New(code, msg)
	}
	obj := errorObject{Code: e.Code, Message: e.Message}
	if len(e.Fields) > 0 || len(e.Details) > 0 {
		obj.Details = make(map[string]any, len(e.Details)+1)
		for k, v := range e.Details {
			obj.Details[k] = v
		}
		if len(e.Fields) > 0 {
			obj.Details["fields"] = e.Fields
		}
	}
	return StatusOf(e.Code), errorBody{Error: obj}
}

// WriteError writes err as the error envelope. Unexpected errors are logged
// with the request's id; a client's own mistakes are not.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	writeError(w, r, log, err, "")
}

// writeError is WriteError for a handler that knows its route pattern;
// route "" reads it from r's context.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, route string) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away; there is nobody to answer.
		return
	}
	status, body := Envelope(err)
	if status >= 500 && log != nil {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "route", logRoute(r, route),
			"request_id", RequestID(r.Context()), "status", status, "err", err)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
	}
	writeJSON(w, status, body)
}

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
