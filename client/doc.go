// Package client is a typed Go client for the Hoplink REST API (/v1), for
// Go programs that call a Hoplink server: back ends that create links and
// read analytics with an API key, and back ends that resolve links and
// report installs with an SDK key.
//
// The package imports only the standard library, so that depending on it
// brings nothing of the server with it. Its types mirror the OpenAPI
// document the server serves at GET /v1/openapi.json: one method per /v1
// operation, named after the operation id (createLink is CreateLink),
// with context.Context first.
//
// # Errors
//
// A response with an error status is returned as *Error, which carries the
// HTTP status, the error code of the envelope (the Code constants), the
// message, the details (Fields for a validation error) and the request id:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.Code == client.CodeSlugTaken { ... }
//
// # Retries
//
// Requests whose method is idempotent (GET, HEAD, PUT, DELETE) are retried
// when the server answers 429 RATE_LIMIT_EXCEEDED or 503
// SERVICE_UNAVAILABLE, after the Retry-After the answer names, up to
// DefaultMaxAttempts attempts and DefaultMaxRetryWait of waiting in all.
// POST and PATCH are not retried: the API has no idempotency keys, and a
// create that failed with 503 may still have happened (read back first, or
// send a custom slug so that a duplicate is refused with SLUG_TAKEN). The
// one exception is MatchAttribution with a device id or fingerprint, which
// the server answers from its first install when repeated.
// WithRetries changes the bounds and WithoutRetries turns retrying off.
// Waiting ends early with the context.
//
// # Updates
//
// PATCH bodies tell three cases apart for every field the API lets a caller
// clear: a field left unset is not sent and keeps its value, Null sends an
// explicit null and clears it, and Value sends a new value. Fields that
// cannot be cleared are pointers (Ptr) and are sent when not nil.
//
// # Lists
//
// Every list has a method for one page (ListLinks) and one that walks all
// pages as an iter.Seq2 (AllLinks): offset lists advance offset by the
// page's length until has_more is false, cursor lists follow
// pagination.next_cursor. An iterator stops at the first error, which it
// yields.
package client
