package app

import (
	"context"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/oauth"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestCleanUpOAuthOnEveryTick proves that the clean-up loop deletes expired
// OAuth tokens when it ticks, keeps live ones, and stops with its context.
func TestCleanUpOAuthOnEveryTick(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := t.Context()
	c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	secret := []byte("0123456789abcdef0123456789abcdef")
	accounts, err := account.NewService(s, secret, account.ServiceOptions{Clock: c.Now, HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	os := s.OAuth(c.Now, oauth.RefreshGracePeriod)
	srv, err := oauth.New(oauth.Options{PublicURL: &url.URL{Scheme: "http", Host: "localhost:8080"}, Secret: secret, Store: os,
		Sessions: httpapi.NewPageSessions(accounts, httpapi.AccountPagesOptions{Secret: secret}), Members: accounts, Clock: c.Now})
	require.NoError(t, err)
	client := &oauth.Client{ID: "c", RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{"authorization_code"},
		ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: oauth.AuthMethodNone, CreatedAt: c.Now()}
	require.NoError(t, os.CreateClient(ctx, client))
	for sig, life := range map[string]time.Duration{"expired": time.Minute, "live": 2 * time.Hour} {
		sess := &oauth.Session{ConnectionID: uuid.Must(uuid.NewV7())}
		sess.SetExpiresAt(fosite.AccessToken, c.Now().Add(life))
		require.NoError(t, os.CreateAccessTokenSession(ctx, sig, &fosite.Request{ID: sess.ConnectionID.String(),
			Client: client.Fosite(), Session: sess, RequestedAt: c.Now()}))
	}
	c.Advance(time.Hour)

	ticks := make(chan time.Time)
	loop, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		cleanUpOAuth(loop, srv, slog.New(slog.DiscardHandler), ticks)
		close(done)
	}()
	ticks <- c.Now() // received: the clean-up runs before the loop reads again
	ticks <- c.Now() // so by this second receive the first clean-up has finished
	stop()
	<-done

	_, err = os.GetAccessTokenSession(ctx, "expired", nil)
	assert.ErrorIs(t, err, fosite.ErrNotFound, "the expired token is gone")
	_, err = os.GetAccessTokenSession(ctx, "live", nil)
	assert.NoError(t, err, "the live one stays")
}
