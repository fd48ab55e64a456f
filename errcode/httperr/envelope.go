package httperr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/hoplink/hoplink/errcode"
)

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
// reach the client. Field errors are listed under details.fields.
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

// Write writes err as the error envelope with its status, and Retry-After
// (RetryAfterUnavailable) on a 503. Nothing is written when err is
// context.Canceled and r's context is done: the client went away.
//
// When log is not nil, an answer of 500 or more is logged at error level
// with the request's method, then attrs (key-value pairs the caller adds,
// such as a route pattern and a request id), the status and err; a client's
// own mistakes are not logged. The caller decides what attrs hold, so that
// secrets in the path never reach the log.
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, attrs ...any) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away; there is nobody to answer.
		return
	}
	status, body := Envelope(err)
	if status >= 500 && log != nil {
		args := make([]any, 0, len(attrs)+6)
		args = append(args, "method", r.Method)
		args = append(args, attrs...)
		args = append(args, "status", status, "err", err)
		log.ErrorContext(r.Context(), "request failed", args...)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
	}
	WriteJSON(w, status, body)
}

// WriteJSON writes v as a JSON answer with status: HTML-safe escaping, one
// trailing newline, Content-Type application/json; charset=utf-8 and
// X-Content-Type-Options nosniff. A value that cannot be encoded becomes
// 500 INTERNAL_ERROR instead, so a half-written body never reaches the client.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"code":"INTERNAL_ERROR","message":"an unexpected error occurred"}}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
