package store_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestSetMemberRoleAndDeleteMemberKeepAnOwner(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		a := addMember(t, s, c, o.ID, createUser(t, s, c, "a@example.com"), auth.RoleOwner)
		b := addMember(t, s, c, o.ID, createUser(t, s, c, "b@example.com"), auth.RoleMember)

		_, err := s.SetMemberRole(ctx, o.ID, a.UserID, auth.RoleAdmin, c.next())
		assert.ErrorIs(t, err, org.ErrLastOwner)
		_, err = s.DeleteMember(ctx, o.ID, a.UserID)
		assert.ErrorIs(t, err, org.ErrLastOwner)

		at := c.next()
		m, err := s.SetMemberRole(ctx, o.ID, b.UserID, auth.RoleOwner, at)
		require.NoError(t, err)
		assert.Equal(t, auth.RoleOwner, m.Role)
		assert.Equal(t, "b@example.com", m.Email)
		assert.Equal(t, at, m.UpdatedAt)
		assert.Equal(t, b.CreatedAt, m.CreatedAt)

		gone, err := s.DeleteMember(ctx, o.ID, a.UserID)
		require.NoError(t, err, "with a second owner")
		assert.Equal(t, a.UserID, gone.UserID)
		_, err = s.DeleteMember(ctx, o.ID, a.UserID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		_, err = s.SetMemberRole(ctx, uuid.Must(uuid.NewV7()), b.UserID, auth.RoleAdmin, c.next())
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization")
	})
}

func TestTwoOwnersCannotBothStepDown(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		owners := []*org.Member{
			addMember(t, s, c, o.ID, createUser(t, s, c, "a@example.com"), auth.RoleOwner),
			addMember(t, s, c, o.ID, createUser(t, s, c, "b@example.com"), auth.RoleOwner),
		}
		at := c.next()
		errs := make([]error, len(owners))
		var wg sync.WaitGroup
		for i, m := range owners {
			wg.Go(func() { _, errs[i] = s.SetMemberRole(ctx, o.ID, m.UserID, auth.RoleMember, at) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				assert.ErrorIs(t, err, org.ErrLastOwner)
			}
		}
		assert.Equal(t, 1, ok, "exactly one steps down: %v", errs)
	})
}
