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

func TestIDAtCarriesTheTime(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 123_456_789, time.UTC)
	id := testkit.IDAt(at)
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		t.Fatalf("IDAt(%v) = %v: version %d, variant %v", at, id, id.Version(), id.Variant())
	}
	sec, nsec := id.Time().UnixTime()
	if got := time.Unix(sec, nsec).UTC(); !got.Equal(at.Truncate(time.Millisecond)) {
		t.Fatalf("IDAt(%v) carries %v", at, got)
	}
	next := testkit.IDAt(at)
	if next.String() <= id.String() {
		t.Fatalf("ids of one instant made in turn: %v, then %v", id, next)
	}
	if later := testkit.IDAt(at.Add(-time.Millisecond)); later.String() >= id.String() {
		t.Fatalf("an id of an earlier instant %v is not before %v", later, id)
	}
}
