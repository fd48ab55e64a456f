package account

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/identity"
)

// Session is a signed-in browser. Its token (the cookie value) is never
// stored: TokenHash is the hex SHA-256 of it.
type Session struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	TokenHash string
	// TwoFactorPassed says whether the sign-in that made the session passed
	// a second factor.
	TwoFactorPassed bool
	// IP and UserAgent are the client's at sign-in; UserAgent is cut to
	// MaxUserAgentLength bytes.
	IP         string
	UserAgent  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is CreatedAt plus the session lifetime in force at sign-in;
	// a shorter lifetime set later also applies (see Service.Authenticate).
	ExpiresAt time.Time
}

// PendingSignIn is a sign-in whose password was right and that waits for
// its second factor. TokenHash is the hex SHA-256 of the pending token.
type PendingSignIn struct {
	TokenHash string
	UserID    uuid.UUID
	IP        string
	UserAgent string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// TOTP is a user's authenticator-app secret. SealedSecret is the secret
// encrypted with the server secret (see the package doc). LastStep is the
// RFC 6238 time step of the last code accepted, 0 before any. EnabledAt is
// nil while the enrolment waits for its confirming code.
type TOTP struct {
	UserID       uuid.UUID
	SealedSecret string
	LastStep     int64
	EnabledAt    *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// SessionUser is a session read with its user and whether that user has
// two-factor authentication enabled.
type SessionUser struct {
	Session          Session
	User             identity.User
	TwoFactorEnabled bool
}

// Store is the storage that accounts, sessions and two-factor authentication
// need. Implementations wrap errcode.ErrNotFound, errcode.ErrConflict and
// errcode.ErrUnavailable as this interface's docs say; times are written as
// given (the service passes them in UTC, truncated to milliseconds).
type Store interface {
	// UserByEmail returns the user with that normalized email;
	// errcode.ErrNotFound when none.
	UserByEmail(ctx context.Context, email string) (*identity.User, error)
	// UserByID returns user id; errcode.ErrNotFound when none.
	UserByID(ctx context.Context, id uuid.UUID) (*identity.User, error)
	// UpdatePassword sets the user's password hash and updated_at and, in
	// the same transaction, deletes every session and pending sign-in of the
	// user; errcode.ErrNotFound when the user does not exist.
	UpdatePassword(ctx context.Context, userID uuid.UUID, hash string, at time.Time) error

	// UserMemberships returns the organizations userID belongs to with the
	// user's role in each, ordered by organization name; empty when none.
	UserMemberships(ctx context.Context, userID uuid.UUID) ([]Membership, error)
	// UserPolicies returns the security policy of every organization
	// userID belongs to, DefaultPolicy for one that has not set its own;
	// empty when the user belongs to none.
	UserPolicies(ctx context.Context, userID uuid.UUID) ([]Policy, error)
	// OrgSecurityPolicy returns orgID's policy, DefaultPolicy when it has not
	// set one; errcode.ErrNotFound when the organization does not exist.
	OrgSecurityPolicy(ctx context.Context, orgID uuid.UUID) (Policy, error)
	// SetOrgSecurityPolicy creates or replaces orgID's policy;
	// errcode.ErrNotFound when the organization does not exist.
	SetOrgSecurityPolicy(ctx context.Context, orgID uuid.UUID, p Policy, at time.Time) error

	// CreateSession inserts s and, in the same transaction, deletes the
	// session whose token hash is replaces (none when replaces is empty or
	// matches nothing): the rotation at sign-in.
	CreateSession(ctx context.Context, s *Session, replaces string) error
	// SessionByTokenHash returns the session with that token hash, its user
	// and whether the user has two-factor authentication enabled;
	// errcode.ErrNotFound when none. It does not check expiry.
	SessionByTokenHash(ctx context.Context, hash string) (*SessionUser, error)
	// TouchSession sets last_seen_at of session id to at, if at is later.
	TouchSession(ctx context.Context, id uuid.UUID, at time.Time) error
	// DeleteSession deletes session id of userID; errcode.ErrNotFound when
	// userID has no such session.
	DeleteSession(ctx context.Context, userID, id uuid.UUID) error
	// DeleteSessionByTokenHash deletes the session with that token hash; no
	// error when there is none.
	DeleteSessionByTokenHash(ctx context.Context, hash string) error
	// DeleteUserSessions deletes every session of userID.
	DeleteUserSessions(ctx context.Context, userID uuid.UUID) error
	// ListSessions returns the sessions of userID that expire after now,
	// most recently seen first.
	ListSessions(ctx context.Context, userID uuid.UUID, now time.Time) ([]Session, error)
	// DeleteExpired deletes the sessions and pending sign-ins that expired at
	// or before now and returns how many rows went.
	DeleteExpired(ctx context.Context, now time.Time) (int, error)

	// CreatePendingSignIn inserts p.
	CreatePendingSignIn(ctx context.Context, p *PendingSignIn) error
	// PendingSignInByTokenHash returns the pending sign-in with that token
	// hash; errcode.ErrNotFound when none. It does not check expiry.
	PendingSignInByTokenHash(ctx context.Context, hash string) (*PendingSignIn, error)
	// DeletePendingSignIn deletes the pending sign-in with that token hash;
	// errcode.ErrNotFound when there is none (another request used it).
	DeletePendingSignIn(ctx context.Context, hash string) error

	// TOTP returns userID's authenticator secret, enabled or waiting for
	// confirmation; errcode.ErrNotFound when none.
	TOTP(ctx context.Context, userID uuid.UUID) (*TOTP, error)
	// StartTOTP inserts t, which is not enabled, replacing an earlier
	// enrolment that was never confirmed; errcode.ErrConflict when the user
	// has two-factor authentication enabled.
	StartTOTP(ctx context.Context, t *TOTP) error
	// EnableTOTP confirms userID's pending enrolment with a code of step,
	// and replaces the user's backup codes with backupHashes, in one
	// transaction; errcode.ErrNotFound when there is no pending enrolment.
	EnableTOTP(ctx context.Context, userID uuid.UUID, step int64, at time.Time, backupHashes []string) error
	// UseTOTPStep records step as userID's last accepted step if it is later
	// than the one recorded and two-factor authentication is enabled;
	// errcode.ErrNotFound otherwise (a replayed code, or a concurrent use).
	UseTOTPStep(ctx context.Context, userID uuid.UUID, step int64, at time.Time) error
	// DeleteTOTP deletes userID's authenticator secret and backup codes;
	// errcode.ErrNotFound when there was no secret.
	DeleteTOTP(ctx context.Context, userID uuid.UUID) error

	// UnusedBackupCodes returns the hashes of userID's unused backup codes.
	UnusedBackupCodes(ctx context.Context, userID uuid.UUID) ([]string, error)
	// UseBackupCode marks userID's backup code with that hash used at at;
	// errcode.ErrNotFound when it does not exist or is used already.
	UseBackupCode(ctx context.Context, userID uuid.UUID, hash string, at time.Time) error
	// ReplaceBackupCodes deletes userID's backup codes and inserts hashes,
	// in one transaction.
	ReplaceBackupCodes(ctx context.Context, userID uuid.UUID, hashes []string, at time.Time) error
}
