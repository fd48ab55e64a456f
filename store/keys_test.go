package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestCreateKeyAndKeyByID(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		creator := createUser(t, s, c, "ann@example.com")
		appID := createApp(t, s, c, acme.ID)

		api := newKey(c, acme.ID, &creator.ID)
		expires, used := c.next().Add(time.Hour), c.next()
		api.ExpiresAt, api.LastUsedAt = &expires, &used
		require.NoError(t, s.CreateKey(ctx, api))
		sdk := newKey(c, acme.ID, nil)
		sdk.Type, sdk.AppID, sdk.Scopes = auth.KeyTypeSDK, &appID, auth.SDKScopes
		require.NoError(t, s.CreateKey(ctx, sdk))

		for _, want := range []*auth.Key{api, sdk} {
			got, err := s.KeyByID(ctx, acme.ID, want.ID)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}

		t.Run("hash taken is a conflict", func(t *testing.T) {
			dup := newKey(c, other.ID, nil)
			dup.Hash = api.Hash
			assert.ErrorIs(t, s.CreateKey(ctx, dup), errcode.ErrConflict)
		})
		t.Run("unknown id is not found", func(t *testing.T) {
			_, err := s.KeyByID(ctx, acme.ID, uuid.Must(uuid.NewV7()))
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
		t.Run("another organization's key is not found", func(t *testing.T) {
			_, err := s.KeyByID(ctx, other.ID, api.ID)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
		t.Run("operators read a key by id alone", func(t *testing.T) {
			got, err := s.KeyByIDAnyOrg(ctx, api.ID)
			require.NoError(t, err)
			assert.Equal(t, api, got)
			_, err = s.KeyByIDAnyOrg(ctx, uuid.Must(uuid.NewV7()))
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
	})
}

func TestKeyByHashReadsTheCreatorsCurrentRole(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		admin := createUser(t, s, c, "admin@example.com")
		addMember(t, s, c, acme.ID, admin, auth.RoleAdmin)
		outsider := createUser(t, s, c, "outsider@example.com")
		addMember(t, s, c, other.ID, outsider, auth.RoleOwner)

		noCreator := createKey(t, s, c, acme.ID, nil)
		byAdmin := createKey(t, s, c, acme.ID, &admin.ID)
		byOutsider := createKey(t, s, c, acme.ID, &outsider.ID)

		tests := []struct {
			name string
			key  *auth.Key
			role auth.Role
		}{
			{"a key without a creator has no role", noCreator, ""},
			{"a key of a member carries the member's role", byAdmin, auth.RoleAdmin},
			{"a creator who is a member of another organization only has no role", byOutsider, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, role, err := s.KeyByHash(ctx, tt.key.Hash)
				require.NoError(t, err)
				assert.Equal(t, tt.key, got)
				assert.Equal(t, tt.role, role)
			})
		}

		t.Run("a creator who left has no role and keeps the creator id", func(t *testing.T) {
			require.NoError(t, s.RemoveMember(ctx, acme.ID, admin.ID))
			got, role, err := s.KeyByHash(ctx, byAdmin.Hash)
			require.NoError(t, err)
			assert.Equal(t, auth.Role(""), role)
			assert.Equal(t, &admin.ID, got.CreatedBy)
		})
		t.Run("unknown hash is not found", func(t *testing.T) {
			_, _, err := s.KeyByHash(ctx, auth.HashKey("nope"))
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
	})
}

func TestListKeys(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		ann := createUser(t, s, c, "ann@example.com")

		newest := newKey(c, acme.ID, nil)
		oldest := newKey(c, acme.ID, &ann.ID)
		oldest.CreatedAt = t0.Add(-time.Hour)
		middle := newKey(c, acme.ID, &ann.ID)
		middle.CreatedAt = t0
		for _, k := range []*auth.Key{newest, oldest, middle} {
			require.NoError(t, s.CreateKey(ctx, k))
		}
		createKey(t, s, c, other.ID, nil)

		all, err := s.ListKeys(ctx, acme.ID, nil)
		require.NoError(t, err)
		assert.Equal(t, []auth.Key{*oldest, *middle, *newest}, all, "oldest first")

		mine, err := s.ListKeys(ctx, acme.ID, &ann.ID)
		require.NoError(t, err)
		assert.Equal(t, []auth.Key{*oldest, *middle}, mine, "only the creator's")

		none, err := s.ListKeys(ctx, uuid.Must(uuid.NewV7()), nil)
		require.NoError(t, err)
		assert.NotNil(t, none)
		assert.Empty(t, none)
	})
}

func TestDeleteKey(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		k := createKey(t, s, c, acme.ID, nil)

		assert.ErrorIs(t, s.DeleteKey(ctx, other.ID, k.ID), errcode.ErrNotFound, "another organization's key")
		_, err := s.KeyByID(ctx, acme.ID, k.ID)
		require.NoError(t, err, "still there")

		require.NoError(t, s.DeleteKey(ctx, acme.ID, k.ID))
		_, _, err = s.KeyByHash(ctx, k.Hash)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		assert.ErrorIs(t, s.DeleteKey(ctx, acme.ID, k.ID), errcode.ErrNotFound, "deleted twice")
	})
}

func TestTouchKeysOnlyMovesForward(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		a, b := createKey(t, s, c, acme.ID, nil), createKey(t, s, c, acme.ID, nil)
		reread := func(k *auth.Key) *auth.Key {
			got, err := s.KeyByID(ctx, acme.ID, k.ID)
			require.NoError(t, err)
			return got
		}

		require.NoError(t, s.TouchKeys(ctx, nil))
		noon := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		require.NoError(t, s.TouchKeys(ctx, map[uuid.UUID]time.Time{a.ID: noon, uuid.Must(uuid.NewV7()): noon}))
		assert.Equal(t, &noon, reread(a).LastUsedAt, "first use is set; unknown keys are ignored")
		assert.Nil(t, reread(b).LastUsedAt)

		later := noon.Add(time.Minute)
		require.NoError(t, s.TouchKeys(ctx, map[uuid.UUID]time.Time{a.ID: noon.Add(-time.Minute), b.ID: later}))
		assert.Equal(t, &noon, reread(a).LastUsedAt, "an earlier time does not move it back")
		assert.Equal(t, &later, reread(b).LastUsedAt)

		require.NoError(t, s.TouchKeys(ctx, map[uuid.UUID]time.Time{a.ID: later.In(time.FixedZone("X", -5*3600))}))
		assert.Equal(t, &later, reread(a).LastUsedAt, "a later time moves it forward, stored in UTC")
		assert.Equal(t, a.UpdatedAt, reread(a).UpdatedAt, "use is not an update")
	})
}

func TestAppExists(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		appID := createApp(t, s, c, acme.ID)

		ok, err := s.AppExists(ctx, acme.ID, appID)
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = s.AppExists(ctx, other.ID, appID)
		require.NoError(t, err)
		assert.False(t, ok, "another organization's app")
		ok, err = s.AppExists(ctx, acme.ID, uuid.Must(uuid.NewV7()))
		require.NoError(t, err)
		assert.False(t, ok)
	})
}

func TestDeletingAnAppRevokesItsSDKKeys(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		appID := createApp(t, s, c, acme.ID)
		tied := newKey(c, acme.ID, nil)
		tied.Type, tied.AppID, tied.Scopes = auth.KeyTypeSDK, &appID, auth.SDKScopes
		require.NoError(t, s.CreateKey(ctx, tied))
		untied := createKey(t, s, c, acme.ID, nil)

		_, err := s.DB().ExecContext(ctx, "DELETE FROM apps WHERE id = ?", appID)
		require.NoError(t, err)

		_, err = s.KeyByID(ctx, acme.ID, tied.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		_, err = s.KeyByID(ctx, acme.ID, untied.ID)
		assert.NoError(t, err)
	})
}
