package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// attrWorld is an organization with two apps, two links (one created by a
// member) and a click on each link.
type attrWorld struct {
	orgID          uuid.UUID
	appA, appB     uuid.UUID
	linkA, linkB   *linking.Link
	member         uuid.UUID
	clickA, clickB uuid.UUID
}

func newAttrWorld(t *testing.T, s *store.Store, c *clock, slug string) *attrWorld {
	t.Helper()
	o := createOrg(t, s, c, slug)
	w := &attrWorld{orgID: o.ID, appA: createApp(t, s, c, o.ID), appB: createApp(t, s, c, o.ID), member: uuid.Must(uuid.NewV7())}
	w.linkA = newLink(c, o.ID, "hop.example", slug+"-a")
	w.linkA.AppID = &w.appA
	createLink(t, s, w.linkA)
	w.linkB = newLink(c, o.ID, "hop.example", slug+"-b")
	w.linkB.CreatedBy = &w.member
	createLink(t, s, w.linkB)
	w.clickA = insertRawClick(t, s, w.linkA, c.next())
	w.clickB = insertRawClick(t, s, w.linkB, c.next())
	return w
}

// insertRawClick writes one click row of l directly.
func insertRawClick(t testing.TB, s *store.Store, l *linking.Link, at time.Time) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	row := map[string]any{
		"id": id, "org_id": l.OrgID, "link_id": l.ID, "app_id": l.AppID, "domain": l.Domain,
		"occurred_at": at.UTC(), "source": "redirect", "platform": "ios", "os": "iOS", "os_version": "17.5",
		"device_model": "iPhone", "browser": "Safari", "in_app_browser": "", "ip_key": "203.0.113.7",
		"user_agent": "ua", "accept_language": "en-US", "utm_source": "", "utm_medium": "",
		"utm_campaign": "", "utm_term": "", "utm_content": "",
	}
	_, err := s.DB().NewInsert().Model(&row).TableExpr("clicks").Exec(t.Context())
	require.NoError(t, err)
	lowerIPMark(t, s, l.OrgID, at)
	return id
}

// lowerIPMark moves orgID's IP mark (click_ip_marks) down to at, as
// InsertClicks does for the rows it writes, for a test that writes or
// changes rows of clicks directly.
func lowerIPMark(t testing.TB, s *store.Store, orgID uuid.UUID, at time.Time) {
	t.Helper()
	least := "min"
	if s.Dialect() == "pg" {
		least = "LEAST"
	}
	_, err := s.DB().NewInsert().Model(&map[string]any{"org_id": orgID, "cleared_until": at.UnixMicro()}).
		TableExpr("click_ip_marks AS m").On("CONFLICT (org_id) DO UPDATE").
		Set("cleared_until = " + least + "(m.cleared_until, EXCLUDED.cleared_until)").Exec(t.Context())
	require.NoError(t, err)
}

func installFor(w *attrWorld, l *linking.Link, click uuid.UUID, at time.Time) (attribution.InstallRecord, attribution.Attempt) {
	return claimOf(w.orgID, click, l.ID, l.AppID, at)
}

// claimOf is a probabilistic install of organization orgID that claims
// click of link linkID, from 203.0.113.7, with its attempt.
func claimOf(orgID, click, linkID uuid.UUID, appID *uuid.UUID, at time.Time) (attribution.InstallRecord, attribution.Attempt) {
	id := uuid.Must(uuid.NewV7())
	device := uuid.Must(uuid.NewV7())
	mt := attribution.MatchProbabilistic
	src := attribution.SourceClaim
	rec := attribution.InstallRecord{
		Install: attribution.Install{ID: id, ClickID: &click, LinkID: &linkID, AppID: appID, InstalledAt: at,
			HasDeviceID: true, HasMatchedPayload: true},
		OrgID: orgID, DeviceID: &device, IP: "203.0.113.7", Platform: attribution.PlatformIOS,
		Payload:         &attribution.Payload{MatchType: mt, MatchConfidence: 0.9, LinkID: linkID, AppID: appID, CustomParams: map[string]string{}},
		ClaimedClickIDs: []uuid.UUID{click},
	}
	att := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Matched: true, MatchSource: &src,
		MatchType: &mt, InstallID: &id, AppID: appID, CreatedAt: at, Platform: attribution.PlatformIOS, Signals: []string{"time", "ip"}}
	return rec, att
}

func TestAttributionMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		assertMigratesDownAndUp(t, s, "installs", "attribution_attempts")

		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		rec, att := installFor(w, w.linkA, w.clickA, c.next())
		require.NoError(t, s.Claim(ctx, rec, att))
	})
}

func TestClaimHoldsAClickForOneInstall(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		first, att := installFor(w, w.linkA, w.clickA, c.next())
		require.NoError(t, s.Claim(ctx, first, att))

		second, att2 := installFor(w, w.linkA, w.clickA, c.next())
		assert.ErrorIs(t, s.Claim(ctx, second, att2), attribution.ErrClaimed, "the unique index on click_id")

		// A click taken as a session click of another install is held too.
		third, att3 := installFor(w, w.linkB, w.clickB, c.next())
		third.ClaimedClickIDs = []uuid.UUID{w.clickB}
		_, err := s.DB().NewUpdate().Table("clicks").Set("claimed_by_install = ?", first.ID).Where("id = ?", w.clickB).Exec(ctx)
		require.NoError(t, err)
		assert.ErrorIs(t, s.Claim(ctx, third, att3), attribution.ErrClaimed)

		m := attribution.NewMatcher(s, attribution.MatcherOptions{})
		page, err := m.ListInstalls(ctx, attribution.InstallFilter{OrgID: w.orgID, From: t0.Add(-time.Hour), To: c.next().Add(time.Hour)})
		require.NoError(t, err)
		require.Len(t, page.Data, 1, "a refused claim writes nothing")
		attempts, err := m.ListAttempts(ctx, attribution.AttemptFilter{OrgID: w.orgID, From: t0.Add(-time.Hour), To: c.next().Add(time.Hour)})
		require.NoError(t, err)
		assert.Len(t, attempts.Data, 1)

		rec, err := s.ReplayInstall(ctx, w.orgID, &w.appA, first.DeviceID, "", t0)
		require.NoError(t, err)
		assert.Equal(t, first.Payload, rec.Payload, "the routing payload is stored")
	})
}

// TestDeviceInstallsNewestFirst checks that DeviceInstalls returns every
// install of the device in the organization, of every app, newest first
// with its payload, and none of another device or organization.
func TestDeviceInstallsNewestFirst(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		other := newAttrWorld(t, s, c, "globex")
		device := uuid.Must(uuid.NewV7())
		at := c.next()
		older, att := installFor(w, w.linkA, w.clickA, at)
		older.DeviceID = &device
		require.NoError(t, s.Claim(ctx, older, att))
		newer, att := installFor(w, w.linkB, w.clickB, at.Add(time.Hour))
		newer.DeviceID = &device
		require.NoError(t, s.Claim(ctx, newer, att))
		stranger, att := installFor(w, w.linkA, insertRawClick(t, s, w.linkA, c.next()), at.Add(2*time.Hour))
		require.NoError(t, s.Claim(ctx, stranger, att))
		elsewhere, att := installFor(other, other.linkA, other.clickA, at.Add(3*time.Hour))
		elsewhere.DeviceID = &device
		require.NoError(t, s.Claim(ctx, elsewhere, att))

		got, err := s.DeviceInstalls(ctx, w.orgID, device)
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, newer.ID, got[0].ID, "newest first")
		assert.Equal(t, older.ID, got[1].ID)
		assert.Equal(t, older.Payload, got[1].Payload)
		assert.Equal(t, &w.appA, got[1].AppID)
		assert.True(t, at.Equal(got[1].InstalledAt))
		none, err := s.DeviceInstalls(ctx, w.orgID, uuid.Must(uuid.NewV7()))
		require.NoError(t, err)
		assert.Empty(t, none)
	})
}

func TestListInstallsNewestFirstWithFilters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		other := newAttrWorld(t, s, c, "globex")
		m := attribution.NewMatcher(s, attribution.MatcherOptions{})

		same := c.next().Add(time.Hour)
		var ids []uuid.UUID
		for i := range 5 {
			l := w.linkA
			if i%2 == 1 {
				l = w.linkB
			}
			at := same
			if i >= 3 {
				at = same.Add(time.Duration(i) * time.Minute)
			}
			rec, att := installFor(w, l, insertRawClick(t, s, l, c.next()), at)
			require.NoError(t, s.Claim(ctx, rec, att))
			ids = append(ids, rec.ID)
		}
		orec, oatt := installFor(other, other.linkA, other.clickA, same)
		require.NoError(t, s.Claim(ctx, orec, oatt))

		from, to := same.Add(-time.Hour), same.Add(time.Hour)
		// Newest first by (installed_at, id): 4, 3, then 2, 1, 0 (same time, ids descending).
		want := []uuid.UUID{ids[4], ids[3], ids[2], ids[1], ids[0]}
		var got []uuid.UUID
		f := attribution.InstallFilter{OrgID: w.orgID, From: from, To: to, Limit: 2}
		for {
			page, err := m.ListInstalls(ctx, f)
			require.NoError(t, err)
			for _, in := range page.Data {
				got = append(got, in.ID)
			}
			if !page.HasMore {
				assert.Nil(t, page.Next)
				break
			}
			f.After = page.Next
		}
		assert.Equal(t, want, got, "pages walk every install once, newest first, never another organization's")

		count := func(f attribution.InstallFilter) int {
			f.OrgID, f.From, f.To, f.Limit = w.orgID, from, to, 500
			page, err := m.ListInstalls(ctx, f)
			require.NoError(t, err)
			return len(page.Data)
		}
		assert.Equal(t, 3, count(attribution.InstallFilter{App: attribution.AppFilter{ID: &w.appA}}))
		assert.Equal(t, 2, count(attribution.InstallFilter{App: attribution.AppFilter{None: true}}))
		assert.Equal(t, 0, count(attribution.InstallFilter{App: attribution.AppFilter{ID: &w.appB}}))
		assert.Equal(t, 2, count(attribution.InstallFilter{LinkID: &w.linkB.ID}))
		assert.Equal(t, 2, count(attribution.InstallFilter{CreatedBy: &w.member}), "a member sees installs of their own links")
		stranger := uuid.Must(uuid.NewV7())
		assert.Equal(t, 0, count(attribution.InstallFilter{CreatedBy: &stranger}))

		page, err := m.ListInstalls(ctx, attribution.InstallFilter{OrgID: w.orgID, From: same.Add(3 * time.Minute), To: same.Add(4 * time.Minute)})
		require.NoError(t, err)
		require.Len(t, page.Data, 1, "from inclusive, to exclusive")
		assert.Equal(t, ids[3], page.Data[0].ID)

		_, err = m.ListInstalls(ctx, attribution.InstallFilter{OrgID: w.orgID, From: from, To: to, Limit: 501})
		assert.Error(t, err)
	})
}

func TestListAttemptsFilters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		m := attribution.NewMatcher(s, attribution.MatcherOptions{})
		at := c.next()
		rec, att := installFor(w, w.linkA, w.clickA, at)
		require.NoError(t, s.Claim(ctx, rec, att))
		reason := attribution.FailNoCandidates
		class := attribution.IPClassCGNAT
		top := 0.4
		miss := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: w.orgID, FailReason: &reason, IPClass: &class,
			CreatedAt: at.Add(time.Second), Platform: attribution.PlatformAndroid, TopConfidence: &top, Signals: []string{},
			Candidates: attribution.CandidateCounts{Found: 3, Eligible: 2, Unclaimed: 1}}
		require.NoError(t, s.RecordAttempt(ctx, miss))

		list := func(f attribution.AttemptFilter) []attribution.Attempt {
			f.OrgID, f.From, f.To = w.orgID, at.Add(-time.Hour), at.Add(time.Hour)
			page, err := m.ListAttempts(ctx, f)
			require.NoError(t, err)
			return page.Data
		}
		all := list(attribution.AttemptFilter{})
		require.Len(t, all, 2)
		assert.Equal(t, miss.ID, all[0].ID, "newest first")
		assert.Equal(t, miss.Candidates, all[0].Candidates)
		assert.Equal(t, &reason, all[0].FailReason)
		assert.Equal(t, &class, all[0].IPClass)
		assert.Equal(t, []string{}, all[0].Signals)
		assert.Equal(t, []string{"time", "ip"}, all[1].Signals)
		yes, no := true, false
		assert.Len(t, list(attribution.AttemptFilter{Matched: &yes}), 1)
		assert.Equal(t, miss.ID, list(attribution.AttemptFilter{Matched: &no})[0].ID)
		assert.Len(t, list(attribution.AttemptFilter{App: attribution.AppFilter{None: true}}), 1)
		assert.Len(t, list(attribution.AttemptFilter{App: attribution.AppFilter{ID: &w.appA}}), 1)
	})
}

// TestRecordAttemptLeavesTheConnectionSynchronous checks that the
// asynchronous commit of an attempt on PostgreSQL is the attempt's alone:
// the connection that wrote it commits synchronously again afterwards.
func TestRecordAttemptLeavesTheConnectionSynchronous(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t)
	ctx := t.Context()
	c := newClock()
	w := newAttrWorld(t, s, c, "acme")
	// One connection, so that the next statement runs on the attempt's.
	s.DB().SetMaxOpenConns(1)
	reason := attribution.FailNoSignals
	a := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: w.orgID, FailReason: &reason, CreatedAt: c.next(),
		Platform: attribution.PlatformIOS, Signals: []string{}}
	require.NoError(t, s.RecordAttempt(ctx, a))
	var setting, session string
	require.NoError(t, s.DB().QueryRowContext(ctx,
		"SELECT current_setting('synchronous_commit'), reset_val FROM pg_settings WHERE name = 'synchronous_commit'").
		Scan(&setting, &session))
	assert.Equal(t, session, setting, "the session's own setting again")
	assert.NotEqual(t, "off", setting)
	n, err := s.DB().NewSelect().Table("attribution_attempts").Where("id = ?", a.ID).Count(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "the attempt is written")
}
