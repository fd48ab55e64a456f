// Package audit keeps the audit log of account and security events (SPEC.md,
// Authentication rule 11; the events and the endpoint are Hoplink's design):
// sign-in success and failure, sign-out, two-factor enrolment and removal,
// backup codes used, password changes, sessions revoked, security-policy
// changes, keys created and revoked, members added and removed, role changes,
// organization deletion and app subdomain renames (attributed to the member
// who created the key). Each event has its time, its actor (a user, a key,
// or the operator's CLI), its organization, the client's IP address and
// user agent, and what it acted on.
//
// The adapters (the sign-in pages, the API handlers, the CLI) record events
// after the action succeeded or, for failures, was refused; a failure to
// record is the caller's to log and never undoes or blocks the action.
//
// It depends on a Store interface that package store implements. It imports
// auth and errcode, never store, httpapi, bun, fx or net/http.
//
// Decisions:
//
//   - An event of a user that names no organization (sign-in, sign-out,
//     two-factor, password, sessions) is written once for every organization
//     the user belongs to at that moment, so each organization sees its own
//     members' account events, and members who join later do not bring their
//     past with them. A user in no organization, and a failed sign-in with an
//     unknown email, get one event with no organization, which only the
//     operator sees (in the database). The typed email of a failed sign-in is
//     never stored: people type passwords into the email field.
//   - Events are kept when their organization is deleted (no foreign key),
//     so that the deletion itself stays on record.
//   - GET /v1/audit-events lists the caller's organization's events newest
//     first, ordered by (occurred_at, id), with from (inclusive) and to
//     (exclusive) and a page size of 1 to 100 (default 50). It needs the
//     org:read scope and the audit.read role action (owners and admins; a key
//     without a creator on its scope alone).
//   - The cursor is opaque: base64url of the last event's time and id, with
//     an HMAC-SHA256 (under a key derived from the server secret) over them,
//     the organization and the from and to filters. A cursor changed by hand,
//     used with other filters or by another organization is 400
//     CURSOR_INVALID.
package audit
