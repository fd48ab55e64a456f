package auth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

func TestCreateKeyValidation(t *testing.T) {
	f := newFixture(t)
	appOfOrg, appElsewhere := uuid.New(), uuid.New()
	f.store.apps[appOfOrg] = f.org
	f.store.apps[appElsewhere] = uuid.New()
	past := f.clock.Now().Add(-time.Second)
	future := f.clock.Now().Add(time.Hour)
	read := []auth.Scope{"links:read"}
	tests := []struct {
		name  string
		in    auth.CreateKeyInput
		field string
	}{
		{"name is required", auth.CreateKeyInput{Scopes: read}, "name"},
		{"name is at most 100 characters", auth.CreateKeyInput{Name: strings.Repeat("é", 101), Scopes: read}, "name"},
		{"an API key needs a scope", auth.CreateKeyInput{Name: "x"}, "scopes"},
		{"unknown scopes are refused", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:admin"}}, "scopes"},
		{"attribution:write cannot be requested for an API key", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"attribution:write"}}, "scopes"},
		{"expiry must be in the future", auth.CreateKeyInput{Name: "x", Scopes: read, ExpiresAt: &past}, "expires_at"},
		{"only an SDK key can be tied to an app", auth.CreateKeyInput{Name: "x", Scopes: read, AppID: &appOfOrg}, "app_id"},
		{"SDK keys never expire", auth.CreateKeyInput{Name: "x", Type: auth.KeyTypeSDK, ExpiresAt: &future}, "expires_at"},
		{"SDK keys have fixed scopes", auth.CreateKeyInput{Name: "x", Type: auth.KeyTypeSDK, Scopes: []auth.Scope{"apps:read"}}, "scopes"},
		{"type is api or sdk", auth.CreateKeyInput{Name: "x", Type: "admin", Scopes: read}, "type"},
		{"app of another organization", auth.CreateKeyInput{Name: "x", Type: auth.KeyTypeSDK, AppID: &appElsewhere}, "app_id"},
		{"unknown app", auth.CreateKeyInput{Name: "x", Type: auth.KeyTypeSDK, AppID: ptr(uuid.New())}, "app_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.keys.CreateFor(context.Background(), f.org, nil, "", tt.in)
			e, ok := errcode.As(err)
			require.True(t, ok, "error %v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			require.NotEmpty(t, e.Fields)
			assert.Equal(t, tt.field, e.Fields[0].Field)
		})
	}
	assert.Empty(t, f.store.keys, "a refused key is not stored")
}

func ptr[T any](v T) *T { return &v }

func TestCreateSDKKey(t *testing.T) {
	f := newFixture(t)
	app := uuid.New()
	f.store.apps[app] = f.org
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "ios", Type: auth.KeyTypeSDK, AppID: &app})
	assert.Equal(t, auth.KeyTypeSDK, k.Type)
	assert.Equal(t, []auth.Scope{"links:read", "attribution:write"}, k.Scopes)
	assert.Nil(t, k.ExpiresAt)
	assert.Equal(t, &app, k.AppID)
	assert.Equal(t, auth.LivePrefix, k.Prefix)
	assert.Equal(t, auth.HashKey(k.RawKey), f.store.keys[k.ID].Hash)

	same := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Type: auth.KeyTypeSDK, Scopes: []auth.Scope{"attribution:write", "links:read"}})
	assert.Equal(t, auth.KeyTypeSDK, same.Type, "naming the fixed scopes is allowed")
}

func TestCreateTestKey(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}, Test: true})
	assert.True(t, strings.HasPrefix(k.RawKey, auth.TestPrefix))
	assert.Equal(t, auth.TestPrefix, k.Prefix)
}

func TestKeyMayNotExceedItsCreatorsRole(t *testing.T) {
	f := newFixture(t)
	member := uuid.New()
	p := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: &member, Role: auth.RoleMember}
	_, err := f.keys.Create(context.Background(), p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"apps:write"}})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))

	k, err := f.keys.Create(context.Background(), p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:write"}})
	require.NoError(t, err)
	assert.Equal(t, &member, k.CreatedBy, "the new key acts for the same member")

	admin := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: ptr(uuid.New()), Role: auth.RoleAdmin}
	_, err = f.keys.Create(context.Background(), admin, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"org:delete"}})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}

func TestCreateNeedsKeysWrite(t *testing.T) {
	f := newFixture(t)
	p := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet([]auth.Scope{"keys:read"})}
	_, err := f.keys.Create(context.Background(), p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}

func TestMembersManageOnlyTheirOwnKeys(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	alice, bob := uuid.New(), uuid.New()
	aliceKey := f.issue(t, &alice, auth.RoleMember, auth.CreateKeyInput{Name: "a", Scopes: []auth.Scope{"keys:write", "keys:read"}})
	bobKey := f.issue(t, &bob, auth.RoleMember, auth.CreateKeyInput{Name: "b", Scopes: []auth.Scope{"keys:read"}})
	asAlice := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet(aliceKey.Scopes), CreatedBy: &alice, Role: auth.RoleMember}

	list, err := f.keys.List(ctx, asAlice)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, aliceKey.ID, list[0].ID)

	_, err = f.keys.Get(ctx, asAlice, bobKey.ID)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(f.keys.Revoke(ctx, asAlice, bobKey.ID)))
	assert.Contains(t, f.store.keys, bobKey.ID)

	asAdmin := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: &bob, Role: auth.RoleAdmin}
	list, err = f.keys.List(ctx, asAdmin)
	require.NoError(t, err)
	assert.Len(t, list, 2)
	require.NoError(t, f.keys.Revoke(ctx, asAdmin, aliceKey.ID))
}

func TestKeysOfAnotherOrganizationAreNotFound(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	other := &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet(auth.AllScopes)}
	_, err := f.keys.Get(ctx, other, k.ID)
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err))
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(f.keys.Revoke(ctx, other, k.ID)))
	list, err := f.keys.List(ctx, other)
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestKeyMayNotExceedTheCreatingKeysScopes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet([]auth.Scope{"keys:write", "links:read"})}
	_, err := f.keys.Create(ctx, p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"org:delete"}})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
	_, err = f.keys.Create(ctx, p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:write"}})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "links:write is more than links:read")

	k, err := f.keys.Create(ctx, p, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	require.NoError(t, err)
	assert.Equal(t, []auth.Scope{"links:read"}, k.Scopes)
	sdk, err := f.keys.Create(ctx, p, auth.CreateKeyInput{Name: "ios", Type: auth.KeyTypeSDK})
	require.NoError(t, err, "an SDK key needs keys:write alone")
	assert.Equal(t, auth.KeyTypeSDK, sdk.Type)
}
