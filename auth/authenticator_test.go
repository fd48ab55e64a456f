package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
)

type fixture struct {
	store *memKeys
	clock *testkit.Clock
	authn *auth.Authenticator
	keys  *auth.Keys
	org   uuid.UUID
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{store: newMemKeys(), clock: testkit.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)), org: uuid.New()}
	f.authn = auth.NewAuthenticator(f.store, auth.AuthenticatorOptions{Clock: f.clock.Now, CacheSize: 8})
	f.keys = auth.NewKeys(f.store, auth.KeysOptions{Forget: f.authn, Clock: f.clock.Now})
	return f
}

// issue creates a key in the fixture's organization through the operator path.
func (f *fixture) issue(t testing.TB, createdBy *uuid.UUID, role auth.Role, in auth.CreateKeyInput) *auth.IssuedKey {
	t.Helper()
	k, err := f.keys.CreateFor(context.Background(), f.org, createdBy, role, in)
	require.NoError(t, err)
	return k
}

func TestAuthenticateFailuresAreAllUnauthorized(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	expiry := f.clock.Now().Add(time.Hour)
	expiring := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}, ExpiresAt: &expiry})
	revoked := f.issue(t, nil, "", auth.CreateKeyInput{Name: "y", Scopes: []auth.Scope{"links:read"}})
	admin := &auth.Principal{OrgID: f.org, Scopes: auth.NewScopeSet(auth.AllScopes)}
	require.NoError(t, f.keys.Revoke(ctx, admin, revoked.ID))
	f.clock.Advance(time.Hour)

	unknown, err := auth.GenerateKey(nil, auth.LivePrefix)
	require.NoError(t, err)
	for name, header := range map[string]string{
		"missing header":   "",
		"malformed header": "Token " + expiring.RawKey,
		"malformed key":    "Bearer svc_live_short",
		"unknown key":      "Bearer " + unknown,
		"revoked key":      "Bearer " + revoked.RawKey,
		"expired key":      "Bearer " + expiring.RawKey,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := f.authn.AuthenticateHeader(ctx, header)
			assert.Equal(t, errcode.Unauthorized, errcode.CodeOf(err))
		})
	}
}

func TestAuthenticateReturnsThePrincipal(t *testing.T) {
	f := newFixture(t)
	member := uuid.New()
	f.store.roles[member] = auth.RoleAdmin
	k := f.issue(t, &member, auth.RoleAdmin, auth.CreateKeyInput{Name: "ci", Scopes: []auth.Scope{"links:write"}})
	p, err := f.authn.AuthenticateHeader(context.Background(), "Bearer "+k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, k.ID, p.KeyID)
	assert.Equal(t, f.org, p.OrgID)
	assert.Equal(t, auth.KeyTypeAPI, p.Type)
	assert.True(t, p.Scopes.Has(auth.ScopeLinksRead), "links:write includes links:read")
	assert.Equal(t, auth.RoleAdmin, p.Role)
	assert.Equal(t, &member, p.CreatedBy)
}

func TestCachedAuthenticationDoesNotTouchTheStore(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		_, err := f.authn.Authenticate(ctx, k.RawKey)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, f.store.lookupCount())

	// The entry is trusted for less than two seconds.
	f.clock.Advance(auth.DefaultCacheTTL - time.Millisecond)
	_, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, 1, f.store.lookupCount())
	f.clock.Advance(time.Millisecond)
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, 2, f.store.lookupCount())
}

func TestRevocationInAnotherReplicaReachesTheCacheWithinTheTTL(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx := context.Background()
	_, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	// Another replica deletes the key: this cache still trusts it until the TTL passes.
	require.NoError(t, f.store.DeleteKey(ctx, f.org, k.ID))
	f.clock.Advance(auth.DefaultCacheTTL)
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	assert.Equal(t, errcode.Unauthorized, errcode.CodeOf(err))
}

func TestRevocationInThisProcessIsImmediate(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"keys:write"}})
	ctx := context.Background()
	p, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	require.NoError(t, f.keys.Revoke(ctx, p, k.ID))
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	assert.Equal(t, errcode.Unauthorized, errcode.CodeOf(err))
}

func TestForgetCreatorDropsTheMembersKeys(t *testing.T) {
	f := newFixture(t)
	member := uuid.New()
	f.store.roles[member] = auth.RoleMember
	k := f.issue(t, &member, auth.RoleMember, auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx := context.Background()
	p, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, auth.RoleMember, p.Role)

	delete(f.store.roles, member)
	f.authn.ForgetCreator(member)
	p, err = f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, auth.Role(""), p.Role)
	_, err = p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}

func TestForgetOrg(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx := context.Background()
	_, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	f.authn.ForgetOrg(f.org)
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Equal(t, 2, f.store.lookupCount())
}

func TestStorageFailureIsNotUnauthorized(t *testing.T) {
	f := newFixture(t)
	f.store.fail = errors.Join(errcode.ErrUnavailable, errors.New("connection refused"))
	raw, _ := auth.GenerateKey(nil, auth.LivePrefix)
	_, err := f.authn.Authenticate(context.Background(), raw)
	assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err))
}

func TestCacheStaysBounded(t *testing.T) {
	f := newFixture(t) // cache size 8
	ctx := context.Background()
	var raws []string
	for i := 0; i < 20; i++ {
		k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
		raws = append(raws, k.RawKey)
	}
	for _, raw := range raws {
		_, err := f.authn.Authenticate(ctx, raw)
		require.NoError(t, err)
	}
	// Every key was looked up once; the bound forced at least one refill of
	// the first keys, which a cache without bound would still hold.
	before := f.store.lookupCount()
	for _, raw := range raws[:8] {
		_, err := f.authn.Authenticate(ctx, raw)
		require.NoError(t, err)
	}
	assert.Greater(t, f.store.lookupCount(), before)
}

func TestLastUsedAtIsThrottled(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx := context.Background()
	first := f.clock.Now()
	_, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	f.clock.Advance(10 * time.Second)
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	assert.Empty(t, f.store.touched, "nothing is written before a flush")
	require.NoError(t, f.authn.Flush(ctx))
	assert.Equal(t, first, f.store.touched[k.ID], "the second use within a minute is not recorded")

	f.clock.Advance(time.Minute)
	_, err = f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	require.NoError(t, f.authn.Flush(ctx))
	assert.Equal(t, f.clock.Now(), f.store.touched[k.ID])
}

func TestRunFlushesOnStop(t *testing.T) {
	f := newFixture(t)
	k := f.issue(t, nil, "", auth.CreateKeyInput{Name: "x", Scopes: []auth.Scope{"links:read"}})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := f.authn.Authenticate(ctx, k.RawKey)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { f.authn.Run(ctx, time.Hour); close(done) }()
	cancel()
	<-done
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	assert.Contains(t, f.store.touched, k.ID)
}
