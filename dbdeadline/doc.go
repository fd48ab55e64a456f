// Package dbdeadline bounds one database call on a request's path: the
// link lookups of the link-domain handler and of the SDK resolve, the app
// lookup of the association files, API key authentication and /readyz.
//
// A stalled connection (a database that accepts a connection but answers
// nothing, a lock held elsewhere) would otherwise hold the request until the
// client gives up. Context gives the call a deadline (Default unless the
// operator chose another); Err turns what the driver made of the expired
// deadline (context.DeadlineExceeded, an i/o timeout, an interrupted query)
// into one error, ErrTimeout, which wraps errcode.ErrUnavailable: to the
// client it is the same 503 SERVICE_UNAVAILABLE as a database that refuses
// connections, with Retry-After.
//
// The package imports the standard library and errcode only; services and
// adapters import it, never the other way round.
package dbdeadline
