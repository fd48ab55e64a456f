// Package account owns dashboard sign-in (SPEC.md, Authentication rule 11):
// sessions, authenticator-app two-factor authentication with backup codes,
// password changes, failed-sign-in lockout and the organizations' security
// policies. Users themselves (identity.User: email, argon2id password hash),
// password hashing and the password policy belong to package identity, and
// organizations and memberships to package org.
//
// It depends on a Store interface that package store implements, which also
// reads users and changes their passwords, on identity, and on audit for
// the bounds of the client IP and user agent it stores (audit.Clip). It imports
// neither org, store, httpapi, bun, fx nor net/http; the sign-in pages and
// the /v1/organizations/{id}/security endpoints live in httpapi, and the
// audit log in package audit, whose events the adapters write.
//
// Decisions:
//
//   - Passwords follow identity's policy (identity.CheckPassword): at least
//     10 and at most 256 characters, not on an embedded list of about 3,000
//     common passwords of ten characters or more (compared
//     case-insensitively), not the email or its local part.
//   - TOTP: RFC 6238 with SHA-1, six digits and 30-second steps, written
//     against the standard library (about forty lines, checked against the
//     RFC's test vectors) rather than a dependency. A code from one step
//     either side of now is accepted; the step of the last accepted code is
//     stored and a code whose step is not later is refused, so no code works
//     twice, and the store's conditional update settles concurrent uses.
//   - The TOTP secret is stored encrypted with AES-256-GCM under a key derived
//     from the server secret with secretkey.Derive (purpose "hoplink account
//     totp secret v2"), with the user id as additional data, in the form
//     "v2:" + base64url(nonce || ciphertext). Secrets stored by earlier
//     releases ("v1:", under an HKDF-SHA256 key of the label "hoplink
//     account totp secret v1") still open. Losing or changing the server
//     secret makes enrolled authenticators unreadable: users then sign in
//     with a backup code or an operator resets their two-factor state.
//   - Backup codes: ten codes of ten characters from a 31-symbol alphabet
//     without look-alikes (no 0, 1, i, l, o), shown once as "xxxxx-xxxxx",
//     stored as SHA-256 of the normalized form (see HashBackupCode for why a
//     fast hash suffices), compared in constant time against every unused
//     code, used up by a conditional update so two requests cannot both use
//     one. Input ignores case, dashes and spaces.
//   - Sessions: 32 random bytes, base64url, stored only as SHA-256. Each has
//     an absolute expiry and an idle timeout taken from the strictest policy
//     of the user's organizations (defaults 30 days and 7 days). Authenticate
//     applies the policy in force now, so a stricter policy also ends existing
//     sessions. last_seen_at is written at most once a minute. Signing in
//     deletes the session the browser presented (rotation); changing a
//     password deletes every session and pending sign-in of the user, then
//     issues a new session for the browser that changed it.
//   - Sign-in: an unknown email is verified against a dummy argon2id hash so
//     that it costs the same as a wrong password, and both get the same
//     UNAUTHORIZED error. With two-factor authentication, a correct password
//     gives a pending token (random, stored hashed, five minutes) that
//     SecondStep exchanges for a session with a TOTP or backup code.
//   - Lockout: failures are counted behind the Limiter interface per email
//     from one client network (as typed, whether or not it exists; the
//     network is clientip.KeyOf the address: an IPv4 address, or an IPv6
//     /64), per email across every network, and per network. The
//     in-process MemoryLimiter locks an email on one network for 15 minutes
//     after 10 failures (AccountLockout), an email everywhere after 100
//     (EmailLockout, a ceiling high enough that a guesser on one network
//     cannot lock the user out of their own), and a network for a minute
//     after 20 (IPLockout); each further failure doubles a lock, up to 4
//     hours (an hour for a network), and a key is forgotten a day after its
//     last failure. A success resets its three keys. A signed-in user's
//     password confirmations count under a key of their own, with
//     AccountLockout. A locked key gets RATE_LIMIT_EXCEEDED with
//     details.retry_after_seconds. With --redis the servers count in Redis
//     instead (ratelimit.RedisLockout, the same rules), so a lockout holds
//     on every replica.
//   - At most MaxHashing argon2id checks (twice GOMAXPROCS) run at once;
//     others queue, and a sign-in whose client has gone is dropped without
//     counting as a failure.
//   - Two-factor required by policy: Authenticate reports EnrolmentRequired
//     when the user has no authenticator; the pages send the user to enrol.
//     Disabling two-factor authentication is allowed (password and a code);
//     the user is then asked to enrol again.
//   - The security policy is read with the org:read scope (every role) and
//     changed with the team:write scope and the org.security role action,
//     which only owners hold (PolicyFor, SetPolicyFor); keys without a
//     creator, such as the bootstrap key, pass on their scope alone.
//   - SignIn and SecondStep name the user in their result even when they
//     refuse (a wrong password or code, a lockout), for the audit log; the
//     client still gets the same error whether or not the email exists.
package account
