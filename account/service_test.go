package account_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

const goodPassword = "violet tractor umbrella"

type env struct {
	t     *testing.T
	store *store.Store
	clock *testkit.Clock
	orgs  *org.Service
	svc   *account.Service
}

var serverSecret = bytes.Repeat([]byte{7}, 32)

func newEnv(t *testing.T) *env {
	t.Helper()
	s := storetest.SQLite(t)
	c := testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 5, 0, time.UTC))
	svc, err := account.NewService(s, serverSecret, account.ServiceOptions{Clock: c.Now, HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	orgs := org.NewService(s, org.ServiceOptions{Clock: c.Now, HashPassword: testkit.HashPassword})
	return &env{t: t, store: s, clock: c, orgs: orgs, svc: svc}
}

// user inserts a user with goodPassword, cheaply hashed (testkit.User), so
// that signing in costs no argon2id work at the server's parameters.
func (e *env) user(email string) *identity.User {
	e.t.Helper()
	return testkit.User(e.t, e.store, email, goodPassword, e.clock.Now())
}

func (e *env) org(name string, members ...*identity.User) uuid.UUID {
	e.t.Helper()
	o, _, err := e.orgs.Create(e.t.Context(), name, "")
	require.NoError(e.t, err)
	for _, u := range members {
		_, err := e.orgs.AddMember(e.t.Context(), o.ID, u.Email, auth.RoleMember)
		require.NoError(e.t, err)
	}
	return o.ID
}

func (e *env) signIn(email string) *account.IssuedSession {
	e.t.Helper()
	r, err := e.svc.SignIn(e.t.Context(), email, goodPassword, account.Client{IP: "192.0.2.1", UserAgent: "test"})
	require.NoError(e.t, err)
	require.NotNil(e.t, r.Session, "signed in without a second step")
	return r.Session
}

// enrol enables two-factor authentication for u and returns the raw secret
// and the backup codes.
func (e *env) enrol(u *identity.User) ([]byte, []string) {
	e.t.Helper()
	en, err := e.svc.StartTOTP(e.t.Context(), u.ID)
	require.NoError(e.t, err)
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(en.Secret)
	require.NoError(e.t, err)
	codes, err := e.svc.ConfirmTOTP(e.t.Context(), u.ID, e.code(key, 0))
	require.NoError(e.t, err)
	return key, codes
}

// code returns the TOTP code at now plus steps.
func (e *env) code(key []byte, steps int64) string {
	return account.TOTPCode(key, account.TOTPStep(e.clock.Now())+steps)
}

func codeOf(err error) errcode.Code { return errcode.CodeOf(err) }

func TestNewServiceNeedsALongServerSecret(t *testing.T) {
	t.Parallel()
	_, err := account.NewService(nil, make([]byte, 31), account.ServiceOptions{})
	assert.Error(t, err)
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	u := e.user("ann@example.com")
	c := account.Client{IP: "192.0.2.1", UserAgent: strings.Repeat("x", 2000)}

	t.Run("success gives a session", func(t *testing.T) {
		r, err := e.svc.SignIn(ctx, " Ann@Example.com ", goodPassword, c)
		require.NoError(t, err)
		require.NotNil(t, r.Session)
		assert.Empty(t, r.Pending)
		assert.Equal(t, u.ID, r.UserID)
		assert.Len(t, r.Session.Token, 43, "32 bytes, base64url")
		assert.Equal(t, account.HashToken(r.Session.Token), r.Session.Session.TokenHash)
		assert.Len(t, r.Session.Session.UserAgent, account.MaxUserAgentLength, "user agent truncated")
		assert.False(t, r.Session.Session.TwoFactorPassed)
		assert.Equal(t, e.clock.Now().Add(30*24*time.Hour).Truncate(time.Millisecond), r.Session.Session.ExpiresAt)

		a, err := e.svc.Authenticate(ctx, r.Session.Token)
		require.NoError(t, err)
		assert.Equal(t, u.ID, a.User.ID)
		assert.Equal(t, "ann@example.com", a.User.Email)
	})
	t.Run("a wrong password and an unknown email get the same error", func(t *testing.T) {
		_, wrong := e.svc.SignIn(ctx, "ann@example.com", "not the password", c)
		_, unknown := e.svc.SignIn(ctx, "nobody@example.com", goodPassword, c)
		_, malformed := e.svc.SignIn(ctx, "not an email", goodPassword, c)
		require.Error(t, wrong)
		assert.Equal(t, errcode.Unauthorized, codeOf(wrong))
		assert.Equal(t, wrong.Error(), unknown.Error())
		assert.Equal(t, wrong.Error(), malformed.Error())
	})
	t.Run("an over-long password is refused like a wrong one", func(t *testing.T) {
		_, err := e.svc.SignIn(ctx, "ann@example.com", strings.Repeat("p", 10_000), c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err))
	})
}

func TestSignInLockout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	e.user("ann@example.com")
	c := account.Client{IP: "192.0.2.1"}

	for range account.AccountLockout.Threshold {
		_, err := e.svc.SignIn(ctx, "ann@example.com", "wrong password!", c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err))
	}
	_, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
	require.Equal(t, errcode.RateLimitExceeded, codeOf(err), "locked even with the right password")
	ce, _ := errcode.As(err)
	assert.Equal(t, 900, ce.Details["retry_after_seconds"])

	t.Run("an unknown email locks the same way", func(t *testing.T) {
		for range account.AccountLockout.Threshold {
			_, _ = e.svc.SignIn(ctx, "ghost@example.com", "wrong password!", account.Client{IP: "198.51.100.7"})
		}
		_, err := e.svc.SignIn(ctx, "ghost@example.com", "wrong password!", account.Client{IP: "198.51.100.7"})
		assert.Equal(t, errcode.RateLimitExceeded, codeOf(err))
	})

	e.clock.Advance(account.AccountLockout.Base)
	_, err = e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
	require.NoError(t, err, "the lockout ends after its window")
	_, err = e.svc.SignIn(ctx, "ann@example.com", "wrong password!", c)
	assert.Equal(t, errcode.Unauthorized, codeOf(err), "a success reset the count: one failure does not lock")
}

func TestSessionRotationAndRevocation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	u := e.user("ann@example.com")
	old := e.signIn("ann@example.com")

	r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, account.Client{Previous: old.Token})
	require.NoError(t, err)
	assert.NotEqual(t, old.Token, r.Session.Token)
	_, err = e.svc.Authenticate(ctx, old.Token)
	assert.Equal(t, errcode.Unauthorized, codeOf(err), "signing in deletes the presented session")

	other := e.signIn("ann@example.com")
	list, err := e.svc.Sessions(ctx, u.ID)
	require.NoError(t, err)
	assert.Len(t, list, 2)

	require.NoError(t, e.svc.RevokeSession(ctx, u.ID, other.Session.ID))
	_, err = e.svc.Authenticate(ctx, other.Token)
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	assert.Equal(t, errcode.NotFound, codeOf(e.svc.RevokeSession(ctx, uuid.New(), r.Session.Session.ID)), "only one's own")

	require.NoError(t, e.svc.SignOut(ctx, r.Session.Token))
	_, err = e.svc.Authenticate(ctx, r.Session.Token)
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	assert.NoError(t, e.svc.SignOut(ctx, "garbage"))
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	t.Run("idle timeout", func(t *testing.T) {
		e := newEnv(t)
		e.user("ann@example.com")
		s := e.signIn("ann@example.com")
		e.clock.Advance(7*24*time.Hour - time.Second)
		_, err := e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err, "used just before the idle timeout")
		e.clock.Advance(7*24*time.Hour - time.Second)
		_, err = e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err, "each use restarts the idle clock")
		e.clock.Advance(7 * 24 * time.Hour)
		_, err = e.svc.Authenticate(ctx, s.Token)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "idle for 7 days")
	})
	t.Run("absolute lifetime", func(t *testing.T) {
		e := newEnv(t)
		e.user("ann@example.com")
		s := e.signIn("ann@example.com")
		for range 5 {
			e.clock.Advance(5 * 24 * time.Hour)
			_, err := e.svc.Authenticate(ctx, s.Token)
			require.NoError(t, err)
		}
		e.clock.Advance(5*24*time.Hour - time.Second)
		_, err := e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err, "a second before 30 days")
		e.clock.Advance(time.Second)
		_, err = e.svc.Authenticate(ctx, s.Token)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "past 30 days despite use")
	})
	t.Run("touch is throttled to once a minute", func(t *testing.T) {
		e := newEnv(t)
		e.user("ann@example.com")
		s := e.signIn("ann@example.com")
		e.clock.Advance(30 * time.Second)
		a, err := e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err)
		assert.Equal(t, s.Session.LastSeenAt, a.Session.LastSeenAt, "not written within a minute")
		e.clock.Advance(30 * time.Second)
		a, err = e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err)
		assert.Equal(t, e.clock.Now().Truncate(time.Millisecond), a.Session.LastSeenAt)
	})
	t.Run("the strictest organization policy applies, also to existing sessions", func(t *testing.T) {
		e := newEnv(t)
		u := e.user("ann@example.com")
		loose := e.org("Loose", u)
		strict := e.org("Strict", u)
		_, err := e.svc.SetOrgPolicy(ctx, loose, account.Policy{SessionLifetime: 48 * time.Hour, IdleTimeout: 24 * time.Hour})
		require.NoError(t, err)
		s := e.signIn("ann@example.com")
		assert.Equal(t, e.clock.Now().Add(48*time.Hour).Truncate(time.Millisecond), s.Session.ExpiresAt)

		_, err = e.svc.SetOrgPolicy(ctx, strict, account.Policy{RequireTwoFactor: true, SessionLifetime: 24 * time.Hour, IdleTimeout: time.Hour})
		require.NoError(t, err)
		pol, err := e.svc.EffectivePolicy(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, account.Policy{RequireTwoFactor: true, SessionLifetime: 24 * time.Hour, IdleTimeout: time.Hour}, pol)

		a, err := e.svc.Authenticate(ctx, s.Token)
		require.NoError(t, err)
		assert.True(t, a.EnrolmentRequired, "two-factor required and not enrolled")
		e.clock.Advance(time.Hour)
		_, err = e.svc.Authenticate(ctx, s.Token)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "the stricter idle timeout ends the existing session")

		got, err := e.svc.OrgPolicy(ctx, loose)
		require.NoError(t, err)
		assert.Equal(t, 48*time.Hour, got.SessionLifetime)
		_, err = e.svc.OrgPolicy(ctx, uuid.New())
		assert.Equal(t, errcode.NotFound, codeOf(err))
		_, err = e.svc.SetOrgPolicy(ctx, uuid.New(), account.DefaultPolicy())
		assert.Equal(t, errcode.NotFound, codeOf(err))
		_, err = e.svc.SetOrgPolicy(ctx, loose, account.Policy{})
		assert.Equal(t, errcode.ValidationError, codeOf(err))
	})
}

func TestChangePasswordRevokesEverySession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	e.user("ann@example.com")
	here := e.signIn("ann@example.com")
	elsewhere := e.signIn("ann@example.com")

	_, err := e.svc.ChangePassword(ctx, here.Token, "wrong password!", "a brand new passphrase", account.Client{})
	assert.Equal(t, errcode.ValidationError, codeOf(err))
	_, err = e.svc.ChangePassword(ctx, here.Token, goodPassword, "password123", account.Client{})
	ce, _ := errcode.As(err)
	require.NotNil(t, ce)
	assert.Equal(t, "password", ce.Fields[0].Field, "the policy applies")

	fresh, err := e.svc.ChangePassword(ctx, here.Token, goodPassword, "a brand new passphrase", account.Client{IP: "192.0.2.9"})
	require.NoError(t, err)
	for _, old := range []string{here.Token, elsewhere.Token} {
		_, err := e.svc.Authenticate(ctx, old)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "every old session revoked")
	}
	_, err = e.svc.Authenticate(ctx, fresh.Token)
	assert.NoError(t, err, "the browser that changed it stays signed in")

	_, err = e.svc.SignIn(ctx, "ann@example.com", goodPassword, account.Client{})
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	_, err = e.svc.SignIn(ctx, "ann@example.com", "a brand new passphrase", account.Client{})
	assert.NoError(t, err)

	t.Run("operator reset", func(t *testing.T) {
		s := e.signIn2(t, "a brand new passphrase")
		_, err := e.svc.SetPassword(ctx, "ANN@example.com", "yet another passphrase")
		require.NoError(t, err)
		_, err = e.svc.Authenticate(ctx, s)
		assert.Equal(t, errcode.Unauthorized, codeOf(err))
		_, err = e.svc.SetPassword(ctx, "nobody@example.com", "yet another passphrase")
		assert.Equal(t, errcode.NotFound, codeOf(err))
	})
}

func (e *env) signIn2(t *testing.T, password string) string {
	r, err := e.svc.SignIn(t.Context(), "ann@example.com", password, account.Client{})
	require.NoError(t, err)
	return r.Session.Token
}

func TestTwoFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	u := e.user("ann@example.com")
	c := account.Client{IP: "192.0.2.1"}

	en, err := e.svc.StartTOTP(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "otpauth://totp/Hoplink:ann@example.com?secret="+en.Secret+"&issuer=Hoplink", en.URI)
	_, err = e.svc.ConfirmTOTP(ctx, u.ID, "000000")
	assert.Equal(t, errcode.ValidationError, codeOf(err), "a wrong confirming code")

	key, codes := e.enrol(u)
	assert.Len(t, codes, 10)
	_, err = e.svc.StartTOTP(ctx, u.ID)
	assert.Equal(t, errcode.Forbidden, codeOf(err), "already enabled")

	t.Run("the secret is stored encrypted", func(t *testing.T) {
		rec, err := e.store.TOTP(ctx, u.ID)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(rec.SealedSecret, "v2:"))
		assert.NotContains(t, rec.SealedSecret, base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(key))
	})

	e.clock.Advance(account.TOTPPeriod)
	r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
	require.NoError(t, err)
	require.Nil(t, r.Session, "a second step is needed")
	require.NotEmpty(t, r.Pending)

	_, err = e.svc.SecondStep(ctx, r.Pending, "000000", c)
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	code := e.code(key, 0)
	done, err := e.svc.SecondStep(ctx, r.Pending, code, c)
	require.NoError(t, err)
	require.NotNil(t, done.Session)
	assert.True(t, done.Session.Session.TwoFactorPassed)
	assert.False(t, done.BackupCodeUsed)
	a, err := e.svc.Authenticate(ctx, done.Session.Token)
	require.NoError(t, err)
	assert.True(t, a.TwoFactorEnabled)

	_, err = e.svc.SecondStep(ctx, r.Pending, code, c)
	assert.Equal(t, errcode.Unauthorized, codeOf(err), "the pending token is used up")

	t.Run("a replayed code is refused, a later one accepted", func(t *testing.T) {
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		_, err = e.svc.SecondStep(ctx, r.Pending, code, c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "same code again")
		e.clock.Advance(account.TOTPPeriod)
		_, err = e.svc.SecondStep(ctx, r.Pending, e.code(key, 0), c)
		assert.NoError(t, err)
	})
	t.Run("a backup code works once, however it is typed", func(t *testing.T) {
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		typed := strings.ToUpper(strings.ReplaceAll(codes[0], "-", " "))
		done, err := e.svc.SecondStep(ctx, r.Pending, typed, c)
		require.NoError(t, err)
		assert.True(t, done.BackupCodeUsed)

		r, err = e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		_, err = e.svc.SecondStep(ctx, r.Pending, codes[0], c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err), "used up")
		_, err = e.svc.SecondStep(ctx, r.Pending, codes[1], c)
		assert.NoError(t, err, "another one still works")
	})
	t.Run("a pending sign-in expires", func(t *testing.T) {
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		e.clock.Advance(account.DefaultPendingLifetime)
		_, err = e.svc.SecondStep(ctx, r.Pending, e.code(key, 0), c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err))
	})
	t.Run("wrong codes lock the account", func(t *testing.T) {
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		for range account.AccountLockout.Threshold {
			_, err = e.svc.SecondStep(ctx, r.Pending, "abcde-fghjk", c)
			assert.Equal(t, errcode.Unauthorized, codeOf(err))
		}
		e.clock.Advance(account.TOTPPeriod)
		_, err = e.svc.SecondStep(ctx, r.Pending, e.code(key, 0), c)
		assert.Equal(t, errcode.RateLimitExceeded, codeOf(err))
		e.clock.Advance(account.AccountLockout.Base)
		// The lock outlasts the pending sign-in: the user signs in again.
		r, err = e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err, "the lock is over")
		_, err = e.svc.SecondStep(ctx, r.Pending, e.code(key, 0), c)
		assert.NoError(t, err, "accepted after the window, which resets the count")
	})
	t.Run("regenerated backup codes replace the old ones", func(t *testing.T) {
		fresh, err := e.svc.RegenerateBackupCodes(ctx, u.ID, goodPassword)
		require.NoError(t, err)
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		_, err = e.svc.SecondStep(ctx, r.Pending, codes[2], c)
		assert.Equal(t, errcode.Unauthorized, codeOf(err))
		_, err = e.svc.SecondStep(ctx, r.Pending, fresh[0], c)
		assert.NoError(t, err)
	})
	t.Run("disabling needs the password and a code", func(t *testing.T) {
		e.clock.Advance(account.TOTPPeriod)
		assert.Equal(t, errcode.ValidationError, codeOf(e.svc.DisableTOTP(ctx, u.ID, "wrong password!", e.code(key, 0))))
		assert.Equal(t, errcode.ValidationError, codeOf(e.svc.DisableTOTP(ctx, u.ID, goodPassword, "000000")))
		require.NoError(t, e.svc.DisableTOTP(ctx, u.ID, goodPassword, e.code(key, 0)))
		r, err := e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
		require.NoError(t, err)
		assert.NotNil(t, r.Session, "no second step any more")
	})
}

func TestSecretBoxNeedsTheSameServerSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	u := e.user("ann@example.com")
	key, _ := e.enrol(u)
	other, err := account.NewService(e.store, bytes.Repeat([]byte{8}, 32),
		account.ServiceOptions{Clock: e.clock.Now, HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	r, err := other.SignIn(ctx, "ann@example.com", goodPassword, account.Client{})
	require.NoError(t, err)
	e.clock.Advance(account.TOTPPeriod)
	_, err = other.SecondStep(ctx, r.Pending, e.code(key, 0), account.Client{})
	assert.Equal(t, errcode.InternalError, codeOf(err), "another server secret cannot open the TOTP secret")
}

func TestPurgeExpired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("ann@example.com")
	e.signIn("ann@example.com")
	e.clock.Advance(31 * 24 * time.Hour)
	n, err := e.svc.PurgeExpired(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

func TestSignInOfAGoneClientIsNoFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("ann@example.com")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 10 {
		res, err := e.svc.SignIn(ctx, "ann@example.com", "wrong password!", account.Client{IP: "192.0.2.1"})
		assert.ErrorIs(t, err, context.Canceled, "no password check once the client has gone")
		assert.Nil(t, res)
	}
	res, err := e.svc.SignIn(t.Context(), u.Email, goodPassword, account.Client{IP: "192.0.2.1"})
	require.NoError(t, err, "the abandoned attempts locked nothing")
	assert.NotNil(t, res.Session)
}

func TestRefusedSignInsNameTheUserForTheAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	u := e.user("ann@example.com")
	c := account.Client{IP: "192.0.2.1"}

	res, err := e.svc.SignIn(ctx, "ann@example.com", "wrong password!", c)
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	require.NotNil(t, res)
	assert.Equal(t, u.ID, res.UserID, "a wrong password names the user")
	assert.Nil(t, res.Session)

	res, err = e.svc.SignIn(ctx, "ghost@example.com", "wrong password!", c)
	assert.Equal(t, errcode.Unauthorized, codeOf(err))
	assert.Nil(t, res, "an unknown email names no one")

	for range account.AccountLockout.Threshold - 1 {
		_, _ = e.svc.SignIn(ctx, "ann@example.com", "wrong password!", c)
	}
	res, err = e.svc.SignIn(ctx, "ann@example.com", goodPassword, c)
	assert.Equal(t, errcode.RateLimitExceeded, codeOf(err))
	require.NotNil(t, res)
	assert.Equal(t, u.ID, res.UserID, "a locked sign-in names the user")
	assert.Nil(t, res.Session, "and signs no one in")
}
