package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

func newEndpoint(c *clock, orgID uuid.UUID, events ...webhook.Type) *webhook.Endpoint {
	at := c.next()
	return &webhook.Endpoint{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, URL: "https://hooks.example.com/in",
		Description: "backend", Events: events, SealedSecret: "v1:sealed", CreatedAt: at, UpdatedAt: at}
}

func createEndpoint(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID, events ...webhook.Type) *webhook.Endpoint {
	t.Helper()
	e := newEndpoint(c, orgID, events...)
	require.NoError(t, s.CreateWebhook(t.Context(), e))
	return e
}

func newEvent(t *testing.T, c *clock, orgID uuid.UUID, typ webhook.Type, linkID, appID *uuid.UUID) webhook.Event {
	t.Helper()
	ev, err := webhook.NewEvent(orgID, typ, c.next(), linkID, appID, webhook.PingData{})
	require.NoError(t, err)
	return ev
}

func TestWebhooksMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "webhooks", "webhook_events", "webhook_deliveries")
		c := newClock()
		o := createOrg(t, s, c, "acme")
		createEndpoint(t, s, c, o.ID, webhook.LinkCreated)
	})
}

func TestWebhookEndpointsStore(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		e := newEndpoint(c, acme.ID, webhook.LinkCreated, webhook.InstallAttributed)
		e.LinkIDs = []uuid.UUID{uuid.Must(uuid.NewV7())}
		require.NoError(t, s.CreateWebhook(ctx, e))
		second := createEndpoint(t, s, c, acme.ID, webhook.LinkDeleted)

		got, err := s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, e, got, "read back as written")
		_, err = s.Webhook(ctx, other.ID, e.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's endpoint")

		list, err := s.ListWebhooks(ctx, acme.ID)
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, []uuid.UUID{e.ID, second.ID}, []uuid.UUID{list[0].ID, list[1].ID}, "oldest first")
		list, err = s.ListWebhooks(ctx, other.ID)
		require.NoError(t, err)
		assert.Empty(t, list)

		until := c.next().Add(24 * time.Hour)
		e.URL, e.Events, e.LinkIDs = "https://other.example.com/", []webhook.Type{webhook.LinkUpdated}, nil
		e.SealedPreviousSecret, e.PreviousSecretUntil, e.UpdatedAt = "v1:old", &until, c.next()
		require.NoError(t, s.UpdateWebhook(ctx, e, false))
		got, err = s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, e, got, "updated")
		foreign := *e
		foreign.OrgID = other.ID
		assert.ErrorIs(t, s.UpdateWebhook(ctx, &foreign, false), errcode.ErrNotFound, "update through another organization")

		assert.ErrorIs(t, s.DeleteWebhook(ctx, other.ID, e.ID), errcode.ErrNotFound, "delete through another organization")
		require.NoError(t, s.DeleteWebhook(ctx, acme.ID, e.ID))
		assert.ErrorIs(t, s.DeleteWebhook(ctx, acme.ID, e.ID), errcode.ErrNotFound, "deleted twice")

		require.NoError(t, s.DeleteOrganization(ctx, acme.ID))
		_, err = s.Webhook(ctx, acme.ID, second.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "gone with its organization")
	})
}

func TestWebhookOutboxFansOutToAcceptingEndpoints(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		link, app := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		all := createEndpoint(t, s, c, acme.ID, webhook.LinkCreated, webhook.MemberJoined)
		byLink := newEndpoint(c, acme.ID, webhook.LinkCreated, webhook.MemberJoined)
		byLink.LinkIDs = []uuid.UUID{link}
		require.NoError(t, s.CreateWebhook(ctx, byLink))
		byApp := newEndpoint(c, acme.ID, webhook.LinkCreated)
		byApp.AppIDs = []uuid.UUID{app}
		require.NoError(t, s.CreateWebhook(ctx, byApp))
		disabled := createEndpoint(t, s, c, acme.ID, webhook.LinkCreated)
		at := c.next()
		disabled.DisabledAt = &at
		require.NoError(t, s.UpdateWebhook(ctx, disabled, true))
		foreign := createEndpoint(t, s, c, other.ID, webhook.LinkCreated)

		other1 := uuid.Must(uuid.NewV7())
		events := []webhook.Event{
			newEvent(t, c, acme.ID, webhook.LinkCreated, &link, &app),  // all, byLink, byApp
			newEvent(t, c, acme.ID, webhook.LinkCreated, &other1, nil), // all
			newEvent(t, c, acme.ID, webhook.MemberJoined, nil, nil),    // all (no link: the link filter drops it)
			newEvent(t, c, acme.ID, webhook.DomainVerified, nil, nil),  // nobody
			newEvent(t, c, other.ID, webhook.LinkDeleted, &link, nil),  // nobody
		}
		require.NoError(t, s.EnqueueEvents(ctx, events))

		count := func(id uuid.UUID) int {
			ds, err := s.ListDeliveries(ctx, acme.ID, id, nil, 100)
			require.NoError(t, err)
			return len(ds)
		}
		assert.Equal(t, 3, count(all.ID))
		assert.Equal(t, 1, count(byLink.ID))
		assert.Equal(t, 1, count(byApp.ID))
		assert.Equal(t, 0, count(disabled.ID), "a disabled endpoint gets no new events")
		ds, err := s.ListDeliveries(ctx, other.ID, foreign.ID, nil, 100)
		require.NoError(t, err)
		assert.Empty(t, ds, "an event type the endpoint did not subscribe to")

		var n int
		require.NoError(t, s.DB().NewSelect().Table("webhook_events").ColumnExpr("count(*)").Scan(ctx, &n))
		assert.Equal(t, 3, n, "events nobody accepts are not stored")

		ds, err = s.ListDeliveries(ctx, acme.ID, all.ID, nil, 100)
		require.NoError(t, err)
		assert.Equal(t, webhook.MemberJoined, ds[0].EventType, "newest first")
		assert.Equal(t, webhook.StatusPending, ds[0].Status)
		assert.Equal(t, events[2].OccurredAt, *ds[0].NextAttemptAt, "due when it occurred")
		page, err := s.ListDeliveries(ctx, acme.ID, all.ID, &webhook.DeliveryPosition{CreatedAt: ds[0].CreatedAt, ID: ds[0].ID}, 1)
		require.NoError(t, err)
		require.Len(t, page, 1)
		assert.Equal(t, ds[1].ID, page[0].ID, "the page after a position")
		_, err = s.Delivery(ctx, other.ID, all.ID, ds[0].ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's delivery")
	})
}

func TestWebhookDeliveryLeases(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		e := createEndpoint(t, s, c, acme.ID, webhook.LinkCreated)
		var events []webhook.Event
		for range 10 {
			events = append(events, newEvent(t, c, acme.ID, webhook.LinkCreated, nil, nil))
		}
		require.NoError(t, s.EnqueueEvents(ctx, events))
		now := c.next()

		none, err := s.ClaimDeliveries(ctx, events[0].OccurredAt.Add(-time.Millisecond), time.Minute, 100)
		require.NoError(t, err)
		assert.Empty(t, none, "nothing is due before it occurred")

		// Racing workers: every delivery is claimed exactly once.
		var mu sync.Mutex
		seen := map[uuid.UUID]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				got, err := s.ClaimDeliveries(ctx, now, time.Minute, 100)
				assert.NoError(t, err)
				mu.Lock()
				defer mu.Unlock()
				for _, d := range got {
					seen[d.ID]++
				}
			})
		}
		wg.Wait()
		assert.Len(t, seen, 10)
		for id, n := range seen {
			assert.Equal(t, 1, n, "delivery %s claimed once", id)
		}
		again, err := s.ClaimDeliveries(ctx, now.Add(59*time.Second), time.Minute, 100)
		require.NoError(t, err)
		assert.Empty(t, again, "leased deliveries are not claimed again")

		expired, err := s.ClaimDeliveries(ctx, now.Add(time.Minute), time.Minute, 3)
		require.NoError(t, err)
		require.Len(t, expired, 3, "a lapsed lease frees the delivery; the limit holds")
		first := expired[0]
		assert.Equal(t, events[0].ID, first.EventID, "earliest due first")
		assert.JSONEq(t, string(events[0].Body), string(first.Body))
		assert.Equal(t, e.ID, first.Endpoint.ID)
		assert.Equal(t, e.SealedSecret, first.Endpoint.SealedSecret)

		_, err = s.FinishDelivery(ctx, first.ID, uuid.Must(uuid.NewV7()), webhook.Outcome{Status: webhook.StatusSucceeded, AttemptedAt: now})
		assert.ErrorIs(t, err, errcode.ErrNotFound, "a lease not held")

		// A failure retried later marks the endpoint failing.
		at := now.Add(time.Minute)
		next := at.Add(time.Hour)
		code := 503
		disabled, err := s.FinishDelivery(ctx, first.ID, first.Lease, webhook.Outcome{Status: webhook.StatusPending,
			NextAttemptAt: &next, AttemptedAt: at, StatusCode: &code, ResponseMS: 12, Error: "503 Service Unavailable",
			DisableBefore: at.Add(-5 * 24 * time.Hour)})
		require.NoError(t, err)
		assert.False(t, disabled)
		d, err := s.Delivery(ctx, acme.ID, e.ID, first.ID)
		require.NoError(t, err)
		assert.Equal(t, webhook.StatusPending, d.Status)
		assert.Equal(t, 1, d.Attempts)
		assert.Equal(t, next, *d.NextAttemptAt)
		assert.Equal(t, &code, d.LastStatusCode)
		assert.Equal(t, 12, *d.LastResponseMS)
		assert.Equal(t, "503 Service Unavailable", d.LastError)
		hook, err := s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, at, *hook.FailingSince)

		// Still failing past the limit: disabled once.
		second := expired[1]
		late := at.Add(5*24*time.Hour + time.Second)
		disabled, err = s.FinishDelivery(ctx, second.ID, second.Lease, webhook.Outcome{Status: webhook.StatusPending,
			NextAttemptAt: &next, AttemptedAt: late, Error: "timeout", DisableBefore: late.Add(-5 * 24 * time.Hour)})
		require.NoError(t, err)
		assert.True(t, disabled, "failing for five days disables the endpoint")
		hook, err = s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, late, *hook.DisabledAt)
		rest, err := s.ClaimDeliveries(ctx, late.Add(time.Hour), time.Minute, 100)
		require.NoError(t, err)
		assert.Empty(t, rest, "a disabled endpoint's deliveries wait")
		third := expired[2]
		disabled, err = s.FinishDelivery(ctx, third.ID, third.Lease, webhook.Outcome{Status: webhook.StatusFailed,
			AttemptedAt: late, Error: "timeout", DisableBefore: late.Add(-5 * 24 * time.Hour)})
		require.NoError(t, err)
		assert.False(t, disabled, "disabled only once")

		// Re-enabled, a success clears the failing mark; retry makes a
		// finished delivery due again.
		hook.DisabledAt, hook.FailingSince = nil, nil
		require.NoError(t, s.UpdateWebhook(ctx, hook, true))
		d, err = s.RetryDelivery(ctx, acme.ID, e.ID, third.ID, late)
		require.NoError(t, err)
		assert.Equal(t, webhook.StatusPending, d.Status)
		assert.Equal(t, late, *d.NextAttemptAt)
		got, err := s.ClaimDeliveries(ctx, late, time.Minute, 100)
		require.NoError(t, err)
		require.NotEmpty(t, got)
		_, err = s.RetryDelivery(ctx, uuid.Must(uuid.NewV7()), e.ID, third.ID, late)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "retry through another organization")
	})
}

func TestWebhookPingGoesToOneEndpoint(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		e := createEndpoint(t, s, c, acme.ID, webhook.LinkCreated)
		createEndpoint(t, s, c, acme.ID, webhook.LinkCreated)
		ping := newEvent(t, c, acme.ID, webhook.Ping, nil, nil)
		d, err := s.EnqueuePing(ctx, e.ID, ping)
		require.NoError(t, err)
		assert.Equal(t, webhook.Ping, d.EventType)
		assert.Equal(t, ping.ID, d.EventID)
		got, err := s.ClaimDeliveries(ctx, c.next(), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, e.ID, got[0].WebhookID)

		foreign := newEvent(t, c, other.ID, webhook.Ping, nil, nil)
		_, err = s.EnqueuePing(ctx, e.ID, foreign)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's endpoint")
	})
}

// DeleteEventsBefore deletes the events made before a time, by their
// UUIDv7 ids, with their deliveries, in batches of at most limit.
func TestDeleteWebhookEventsBefore(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		createEndpoint(t, s, c, o.ID, webhook.LinkDeleted)
		cut := time.Now().Add(-24 * time.Hour)
		var events []webhook.Event
		for i, age := range []time.Duration{72 * time.Hour, 48 * time.Hour, 25 * time.Hour, time.Hour, 0} {
			ev := newEvent(t, c, o.ID, webhook.LinkDeleted, nil, nil)
			ms := uint64(time.Now().Add(-age).UnixMilli())
			for j := 5; j >= 0; j-- {
				ev.ID[j] = byte(ms)
				ms >>= 8
			}
			ev.ID[15] = byte(i)
			events = append(events, ev)
		}
		require.NoError(t, s.EnqueueEvents(ctx, events))
		n, err := s.DeleteEventsBefore(ctx, cut, 2)
		require.NoError(t, err)
		assert.Equal(t, 2, n, "at most the limit")
		n, err = s.DeleteEventsBefore(ctx, cut, 10)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the third one older than the cut")
		var left []uuid.UUID
		require.NoError(t, s.DB().NewSelect().Table("webhook_events").Column("id").OrderExpr("id").Scan(ctx, &left))
		assert.Equal(t, []uuid.UUID{events[3].ID, events[4].ID}, left)
		deliveries, err := s.DB().NewSelect().Table("webhook_deliveries").Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, int(deliveries), "the deliveries went with their events")
	})
}

// An update of an endpoint's settings from an earlier read keeps the
// failing and disabled marks the worker wrote meanwhile; an enable or
// disable writes them.
func TestUpdateWebhookKeepsTheWorkersMarks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		e := createEndpoint(t, s, c, o.ID, webhook.LinkCreated)
		read := *e // what a PATCH read before the worker wrote

		failing, disabled := c.next(), c.next()
		marked := *e
		marked.FailingSince, marked.DisabledAt = &failing, &disabled
		require.NoError(t, s.UpdateWebhook(ctx, &marked, true))

		read.Description = "renamed"
		require.NoError(t, s.UpdateWebhook(ctx, &read, false))
		got, err := s.Webhook(ctx, o.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, "renamed", got.Description)
		require.NotNil(t, got.FailingSince, "the failing mark stays")
		require.NotNil(t, got.DisabledAt, "the disabled mark stays")

		got.DisabledAt, got.FailingSince = nil, nil
		require.NoError(t, s.UpdateWebhook(ctx, got, true))
		again, err := s.Webhook(ctx, o.ID, e.ID)
		require.NoError(t, err)
		assert.Nil(t, again.DisabledAt, "enabled again")
		assert.Nil(t, again.FailingSince)
	})
}

// A retry pressed while a delivery is being posted keeps its lease: no
// second worker claims it before the lease ends.
func TestRetryKeepsALiveLease(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		e := createEndpoint(t, s, c, o.ID, webhook.LinkDeleted)
		ev := newEvent(t, c, o.ID, webhook.LinkDeleted, nil, nil)
		require.NoError(t, s.EnqueueEvents(ctx, []webhook.Event{ev}))
		now := ev.OccurredAt.Add(time.Second)
		claimed, err := s.ClaimDeliveries(ctx, now, time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 1)

		_, err = s.RetryDelivery(ctx, o.ID, e.ID, claimed[0].ID, now)
		require.NoError(t, err)
		again, err := s.ClaimDeliveries(ctx, now.Add(time.Second), time.Minute, 10)
		require.NoError(t, err)
		assert.Empty(t, again, "the attempt under way still holds it")
		later, err := s.ClaimDeliveries(ctx, now.Add(2*time.Minute), time.Minute, 10)
		require.NoError(t, err)
		assert.Len(t, later, 1, "once the lease has ended, the retry is due")
	})
}

// The audit entry of an endpoint disabled for failing is written in the
// transaction that disables it: with it when it is disabled, not at all
// when it is not, and a disable whose entry cannot be written is undone.
func TestDisablingAnEndpointWritesItsAuditEntryInTheSameTransaction(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		e := createEndpoint(t, s, c, acme.ID, webhook.LinkCreated)
		var events []webhook.Event
		for range 3 {
			events = append(events, newEvent(t, c, acme.ID, webhook.LinkCreated, nil, nil))
		}
		require.NoError(t, s.EnqueueEvents(ctx, events))
		first := c.next()
		claimed, err := s.ClaimDeliveries(ctx, first, time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 3)
		entry := func(at time.Time) *audit.Event {
			return &audit.Event{ID: uuid.Must(uuid.NewV7()), OrgID: &acme.ID, Action: audit.WebhookDisabled,
				ActorType: audit.ActorSystem, TargetType: "webhook", TargetID: e.ID.String(), OccurredAt: at,
				Details: map[string]string{"url": e.URL}}
		}
		fail := func(d webhook.Claimed, at time.Time, disabled *audit.Event) (bool, error) {
			return s.FinishDelivery(ctx, d.ID, d.Lease, webhook.Outcome{Status: webhook.StatusFailed, AttemptedAt: at,
				Error: "timeout", DisableBefore: at.Add(-webhook.DisableAfter), Disabled: disabled})
		}
		entries := func() []audit.Event {
			got, err := s.ListAuditEvents(ctx, audit.ListFilter{OrgID: acme.ID, Limit: 10})
			require.NoError(t, err)
			return got
		}

		disabled, err := fail(claimed[0], first, entry(first))
		require.NoError(t, err)
		assert.False(t, disabled, "the first failure starts the failing mark")
		assert.Empty(t, entries(), "no entry for an endpoint left enabled")

		// An entry that cannot be written (its id is taken) undoes the disable.
		late := first.Add(webhook.DisableAfter + time.Second)
		taken := entry(late)
		require.NoError(t, s.InsertAuditEvents(ctx, []audit.Event{*taken}))
		disabled, err = fail(claimed[1], late, taken)
		require.Error(t, err)
		assert.False(t, disabled)
		hook, err := s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Nil(t, hook.DisabledAt, "the disable was rolled back with its entry")
		d, err := s.Delivery(ctx, acme.ID, e.ID, claimed[1].ID)
		require.NoError(t, err)
		assert.Equal(t, 0, d.Attempts, "and so was the outcome")

		want := entry(late)
		disabled, err = fail(claimed[2], late, want)
		require.NoError(t, err)
		assert.True(t, disabled)
		got := entries()
		require.Len(t, got, 2, "the entry inserted by hand and the disable's")
		ids := []uuid.UUID{got[0].ID, got[1].ID}
		assert.Contains(t, ids, want.ID, "written by FinishDelivery itself")
		hook, err = s.Webhook(ctx, acme.ID, e.ID)
		require.NoError(t, err)
		assert.Equal(t, late, *hook.DisabledAt)
	})
}

// A bulk of events larger than one insert statement's rows lands whole:
// every event, and one delivery for each of two endpoints.
func TestEnqueueEventsInSeveralStatements(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		createEndpoint(t, s, c, acme.ID, webhook.LinkUpdated)
		createEndpoint(t, s, c, acme.ID, webhook.LinkUpdated)
		events := make([]webhook.Event, 1201)
		for i := range events {
			events[i] = newEvent(t, c, acme.ID, webhook.LinkUpdated, nil, nil)
		}
		require.NoError(t, s.EnqueueEvents(ctx, events))
		n, err := s.DB().NewSelect().Table("webhook_events").Where("org_id = ?", acme.ID).Count(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1201, n)
		n, err = s.DB().NewSelect().Table("webhook_deliveries").Where("org_id = ?", acme.ID).Count(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 2402, n)
	})
}
