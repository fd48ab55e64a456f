package account_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/account"
)

func TestMemoryLimiter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l := account.NewMemoryLimiter()
	key := "email:ann@example.com"

	for range 4 {
		l.Fail(key, now)
	}
	assert.Zero(t, l.Wait(key, now), "four failures: no lockout")
	l.Fail(key, now)
	assert.Equal(t, time.Minute, l.Wait(key, now), "the fifth locks for a minute")
	assert.Zero(t, l.Wait("email:other@example.com", now), "other keys unaffected")

	now = now.Add(time.Minute)
	assert.Zero(t, l.Wait(key, now), "the lockout ends after its window")
	l.Fail(key, now)
	assert.Equal(t, 2*time.Minute, l.Wait(key, now), "the next failure doubles it")
	for range 10 {
		l.Fail(key, now)
	}
	assert.Equal(t, time.Hour, l.Wait(key, now), "capped at an hour")

	l.Reset(key)
	assert.Zero(t, l.Wait(key, now), "a success resets")

	t.Run("IP addresses have a higher threshold", func(t *testing.T) {
		for range 19 {
			l.Fail("ip:192.0.2.1", now)
		}
		assert.Zero(t, l.Wait("ip:192.0.2.1", now))
		l.Fail("ip:192.0.2.1", now)
		assert.Equal(t, time.Minute, l.Wait("ip:192.0.2.1", now))
	})
	t.Run("failures are forgotten after a day", func(t *testing.T) {
		k := "email:bob@example.com"
		for range 4 {
			l.Fail(k, now)
		}
		l.Fail(k, now.Add(25*time.Hour))
		assert.Zero(t, l.Wait(k, now.Add(25*time.Hour)))
	})
}
