package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

// outbox claims every delivery written so far and returns their bodies'
// type and data, in the order they are due.
func outbox(t *testing.T, s *store.Store) []struct {
	Type string
	Data map[string]any
} {
	t.Helper()
	// A year ahead: whatever the test clock says, every delivery is due.
	got, err := s.ClaimDeliveries(t.Context(), time.Now().Add(365*24*time.Hour), time.Hour, 1000)
	require.NoError(t, err)
	out := make([]struct {
		Type string
		Data map[string]any
	}, len(got))
	for i, d := range got {
		require.NoError(t, json.Unmarshal(d.Body, &out[i]))
		assert.Equal(t, string(d.EventType), out[i].Type)
	}
	return out
}

func types(events []struct {
	Type string
	Data map[string]any
}) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

func TestChangesWriteTheirWebhookEvents(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		w := newAttrWorld(t, s, c, "acme")
		assert.Empty(t, outbox(t, s), "nothing is written while no endpoint subscribes")

		createEndpoint(t, s, c, w.orgID, webhook.Types()...)
		l := createLink(t, s, newLink(c, w.orgID, "hop.example", "summer"))
		l.DestinationURL, l.UpdatedAt = "https://example.com/new", c.next()
		require.NoError(t, s.UpdateLink(ctx, l))
		require.NoError(t, s.DeleteLink(ctx, w.orgID, l.ID))

		d := createDomain(t, s, c, w.orgID, "links.acme.example")
		_, err := s.MarkDomainVerified(ctx, w.orgID, d.ID, c.next())
		require.NoError(t, err)
		_, err = s.MarkDomainVerified(ctx, w.orgID, d.ID, c.next())
		require.NoError(t, err, "verified again")
		_, err = s.SetDomainsSuspended(ctx, w.orgID, true, c.next())
		require.NoError(t, err)
		_, err = s.SetDomainsSuspended(ctx, w.orgID, false, c.next())
		require.NoError(t, err)

		u := createUser(t, s, c, "ann@example.com")
		addMember(t, s, c, w.orgID, u, auth.RoleAdmin)
		require.NoError(t, s.RemoveMember(ctx, w.orgID, u.ID))
		v := createUser(t, s, c, "bob@example.com")
		addMember(t, s, c, w.orgID, v, auth.RoleMember)
		_, err = s.DeleteMember(ctx, w.orgID, v.ID)
		require.NoError(t, err)

		rec, att := installFor(w, w.linkA, w.clickA, c.next())
		require.NoError(t, s.Claim(ctx, rec, att))
		reason := attribution.FailNoMatch
		require.NoError(t, s.RecordAttempt(ctx, attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: w.orgID,
			FailReason: &reason, CreatedAt: c.next(), Platform: attribution.PlatformAndroid, Signals: []string{}}))
		matched := att
		matched.ID, matched.CreatedAt = uuid.Must(uuid.NewV7()), c.next()
		require.NoError(t, s.RecordAttempt(ctx, matched), "a replayed match announces nothing")

		events := outbox(t, s)
		assert.ElementsMatch(t, []string{"link.created", "link.updated", "link.deleted", "domain.verified", "domain.suspended",
			"domain.restored", "member.joined", "member.removed", "member.joined", "member.removed", "install.attributed", "install.unattributed"},
			types(events), "one event per change")
		byType := map[string][]map[string]any{}
		for _, e := range events {
			byType[e.Type] = append(byType[e.Type], e.Data)
		}
		assert.Equal(t, "summer", byType["link.created"][0]["slug"])
		assert.Equal(t, "https://example.com/new", byType["link.updated"][0]["destination_url"])
		assert.Equal(t, l.ID.String(), byType["link.deleted"][0]["id"])
		assert.Equal(t, "summer", byType["link.deleted"][0]["slug"])
		assert.Equal(t, "links.acme.example", byType["domain.verified"][0]["domain"])
		assert.Equal(t, true, byType["domain.verified"][0]["verified"])
		assert.Equal(t, "links.acme.example", byType["domain.suspended"][0]["domain"])
		assert.NotNil(t, byType["domain.suspended"][0]["suspended_at"], "when it was suspended")
		assert.Equal(t, "links.acme.example", byType["domain.restored"][0]["domain"])
		assert.Nil(t, byType["domain.restored"][0]["suspended_at"])
		assert.Contains(t, byType["domain.restored"][0], "suspended_at")
		var joined, removed []string
		for _, m := range byType["member.joined"] {
			joined = append(joined, m["email"].(string)+" "+m["role"].(string))
		}
		for _, m := range byType["member.removed"] {
			removed = append(removed, m["email"].(string)+" "+m["role"].(string))
		}
		assert.ElementsMatch(t, []string{"ann@example.com admin", "bob@example.com member"}, joined)
		assert.ElementsMatch(t, []string{"ann@example.com admin", "bob@example.com member"}, removed, "the removed member's email and role")
		installed := byType["install.attributed"][0]
		assert.Equal(t, rec.ID.String(), installed["install_id"])
		assert.Equal(t, w.clickA.String(), installed["click_id"])
		assert.Equal(t, w.linkA.ID.String(), installed["link_id"])
		assert.Equal(t, "probabilistic", installed["match_type"])
		assert.InDelta(t, 0.9, installed["match_confidence"], 1e-9)
		assert.Equal(t, "time", installed["match_signal"])
		assert.Equal(t, "no_match", byType["install.unattributed"][0]["fail_reason"])
		for _, e := range events {
			_, ip := e.Data["ip"]
			_, ua := e.Data["user_agent"]
			assert.False(t, ip || ua, "%s carries no IP and no user agent", e.Type)
		}
	})
}

// TestUnattributedAttemptsFollowSubscriptions checks that the list of
// organizations taking install.unattributed, kept between attempts, follows
// every change of endpoints made through the store at once: a subscription
// made after an attempt found none, another organization's, a disabled
// endpoint, and a type dropped from the list.
func TestUnattributedAttemptsFollowSubscriptions(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		w := newAttrWorld(t, s, c, "acme")
		other := createOrg(t, s, c, "globex")
		reason := attribution.FailNoMatch
		attempt := func() {
			t.Helper()
			require.NoError(t, s.RecordAttempt(ctx, attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: w.orgID,
				FailReason: &reason, CreatedAt: c.next(), Platform: attribution.PlatformIOS, Signals: []string{}}))
		}
		announced := func() int {
			t.Helper()
			n := 0
			for _, e := range outbox(t, s) {
				if e.Type == string(webhook.InstallUnattributed) {
					n++
				}
			}
			return n
		}

		attempt()
		assert.Zero(t, announced(), "no endpoint subscribes")
		createEndpoint(t, s, c, other.ID, webhook.InstallUnattributed)
		attempt()
		assert.Zero(t, announced(), "another organization's endpoint")

		e := createEndpoint(t, s, c, w.orgID, webhook.InstallUnattributed, webhook.LinkCreated)
		attempt()
		attempt()
		assert.Equal(t, 2, announced(), "a subscription made after an attempt found none is seen at once")

		now := c.next()
		e.DisabledAt = &now
		require.NoError(t, s.UpdateWebhook(ctx, e, true))
		attempt()
		assert.Zero(t, announced(), "a disabled endpoint")

		e.DisabledAt = nil
		require.NoError(t, s.UpdateWebhook(ctx, e, true))
		attempt()
		assert.Equal(t, 1, announced(), "enabled again")

		e.Events = []webhook.Type{webhook.LinkCreated}
		require.NoError(t, s.UpdateWebhook(ctx, e, false))
		attempt()
		assert.Zero(t, announced(), "the type dropped from the endpoint's list")
	})
}

func TestAFailedChangeWritesNoEvent(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		createEndpoint(t, s, c, o.ID, webhook.LinkCreated, webhook.LinkDeleted, webhook.LinkUpdated)
		createLink(t, s, newLink(c, o.ID, "hop.example", "taken"))
		require.Len(t, outbox(t, s), 1)

		err := s.CreateLink(ctx, newLink(c, o.ID, "hop.example", "taken"), linking.LinkQuota{})
		assert.ErrorIs(t, err, errcode.ErrConflict)
		assert.ErrorIs(t, s.DeleteLink(ctx, o.ID, uuid.Must(uuid.NewV7())), errcode.ErrNotFound)
		missing := newLink(c, o.ID, "hop.example", "missing")
		assert.ErrorIs(t, s.UpdateLink(ctx, missing), errcode.ErrNotFound)
		assert.Empty(t, outbox(t, s), "the event went with the change")
	})
}

func TestStoredClicksAreAnnouncedInBatches(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		quiet := createOrg(t, s, c, "quiet")
		a := createLink(t, s, newLink(c, acme.ID, "hop.example", "a"))
		b := createLink(t, s, newLink(c, acme.ID, "hop.example", "b"))
		q := createLink(t, s, newLink(c, quiet.ID, "hop.example", "q"))
		createEndpoint(t, s, c, quiet.ID, webhook.LinkCreated) // takes no clicks
		batch := func() []analytics.Click {
			var clicks []analytics.Click
			for range 150 {
				clicks = append(clicks, newClick(a, c.next()))
			}
			for range 3 {
				clicks = append(clicks, newClick(b, c.next()), newClick(q, c.next()))
			}
			return clicks
		}
		_, err := s.InsertClicks(ctx, batch())
		require.NoError(t, err)
		assert.Empty(t, outbox(t, s), "nobody takes link.clicked yet")

		createEndpoint(t, s, c, acme.ID, webhook.LinkClicked)
		_, err = s.InsertClicks(ctx, batch())
		require.NoError(t, err)
		var sizes []int
		links := map[string]int{}
		for _, e := range outbox(t, s) {
			require.Equal(t, "link.clicked", e.Type)
			batch := e.Data["clicks"].([]any)
			sizes = append(sizes, len(batch))
			for _, item := range batch {
				click := item.(map[string]any)
				links[click["link_id"].(string)]++
				assert.Equal(t, "redirect", click["source"])
				assert.NotContains(t, click, "ip")
				assert.NotContains(t, click, "user_agent")
			}
		}
		assert.ElementsMatch(t, []int{100, 50, 3}, sizes, "at most 100 clicks a delivery, one link each")
		assert.Equal(t, map[string]int{a.ID.String(): 150, b.ID.String(): 3}, links, "only the subscribing organization's clicks")
	})
}

// A link that changes or goes by another change than its own update or
// delete is announced all the same: moved by a move choice (link.updated,
// at its new address), deleted with its custom domain (link.deleted, one
// event a link).
func TestMovesAndDomainDeletesAnnounceTheirLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, acme.ID, prevDomain, "spring"))
		d := createDomain(t, s, c, acme.ID, "go.acme.example")
		onDomain := []*linking.Link{
			createLink(t, s, newLink(c, acme.ID, "go.acme.example", "one")),
			createLink(t, s, newLink(c, acme.ID, "go.acme.example", "two")),
		}
		createEndpoint(t, s, c, acme.ID, webhook.LinkUpdated, webhook.LinkDeleted)

		m := move(c, l, "spring-sale")
		m.ShortURL = "https://" + m.ToDomain + "/spring-sale"
		require.NoError(t, s.MoveLink(ctx, m))
		events := outbox(t, s)
		require.Equal(t, []string{"link.updated"}, types(events))
		assert.Equal(t, l.ID.String(), events[0].Data["id"])
		assert.Equal(t, m.ToDomain, events[0].Data["domain"])
		assert.Equal(t, "spring-sale", events[0].Data["slug"])
		assert.Equal(t, m.ShortURL, events[0].Data["short_url"])

		_, err := s.DeleteDomain(ctx, acme.ID, d.ID)
		require.NoError(t, err)
		events = outbox(t, s)
		require.Equal(t, []string{"link.deleted", "link.deleted"}, types(events))
		ids := []string{events[0].Data["id"].(string), events[1].Data["id"].(string)}
		assert.ElementsMatch(t, []string{onDomain[0].ID.String(), onDomain[1].ID.String()}, ids)
		for _, e := range events {
			assert.Equal(t, "go.acme.example", e.Data["domain"])
		}
	})
}

// Accepting an invitation announces the new member, in its transaction;
// a refused accept announces nothing.
func TestAnAcceptedInvitationAnnouncesTheMember(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		u := createUser(t, s, c, "a@example.com")
		inv := newInvitation(c, o.ID, u.Email)
		require.NoError(t, s.CreateInvitation(ctx, inv, 3, c.now))
		createEndpoint(t, s, c, o.ID, webhook.MemberJoined)
		member := &org.Member{OrgID: o.ID, UserID: u.ID, Email: u.Email, Role: inv.Role, CreatedAt: c.now, UpdatedAt: c.now}

		_, err := s.AcceptInvitation(ctx, inv.ID, member, 0, c.next())
		require.ErrorIs(t, err, org.ErrSeatLimit)
		assert.Empty(t, outbox(t, s), "a refused accept announces nothing")

		_, err = s.AcceptInvitation(ctx, inv.ID, member, 3, c.next())
		require.NoError(t, err)
		events := outbox(t, s)
		require.Equal(t, []string{"member.joined"}, types(events))
		assert.Equal(t, u.ID.String(), events[0].Data["user_id"])
	})
}

// The links a bulk change moves or changes are announced one by one, as
// link.updated, in the change's transaction: the links an app's rename
// period moves to its new subdomain, and the links an app's deletion
// leaves (app_id null), the latter passing a filter on the app they left.
func TestBulkLinkChangesAnnounceEachLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		a := newApp(c, acme.ID, "App")
		require.NoError(t, s.CreateApp(ctx, a, 1000))
		var links []*linking.Link
		for _, slug := range []string{"one", "two", "three"} {
			l := newLink(c, acme.ID, a.LinkDomain, slug)
			l.AppID = &a.ID
			links = append(links, createLink(t, s, l))
		}
		other := createLink(t, s, newLink(c, acme.ID, "hop.example", "elsewhere"))
		e := newEndpoint(c, acme.ID, webhook.LinkUpdated)
		e.AppIDs = []uuid.UUID{a.ID}
		require.NoError(t, s.CreateWebhook(ctx, e))
		ids := func(events []struct {
			Type string
			Data map[string]any
		}) []string {
			var out []string
			for _, ev := range events {
				out = append(out, ev.Data["id"].(string))
			}
			return out
		}
		want := []string{links[0].ID.String(), links[1].ID.String(), links[2].ID.String()}

		r := renameOf(a, "renamed", c.next())
		_, err := s.RenameApp(ctx, r)
		require.NoError(t, err)
		assert.Empty(t, outbox(t, s), "nothing moves when the period opens")
		end := &linking.RenameEnd{OrgID: acme.ID, AppID: a.ID, OldHandle: a.Handle, Previous: a.LinkDomain,
			Current: r.ToLinkDomain, At: r.EndsAt, HoldUntil: r.EndsAt.Add(linking.HandleHold), ShortURLBase: "https://{domain}"}
		ended, err := s.EndRenamePeriod(ctx, end)
		require.NoError(t, err)
		require.Len(t, ended.Moved, 3)
		events := outbox(t, s)
		assert.Equal(t, []string{"link.updated", "link.updated", "link.updated"}, types(events), "one event per moved link")
		assert.ElementsMatch(t, want, ids(events))
		for _, ev := range events {
			assert.Equal(t, r.ToLinkDomain, ev.Data["domain"], "at the new address")
			assert.Equal(t, "https://"+r.ToLinkDomain+"/"+ev.Data["slug"].(string), ev.Data["short_url"])
			assert.Equal(t, a.ID.String(), ev.Data["app_id"])
		}

		at := c.next()
		_, err = s.DeleteApp(ctx, linking.AppDeletion{OrgID: acme.ID, ID: a.ID, At: at, ShortURLBase: "https://{domain}"})
		require.NoError(t, err)
		events = outbox(t, s)
		assert.Equal(t, []string{"link.updated", "link.updated", "link.updated"}, types(events),
			"one event per link the app left, through the app's filter")
		assert.ElementsMatch(t, want, ids(events))
		for _, ev := range events {
			assert.Nil(t, ev.Data["app_id"])
			assert.Equal(t, at.UTC().Format("2006-01-02T15:04:05.000Z"), ev.Data["updated_at"])
		}
		got, err := s.LinkByID(ctx, acme.ID, links[0].ID)
		require.NoError(t, err)
		assert.Nil(t, got.AppID)
		assert.Equal(t, at, got.UpdatedAt)
		unchanged, err := s.LinkByID(ctx, acme.ID, other.ID)
		require.NoError(t, err)
		assert.Equal(t, other.UpdatedAt, unchanged.UpdatedAt, "a link of no app is untouched")
	})
}

// An organization's deletion is not announced: its endpoints go with it,
// and so do the events still waiting, so nothing is left to send.
func TestADeletedOrganizationLeavesNothingToDeliver(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		createEndpoint(t, s, c, acme.ID, webhook.LinkCreated, webhook.LinkDeleted)
		createLink(t, s, newLink(c, acme.ID, "hop.example", "spring"))
		require.NoError(t, s.DeleteOrganization(ctx, acme.ID))
		assert.Empty(t, outbox(t, s), "the pending link.created went with the organization")
		events, err := s.DB().NewSelect().Table("webhook_events").Where("org_id = ?", acme.ID).Count(ctx)
		require.NoError(t, err)
		assert.Zero(t, events)
	})
}
