package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Error is an answer with an error status. Use errors.As to reach it.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the envelope's error code (a Code constant). It is empty
	// when the answer carried no envelope, as from a proxy in front of the
	// server.
	Code string
	// Message is the envelope's message, or the status text without one.
	Message string
	// Details are the envelope's details, decoded as JSON values
	// (for example "earliest_allowed", "slug", "allowed_link_domains"); nil
	// when the envelope has none.
	Details map[string]any
	// Fields are details.fields: the invalid fields of a validation error.
	Fields []FieldError
	// RequestID is the answer's X-Request-Id, which the server also logs.
	RequestID string
	// RetryAfter is the answer's Retry-After (on 429 and 503), zero
	// without one.
	RetryAfter time.Duration
}

// FieldError is one invalid field of a validation error.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error implements error.
func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("hoplink: %d %s", e.StatusCode, e.Message)
	}
	return fmt.Sprintf("hoplink: %d %s: %s", e.StatusCode, e.Code, e.Message)
}

// envelope is the error envelope of every error answer.
type envelope struct {
	Error struct {
		Code    string                     `json:"code"`
		Message string                     `json:"message"`
		Details map[string]json.RawMessage `json:"details"`
	} `json:"error"`
}

// readError turns an error answer into *Error and closes its body.
func readError(resp *http.Response) *Error {
	defer resp.Body.Close()
	e := &Error{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	e.RetryAfter, _ = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	// The rest of a body over the limit is drained so that the connection
	// can be reused; a body that long is not an envelope anyway.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	var env envelope
	if json.Unmarshal(raw, &env) != nil || env.Error.Code == "" {
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	e.Code, e.Message = env.Error.Code, env.Error.Message
	if len(env.Error.Details) > 0 {
		e.Details = make(map[string]any, len(env.Error.Details))
		for k, v := range env.Error.Details {
			var val any
			if json.Unmarshal(v, &val) == nil {
				e.Details[k] = val
			}
		}
		if f, ok := env.Error.Details["fields"]; ok {
			_ = json.Unmarshal(f, &e.Fields)
		}
	}
	return e
}
