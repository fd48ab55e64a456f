package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func newAuditEvent(orgID *uuid.UUID, at time.Time, action audit.Action) audit.Event {
	return audit.Event{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, OccurredAt: at, Action: action,
		ActorType: audit.ActorOperator, IP: "192.0.2.1", UserAgent: "ua", Details: map[string]string{"k": "v"}}
}

func TestAuditMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		assertMigratesDownAndUp(t, s, "audit_events")
		c := newClock()
		o := createOrg(t, s, c, "acme")
		require.NoError(t, s.InsertAuditEvents(ctx, []audit.Event{newAuditEvent(&o.ID, c.next(), audit.KeyCreated)}))
	})
}

func TestAuditEventsStore(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		same := c.next()
		e1 := newAuditEvent(&acme.ID, same, audit.KeyCreated)
		e2 := newAuditEvent(&acme.ID, same, audit.KeyRevoked) // same time: the id orders them
		e3 := newAuditEvent(&acme.ID, c.next(), audit.PolicyChanged)
		e3.ActorType, e3.ActorID, e3.TargetType, e3.TargetID = audit.ActorKey, &e1.ID, "organization", acme.ID.String()
		foreign := newAuditEvent(&other.ID, c.next(), audit.KeyCreated)
		orphan := newAuditEvent(nil, c.next(), audit.SignInFailed)
		require.NoError(t, s.InsertAuditEvents(ctx, []audit.Event{e1, e2, e3, foreign, orphan}))

		got, err := s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 10})
		require.NoError(t, err)
		require.Len(t, got, 3, "only the organization's own events")
		assert.Equal(t, []uuid.UUID{e3.ID, e2.ID, e1.ID}, []uuid.UUID{got[0].ID, got[1].ID, got[2].ID}, "newest first, then by id")
		assert.Equal(t, e3, got[0], "read back as written")

		got, err = s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 10, Before: &audit.Position{OccurredAt: same, ID: e2.ID}})
		require.NoError(t, err)
		require.Len(t, got, 1, "strictly before the position")
		assert.Equal(t, e1.ID, got[0].ID)

		to := e3.OccurredAt
		got, err = s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 10, To: &to})
		require.NoError(t, err)
		assert.Len(t, got, 2, "to is exclusive")
		got, err = s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 10, From: &to})
		require.NoError(t, err)
		assert.Len(t, got, 1, "from is inclusive")
		got, err = s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 2})
		require.NoError(t, err)
		assert.Len(t, got, 2, "the limit")

		u := createUser(t, s, c, "ann@example.com")
		ids, err := s.UserOrgIDs(ctx, u.ID)
		require.NoError(t, err)
		assert.Empty(t, ids, "a user in no organization")
		addMember(t, s, c, acme.ID, u, auth.RoleMember)
		addMember(t, s, c, other.ID, u, auth.RoleOwner)
		ids, err = s.UserOrgIDs(ctx, u.ID)
		require.NoError(t, err)
		assert.ElementsMatch(t, []uuid.UUID{acme.ID, other.ID}, ids)

		require.NoError(t, s.DeleteOrganization(ctx, acme.ID))
		n, err := s.DB().NewSelect().Table("audit_events").Where("org_id = ?", acme.ID).Count(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 3, n, "events outlive their organization")
	})
}
