package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

var accountTables = []string{"org_security_policies", "user_sessions", "pending_sign_ins", "user_totp", "user_backup_codes"}

func newSession(c *clock, userID uuid.UUID, hash string) *account.Session {
	at := c.next()
	return &account.Session{ID: uuid.Must(uuid.NewV7()), UserID: userID, TokenHash: hash, IP: "192.0.2.1", UserAgent: "ua",
		CreatedAt: at, LastSeenAt: at, ExpiresAt: at.Add(24 * time.Hour)}
}

func countRows(t *testing.T, s *store.Store, table string) int {
	t.Helper()
	n, err := s.DB().NewSelect().TableExpr(table).Count(t.Context())
	require.NoError(t, err)
	return int(n)
}

func TestAccountsMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		assertMigratesDownAndUp(t, s, accountTables...)
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		require.NoError(t, s.CreateSession(ctx, newSession(c, u.ID, "h1"), ""))
	})
}

func TestSessionsStore(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		first := newSession(c, u.ID, "h1")
		require.NoError(t, s.CreateSession(ctx, first, ""))
		assert.ErrorIs(t, s.CreateSession(ctx, newSession(c, u.ID, "h1"), ""), errcode.ErrConflict, "token hashes are unique")

		got, err := s.SessionByTokenHash(ctx, "h1")
		require.NoError(t, err)
		assert.Equal(t, *first, got.Session)
		assert.Equal(t, u.Email, got.User.Email)
		assert.Equal(t, u.PasswordHash, got.User.PasswordHash)
		assert.False(t, got.TwoFactorEnabled)
		_, err = s.SessionByTokenHash(ctx, "nope")
		assert.ErrorIs(t, err, errcode.ErrNotFound)

		second := newSession(c, u.ID, "h2")
		require.NoError(t, s.CreateSession(ctx, second, "h1"), "rotation")
		_, err = s.SessionByTokenHash(ctx, "h1")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "the replaced session is gone")

		later := second.LastSeenAt.Add(time.Hour)
		require.NoError(t, s.TouchSession(ctx, second.ID, later))
		require.NoError(t, s.TouchSession(ctx, second.ID, second.LastSeenAt), "never moves back")
		got, err = s.SessionByTokenHash(ctx, "h2")
		require.NoError(t, err)
		assert.Equal(t, later, got.Session.LastSeenAt)

		third := newSession(c, u.ID, "h3")
		require.NoError(t, s.CreateSession(ctx, third, ""))
		list, err := s.ListSessions(ctx, u.ID, c.now)
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, second.ID, list[0].ID, "most recently seen first")
		list, err = s.ListSessions(ctx, u.ID, third.ExpiresAt)
		require.NoError(t, err)
		assert.Empty(t, list, "expired sessions are not listed")

		assert.ErrorIs(t, s.DeleteSession(ctx, uuid.New(), third.ID), errcode.ErrNotFound, "another user's session")
		require.NoError(t, s.DeleteSession(ctx, u.ID, third.ID))
		require.NoError(t, s.DeleteUserSessions(ctx, u.ID))
		assert.Zero(t, countRows(t, s, "user_sessions"))

		require.NoError(t, s.CreateSession(ctx, newSession(c, u.ID, "h4"), ""))
		require.NoError(t, s.CreatePendingSignIn(ctx, &account.PendingSignIn{TokenHash: "p1", UserID: u.ID, CreatedAt: c.now, ExpiresAt: c.now.Add(time.Minute)}))
		n, err := s.DeleteExpired(ctx, c.now.Add(25*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 2, n)
	})
}

func TestPendingSignInsAndPasswords(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		p := &account.PendingSignIn{TokenHash: "p1", UserID: u.ID, IP: "192.0.2.1", UserAgent: "ua", CreatedAt: c.next(), ExpiresAt: c.now.Add(time.Minute)}
		require.NoError(t, s.CreatePendingSignIn(ctx, p))
		got, err := s.PendingSignInByTokenHash(ctx, "p1")
		require.NoError(t, err)
		assert.Equal(t, p, got)
		require.NoError(t, s.DeletePendingSignIn(ctx, "p1"))
		assert.ErrorIs(t, s.DeletePendingSignIn(ctx, "p1"), errcode.ErrNotFound, "used once")

		require.NoError(t, s.CreatePendingSignIn(ctx, p))
		require.NoError(t, s.CreateSession(ctx, newSession(c, u.ID, "h1"), ""))
		require.NoError(t, s.UpdatePassword(ctx, u.ID, "$argon2id$new", c.next()))
		back, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, "$argon2id$new", back.PasswordHash)
		assert.Equal(t, c.now, back.UpdatedAt)
		assert.Zero(t, countRows(t, s, "user_sessions"), "a password change revokes sessions")
		assert.Zero(t, countRows(t, s, "pending_sign_ins"))
		assert.ErrorIs(t, s.UpdatePassword(ctx, uuid.New(), "x", c.now), errcode.ErrNotFound)
		_, err = s.UserByID(ctx, uuid.New())
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestTOTPAndBackupCodesStore(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		_, err := s.TOTP(ctx, u.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)

		start := &account.TOTP{UserID: u.ID, SealedSecret: "v1:a", CreatedAt: c.next(), UpdatedAt: c.now}
		require.NoError(t, s.StartTOTP(ctx, start))
		start.SealedSecret = "v1:b"
		require.NoError(t, s.StartTOTP(ctx, start), "an unconfirmed enrolment is replaced")
		got, err := s.TOTP(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, "v1:b", got.SealedSecret)
		assert.Nil(t, got.EnabledAt)
		assert.ErrorIs(t, s.UseTOTPStep(ctx, u.ID, 5, c.now), errcode.ErrNotFound, "not enabled yet")

		at := c.next()
		require.NoError(t, s.EnableTOTP(ctx, u.ID, 10, at, []string{"c1", "c2"}))
		assert.ErrorIs(t, s.EnableTOTP(ctx, u.ID, 11, at, nil), errcode.ErrNotFound, "already enabled")
		assert.ErrorIs(t, s.StartTOTP(ctx, start), errcode.ErrConflict)
		got, err = s.TOTP(ctx, u.ID)
		require.NoError(t, err)
		require.NotNil(t, got.EnabledAt)
		assert.Equal(t, at, *got.EnabledAt)
		assert.Equal(t, int64(10), got.LastStep)

		assert.ErrorIs(t, s.UseTOTPStep(ctx, u.ID, 10, c.now), errcode.ErrNotFound, "replay")
		require.NoError(t, s.UseTOTPStep(ctx, u.ID, 11, c.now))
		assert.ErrorIs(t, s.UseTOTPStep(ctx, u.ID, 11, c.now), errcode.ErrNotFound)

		sess := newSession(c, u.ID, "h1")
		require.NoError(t, s.CreateSession(ctx, sess, ""))
		su, err := s.SessionByTokenHash(ctx, "h1")
		require.NoError(t, err)
		assert.True(t, su.TwoFactorEnabled)

		codes, err := s.UnusedBackupCodes(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"c1", "c2"}, codes)
		require.NoError(t, s.UseBackupCode(ctx, u.ID, "c1", c.next()))
		assert.ErrorIs(t, s.UseBackupCode(ctx, u.ID, "c1", c.now), errcode.ErrNotFound, "single use")
		codes, err = s.UnusedBackupCodes(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"c2"}, codes)
		require.NoError(t, s.ReplaceBackupCodes(ctx, u.ID, []string{"c3"}, c.next()))
		codes, err = s.UnusedBackupCodes(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"c3"}, codes)

		require.NoError(t, s.DeleteTOTP(ctx, u.ID))
		assert.ErrorIs(t, s.DeleteTOTP(ctx, u.ID), errcode.ErrNotFound)
		assert.Zero(t, countRows(t, s, "user_backup_codes"), "backup codes go with the secret")
	})
}

func TestOrgSecurityPolicies(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		ps, err := s.UserPolicies(ctx, u.ID)
		require.NoError(t, err)
		assert.Empty(t, ps, "no organization")

		a := createOrg(t, s, c, "a")
		b := createOrg(t, s, c, "b")
		addMember(t, s, c, a.ID, u, auth.RoleOwner)
		addMember(t, s, c, b.ID, u, auth.RoleMember)
		got, err := s.OrgSecurityPolicy(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, account.DefaultPolicy(), got, "no row: the defaults")
		_, err = s.OrgSecurityPolicy(ctx, uuid.New())
		assert.ErrorIs(t, err, errcode.ErrNotFound)

		strict := account.Policy{RequireTwoFactor: true, SessionLifetime: 12 * time.Hour, IdleTimeout: 30 * time.Minute}
		require.NoError(t, s.SetOrgSecurityPolicy(ctx, a.ID, account.DefaultPolicy(), c.next()))
		require.NoError(t, s.SetOrgSecurityPolicy(ctx, a.ID, strict, c.next()), "replaces")
		assert.ErrorIs(t, s.SetOrgSecurityPolicy(ctx, uuid.New(), strict, c.now), errcode.ErrNotFound)
		got, err = s.OrgSecurityPolicy(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, strict, got)

		ps, err = s.UserPolicies(ctx, u.ID)
		require.NoError(t, err)
		assert.ElementsMatch(t, []account.Policy{strict, account.DefaultPolicy()}, ps)
	})
}

func TestAccountRowsCascade(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		u := createUser(t, s, c, "ann@example.com")
		keep := createUser(t, s, c, "bob@example.com")
		o := createOrg(t, s, c, "acme")
		for _, x := range []struct {
			id   uuid.UUID
			hash string
		}{{u.ID, "u"}, {keep.ID, "k"}} {
			require.NoError(t, s.CreateSession(ctx, newSession(c, x.id, "s"+x.hash), ""))
			require.NoError(t, s.CreatePendingSignIn(ctx, &account.PendingSignIn{TokenHash: "p" + x.hash, UserID: x.id, CreatedAt: c.now, ExpiresAt: c.now}))
			require.NoError(t, s.StartTOTP(ctx, &account.TOTP{UserID: x.id, SealedSecret: "v1:x", CreatedAt: c.now, UpdatedAt: c.now}))
			require.NoError(t, s.EnableTOTP(ctx, x.id, 1, c.now, []string{"c" + x.hash}))
		}
		require.NoError(t, s.SetOrgSecurityPolicy(ctx, o.ID, account.DefaultPolicy(), c.now))

		_, err := s.DB().NewDelete().TableExpr("users").Where("id = ?", u.ID).Exec(ctx)
		require.NoError(t, err)
		for _, table := range accountTables[1:] {
			assert.Equal(t, 1, countRows(t, s, table), "only the other user's row is left in %s", table)
		}

		require.NoError(t, s.DeleteOrganization(ctx, o.ID))
		assert.Zero(t, countRows(t, s, "org_security_policies"), "the policy goes with its organization")
	})
}

func TestUserMemberships(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		zeta := createOrg(t, s, c, "zeta")
		alpha := createOrg(t, s, c, "alpha")
		createOrg(t, s, c, "other")
		u := createUser(t, s, c, "ann@example.com")
		none, err := s.UserMemberships(ctx, u.ID)
		require.NoError(t, err)
		assert.Empty(t, none, "a user in no organization")
		addMember(t, s, c, zeta.ID, u, auth.RoleOwner)
		addMember(t, s, c, alpha.ID, u, auth.RoleMember)
		got, err := s.UserMemberships(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, []account.Membership{
			{OrgID: alpha.ID, OrgName: alpha.Name, Role: auth.RoleMember},
			{OrgID: zeta.ID, OrgName: zeta.Name, Role: auth.RoleOwner},
		}, got, "by organization name, with the user's role in each")
	})
}
