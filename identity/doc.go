// Package identity owns who a person is to Hoplink: the User (an email
// address and a password hash, with the rule that normalizes the email),
// password hashing and verification, and the password policy that decides
// which passwords may be chosen.
//
// Organizations and memberships live in package org, and dashboard sign-in
// (sessions, two-factor authentication, lockout) in package account; both
// build on this package, and so does package linking, whose link passwords
// are hashed with the same function. Storage is declared by those consumers
// (org.Store creates users, account.Store reads them and changes their
// passwords); this package declares none.
//
// It imports the standard library, errcode, golang.org/x/crypto/argon2 for
// hashing and github.com/google/uuid for user ids; no other package of
// Hoplink, and neither store, bun, fx nor net/http. It does no I/O beyond
// reading its embedded list of common passwords once, reads no clock, and
// draws randomness only for password salts.
//
// Decisions:
//
//   - Passwords are hashed with argon2id (64 MiB of memory, 3 passes, 2
//     lanes, a 16-byte random salt and a 32-byte key; see password.go) and
//     stored in PHC string form, so the parameters travel with each hash and
//     VerifyPassword reads them back.
//   - A password may be chosen when it has at least MinPasswordLength (10)
//     and at most MaxPasswordLength (256) characters, is not on an embedded
//     list of about 3,000 common passwords of ten characters or more
//     (compared case-insensitively), and is not the email address or its
//     local part.
//   - An email is trimmed and lowercased, and must be a single address of at
//     most 255 characters.
package identity
