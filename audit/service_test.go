package audit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func newOrg(t *testing.T, s *store.Store, name string) uuid.UUID {
	t.Helper()
	o, _, err := org.NewService(s, org.ServiceOptions{}).Create(t.Context(), name, "")
	require.NoError(t, err)
	return o.ID
}

// owner is a principal that may read the log of orgID: a key without a
// creator holding org:read.
func owner(orgID uuid.UUID) *auth.Principal {
	return testkit.Principal(orgID, auth.ScopeOrgRead)
}

func TestRecordWritesUserEventsToEveryOrganizationOfTheUser(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		svc, err := audit.NewService(s, secret, audit.ServiceOptions{Clock: c.Now})
		require.NoError(t, err)
		orgs := org.NewService(s, org.ServiceOptions{})
		acme, other, third := newOrg(t, s, "Acme"), newOrg(t, s, "Other"), newOrg(t, s, "Third")
		u := testkit.User(t, s, "ann@example.com", "correct horse battery", c.Now())
		_, err = orgs.AddMember(ctx, acme, u.Email, auth.RoleMember)
		require.NoError(t, err)
		_, err = orgs.AddMember(ctx, other, u.Email, auth.RoleOwner)
		require.NoError(t, err)

		require.NoError(t, svc.Record(ctx, audit.Event{Action: audit.SignInSucceeded, ActorType: audit.ActorUser, ActorID: &u.ID,
			IP: "192.0.2.1", UserAgent: strings.Repeat("a", 600)}))
		for _, id := range []uuid.UUID{acme, other} {
			page, err := svc.List(ctx, owner(id), audit.Query{})
			require.NoError(t, err)
			require.Len(t, page.Events, 1, "each organization of the user")
			e := page.Events[0]
			assert.Equal(t, audit.SignInSucceeded, e.Action)
			assert.Equal(t, &u.ID, e.ActorID)
			assert.Equal(t, c.Now(), e.OccurredAt, "the time now")
			assert.Len(t, e.UserAgent, audit.MaxUserAgentLength, "the user agent is cut")
		}
		page, err := svc.List(ctx, owner(third), audit.Query{})
		require.NoError(t, err)
		assert.Empty(t, page.Events, "not other organizations")

		require.NoError(t, svc.Record(ctx, audit.Event{Action: audit.KeyCreated, OrgID: &third, ActorType: audit.ActorOperator}))
		page, err = svc.List(ctx, owner(third), audit.Query{})
		require.NoError(t, err)
		assert.Len(t, page.Events, 1, "an event with an organization is written to it alone")
		page, err = svc.List(ctx, owner(acme), audit.Query{})
		require.NoError(t, err)
		assert.Len(t, page.Events, 1)
	})
}

func TestListPagesWithSignedCursors(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		svc, err := audit.NewService(s, secret, audit.ServiceOptions{Clock: c.Now})
		require.NoError(t, err)
		acme, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		var times []time.Time
		for range 5 {
			times = append(times, c.Now())
			require.NoError(t, svc.Record(ctx, audit.Event{Action: audit.KeyCreated, OrgID: &acme, ActorType: audit.ActorOperator}))
			c.Advance(time.Second)
		}
		var seen []time.Time
		q := audit.Query{Limit: 2}
		for pages := 0; ; pages++ {
			require.Less(t, pages, 5, "paging ends")
			page, err := svc.List(ctx, owner(acme), q)
			require.NoError(t, err)
			for _, e := range page.Events {
				seen = append(seen, e.OccurredAt)
			}
			if !page.HasMore {
				assert.Empty(t, page.NextCursor)
				break
			}
			require.NotEmpty(t, page.NextCursor)
			q.Cursor = page.NextCursor
			// An event added while paging is newer than every page and does
			// not move the pages not yet read.
			require.NoError(t, svc.Record(ctx, audit.Event{Action: audit.KeyRevoked, OrgID: &acme, ActorType: audit.ActorOperator}))
		}
		assert.Equal(t, []time.Time{times[4], times[3], times[2], times[1], times[0]}, seen, "every event once, newest first")

		page, err := svc.List(ctx, owner(acme), audit.Query{Limit: 1})
		require.NoError(t, err)
		cursor := page.NextCursor
		from := times[0]
		tampered := []byte(cursor)
		tampered[5] ^= 1
		refusals := []struct {
			name string
			p    *auth.Principal
			q    audit.Query
			code errcode.Code
		}{
			{"a cursor changed by hand", owner(acme), audit.Query{Cursor: string(tampered)}, errcode.CursorInvalid},
			{"a cursor that is not base64", owner(acme), audit.Query{Cursor: "!!"}, errcode.CursorInvalid},
			{"a cursor with other filters", owner(acme), audit.Query{Cursor: cursor, From: &from}, errcode.CursorInvalid},
			{"a cursor of another organization", owner(other), audit.Query{Cursor: cursor}, errcode.CursorInvalid},
			{"from not before to", owner(acme), audit.Query{From: &from, To: &from}, errcode.ValidationError},
			{"a limit over 100", owner(acme), audit.Query{Limit: 101}, errcode.ValidationError},
			{"a negative limit", owner(acme), audit.Query{Limit: -1}, errcode.ValidationError},
			{"org:read is needed", testkit.Principal(acme, auth.ScopeLinksRead), audit.Query{}, errcode.Forbidden},
			{"a member's key", memberKey(acme, auth.RoleMember), audit.Query{}, errcode.Forbidden},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				_, err := svc.List(ctx, tt.p, tt.q)
				e, ok := errcode.As(err)
				require.True(t, ok, "err: %v", err)
				assert.Equal(t, tt.code, e.Code)
			})
		}
		for _, role := range []auth.Role{auth.RoleOwner, auth.RoleAdmin} {
			_, err := svc.List(ctx, memberKey(acme, role), audit.Query{})
			assert.NoError(t, err, "%s may read the log", role)
		}
	})
}

func memberKey(orgID uuid.UUID, role auth.Role) *auth.Principal {
	return testkit.MemberPrincipal(orgID, uuid.Must(uuid.NewV7()), role, auth.ScopeOrgRead)
}

func TestNewServiceNeedsALongSecret(t *testing.T) {
	t.Parallel()
	_, err := audit.NewService(nil, secret[:31], audit.ServiceOptions{})
	assert.Error(t, err)
}
