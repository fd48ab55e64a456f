// Package errcode defines the one error type that every Hoplink service returns.
//
// An *Error carries a code from SPEC.md's error table (VALIDATION_ERROR,
// SLUG_TAKEN, ...), a message that is safe to show a client, optional field
// errors and optional details; FieldErrors collects the field errors of one
// request into one VALIDATION_ERROR. Adapters (httpapi, mcpserver) translate the code
// into a transport status; services never know HTTP exists.
//
// Storage implementations signal three conditions with the sentinels
// ErrNotFound, ErrConflict and ErrUnavailable, wrapped with %w, so that
// services can turn them into coded errors (NotFoundAs does it for
// ErrNotFound) and adapters can recognise a database that cannot be reached
// anywhere in an error chain.
//
// This package imports the standard library only.
package errcode
