package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// purgeNow is the time the purge tests purge at.
var purgeNow = time.Date(2027, 6, 1, 12, 0, 0, 0, time.UTC)

func daysAgo(d int) time.Time { return purgeNow.Add(-time.Duration(d) * 24 * time.Hour) }

// purgedClick is a row of clicks as the purge tests read it back.
type purgedClick struct {
	ID               uuid.UUID  `bun:"id"`
	OrgID            uuid.UUID  `bun:"org_id"`
	OccurredAt       time.Time  `bun:"occurred_at"`
	IPKey            string     `bun:"ip_key"`
	Country          string     `bun:"country"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install"`
}

func purgedClicks(t *testing.T, s *store.Store, orgID uuid.UUID) map[uuid.UUID]purgedClick {
	t.Helper()
	var rows []purgedClick
	require.NoError(t, s.DB().NewSelect().Table("clicks").
		Column("id", "org_id", "occurred_at", "ip_key", "country", "claimed_by_install").
		Where("org_id = ?", orgID).Scan(t.Context(), &rows))
	out := map[uuid.UUID]purgedClick{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

// wideClick is a row of clicks before migration 20261202000001, which
// kept the address and its class.
type wideClick struct {
	ID      uuid.UUID `bun:"id"`
	IP      string    `bun:"ip"`
	IPKey   string    `bun:"ip_key"`
	IPClass string    `bun:"ip_class"`
}

// wideClicks reads orgID's rows of clicks before migration 20261202000001.
func wideClicks(t *testing.T, s *store.Store, orgID uuid.UUID) map[uuid.UUID]wideClick {
	t.Helper()
	var rows []wideClick
	require.NoError(t, s.DB().NewSelect().Table("clicks").Column("id", "ip", "ip_key", "ip_class").
		Where("org_id = ?", orgID).Scan(t.Context(), &rows))
	out := map[uuid.UUID]wideClick{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

// createAppLink creates a link of orgID with an app of its own: its clicks
// are rows of clicks (attribution reads them) as well as in segments.
func createAppLink(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID, slug string) *linking.Link {
	t.Helper()
	app := linkApp(t, s, c, orgID)
	l := newLink(c, orgID, app.LinkDomain, slug)
	l.AppID = &app.ID
	return createLink(t, s, l)
}

// segmentClicks returns orgID's clicks in segments by id.
func segmentClicks(t *testing.T, s *store.Store, orgID uuid.UUID) map[uuid.UUID]analytics.Click {
	t.Helper()
	clicks, err := s.StoredClicks(t.Context(), orgID)
	require.NoError(t, err)
	out := map[uuid.UUID]analytics.Click{}
	for _, c := range clicks {
		out[c.ID] = c
	}
	return out
}

func setPlan(t *testing.T, s *store.Store, o *org.Organization, p org.Plan) {
	t.Helper()
	_, err := s.DB().NewUpdate().Table("organizations").Set("plan = ?", string(p)).Where("id = ?", o.ID).Exec(t.Context())
	require.NoError(t, err)
}

func newPurger(s *store.Store, batch int) *analytics.Purger {
	return analytics.NewPurger(s, analytics.PurgerOptions{Clock: func() time.Time { return purgeNow }, BatchSize: batch})
}

// clickAges are the ages in days of the clicks each purge test
// organization gets.
var clickAges = []int{800, 700, 600, 500, 400, 366, 100, 8, 6, 1}

// The purge deletes each organization's clicks, installs, attempts and
// unstored counts older than its plan keeps (Free 365 days, Growth 730),
// in batches, keeps the monthly click counts, clears the IP of every click
// older than seven days and keeps its country and class; a second purge
// finds nothing.
func TestPurgeAppliesEachPlansRetention(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		free := createOrg(t, s, c, "free")
		growth := createOrg(t, s, c, "growth")
		setPlan(t, s, growth, org.PlanGrowth)

		ages := map[uuid.UUID]int{}
		byAge := map[uuid.UUID]map[int]uuid.UUID{}
		for _, o := range []*org.Organization{free, growth} {
			l := createAppLink(t, s, c, o.ID, "spring-"+o.Slug)
			byAge[o.ID] = map[int]uuid.UUID{}
			var batch []analytics.Click
			for _, d := range clickAges {
				cl := withRow(newClick(l, daysAgo(d)))
				cl.IP = "100.64.3.4" // carrier-grade NAT: its class is known without the click history
				batch = append(batch, cl)
				ages[cl.ID] = d
				byAge[o.ID][d] = cl.ID
			}
			n, err := s.InsertClicks(ctx, batch)
			require.NoError(t, err)
			require.Equal(t, len(clickAges), n)
		}
		var countsBefore []map[string]any
		require.NoError(t, s.DB().NewSelect().Table("click_counts").Column("org_id", "period_start", "count").
			OrderExpr("org_id, period_start").Scan(ctx, &countsBefore))
		require.NotEmpty(t, countsBefore)

		// Installs and attempts of the Free organization: one past
		// retention, one within it that claimed a click past it.
		w := &attrWorld{orgID: free.ID}
		freeLink := createLink(t, s, newLink(c, free.ID, "hop.example", "claims"))
		oldRec, oldAtt := installFor(w, freeLink, byAge[free.ID][400], daysAgo(399))
		require.NoError(t, s.Claim(ctx, oldRec, oldAtt))
		keptRec, keptAtt := installFor(w, freeLink, byAge[free.ID][366], daysAgo(364))
		require.NoError(t, s.Claim(ctx, keptRec, keptAtt))
		// An install of yesterday keeps its IP; the one of 364 days loses it.
		recentRec, recentAtt := installFor(w, freeLink, byAge[free.ID][1], daysAgo(1))
		require.NoError(t, s.Claim(ctx, recentRec, recentAtt))

		for _, slot := range []time.Time{daysAgo(400), daysAgo(1)} {
			_, err := s.DB().NewInsert().Table("click_unstored").Model(&map[string]any{
				"org_id": free.ID, "slot": slot, "count": 3,
			}).Exec(ctx)
			require.NoError(t, err)
		}

		res, err := newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.Equal(t, analytics.PurgeResult{
			ClicksDeleted: 6 + 1, SegmentsDeleted: 6 + 1, InstallsDeleted: 1, AttemptsDeleted: 1, UnstoredDeleted: 1,
			IPsCleared: 2 + 7, SegmentIPsCleared: 2 + 7, InstallIPsCleared: 1,
			// Each organization's days from its first to the one before
			// the purge's.
			LinkDaysFolded: 2 * int64(purgeNow.Truncate(24*time.Hour).Sub(t0.Truncate(24*time.Hour))/(24*time.Hour)),
		}, res, "each click is a segment of its own: they are days apart")

		for _, o := range []*org.Organization{free, growth} {
			retention := map[uuid.UUID]int{free.ID: 365, growth.ID: 730}[o.ID]
			inSegments := segmentClicks(t, s, o.ID)
			for d, id := range byAge[o.ID] {
				r, kept := inSegments[id]
				if d > retention {
					assert.False(t, kept, "%s: a click of %d days is deleted from the segments", o.Slug, d)
					continue
				}
				require.True(t, kept, "%s: a click of %d days is kept in a segment", o.Slug, d)
				assert.Equal(t, "GB", r.Country, "the country stays")
				assert.Equal(t, analytics.NetworkCGNAT, r.IPClass, "the class stays")
				if d > 7 {
					assert.Empty(t, r.IP+r.IPKey, "%s: the IP of a click of %d days is cleared in its segment", o.Slug, d)
				} else {
					assert.Equal(t, "100.64.3.4", r.IP, "%s: a click of %d days keeps its IP in its segment", o.Slug, d)
				}
			}
			rows := purgedClicks(t, s, o.ID)
			for d, id := range byAge[o.ID] {
				r, kept := rows[id]
				if d > retention {
					assert.False(t, kept, "%s: a click of %d days is deleted", o.Slug, d)
					continue
				}
				require.True(t, kept, "%s: a click of %d days is kept", o.Slug, d)
				assert.Equal(t, "GB", r.Country, "the country stays")
				if d > 7 {
					assert.Empty(t, r.IPKey, "%s: the IP key of a click of %d days is cleared", o.Slug, d)
				} else {
					assert.Equal(t, "100.64.3.4", r.IPKey, "%s: a click of %d days keeps its IP key", o.Slug, d)
				}
			}
		}

		var countsAfter []map[string]any
		require.NoError(t, s.DB().NewSelect().Table("click_counts").Column("org_id", "period_start", "count").
			OrderExpr("org_id, period_start").Scan(ctx, &countsAfter))
		assert.Equal(t, countsBefore, countsAfter, "the monthly click counts (billing) are kept as they were")

		var installs []struct {
			ID      uuid.UUID  `bun:"id"`
			ClickID *uuid.UUID `bun:"click_id"`
			IP      string     `bun:"ip"`
		}
		require.NoError(t, s.DB().NewSelect().Table("installs").Column("id", "click_id", "ip").
			OrderExpr("installed_at").Scan(ctx, &installs))
		require.Len(t, installs, 2, "the install past retention is deleted")
		assert.Equal(t, keptRec.ID, installs[0].ID)
		assert.Nil(t, installs[0].ClickID, "an install within retention keeps its record without its deleted click")
		assert.Empty(t, installs[0].IP, "an install older than 7 days loses its IP")
		assert.Equal(t, recentRec.ID, installs[1].ID)
		assert.Equal(t, "203.0.113.7", installs[1].IP, "an install of yesterday keeps its IP")
		var attempts []struct {
			ID        uuid.UUID  `bun:"id"`
			InstallID *uuid.UUID `bun:"install_id"`
		}
		require.NoError(t, s.DB().NewSelect().Table("attribution_attempts").Column("id", "install_id").Scan(ctx, &attempts))
		require.Len(t, attempts, 2)
		installOf := map[uuid.UUID]*uuid.UUID{attempts[0].ID: attempts[0].InstallID, attempts[1].ID: attempts[1].InstallID}
		assert.Equal(t, map[uuid.UUID]*uuid.UUID{keptAtt.ID: &keptRec.ID, recentAtt.ID: &recentRec.ID}, installOf)
		unstored, err := s.DB().NewSelect().Table("click_unstored").Count(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1, unstored)

		again, err := newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.True(t, again.Empty(), "a second purge finds nothing: %+v", again)
	})
}

// A click keeps the network class of its IP in its segment from the
// moment it is written, and after the purge clears its IP there; its row
// of clicks, which keeps no address, loses its IP key, as does a row
// written without a segment.
func TestPurgeKeepsTheNetworkClass(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createAppLink(t, s, c, o.ID, "spring")
		ips := map[string]string{"8.8.8.8": "ipv4", "100.100.1.1": "cgnat", "10.1.2.3": "private",
			"2001:4860:4860::8888": "ipv6", "not an ip": ""}
		want := map[uuid.UUID]string{}
		var batch []analytics.Click
		for ip, class := range ips {
			cl := withRow(newClick(l, daysAgo(30)))
			cl.IP = ip
			batch = append(batch, cl)
			want[cl.ID] = class
		}
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		for id, r := range segmentClicks(t, s, o.ID) {
			assert.Equal(t, want[id], r.IPClass, "written with the class of %q", r.IP)
		}

		raw := insertRawClick(t, s, l, daysAgo(30))
		_, err = newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		rows := purgedClicks(t, s, o.ID)
		require.Len(t, rows, len(ips)+1)
		assert.Contains(t, rows, raw)
		for id, r := range rows {
			assert.Empty(t, r.IPKey, "click %s", id)
		}
		inSegments := segmentClicks(t, s, o.ID)
		require.Len(t, inSegments, len(ips))
		for id, r := range inSegments {
			assert.Equal(t, want[id], r.IPClass, "click %s in its segment", id)
			assert.Empty(t, r.IP+r.IPKey)
		}
	})
}

// Two purges at once (two replicas) both succeed and together remove each
// row once.
func TestConcurrentPurges(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		const old, recent = 300, 200
		var orgs []*org.Organization
		for _, slug := range []string{"a", "b"} {
			o := createOrg(t, s, c, slug)
			orgs = append(orgs, o)
			l := createAppLink(t, s, c, o.ID, "spring-"+slug)
			var batch []analytics.Click
			for i := range old + recent {
				at := daysAgo(400).Add(time.Duration(i) * time.Minute)
				if i >= old {
					at = daysAgo(30).Add(time.Duration(i) * time.Minute)
				}
				batch = append(batch, withRow(newClick(l, at)))
			}
			_, err := s.InsertClicks(ctx, batch)
			require.NoError(t, err)
		}

		results := make([]analytics.PurgeResult, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = newPurger(s, 25).RunOnce(ctx)
			}()
		}
		wg.Wait()
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		assert.Equal(t, int64(2*old), results[0].ClicksDeleted+results[1].ClicksDeleted)
		assert.Equal(t, int64(2*recent), results[0].IPsCleared+results[1].IPsCleared)
		// A minute apart, 60 clicks to a segment: 5 of the old ones, 4
		// of the recent ones per organization.
		assert.Equal(t, int64(2*5), results[0].SegmentsDeleted+results[1].SegmentsDeleted)
		assert.Equal(t, int64(2*4), results[0].SegmentIPsCleared+results[1].SegmentIPsCleared)
		for _, o := range orgs {
			inSegments := segmentClicks(t, s, o.ID)
			assert.Len(t, inSegments, recent)
			for _, r := range inSegments {
				assert.Empty(t, r.IP)
			}
			rows := purgedClicks(t, s, o.ID)
			assert.Len(t, rows, recent)
			for _, r := range rows {
				assert.Empty(t, r.IPKey)
			}
		}
	})
}

// A click older than the IP window keeps its id and link: attribution
// still finds it by its id (the Android referrer's deterministic path)
// after its IP is cleared, but no longer by its IP key. On SQLite, both
// with its row and in its segment alone.
func TestAClickWithoutItsIPIsFoundByIDOnly(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		w := newAttrWorld(t, s, c, "acme")
		rowed := withRow(newClick(w.linkA, daysAgo(8)))
		rowed.IP = "203.0.113.7"
		alone := newClick(w.linkA, daysAgo(8).Add(time.Second))
		alone.IP = "203.0.113.7"
		_, err := s.InsertClicks(ctx, []analytics.Click{rowed, alone})
		require.NoError(t, err)
		q := attribution.CandidateQuery{OrgID: w.orgID, AppIDs: []uuid.UUID{w.appA}, IPKey: "203.0.113.7",
			Since: daysAgo(9), Until: daysAgo(7), Limit: 10}
		before, err := s.CandidateClicks(ctx, q)
		require.NoError(t, err)
		require.Len(t, before, 2)

		_, err = newPurger(s, 10).RunOnce(ctx)
		require.NoError(t, err)
		for _, id := range []uuid.UUID{rowed.ID, alone.ID} {
			got, err := s.MatchClick(ctx, w.orgID, id)
			require.NoError(t, err)
			assert.Equal(t, w.linkA.ID, got.LinkID)
			assert.Empty(t, got.IPKey)
		}
		after, err := s.CandidateClicks(ctx, q)
		require.NoError(t, err)
		assert.Empty(t, after, "no longer a candidate by IP key")
	})
}

// The purge finds the rows whose IP key it clears through the
// organization's (org_id, occurred_at) index, from the organization's mark
// on (ClearClickIPsBefore).
func TestClearingIPsUsesTheOrganizationIndex(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	var plan []struct {
		ID     int    `bun:"id"`
		Parent int    `bun:"parent"`
		NotUse int    `bun:"notused"`
		Detail string `bun:"detail"`
	}
	require.NoError(t, s.DB().NewRaw("EXPLAIN QUERY PLAN SELECT id, occurred_at FROM clicks "+
		"WHERE org_id = ? AND occurred_at >= ? AND occurred_at < ? AND ip_key <> '' ORDER BY occurred_at LIMIT 10",
		uuid.New(), daysAgo(30), purgeNow).Scan(t.Context(), &plan))
	require.NotEmpty(t, plan)
	assert.Contains(t, plan[0].Detail, "clicks_org_id_occurred_at_idx")
	assert.NotContains(t, plan[len(plan)-1].Detail, "TEMP B-TREE", "the index gives the order")
}

// The ip_class migration runs on a database that already has clicks: each
// gets the class of its stored IP; it rolls back on its own, keeping the
// clicks, and applies again.
func TestClickIPClassMigrationOnAPopulatedDatabase(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261125000003_click_exports")
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))

		ips := map[string]string{"8.8.8.8": "ipv4", "100.64.0.1": "cgnat", "::ffff:100.127.255.254": "cgnat",
			"10.1.2.3": "private", "127.0.0.1": "private", "fd00::1": "private", "2001:4860:4860::8888": "ipv6",
			"not an ip": "", "": ""}
		want := map[uuid.UUID]string{}
		for ip, class := range ips {
			id := uuid.Must(uuid.NewV7())
			want[id] = class
			row := map[string]any{"id": id, "org_id": o.ID, "link_id": l.ID, "occurred_at": c.next(), "ip": ip}
			for _, col := range []string{"domain", "slug", "source", "platform", "os", "os_version", "device_model",
				"browser", "in_app_browser", "ip_key", "user_agent", "accept_language", "referer", "utm_source",
				"utm_medium", "utm_campaign", "utm_term", "utm_content"} {
				row[col] = ""
			}
			_, err := s.DB().NewInsert().Table("clicks").Model(&row).Exec(ctx)
			require.NoError(t, err)
		}

		migrateTo(t, s, "20261125000004_click_ip_class")
		rows := wideClicks(t, s, o.ID)
		require.Len(t, rows, len(ips))
		for id, r := range rows {
			assert.Equal(t, want[id], r.IPClass, "click with IP %q", r.IP)
			assert.Equal(t, analytics.NetworkClass(r.IP), r.IPClass, "as analytics classes %q today", r.IP)
		}

		require.NoError(t, s.Rollback(ctx))
		assert.False(t, columnExists(t, s, "clicks", "ip_class"), "ip_class after the rollback")
		assert.Len(t, purgedClicksBefore(t, s, o.ID), len(ips), "the clicks stay")
		migrateTo(t, s, "20261125000004_click_ip_class")
		assert.True(t, columnExists(t, s, "clicks", "ip_class"))
		assert.Len(t, wideClicks(t, s, o.ID), len(ips))
	})
}

// purgedClicksBefore reads the ids of orgID's clicks without ip_class.
func purgedClicksBefore(t *testing.T, s *store.Store, orgID uuid.UUID) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	require.NoError(t, s.DB().NewSelect().Table("clicks").Column("id").Where("org_id = ?", orgID).Scan(t.Context(), &ids))
	return ids
}
