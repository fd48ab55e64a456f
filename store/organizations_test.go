package store_test

import (
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

func TestCreateOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := newOrg(c, "acme")
		bootstrap := newKey(c, acme.ID, nil)
		require.NoError(t, s.CreateOrganization(ctx, acme, bootstrap))

		got, err := s.OrganizationByID(ctx, acme.ID)
		require.NoError(t, err)
		assert.Equal(t, acme, got)
		key, role, err := s.KeyByHash(ctx, bootstrap.Hash)
		require.NoError(t, err)
		assert.Equal(t, bootstrap, key)
		assert.Equal(t, auth.Role(""), role)

		t.Run("without a bootstrap key", func(t *testing.T) {
			o := newOrg(c, "plain")
			require.NoError(t, s.CreateOrganization(ctx, o, nil))
			keys, err := s.ListKeys(ctx, o.ID, nil)
			require.NoError(t, err)
			assert.Empty(t, keys)
		})
		t.Run("slug taken is a conflict and stores nothing", func(t *testing.T) {
			dup := newOrg(c, "acme")
			key := newKey(c, dup.ID, nil)
			assert.ErrorIs(t, s.CreateOrganization(ctx, dup, key), errcode.ErrConflict)
			_, _, err := s.KeyByHash(ctx, key.Hash)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
		t.Run("a bootstrap key that fails rolls the organization back", func(t *testing.T) {
			o := newOrg(c, "rolled-back")
			key := newKey(c, o.ID, nil)
			key.Hash = bootstrap.Hash
			assert.ErrorIs(t, s.CreateOrganization(ctx, o, key), errcode.ErrConflict)
			_, err := s.OrganizationByID(ctx, o.ID)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
	})
}

func TestOrganizationByIDNotFound(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		_, err := s.OrganizationByID(t.Context(), uuid.Must(uuid.NewV7()))
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		assert.Equal(t, errcode.InternalError, errcode.CodeOf(err), "the service turns it into NOT_FOUND, not the store")
	})
}

func TestListAndCountOrganizations(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		none, err := s.ListOrganizations(ctx)
		require.NoError(t, err)
		assert.NotNil(t, none)
		assert.Empty(t, none)

		b, a := newOrg(c, "b"), newOrg(c, "a")
		a.CreatedAt = t0.Add(-time.Hour)
		require.NoError(t, s.CreateOrganization(ctx, b, nil))
		require.NoError(t, s.CreateOrganization(ctx, a, nil))

		all, err := s.ListOrganizations(ctx)
		require.NoError(t, err)
		assert.Equal(t, []org.Organization{*a, *b}, all, "oldest first")
		n, err := s.CountOrganizations(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
	})
}

func TestUpdateOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")

		changed := *o
		changed.Name = "Acme Inc"
		changed.Slug = "ignored"
		changed.Plan = org.PlanGrowth
		changed.MonthlyClickLimit = 1_000_000
		changed.BillingPeriodStart = c.next()
		changed.CreatedAt = c.next()
		changed.UpdatedAt = c.next()
		require.NoError(t, s.UpdateOrganization(ctx, &changed))

		got, err := s.OrganizationByID(ctx, o.ID)
		require.NoError(t, err)
		want := changed
		want.Slug, want.CreatedAt = o.Slug, o.CreatedAt
		assert.Equal(t, &want, got, "slug and created_at are not written")

		missing := newOrg(c, "missing")
		assert.ErrorIs(t, s.UpdateOrganization(ctx, missing), errcode.ErrNotFound)
	})
}

func TestDeleteOrganizationCascades(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		ann := createUser(t, s, c, "ann@example.com")
		addMember(t, s, c, acme.ID, ann, auth.RoleOwner)
		otherMember := addMember(t, s, c, other.ID, ann, auth.RoleMember)
		appID := createApp(t, s, c, acme.ID)
		sdk := newKey(c, acme.ID, nil)
		sdk.Type, sdk.AppID, sdk.Scopes = auth.KeyTypeSDK, &appID, auth.SDKScopes
		require.NoError(t, s.CreateKey(ctx, sdk))
		api := createKey(t, s, c, acme.ID, &ann.ID)
		otherKey := createKey(t, s, c, other.ID, &ann.ID)

		require.NoError(t, s.DeleteOrganization(ctx, acme.ID))

		_, err := s.OrganizationByID(ctx, acme.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		for _, table := range []string{"memberships", "apps", "api_keys"} {
			var n int
			require.NoError(t, s.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE org_id = ?", acme.ID).Scan(&n))
			assert.Zero(t, n, table)
		}
		for _, k := range []*auth.Key{sdk, api} {
			_, _, err := s.KeyByHash(ctx, k.Hash)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		}

		_, err = s.UserByEmail(ctx, ann.Email)
		assert.NoError(t, err, "users belong to no organization")
		members, err := s.ListMembers(ctx, other.ID)
		require.NoError(t, err)
		assert.Equal(t, []org.Member{*otherMember}, members, "other organizations are untouched")
		_, role, err := s.KeyByHash(ctx, otherKey.Hash)
		require.NoError(t, err)
		assert.Equal(t, auth.RoleMember, role)

		assert.ErrorIs(t, s.DeleteOrganization(ctx, acme.ID), errcode.ErrNotFound, "deleted twice")
	})
}

func TestUsers(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		ann := createUser(t, s, c, "ann@example.com")

		got, err := s.UserByEmail(ctx, "ann@example.com")
		require.NoError(t, err)
		assert.Equal(t, ann, got)

		assert.ErrorIs(t, s.CreateUser(ctx, newUser(c, "ann@example.com")), errcode.ErrConflict)
		_, err = s.UserByEmail(ctx, "bob@example.com")
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestMembers(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		ann, bob := createUser(t, s, c, "ann@example.com"), createUser(t, s, c, "bob@example.com")

		none, err := s.ListMembers(ctx, acme.ID)
		require.NoError(t, err)
		assert.NotNil(t, none)
		assert.Empty(t, none)

		bobM := addMember(t, s, c, acme.ID, bob, auth.RoleMember)
		annM := addMember(t, s, c, acme.ID, ann, auth.RoleOwner)
		addMember(t, s, c, other.ID, bob, auth.RoleAdmin)

		members, err := s.ListMembers(ctx, acme.ID)
		require.NoError(t, err)
		assert.Equal(t, []org.Member{*bobM, *annM}, members, "oldest first, with emails")

		again := *annM
		again.Role = auth.RoleAdmin
		assert.ErrorIs(t, s.AddMember(ctx, &again), errcode.ErrConflict, "already a member")

		require.NoError(t, s.RemoveMember(ctx, acme.ID, bob.ID))
		assert.ErrorIs(t, s.RemoveMember(ctx, acme.ID, bob.ID), errcode.ErrNotFound, "removed twice")
		assert.ErrorIs(t, s.RemoveMember(ctx, other.ID, ann.ID), errcode.ErrNotFound, "never a member")
		members, err = s.ListMembers(ctx, acme.ID)
		require.NoError(t, err)
		assert.Equal(t, []org.Member{*annM}, members)
	})
}
