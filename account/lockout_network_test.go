package account_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/errcode"
)

// failSignIns makes n failed sign-ins of email from ip, each refused as a
// wrong password (not yet as a lockout).
func failSignIns(t *testing.T, e *env, email, ip string, n int) {
	t.Helper()
	for i := range n {
		_, err := e.svc.SignIn(t.Context(), email, "wrong password!", account.Client{IP: ip})
		require.Equal(t, errcode.Unauthorized, codeOf(err), "failure %d from %s", i+1, ip)
	}
}

func TestSignInLockoutIsPerNetwork(t *testing.T) {
	t.Parallel()

	t.Run("a user locked out from one network still signs in from another", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.user("ann@example.com")
		failSignIns(t, e, "ann@example.com", "203.0.113.66", account.AccountLockout.Threshold)
		_, err := e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "203.0.113.66"})
		assert.Equal(t, errcode.RateLimitExceeded, codeOf(err), "the guessing network is locked out")
		r, err := e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "192.0.2.10"})
		require.NoError(t, err, "the owner's own network is not")
		assert.NotNil(t, r.Session)
	})

	t.Run("the email-wide ceiling holds across networks", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.user("ann@example.com")
		perNetwork := account.AccountLockout.Threshold - 1
		networks := (account.EmailLockout.Threshold + perNetwork - 1) / perNetwork
		left := account.EmailLockout.Threshold
		for i := range networks {
			n := min(perNetwork, left)
			failSignIns(t, e, "ann@example.com", fmt.Sprintf("198.51.100.%d", i+1), n)
			left -= n
		}
		require.Zero(t, left)
		_, err := e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "192.0.2.10"})
		require.Equal(t, errcode.RateLimitExceeded, codeOf(err), "a fresh network is locked out once the email reached its ceiling")
		ce, _ := errcode.As(err)
		assert.Equal(t, int(account.EmailLockout.Base.Seconds()), ce.Details["retry_after_seconds"])

		e.clock.Advance(account.EmailLockout.Base)
		_, err = e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "192.0.2.10"})
		assert.NoError(t, err, "the ceiling's lock ends after its window")
	})

	t.Run("every address of an IPv6 /64 is one network", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.user("ann@example.com")
		for i := range account.AccountLockout.Threshold {
			failSignIns(t, e, "ann@example.com", fmt.Sprintf("2001:db8:5:6::%x", i+1), 1)
		}
		_, err := e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "2001:db8:5:6:ffff::1"})
		assert.Equal(t, errcode.RateLimitExceeded, codeOf(err), "a new address of the /64 is locked out too")
		_, err = e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "2001:db8:5:7::1"})
		assert.NoError(t, err, "the neighbouring /64 is another network")
	})

	t.Run("an IPv4-mapped address is its IPv4 network", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.user("ann@example.com")
		failSignIns(t, e, "ann@example.com", "192.0.2.77", account.AccountLockout.Threshold-1)
		failSignIns(t, e, "ann@example.com", "::ffff:192.0.2.77", 1)
		_, err := e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "192.0.2.77"})
		assert.Equal(t, errcode.RateLimitExceeded, codeOf(err))
		_, err = e.svc.SignIn(t.Context(), "ann@example.com", goodPassword, account.Client{IP: "192.0.2.78"})
		assert.NoError(t, err, "IPv4 stays per address")
	})
}
