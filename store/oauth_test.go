package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestOAuthMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		assertMigratesDownAndUp(t, s, "oauth_clients", "oauth_connections", "oauth_tokens")
		require.NoError(t, s.OAuth(nil, 0).CreateClient(ctx, newOAuthClient(newClock())))
	})
}

func newOAuthClient(c *clock) *oauth.Client {
	return &oauth.Client{ID: "client-" + uuid.NewString(), Name: "Desktop", RedirectURIs: []string{"http://127.0.0.1/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		Scopes: []string{"links:read"}, Audience: []string{"https://h.example/mcp"}, TokenEndpointAuthMethod: oauth.AuthMethodNone,
		CreatedAt: c.next()}
}

// oauthFixture is a user with a connection to a client, and a fosite
// request of that connection.
type oauthFixture struct {
	os     *store.OAuthStore
	now    *time.Time
	user   uuid.UUID
	client *oauth.Client
	conn   *oauth.Connection
	req    *fosite.Request
}

func newOAuthFixture(t *testing.T, s *store.Store) *oauthFixture {
	t.Helper()
	ctx, c := t.Context(), newClock()
	now := t0
	f := &oauthFixture{now: &now}
	f.os = s.OAuth(func() time.Time { return *f.now }, 10*time.Second)
	o := createOrg(t, s, c, "acme")
	u := createUser(t, s, c, "a@example.com")
	addMember(t, s, c, o.ID, u, auth.RoleOwner)
	f.user = u.ID
	f.client = newOAuthClient(c)
	require.NoError(t, f.os.CreateClient(ctx, f.client))
	f.conn = &oauth.Connection{ID: uuid.Must(uuid.NewV7()), UserID: u.ID, ClientID: f.client.ID, OrgID: &o.ID,
		Scopes: []string{"links:read"}, CreatedAt: c.next()}
	require.NoError(t, f.os.CreateConnection(ctx, f.conn))
	sess := &oauth.Session{UserID: u.ID, ConnectionID: f.conn.ID, OrgID: &o.ID}
	sess.SetExpiresAt(fosite.AccessToken, now.Add(time.Hour))
	sess.SetExpiresAt(fosite.RefreshToken, now.Add(24*time.Hour))
	sess.SetExpiresAt(fosite.AuthorizeCode, now.Add(10*time.Minute))
	f.req = &fosite.Request{ID: f.conn.ID.String(), RequestedAt: now, Client: f.client.Fosite(),
		RequestedScope: fosite.Arguments{"links:read"}, GrantedScope: fosite.Arguments{"links:read"},
		GrantedAudience: fosite.Arguments{"https://h.example/mcp"},
		Form:            map[string][]string{"redirect_uri": {"http://127.0.0.1/cb"}, "code_verifier": {"secret"}}, Session: sess}
	return f
}

func TestOAuthStoreFositeErrors(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newOAuthFixture(t, s)

		_, err := f.os.GetClient(ctx, "unknown")
		assert.ErrorIs(t, err, fosite.ErrNotFound)
		got, err := f.os.GetClient(ctx, f.client.ID)
		require.NoError(t, err)
		assert.True(t, got.IsPublic())
		assert.Equal(t, f.client.RedirectURIs, got.GetRedirectURIs())

		for name, get := range map[string]func(string) (fosite.Requester, error){
			"code": func(sig string) (fosite.Requester, error) {
				return f.os.GetAuthorizeCodeSession(ctx, sig, &oauth.Session{})
			},
			"access": func(sig string) (fosite.Requester, error) {
				return f.os.GetAccessTokenSession(ctx, sig, &oauth.Session{})
			},
			"refresh": func(sig string) (fosite.Requester, error) { return f.os.GetRefreshTokenSession(ctx, sig, nil) },
			"pkce": func(sig string) (fosite.Requester, error) {
				return f.os.GetPKCERequestSession(ctx, sig, &oauth.Session{})
			},
		} {
			_, err := get("unknown")
			assert.ErrorIs(t, err, fosite.ErrNotFound, name)
		}

		require.NoError(t, f.os.CreateAuthorizeCodeSession(ctx, "code-sig", f.req))
		sess := &oauth.Session{}
		req, err := f.os.GetAuthorizeCodeSession(ctx, "code-sig", sess)
		require.NoError(t, err)
		assert.Equal(t, f.conn.ID, sess.ConnectionID, "the session is hydrated")
		assert.Equal(t, f.conn.ID.String(), req.GetID())
		assert.Equal(t, "http://127.0.0.1/cb", req.GetRequestForm().Get("redirect_uri"))
		assert.Empty(t, req.GetRequestForm().Get("code_verifier"), "secrets of the form are not stored")
		assert.Equal(t, fosite.Arguments{"https://h.example/mcp"}, req.GetGrantedAudience())

		require.NoError(t, f.os.InvalidateAuthorizeCodeSession(ctx, "code-sig"))
		req, err = f.os.GetAuthorizeCodeSession(ctx, "code-sig", &oauth.Session{})
		assert.ErrorIs(t, err, fosite.ErrInvalidatedAuthorizeCode, "a used code is kept, marked used")
		require.NotNil(t, req, "fosite needs the request of a used code to revoke its tokens")
		assert.Equal(t, f.conn.ID.String(), req.GetID())
	})
}

func TestOAuthRefreshRotationAndGrace(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newOAuthFixture(t, s)
		require.NoError(t, f.os.CreateRefreshTokenSession(ctx, "rt-1", "at-1", f.req))
		require.NoError(t, f.os.CreateAccessTokenSession(ctx, "at-1", f.req))
		_, err := f.os.GetRefreshTokenSession(ctx, "rt-1", nil)
		require.NoError(t, err)

		require.NoError(t, f.os.RotateRefreshToken(ctx, f.req.ID, "rt-1"))
		*f.now = f.now.Add(10*time.Second - time.Millisecond)
		_, err = f.os.GetRefreshTokenSession(ctx, "rt-1", nil)
		assert.NoError(t, err, "within the grace window the rotated token still works")
		*f.now = f.now.Add(time.Millisecond)
		req, err := f.os.GetRefreshTokenSession(ctx, "rt-1", nil)
		assert.ErrorIs(t, err, fosite.ErrInactiveToken, "after the grace window it is reuse")
		require.NotNil(t, req)

		require.NoError(t, f.os.RevokeRefreshToken(ctx, req.GetID()))
		_, err = f.os.GetAccessTokenSession(ctx, "at-1", nil)
		assert.ErrorIs(t, err, fosite.ErrInactiveToken, "revoking the grant ends its access tokens")
		conn, err := f.os.Connection(ctx, f.conn.ID)
		require.NoError(t, err)
		assert.NotNil(t, conn.RevokedAt, "and its connection")
		assert.Equal(t, "Desktop", conn.ClientName)
	})
}

func TestOAuthRevokedRefreshTokenHasNoGrace(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newOAuthFixture(t, s)
		require.NoError(t, f.os.CreateRefreshTokenSession(ctx, "rt-1", "at-1", f.req))
		require.NoError(t, f.os.RotateRefreshToken(ctx, f.req.ID, "rt-1"))
		require.NoError(t, f.os.RevokeConnection(ctx, f.user, f.conn.ID, *f.now))
		_, err := f.os.GetRefreshTokenSession(ctx, "rt-1", nil)
		assert.ErrorIs(t, err, fosite.ErrInactiveToken)
	})
}

func TestOAuthConnections(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newOAuthFixture(t, s)
		list, err := f.os.UserConnections(ctx, f.user)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, f.conn.ID, list[0].ID)
		assert.Equal(t, []string{"links:read"}, list[0].Scopes)

		used := f.now.Add(time.Minute)
		require.NoError(t, f.os.TouchConnection(ctx, f.conn.ID, used))
		got, err := f.os.Connection(ctx, f.conn.ID)
		require.NoError(t, err)
		require.NotNil(t, got.LastUsedAt)
		assert.True(t, used.Equal(*got.LastUsedAt))

		assert.ErrorIs(t, f.os.RevokeConnection(ctx, uuid.Must(uuid.NewV7()), f.conn.ID, used), fosite.ErrNotFound,
			"only the user's own connection")
		require.NoError(t, f.os.RevokeConnection(ctx, f.user, f.conn.ID, used))
		assert.ErrorIs(t, f.os.RevokeConnection(ctx, f.user, f.conn.ID, used), fosite.ErrNotFound, "once")
		list, err = f.os.UserConnections(ctx, f.user)
		require.NoError(t, err)
		assert.Empty(t, list)
		_, err = f.os.Connection(ctx, uuid.Must(uuid.NewV7()))
		assert.ErrorIs(t, err, fosite.ErrNotFound)
	})
}

func TestOAuthDeleteExpired(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newOAuthFixture(t, s)
		require.NoError(t, f.os.CreateAuthorizeCodeSession(ctx, "code", f.req))    // 10 minutes
		require.NoError(t, f.os.CreateAccessTokenSession(ctx, "at", f.req))        // 1 hour
		require.NoError(t, f.os.CreateRefreshTokenSession(ctx, "rt", "at", f.req)) // 24 hours

		n, err := f.os.DeleteExpiredOAuth(ctx, f.now.Add(time.Hour+time.Second))
		require.NoError(t, err)
		assert.Equal(t, 2, n, "the code and the access token expired")
		_, err = f.os.GetRefreshTokenSession(ctx, "rt", nil)
		assert.NoError(t, err, "the refresh token is kept")
		_, err = f.os.GetAccessTokenSession(ctx, "at", nil)
		assert.ErrorIs(t, err, fosite.ErrNotFound)
	})
}

func TestOAuthTransactionRollsBack(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newOAuthFixture(t, s)
		txCtx, err := f.os.BeginTX(t.Context())
		require.NoError(t, err)
		require.NoError(t, f.os.CreateAccessTokenSession(txCtx, "at", f.req))
		require.NoError(t, f.os.Rollback(txCtx))
		_, err = f.os.GetAccessTokenSession(context.Background(), "at", nil)
		assert.ErrorIs(t, err, fosite.ErrNotFound)

		txCtx, err = f.os.BeginTX(t.Context())
		require.NoError(t, err)
		require.NoError(t, f.os.CreateAccessTokenSession(txCtx, "at", f.req))
		require.NoError(t, f.os.Commit(txCtx))
		_, err = f.os.GetAccessTokenSession(context.Background(), "at", nil)
		assert.NoError(t, err)
	})
}
