package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// Segments of two batches that overlap in time are read as one sequence
// in (occurred_at, id) order; a scan resumes after any position, keeps to
// its window (From inclusive, To exclusive) and to the links a member
// created.
func TestScanClicksMergesSegmentsInTimeOrder(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		u := createUser(t, s, c, "ann@example.com")
		mine := newLink(c, o.ID, "hop.example", "mine")
		mine.CreatedBy = &u.ID
		createLink(t, s, mine)
		other := createLink(t, s, newLink(c, o.ID, "hop.example", "other"))
		t0 := c.next().Truncate(time.Second).Add(time.Second)
		at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

		// The second batch's clicks fall between the first's, and one
		// instant holds two clicks (ordered by id).
		first := []analytics.Click{newClick(mine, at(0)), newClick(other, at(20)), newClick(mine, at(40))}
		second := []analytics.Click{newClick(other, at(10)), newClick(mine, at(20)), newClick(other, at(50))}
		_, err := s.InsertClicks(ctx, first)
		require.NoError(t, err)
		_, err = s.InsertClicks(ctx, second)
		require.NoError(t, err)
		segs, err := s.Segments(ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, segs, 2, "one segment per batch")

		byTime := []analytics.Click{first[0], second[0], first[1], second[1], first[2], second[2]}
		if second[1].ID.String() < first[1].ID.String() {
			byTime[2], byTime[3] = second[1], first[1]
		}
		ids := func(clicks []analytics.Click) []uuid.UUID {
			out := make([]uuid.UUID, len(clicks))
			for i := range clicks {
				out[i] = clicks[i].ID
			}
			return out
		}
		all, err := s.ScanClicks(ctx, o.ID, store.AllTime, analytics.Filter{}, nil)
		require.NoError(t, err)
		assert.Equal(t, ids(byTime), ids(all), "merged in (occurred_at, id) order")

		w := analytics.Window{From: at(10), To: at(50)}
		in, err := s.ScanClicks(ctx, o.ID, w, analytics.Filter{}, nil)
		require.NoError(t, err)
		assert.Equal(t, ids(byTime[1:5]), ids(in), "From inclusive, To exclusive")

		created, err := s.ScanClicks(ctx, o.ID, store.AllTime, analytics.Filter{}, &u.ID)
		require.NoError(t, err)
		for _, cl := range created {
			assert.Equal(t, mine.ID, cl.LinkID, "only the member's links")
		}
		assert.Len(t, created, 3)

		// An export counts two, then resumes after the second's position.
		scope := analytics.ExportScope{OrgID: o.ID, Window: store.AllTime}
		n, last, err := s.CountExportClicks(ctx, scope, nil, 2)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		require.NotNil(t, last)
		assert.Equal(t, analytics.ExportPosition{Time: byTime[1].OccurredAt, ID: byTime[1].ID}, *last)
		n, last, err = s.CountExportClicks(ctx, scope, last, 10)
		require.NoError(t, err)
		assert.Equal(t, 4, n)
		assert.Nil(t, last)
		page, err := s.ExportPage(ctx, scope, &analytics.ExportPosition{Time: byTime[2].OccurredAt, ID: byTime[2].ID}, 2)
		require.NoError(t, err)
		require.Len(t, page, 2)
		assert.Equal(t, byTime[3].ID, page[0].Position.ID)
		assert.Equal(t, byTime[4].ID, page[1].Position.ID)
		assert.Equal(t, "GB", page[0].Row.Country)
	})
}

// A batch is cut into segments of at most analytics.MaxSegmentClicks
// clicks and of at most an hour each.
func TestInsertClicksSplitsSegments(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		if testing.Short() {
			t.Skip("writes 65,537 clicks")
		}
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		t0 := c.next()
		batch := make([]analytics.Click, 0, analytics.MaxSegmentClicks+3)
		for i := range analytics.MaxSegmentClicks + 1 {
			batch = append(batch, newClick(l, t0.Add(time.Duration(i)*10*time.Microsecond)))
		}
		batch = append(batch, newClick(l, t0.Add(time.Hour)), newClick(l, t0.Add(3*time.Hour)))
		n, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		assert.Equal(t, len(batch), n)
		segs, err := s.Segments(ctx, o.ID)
		require.NoError(t, err)
		var sizes []int
		for _, seg := range segs {
			sizes = append(sizes, seg.Clicks)
			assert.Less(t, seg.LastAt.Sub(seg.FirstAt), time.Hour)
		}
		assert.Equal(t, []int{analytics.MaxSegmentClicks, 2, 1}, sizes)
		count, err := s.CountClicks(ctx, o.ID, store.AllTime, analytics.Filter{})
		require.NoError(t, err)
		assert.Equal(t, len(batch), count)
	})
}

// The migration moves existing clicks into segments, in time order and
// split by the hour, keeps as rows only the clicks attribution reads, and
// its rollback puts every click back.
func TestClickSegmentsMigrationOnAPopulatedDatabase(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		// Every migration before the segments', so that today's apps and
		// links can be created.
		migrateTo(t, s, "20261126000001_click_rollups")
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		t0 := c.next()
		type raw struct {
			link     *uuid.UUID
			app      *uuid.UUID
			at       time.Time
			source   string
			platform string
			ip       string
		}
		rows := []raw{
			{&plain.ID, nil, t0.Add(2 * time.Hour), "redirect", "ios", "8.8.8.8"},
			{&plain.ID, nil, t0, "redirect", "android", "not an ip"},
			{&withApp.ID, withApp.AppID, t0.Add(time.Minute), "redirect", "ios", "2001:db8::1"},
			{&plain.ID, nil, t0.Add(2 * time.Minute), "app_open", "android", ""},
			{&withApp.ID, withApp.AppID, t0.Add(3 * time.Minute), "redirect", "android", "203.0.113.9"},
			{&withApp.ID, withApp.AppID, t0.Add(4 * time.Minute), "redirect", "desktop", "203.0.113.9"},
		}
		want := make([]uuid.UUID, len(rows))
		for i, r := range rows {
			want[i] = uuid.Must(uuid.NewV7())
			row := map[string]any{"id": want[i], "org_id": o.ID, "link_id": *r.link, "app_id": r.app, "occurred_at": r.at,
				"source": r.source, "platform": r.platform, "ip": r.ip, "ip_key": analytics.IPKey(r.ip), "country": "DE", "referer": "https://a.example/",
				"referer_host": "a.example", "ip_class": analytics.NetworkClass(r.ip)}
			for _, col := range []string{"domain", "slug", "os", "os_version", "device_model", "browser",
				"in_app_browser", "user_agent", "accept_language", "utm_source", "utm_medium", "utm_campaign", "utm_term",
				"utm_content", "region", "city"} {
				row[col] = ""
			}
			_, err := s.DB().NewInsert().Table("clicks").Model(&row).Exec(ctx)
			require.NoError(t, err)
		}

		require.NoError(t, s.Migrate(ctx))
		stored, err := s.StoredClicks(ctx, o.ID)
		require.NoError(t, err)
		got := make([]uuid.UUID, len(stored))
		for i := range stored {
			got[i] = stored[i].ID
			assert.Equal(t, "DE", stored[i].Country)
			assert.Equal(t, "https://a.example/", stored[i].Referer)
		}
		assert.Equal(t, []uuid.UUID{want[1], want[2], want[3], want[4], want[5], want[0]}, got, "in time order")
		assert.Empty(t, stored[0].IP, "an IP that is not an address is left out")
		assert.Equal(t, "2001:db8::1", stored[1].IP)
		assert.Equal(t, "2001:db8::/64", stored[1].IPKey)
		segs, err := s.Segments(ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, segs, 2, "a segment spans less than an hour")
		assert.Equal(t, 5, segs[0].Clicks)
		assert.True(t, segs[0].HasIPs)
		kept := clickRows(t, s, "org_id = ?", o.ID)
		keptIDs := map[uuid.UUID]bool{}
		for _, r := range kept {
			keptIDs[r.ID] = true
		}
		assert.Equal(t, map[uuid.UUID]bool{want[2]: true, want[3]: true, want[4]: true}, keptIDs,
			"the rows of the app's link on iOS and Android and the SDK resolve stay; desktop and plain links go")

		require.NoError(t, s.Rollback(ctx))
		assert.False(t, tableExists(t, s, "click_segments"))
		assert.Len(t, clickRows(t, s, "org_id = ?", o.ID), len(rows), "the rollback puts every click back")
		require.NoError(t, s.Migrate(ctx))
		assert.Len(t, clickRows(t, s, "org_id = ?", o.ID), 3)
		again, err := s.StoredClicks(ctx, o.ID)
		require.NoError(t, err)
		assert.Len(t, again, len(rows))
	})
}

// The clicks attribution reads (an app's link on iOS and Android, and SDK
// resolves) are rows of clicks as well as in a segment on PostgreSQL; on
// SQLite only a tap and a click whose id carries another time are
// (click_rows.go). The others are in the segment only.
func TestOnlyAttributionsClicksAreRows(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		withApp, plain := appAndPlainLinks(t, s, c, o.ID)
		click := func(l *linking.Link, platform string, source analytics.Source) analytics.Click {
			cl := newClick(l, c.next())
			cl.Platform, cl.Source = platform, source
			return cl
		}
		batch := []analytics.Click{
			click(withApp, "ios", analytics.SourceRedirect), click(withApp, "android", analytics.SourceRedirect),
			click(withApp, "desktop", analytics.SourceRedirect), click(withApp, "unknown", analytics.SourceRedirect),
			click(plain, "ios", analytics.SourceRedirect), click(plain, "android", analytics.SourceAppOpen),
			click(withApp, "ios", analytics.SourceRedirect), click(withApp, "ios", analytics.SourceRedirect),
		}
		tap := uuid.Must(uuid.NewV7())
		batch[6].TapID = &tap
		batch[7] = withRow(batch[7])
		n, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		assert.Equal(t, len(batch), n)
		rows := map[uuid.UUID]bool{}
		for _, r := range clickRows(t, s, "org_id = ?", o.ID) {
			rows[r.ID] = true
		}
		want := map[uuid.UUID]bool{batch[6].ID: true, batch[7].ID: true}
		if s.Dialect() == "pg" {
			want[batch[0].ID], want[batch[1].ID], want[batch[5].ID] = true, true, true
		}
		assert.Equal(t, want, rows, "on SQLite only a tap and a click whose id carries another time")
		assert.Len(t, storedRows(t, s, o.ID), len(batch), "every click is in the segment")
	})
}
