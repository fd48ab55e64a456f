package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func newInvitation(c *clock, orgID uuid.UUID, email string) *org.Invitation {
	at := c.next()
	id := uuid.Must(uuid.NewV7())
	return &org.Invitation{
		ID: id, OrgID: orgID, Email: email, Role: auth.RoleMember,
		TokenHash: org.HashInvitationToken(id.String()), TokenSealed: "v1:sealed",
		ExpiresAt: at.Add(org.InvitationValidity), CreatedAt: at, UpdatedAt: at,
	}
}

func TestCreateInvitationRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		u := createUser(t, s, c, "member@example.com")
		addMember(t, s, c, o.ID, u, auth.RoleOwner)

		first := newInvitation(c, o.ID, "a@example.com")
		require.NoError(t, s.CreateInvitation(ctx, first, 3, c.now))
		got, err := s.InvitationByID(ctx, o.ID, first.ID)
		require.NoError(t, err)
		assert.Equal(t, first, got)

		assert.ErrorIs(t, s.CreateInvitation(ctx, newInvitation(c, o.ID, "member@example.com"), 3, c.now), org.ErrAlreadyMember)
		assert.ErrorIs(t, s.CreateInvitation(ctx, newInvitation(c, o.ID, "a@example.com"), 3, c.now), org.ErrDuplicateInvitation)
		require.NoError(t, s.CreateInvitation(ctx, newInvitation(c, o.ID, "b@example.com"), 3, c.now))
		assert.ErrorIs(t, s.CreateInvitation(ctx, newInvitation(c, o.ID, "c@example.com"), 3, c.now), org.ErrSeatLimit,
			"one member and two pending invitations fill three seats")
		later := first.ExpiresAt.Add(time.Millisecond)
		require.NoError(t, s.CreateInvitation(ctx, newInvitation(c, o.ID, "a@example.com"), 3, later),
			"an expired invitation neither blocks the email nor takes a seat")
	})
}

func TestRevokeInvitationOnce(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		inv := newInvitation(c, o.ID, "a@example.com")
		require.NoError(t, s.CreateInvitation(ctx, inv, 10, c.now))
		at := c.next()
		revoked := make([]bool, 4)
		var wg sync.WaitGroup
		for i := range revoked {
			wg.Go(func() {
				_, ok, err := s.RevokeInvitation(ctx, o.ID, inv.ID, at)
				assert.NoError(t, err)
				revoked[i] = ok
			})
		}
		wg.Wait()
		n := 0
		for _, ok := range revoked {
			if ok {
				n++
			}
		}
		assert.Equal(t, 1, n, "exactly one revocation revokes")
		got, err := s.InvitationByID(ctx, o.ID, inv.ID)
		require.NoError(t, err)
		require.NotNil(t, got.RevokedAt)
		assert.Equal(t, at, *got.RevokedAt)

		_, _, err = s.RevokeInvitation(ctx, createOrg(t, s, c, "other").ID, inv.ID, c.next())
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestInvitationByTokenHash(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		inv := newInvitation(c, o.ID, "a@example.com")
		require.NoError(t, s.CreateInvitation(t.Context(), inv, 10, c.now))
		got, err := s.InvitationByTokenHash(t.Context(), inv.TokenHash)
		require.NoError(t, err)
		assert.Equal(t, inv, got)
		_, err = s.InvitationByTokenHash(t.Context(), org.HashInvitationToken("another token"))
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestAcceptInvitationRefusalsInOrder(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		owner := createUser(t, s, c, "owner@example.com")
		addMember(t, s, c, o.ID, owner, auth.RoleOwner)
		u := createUser(t, s, c, "a@example.com")
		inv := newInvitation(c, o.ID, u.Email)
		inv.Role = auth.RoleAdmin
		require.NoError(t, s.CreateInvitation(ctx, inv, 3, c.now))
		member := func(at time.Time) *org.Member {
			return &org.Member{OrgID: o.ID, UserID: u.ID, Email: u.Email, Role: inv.Role, CreatedAt: at, UpdatedAt: at}
		}

		_, err := s.AcceptInvitation(ctx, inv.ID, member(c.now), 1, c.next())
		assert.ErrorIs(t, err, org.ErrSeatLimit, "one member fills one seat")
		_, err = s.AcceptInvitation(ctx, inv.ID, &org.Member{OrgID: o.ID, UserID: owner.ID, Role: auth.RoleAdmin}, 3, c.next())
		assert.ErrorIs(t, err, org.ErrAlreadyMember, "before the seats")
		_, err = s.AcceptInvitation(ctx, inv.ID, member(c.now), 3, inv.ExpiresAt)
		assert.ErrorIs(t, err, org.ErrInvitationNotPending, "expired at expires_at")
		other := createOrg(t, s, c, "other")
		_, err = s.AcceptInvitation(ctx, inv.ID, &org.Member{OrgID: other.ID, UserID: u.ID, Role: auth.RoleAdmin}, 3, c.next())
		assert.ErrorIs(t, err, errcode.ErrNotFound, "an invitation of another organization")
		members, err := s.ListMembers(ctx, o.ID)
		require.NoError(t, err)
		assert.Len(t, members, 1, "no refusal made a membership")

		at := c.next()
		got, err := s.AcceptInvitation(ctx, inv.ID, member(at), 2, at)
		require.NoError(t, err, "one member and this invitation fit two seats")
		require.NotNil(t, got.AcceptedAt)
		assert.Equal(t, at, *got.AcceptedAt)
		assert.Equal(t, at, got.UpdatedAt)
		stored, err := s.InvitationByID(ctx, o.ID, inv.ID)
		require.NoError(t, err)
		assert.Equal(t, got, stored)
		members, err = s.ListMembers(ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, members, 2)
		assert.Equal(t, u.ID, members[1].UserID)
		assert.Equal(t, auth.RoleAdmin, members[1].Role)

		_, err = s.AcceptInvitation(ctx, inv.ID, member(c.now), 10, c.next())
		assert.ErrorIs(t, err, org.ErrInvitationNotPending, "accepted once")

		revoked := newInvitation(c, o.ID, "b@example.com")
		require.NoError(t, s.CreateInvitation(ctx, revoked, 10, c.now))
		_, _, err = s.RevokeInvitation(ctx, o.ID, revoked.ID, c.next())
		require.NoError(t, err)
		b := createUser(t, s, c, "b@example.com")
		_, err = s.AcceptInvitation(ctx, revoked.ID, &org.Member{OrgID: o.ID, UserID: b.ID, Role: auth.RoleMember}, 10, c.next())
		assert.ErrorIs(t, err, org.ErrInvitationNotPending, "revoked")
	})
}

func TestConcurrentAcceptancesAcceptOnce(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		u := createUser(t, s, c, "a@example.com")
		inv := newInvitation(c, o.ID, u.Email)
		require.NoError(t, s.CreateInvitation(ctx, inv, 10, c.now))
		at := c.next()
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = s.AcceptInvitation(ctx, inv.ID, &org.Member{OrgID: o.ID, UserID: u.ID, Role: auth.RoleMember, CreatedAt: at, UpdatedAt: at}, 10, at)
			})
		}
		wg.Wait()
		accepted := 0
		for _, err := range errs {
			if err == nil {
				accepted++
				continue
			}
			assert.ErrorIs(t, err, org.ErrInvitationNotPending)
		}
		assert.Equal(t, 1, accepted, "exactly one acceptance")
	})
}
