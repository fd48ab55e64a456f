// Package httperr turns the errors of package errcode into HTTP answers: it
// owns the one table from error code to HTTP status (SPEC.md, Errors) and
// writes the error envelope {"error": {"code", "message", "details"}}.
// Every adapter that answers over HTTP (the REST API, the MCP endpoint, the
// link domains) writes its errors through Write, so that no handler writes an
// error body by hand and the same error reads the same everywhere; the CLI
// prints the same envelope with Envelope.
//
// It lives beside errcode rather than inside it because errcode is imported
// by every service, and services never know HTTP exists.
//
// This package imports the standard library and errcode only.
package httperr
