// Package webhook owns Hoplink's outbound events: the event types and their
// payloads, the webhook endpoints an organization registers, the outbox the
// events wait in, and their signed delivery following the Standard Webhooks
// specification (https://www.standardwebhooks.com/).
//
// An event is written to the outbox by the store method that makes the change
// causing it, in the same transaction, as one delivery per endpoint that
// subscribes to it (Store.EnqueueEvents); an organization with no endpoint
// for an event type writes nothing. A Worker on any replica claims due
// deliveries under a lease, so that two replicas never send one delivery at
// once, posts them and records the outcome: retried with exponential backoff
// and jitter for up to RetryWindow on a timeout, a connection error, 429 or
// 5xx (honouring Retry-After), and an endpoint failing for DisableAfter is
// disabled with an audit entry.
//
// Every request carries webhook-id (the event's id, the same on every
// attempt), webhook-timestamp (Unix seconds) and webhook-signature: "v1,"
// and the base64 HMAC-SHA256 of "id.timestamp.body" under the endpoint's
// secret, and a second such signature, space-separated, while a rotated
// secret still signs. Verify checks a delivery for receivers.
//
// Safety: an endpoint URL must be https and must not resolve to loopback,
// private, link-local, unspecified or cloud metadata addresses unless the
// operator allows private networks (AllowPrivate). The check is made when
// an endpoint is saved and again on the address each connection dials, so a
// DNS answer that changes after saving cannot reach a private address.
// Redirects are not followed and response bodies are read up to a cap.
//
// Payloads carry no IP address and no full user agent.
//
// This package imports the standard library, uuid, apitype, errcode, auth,
// audit, cursor and secretkey; never store, httpapi or fx.
package webhook
