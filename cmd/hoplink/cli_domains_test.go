package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
)

// TestSetPlanSuspendsAndRestoresCustomDomains proves that `hoplink org
// set-plan` to a plan without custom domains suspends them, and that moving
// back restores them.
func TestSetPlanSuspendsAndRestoresCustomDomains(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	ok(t, "", "org", "set-plan", orgID, "starter", "--db", db, "--json")

	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	oid := uuid.MustParse(orgID)
	now := time.Now().UTC().Truncate(time.Millisecond)
	d := &linking.Domain{ID: uuid.Must(uuid.NewV7()), OrgID: oid, Domain: "links.acme.example",
		VerificationToken: "hoplink-verify-test", CreatedAt: now, UpdatedAt: now}
	require.NoError(t, s.CreateDomain(ctx, d, 1))
	_, err = s.MarkDomainVerified(ctx, oid, d.ID, now)
	require.NoError(t, err)
	live := func() []string {
		names, err := s.LiveCustomDomains(ctx, oid)
		require.NoError(t, err)
		return names
	}
	require.Equal(t, []string{"links.acme.example"}, live())

	moved := ok(t, "", "org", "set-plan", orgID, "free", "--db", db, "--json")
	assert.Equal(t, "free", moved["plan"])
	assert.Empty(t, live(), "a plan without custom domains suspends them")
	got, err := s.DomainByID(ctx, oid, d.ID)
	require.NoError(t, err)
	assert.NotNil(t, got.SuspendedAt)
	assert.True(t, got.Verified)

	ok(t, "", "org", "set-plan", orgID, "growth", "--db", db, "--json")
	assert.Equal(t, []string{"links.acme.example"}, live(), "moving back restores them")
	got, err = s.DomainByID(ctx, oid, d.ID)
	require.NoError(t, err)
	assert.Nil(t, got.SuspendedAt)
}
