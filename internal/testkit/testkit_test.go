package testkit_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	t.Parallel()
	c := testkit.NewClock(t0)
	assert.Equal(t, t0, c.Now())
	assert.Equal(t, t0.Add(time.Minute), c.Advance(time.Minute))
	assert.Equal(t, t0.Add(time.Minute), c.Now())
	c.Set(t0)
	assert.Equal(t, t0, c.Now())
}

func TestClockIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	c := testkit.NewClock(t0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Second)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, t0.Add(800*time.Second), c.Now())
}

func TestPasswordHashIsReadByTheServersVerifier(t *testing.T) {
	t.Parallel()
	h := testkit.PasswordHash("correct horse battery")
	ok, err := identity.VerifyPassword(h, "correct horse battery")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = identity.VerifyPassword(h, "correct horse battery!")
	require.NoError(t, err)
	assert.False(t, ok)
	assert.NotEqual(t, h, testkit.PasswordHash("correct horse battery"), "salted")
}

func TestPrincipalReachesEverythingItsScopesAllow(t *testing.T) {
	t.Parallel()
	p := testkit.Principal(uuid.New(), auth.ScopeLinksRead)
	reach, err := p.Authorize(auth.ScopeLinksRead, auth.ActLinksRead)
	require.NoError(t, err)
	assert.Equal(t, auth.All, reach)
	_, err = p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}

func TestMemberPrincipalIsBoundByTheCreatorsRole(t *testing.T) {
	t.Parallel()
	creator := uuid.New()
	p := testkit.MemberPrincipal(uuid.New(), creator, auth.RoleMember, auth.ScopeLinksWrite)
	require.NotNil(t, p.CreatedBy)
	assert.Equal(t, creator, *p.CreatedBy)
	reach, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite)
	require.NoError(t, err)
	assert.Equal(t, auth.Own, reach)
}
