package app

import (
	"context"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

// SessionPurgeInterval is how often expired sessions and pending sign-ins
// are deleted.
const SessionPurgeInterval = 10 * time.Minute

// NewAccounts returns the account service over s, its TOTP secrets sealed
// with the server secret, and deletes expired sessions and pending sign-ins
// every SessionPurgeInterval while the application runs. With --redis the
// failed sign-ins are counted in Redis, so that a lockout holds on every
// replica; otherwise in this process.
func NewAccounts(lc fx.Lifecycle, s *store.Store, secret Secret, limiter ratelimit.Limiter, log *slog.Logger) (*account.Service, error) {
	var opts account.ServiceOptions
	if r, ok := ratelimit.Unwrap(limiter).(*ratelimit.Redis); ok {
		opts.Limiter = r.Lockout(lockoutRule, log)
	}
	svc, err := account.NewService(s, secret, opts)
	if err != nil {
		return nil, err
	}
	runInBackground(lc, "accounts: expired session purge", func(ctx context.Context) error {
		t := time.NewTicker(SessionPurgeInterval)
		defer t.Stop()
		purgeSessions(ctx, svc, log, t.C)
		return nil
	})
	return svc, nil
}

// purgeSessions calls PurgeExpired on every tick until ctx ends; a failure
// is logged and the next tick tries again.
func purgeSessions(ctx context.Context, svc *account.Service, log *slog.Logger, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			n, err := svc.PurgeExpired(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("purging expired sessions failed", "err", err)
				continue
			}
			if n > 0 {
				log.Debug("purged expired sessions", "count", n)
			}
		}
	}
}

// lockoutRule is account's default lockout rule of key.
func lockoutRule(key string) ratelimit.LockoutRule {
	r := account.DefaultLockout(key)
	return ratelimit.LockoutRule{Threshold: r.Threshold, Base: r.Base, Max: r.Max, Forget: r.Forget}
}

// NewAudit returns the audit log over s, its cursors signed with the server
// secret.
func NewAudit(s *store.Store, secret Secret) (*audit.Service, error) {
	return audit.NewService(s, secret, audit.ServiceOptions{})
}
