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
	key := "login:ann@example.com|192.0.2.1"

	for range 9 {
		l.Fail(key, now)
	}
	assert.Zero(t, l.Wait(key, now), "nine failures: no lockout")
	l.Fail(key, now)
	assert.Equal(t, 15*time.Minute, l.Wait(key, now), "the tenth locks for 15 minutes")
	assert.Zero(t, l.Wait("login:ann@example.com|192.0.2.2", now), "other networks unaffected")
	assert.Zero(t, l.Wait("email:ann@example.com", now), "the email-wide key is apart")

	now = now.Add(15 * time.Minute)
	assert.Zero(t, l.Wait(key, now), "the lockout ends after its window")
	l.Fail(key, now)
	assert.Equal(t, 30*time.Minute, l.Wait(key, now), "the next failure doubles it")
	for range 10 {
		l.Fail(key, now)
	}
	assert.Equal(t, 4*time.Hour, l.Wait(key, now), "capped at 4 hours")

	l.Reset(key)
	assert.Zero(t, l.Wait(key, now), "a success resets")

	t.Run("an email across networks has a much higher ceiling", func(t *testing.T) {
		k := "email:ann@example.com"
		for range 99 {
			l.Fail(k, now)
		}
		assert.Zero(t, l.Wait(k, now))
		l.Fail(k, now)
		assert.Equal(t, 15*time.Minute, l.Wait(k, now), "the hundredth locks it")
	})
	t.Run("client networks have a threshold of their own", func(t *testing.T) {
		for range 19 {
			l.Fail("ip:192.0.2.1", now)
		}
		assert.Zero(t, l.Wait("ip:192.0.2.1", now))
		l.Fail("ip:192.0.2.1", now)
		assert.Equal(t, time.Minute, l.Wait("ip:192.0.2.1", now))
	})
	t.Run("failures are forgotten after a day", func(t *testing.T) {
		k := "login:bob@example.com|192.0.2.1"
		for range 9 {
			l.Fail(k, now)
		}
		l.Fail(k, now.Add(25*time.Hour))
		assert.Zero(t, l.Wait(k, now.Add(25*time.Hour)))
	})
}
