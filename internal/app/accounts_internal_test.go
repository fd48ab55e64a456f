package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestPurgeSessionsOnEveryTick proves that the purge loop deletes expired
// sessions when it ticks, keeps live ones, and stops with its context.
func TestPurgeSessionsOnEveryTick(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := t.Context()
	c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	svc, err := account.NewService(s, []byte("0123456789abcdef0123456789abcdef"),
		account.ServiceOptions{Clock: c.Now, HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	testkit.User(t, s, "ann@example.com", "correct horse battery", c.Now())
	old, err := svc.SignIn(ctx, "ann@example.com", "correct horse battery", account.Client{IP: "192.0.2.1"})
	require.NoError(t, err)
	c.Advance(account.DefaultSessionLifetime - time.Hour)
	fresh, err := svc.SignIn(ctx, "ann@example.com", "correct horse battery", account.Client{IP: "192.0.2.2"})
	require.NoError(t, err)
	c.Advance(2 * time.Hour) // the first session is past its lifetime

	ticks := make(chan time.Time)
	loop, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		purgeSessions(loop, svc, slog.New(slog.DiscardHandler), ticks)
		close(done)
	}()
	ticks <- c.Now() // received: the purge runs before the loop reads again
	ticks <- c.Now() // so by this second receive the first purge has finished
	stop()
	<-done

	n, err := s.DB().NewSelect().Table("user_sessions").Count(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "the expired session is gone, the live one stays")
	_, err = svc.Authenticate(ctx, fresh.Session.Token)
	assert.NoError(t, err)
	_, err = svc.Authenticate(ctx, old.Session.Token)
	assert.Error(t, err)
}
