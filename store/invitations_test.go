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
