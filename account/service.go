package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

// Defaults of ServiceOptions.
const (
	DefaultPendingLifetime = 5 * time.Minute
	DefaultTouchInterval   = time.Minute
	// MaxUserAgentLength and MaxIPLength bound what a session stores: the
	// same bounds as an audit event's.
	MaxUserAgentLength = audit.MaxUserAgentLength
	MaxIPLength        = audit.MaxIPLength
	// tokenSize is the number of random bytes of a session or pending token.
	tokenSize = 32
)

// ServiceOptions configure a Service. Every zero value means the documented
// default.
type ServiceOptions struct {
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random is crypto/rand when nil.
	Random io.Reader
	// Limiter is a NewMemoryLimiter when nil.
	Limiter Limiter
	// PendingLifetime is how long the second step of a sign-in may wait;
	// DefaultPendingLifetime when zero.
	PendingLifetime time.Duration
	// TouchInterval is the least time between two last_seen_at writes of one
	// session; DefaultTouchInterval when zero.
	TouchInterval time.Duration
	// MaxHashing bounds the argon2id password checks running at once (each
	// takes tens of megabytes on purpose), so that a burst of sign-ins
	// queues instead of exhausting memory; twice GOMAXPROCS when zero.
	MaxHashing int
	// HashPassword hashes new passwords (SetPassword, ChangePassword) and,
	// once at construction, the dummy password unknown emails are checked
	// against; identity.HashPassword (argon2id) when nil. Passwords are
	// always checked with identity.VerifyPassword, which reads its
	// parameters from the hash.
	HashPassword func(password string) (string, error)
}

// Service signs users in and out, keeps their sessions, two-factor
// authentication and passwords, and the organizations' security policies.
// It is safe for concurrent use.
type Service struct {
	store     Store
	box       *secretBox
	opts      ServiceOptions
	dummyHash string
	hashing   chan struct{}
}

// NewService returns the account service. serverSecret (at least
// MinServerSecretSize bytes) keys the encryption of TOTP secrets at rest;
// changing it makes every enrolled authenticator unreadable.
func NewService(store Store, serverSecret []byte, opts ServiceOptions) (*Service, error) {
	box, err := newSecretBox(serverSecret)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	if opts.Limiter == nil {
		opts.Limiter = NewMemoryLimiter()
	}
	if opts.PendingLifetime <= 0 {
		opts.PendingLifetime = DefaultPendingLifetime
	}
	if opts.TouchInterval <= 0 {
		opts.TouchInterval = DefaultTouchInterval
	}
	if opts.HashPassword == nil {
		opts.HashPassword = identity.HashPassword
	}
	// Unknown emails are checked against this hash, so that they cost the
	// same argon2id work as known ones.
	dummy, err := opts.HashPassword(rand.Text())
	if err != nil {
		return nil, err
	}
	if opts.MaxHashing <= 0 {
		opts.MaxHashing = 2 * runtime.GOMAXPROCS(0)
	}
	return &Service{store: store, box: box, opts: opts, dummyHash: dummy, hashing: make(chan struct{}, opts.MaxHashing)}, nil
}

// verifyPassword checks password against hash (identity.VerifyPassword) once
// fewer than MaxHashing checks run; ctx's error when it ends first.
func (s *Service) verifyPassword(ctx context.Context, hash, password string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	select {
	case s.hashing <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashing }()
	return identity.VerifyPassword(hash, password)
}

func (s *Service) now() time.Time { return s.opts.Clock().UTC().Truncate(time.Millisecond) }

// Client describes the browser making a request.
type Client struct {
	IP        string
	UserAgent string
	// Previous is the session token the browser presented, if any; signing
	// in deletes that session (the id rotates at sign-in).
	Previous string
}

// IssuedSession is a new session with its token, the cookie value. The token
// is returned once and never stored.
type IssuedSession struct {
	Token   string
	Session Session
}

// SignInResult is the outcome of a correct password: either a session, or,
// when the user has two-factor authentication, a pending token for
// SecondStep.
type SignInResult struct {
	Session *IssuedSession
	// Pending is set when a second factor is needed; it expires at
	// PendingExpiresAt and is used up by a successful SecondStep.
	Pending          string
	PendingExpiresAt time.Time
	// UserID is the user who signed in or is signing in, for the audit log.
	UserID uuid.UUID
	// BackupCodeUsed says that SecondStep accepted a backup code.
	BackupCodeUsed bool
}

// Errors the service returns. Messages never say whether an email exists.
var (
	errBadCredentials = errcode.New(errcode.Unauthorized, "the email or password is incorrect")
	errBadCode        = errcode.New(errcode.Unauthorized, "the code is incorrect or was used already")
	errPendingGone    = errcode.New(errcode.Unauthorized, "the sign-in has expired; sign in again")
	errSignedOut      = errcode.New(errcode.Unauthorized, "sign in to continue")
)

// ErrSignInExpired is SecondStep's error when the pending sign-in is unknown,
// used or expired: the user must enter the password again.
var ErrSignInExpired = errPendingGone

func tooMany(wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	return errcode.New(errcode.RateLimitExceeded, "too many failed attempts; try again later").
		WithDetail("retry_after_seconds", secs)
}

// newToken returns a fresh random token (base64url, no padding) and its hash.
func (s *Service) newToken() (token, hash string, err error) {
	b := make([]byte, tokenSize)
	if _, err := io.ReadFull(s.opts.Random, b); err != nil {
		return "", "", fmt.Errorf("account: token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken returns the hex SHA-256 of a session or pending token, the form
// stored. A fast hash suffices: tokens are 256 random bits.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// validToken reports whether token can be one this service issued.
func validToken(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenSize) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// lockEmail is email as the lockout keys carry it: normalized when it is
// an address, lowered and trimmed otherwise.
func lockEmail(email string) string {
	if n, err := identity.NormalizeEmail(email); err == nil {
		return n
	}
	return strings.ToLower(strings.TrimSpace(email))
}

// emailKey is the key of email's failures from every network.
func emailKey(email string) string { return "email:" + lockEmail(email) }

// loginKey is the key of email's failures from the client network of
// address ip.
func loginKey(email, ip string) string { return "login:" + lockEmail(email) + "|" + clientip.KeyOf(ip) }

// reauthKey is the key of a signed-in user's failed password
// confirmations.
func reauthKey(email string) string { return "reauth:" + lockEmail(email) }

// ipKey is the key of the client network of address ip (clientip.KeyOf).
func ipKey(ip string) string { return "ip:" + clientip.KeyOf(ip) }

// wait returns the lockout error of the keys, nil when none is locked.
func (s *Service) wait(now time.Time, keys ...string) error {
	var longest time.Duration
	for _, k := range keys {
		longest = max(longest, s.opts.Limiter.Wait(k, now))
	}
	if longest > 0 {
		return tooMany(longest)
	}
	return nil
}

func (s *Service) fail(now time.Time, keys ...string) {
	for _, k := range keys {
		s.opts.Limiter.Fail(k, now)
	}
}

func (s *Service) reset(keys ...string) {
	for _, k := range keys {
		s.opts.Limiter.Reset(k)
	}
}

// SignIn checks email and password. A locked-out account or IP address gets
// RATE_LIMIT_EXCEEDED (with details.retry_after_seconds) before any check; a
// wrong password and an unknown email get the same UNAUTHORIZED error after
// the same argon2id work (the result then names the user when the email is
// known, for the audit log only). With two-factor authentication the result carries
// a pending token for SecondStep; otherwise it carries a new session, and
// c.Previous, if any, is deleted.
func (s *Service) SignIn(ctx context.Context, email, password string, c Client) (*SignInResult, error) {
	now := s.now()
	keys := []string{loginKey(email, c.IP), emailKey(email), ipKey(c.IP)}
	locked := s.wait(now, keys...)
	var u *identity.User
	if n, err := identity.NormalizeEmail(email); err == nil {
		u, err = s.store.UserByEmail(ctx, n)
		if err != nil && !errors.Is(err, errcode.ErrNotFound) {
			return nil, err
		}
	}
	if locked != nil {
		// The user is looked up whether or not the email exists, so the
		// refusal costs the same either way; the result names the user
		// for the audit log only.
		if u != nil {
			return &SignInResult{UserID: u.ID}, locked
		}
		return nil, locked
	}
	hash := s.dummyHash
	if u != nil {
		hash = u.PasswordHash
	}
	// An over-long password is refused after the same work, on the dummy
	// hash, so that its length cannot make hashing expensive.
	pw := password
	if utf8.RuneCountInString(pw) > identity.MaxPasswordLength {
		pw, hash, u = "", s.dummyHash, nil
	}
	ok, err := s.verifyPassword(ctx, hash, pw)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil && u != nil {
		return nil, fmt.Errorf("account: verify password of user %s: %w", u.ID, err)
	}
	if u == nil || !ok {
		s.fail(now, keys...)
		if u != nil {
			// The caller's audit log names the user; the client never
			// learns more than errBadCredentials.
			return &SignInResult{UserID: u.ID}, errBadCredentials
		}
		return nil, errBadCredentials
	}
	t, err := s.store.TOTP(ctx, u.ID)
	if err != nil && !errors.Is(err, errcode.ErrNotFound) {
		return nil, err
	}
	if t != nil && t.EnabledAt != nil {
		token, th, err := s.newToken()
		if err != nil {
			return nil, err
		}
		p := &PendingSignIn{TokenHash: th, UserID: u.ID, IP: audit.Clip(c.IP, MaxIPLength), UserAgent: audit.Clip(c.UserAgent, MaxUserAgentLength),
			CreatedAt: now, ExpiresAt: now.Add(s.opts.PendingLifetime)}
		if err := s.store.CreatePendingSignIn(ctx, p); err != nil {
			return nil, err
		}
		return &SignInResult{Pending: token, PendingExpiresAt: p.ExpiresAt, UserID: u.ID}, nil
	}
	issued, err := s.issue(ctx, u.ID, false, c, now)
	if err != nil {
		return nil, err
	}
	s.reset(keys...)
	return &SignInResult{Session: issued, UserID: u.ID}, nil
}

// SecondStep completes a sign-in that SignIn left pending, with a TOTP code
// or a backup code (which is then used up). A wrong code counts as a failed
// sign-in of the account and the IP address (the result then names the
// user, for the audit log); an expired or used pending token is
// ErrSignInExpired and the user must sign in again.
func (s *Service) SecondStep(ctx context.Context, pending, code string, c Client) (*SignInResult, error) {
	now := s.now()
	if !validToken(pending) {
		return nil, errPendingGone
	}
	ph := HashToken(pending)
	p, err := s.store.PendingSignInByTokenHash(ctx, ph)
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, errPendingGone
	}
	if err != nil {
		return nil, err
	}
	if !now.Before(p.ExpiresAt) {
		_ = s.store.DeletePendingSignIn(ctx, ph)
		return nil, errPendingGone
	}
	u, err := s.store.UserByID(ctx, p.UserID)
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, errPendingGone
	}
	if err != nil {
		return nil, err
	}
	keys := []string{loginKey(u.Email, c.IP), emailKey(u.Email), ipKey(c.IP)}
	if err := s.wait(now, keys...); err != nil {
		return nil, err
	}
	backup, ok, err := s.checkSecondFactor(ctx, u.ID, code, now)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.fail(now, keys...)
		return &SignInResult{UserID: u.ID}, errBadCode
	}
	if err := s.store.DeletePendingSignIn(ctx, ph); err != nil {
		if errors.Is(err, errcode.ErrNotFound) {
			return nil, errPendingGone
		}
		return nil, err
	}
	issued, err := s.issue(ctx, u.ID, true, c, now)
	if err != nil {
		return nil, err
	}
	s.reset(keys...)
	return &SignInResult{Session: issued, UserID: u.ID, BackupCodeUsed: backup}, nil
}

// checkSecondFactor accepts a TOTP code (six digits) not used before, or an
// unused backup code, which it uses up. backup says which one matched.
func (s *Service) checkSecondFactor(ctx context.Context, userID uuid.UUID, code string, now time.Time) (backup, ok bool, err error) {
	t, err := s.store.TOTP(ctx, userID)
	if errors.Is(err, errcode.ErrNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if t.EnabledAt == nil {
		return false, false, nil
	}
	if digits := strings.ReplaceAll(strings.TrimSpace(code), " ", ""); len(digits) == TOTPDigits && isDigits(digits) {
		key, err := s.box.open(t.SealedSecret, userID[:])
		if err != nil {
			return false, false, err
		}
		step, ok := VerifyTOTP(key, digits, now, t.LastStep)
		if !ok {
			return false, false, nil
		}
		err = s.store.UseTOTPStep(ctx, userID, step, now)
		if errors.Is(err, errcode.ErrNotFound) {
			return false, false, nil // used by a concurrent request
		}
		return false, err == nil, err
	}
	want := HashBackupCode(code)
	if want == "" {
		return false, false, nil
	}
	hashes, err := s.store.UnusedBackupCodes(ctx, userID)
	if err != nil {
		return false, false, err
	}
	found := 0
	for _, h := range hashes {
		// Every stored hash is compared, in constant time, whatever matches.
		found |= subtle.ConstantTimeCompare([]byte(h), []byte(want))
	}
	if found == 0 {
		return false, false, nil
	}
	err = s.store.UseBackupCode(ctx, userID, want, now)
	if errors.Is(err, errcode.ErrNotFound) {
		return false, false, nil
	}
	return true, err == nil, err
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// EffectivePolicy returns the strictest policy of the organizations userID
// belongs to (see Strictest).
func (s *Service) EffectivePolicy(ctx context.Context, userID uuid.UUID) (Policy, error) {
	ps, err := s.store.UserPolicies(ctx, userID)
	if err != nil {
		return Policy{}, err
	}
	return Strictest(ps...), nil
}

// issue creates a session for userID, deleting c.Previous.
func (s *Service) issue(ctx context.Context, userID uuid.UUID, twoFactor bool, c Client, now time.Time) (*IssuedSession, error) {
	pol, err := s.EffectivePolicy(ctx, userID)
	if err != nil {
		return nil, err
	}
	token, th, err := s.newToken()
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	sess := Session{
		ID: id, UserID: userID, TokenHash: th, TwoFactorPassed: twoFactor,
		IP: audit.Clip(c.IP, MaxIPLength), UserAgent: audit.Clip(c.UserAgent, MaxUserAgentLength),
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(pol.SessionLifetime),
	}
	replaces := ""
	if validToken(c.Previous) {
		replaces = HashToken(c.Previous)
	}
	if err := s.store.CreateSession(ctx, &sess, replaces); err != nil {
		return nil, err
	}
	return &IssuedSession{Token: token, Session: sess}, nil
}

// Authenticated is a request's signed-in user.
type Authenticated struct {
	User    identity.User
	Session Session
	// Policy is the user's effective policy now.
	Policy Policy
	// TwoFactorEnabled says whether the user has an authenticator enrolled.
	TwoFactorEnabled bool
	// EnrolmentRequired is set when an organization of the user requires
	// two-factor authentication and the user has none: the pages send the
	// user to enrol before anything else (and before any OAuth consent).
	EnrolmentRequired bool
}

// Authenticate returns the session whose token is token and its user. A
// session past its absolute lifetime or unused for longer than the idle
// timeout is deleted and the answer is UNAUTHORIZED, as for an unknown
// token. Both limits are those of the user's effective policy now, so a
// stricter policy applies to sessions that already exist; the lifetime is
// also never longer than the one in force at sign-in. last_seen_at is written
// at most once per TouchInterval.
func (s *Service) Authenticate(ctx context.Context, token string) (*Authenticated, error) {
	if !validToken(token) {
		return nil, errSignedOut
	}
	now := s.now()
	th := HashToken(token)
	su, err := s.store.SessionByTokenHash(ctx, th)
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, errSignedOut
	}
	if err != nil {
		return nil, err
	}
	pol, err := s.EffectivePolicy(ctx, su.User.ID)
	if err != nil {
		return nil, err
	}
	sess := su.Session
	if !Active(sess, pol, now) {
		if err := s.store.DeleteSessionByTokenHash(ctx, th); err != nil {
			return nil, err
		}
		return nil, errSignedOut
	}
	if now.Sub(sess.LastSeenAt) >= s.opts.TouchInterval {
		if err := s.store.TouchSession(ctx, sess.ID, now); err != nil {
			return nil, err
		}
		sess.LastSeenAt = now
	}
	return &Authenticated{
		User: su.User, Session: sess, Policy: pol,
		TwoFactorEnabled:  su.TwoFactorEnabled,
		EnrolmentRequired: pol.RequireTwoFactor && !su.TwoFactorEnabled,
	}, nil
}

// Active reports whether sess is usable at now under pol: before both its
// stored expiry and CreatedAt plus pol's lifetime, and last seen less than
// pol's idle timeout ago.
func Active(sess Session, pol Policy, now time.Time) bool {
	deadline := sess.ExpiresAt
	if d := sess.CreatedAt.Add(pol.SessionLifetime); d.Before(deadline) {
		deadline = d
	}
	return now.Before(deadline) && now.Sub(sess.LastSeenAt) < pol.IdleTimeout
}

// SignOut deletes the session whose token is token; an unknown token is not
// an error.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if !validToken(token) {
		return nil
	}
	return s.store.DeleteSessionByTokenHash(ctx, HashToken(token))
}

// Sessions returns userID's active sessions, most recently seen first.
func (s *Service) Sessions(ctx context.Context, userID uuid.UUID) ([]Session, error) {
	now := s.now()
	pol, err := s.EffectivePolicy(ctx, userID)
	if err != nil {
		return nil, err
	}
	all, err := s.store.ListSessions(ctx, userID, now)
	if err != nil {
		return nil, err
	}
	active := all[:0]
	for _, sess := range all {
		if Active(sess, pol, now) {
			active = append(active, sess)
		}
	}
	return active, nil
}

// RevokeSession deletes userID's session id; NOT_FOUND when userID has no
// such session (another user's session is not found either).
func (s *Service) RevokeSession(ctx context.Context, userID, id uuid.UUID) error {
	err := s.store.DeleteSession(ctx, userID, id)
	return errcode.NotFoundAs(err, "session not found")
}

// RevokeAllSessions signs userID out everywhere.
func (s *Service) RevokeAllSessions(ctx context.Context, userID uuid.UUID) error {
	return s.store.DeleteUserSessions(ctx, userID)
}

// PurgeExpired deletes sessions and pending sign-ins past their stored
// expiry; sessions ended by an idle timeout go when next presented.
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	return s.store.DeleteExpired(ctx, s.now())
}
