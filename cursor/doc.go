// Package cursor makes and checks the opaque, signed cursors of Hoplink's
// cursor lists (SPEC.md, cursor list envelope): the installs and attempts
// lists and the audit log.
//
// A cursor is unpadded base64url of a body followed by an HMAC-SHA256 under
// a key the caller derives from the server secret. Nothing in a cursor is
// secret (times and a record id of the caller's own organization); the MAC
// makes it unforgeable, so a position or window the server did not issue is
// refused, and it binds the cursor to the list, organization and filters it
// was issued for.
//
// Two layouts exist, both kept byte for byte so that cursors issued before
// this package keep working:
//
//   - State (Signer.Seal, Signer.Open): the list, a digest of its filters,
//     the window of the first page, the position after which the next page
//     starts and when it was issued; refused after Lifetime. The installs
//     and attempts lists use it.
//   - Position (Signer.SealPosition, Signer.OpenPosition): the position
//     alone, at millisecond precision, with the organization and the from/to
//     filters bound by the MAC only; it never expires. The audit log uses it.
//
// The package imports the standard library and uuid only; it never reads a
// clock (now is an argument) and it does not derive keys.
package cursor
