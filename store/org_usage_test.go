package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestOrgUsageCountsAsTheLimitsDo proves each count of OrgUsage: links
// created from the period's start on, every app and custom domain, members
// and invitations still pending, the period's clicks, and nothing of
// another organization.
func TestOrgUsageCountsAsTheLimitsDo(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		periodStart := org.PeriodStart(acme.BillingPeriodStart, c.now)
		before := newLink(c, acme.ID, "hop.example", "before")
		before.CreatedAt = periodStart.Add(-time.Hour)
		createLink(t, s, before)
		l := createLink(t, s, newLink(c, acme.ID, "hop.example", "first"))
		createLink(t, s, newLink(c, acme.ID, "hop.example", "second"))
		createLink(t, s, newLink(c, other.ID, "hop.example", "theirs"))
		createApp(t, s, c, acme.ID)
		createApp(t, s, c, acme.ID)
		createApp(t, s, c, other.ID)
		createDomain(t, s, c, acme.ID, "go.acme.example")
		addMember(t, s, c, acme.ID, createUser(t, s, c, "owner@acme.example"), auth.RoleOwner)
		addMember(t, s, c, other.ID, createUser(t, s, c, "owner@other.example"), auth.RoleOwner)
		pending := newInvitation(c, acme.ID, "new@acme.example")
		require.NoError(t, s.CreateInvitation(ctx, pending, 10, c.now))
		revoked := newInvitation(c, acme.ID, "gone@acme.example")
		require.NoError(t, s.CreateInvitation(ctx, revoked, 10, c.now))
		_, _, err := s.RevokeInvitation(ctx, acme.ID, revoked.ID, c.next())
		require.NoError(t, err)
		_, err = s.InsertClicks(ctx, []analytics.Click{newClick(l, c.next()), newClick(l, c.next())})
		require.NoError(t, err)

		u, err := s.OrgUsage(ctx, acme.ID, periodStart, c.next())
		require.NoError(t, err)
		assert.Equal(t, org.UsageCounts{Links: 2, Apps: 2, CustomDomains: 1, Members: 1, PendingInvitations: 1, Clicks: 2}, u,
			"links before the period's start do not count; a revoked invitation takes no seat")

		later := pending.ExpiresAt.Add(time.Minute)
		u, err = s.OrgUsage(ctx, acme.ID, periodStart, later)
		require.NoError(t, err)
		assert.Equal(t, 0, u.PendingInvitations, "an expired invitation takes no seat")

		_, err = s.OrgUsage(ctx, uuid.New(), periodStart, c.now)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}
