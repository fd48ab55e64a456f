package account_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/errcode"
)

func TestStrictest(t *testing.T) {
	t.Parallel()
	def := account.DefaultPolicy()
	assert.Equal(t, account.Policy{SessionLifetime: 30 * 24 * time.Hour, IdleTimeout: 7 * 24 * time.Hour}, def)
	assert.Equal(t, def, account.Strictest(), "no organization: the defaults")

	a := account.Policy{RequireTwoFactor: true, SessionLifetime: 48 * time.Hour, IdleTimeout: 24 * time.Hour}
	b := account.Policy{SessionLifetime: 12 * time.Hour, IdleTimeout: 2 * 24 * time.Hour}
	assert.Equal(t, account.Policy{RequireTwoFactor: true, SessionLifetime: 12 * time.Hour, IdleTimeout: 24 * time.Hour},
		account.Strictest(a, def, b), "two-factor if any requires it; the shortest durations")
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	ok := []account.Policy{
		account.DefaultPolicy(),
		{SessionLifetime: time.Hour, IdleTimeout: 5 * time.Minute},
		{RequireTwoFactor: true, SessionLifetime: 2160 * time.Hour, IdleTimeout: 43200 * time.Minute},
	}
	for _, p := range ok {
		assert.NoError(t, p.Validate(), "%+v", p)
	}
	bad := map[string]account.Policy{
		"session_lifetime_hours": {SessionLifetime: 2161 * time.Hour, IdleTimeout: time.Hour},
		"idle_timeout_minutes":   {SessionLifetime: time.Hour, IdleTimeout: 2 * time.Hour},
	}
	for field, p := range bad {
		e, isCoded := errcode.As(p.Validate())
		if assert.True(t, isCoded, field) {
			assert.Equal(t, field, e.Fields[0].Field)
		}
	}
	e, _ := errcode.As(account.Policy{}.Validate())
	assert.Len(t, e.Fields, 2, "both fields named")
}
