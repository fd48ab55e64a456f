package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// indexExists reports whether the index name exists.
func indexExists(t *testing.T, s *store.Store, name string) bool {
	t.Helper()
	query := "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?"
	if s.Dialect() == "pg" {
		query = "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?"
	}
	var n int
	require.NoError(t, s.DB().QueryRowContext(t.Context(), query, name).Scan(&n))
	return n > 0
}

// linkForeignKeys counts the foreign keys of clicks to links.
func linkForeignKeys(t *testing.T, s *store.Store) int {
	t.Helper()
	query := "SELECT count(*) FROM pragma_foreign_key_list('clicks') WHERE \"table\" = 'links'"
	if s.Dialect() == "pg" {
		query = `SELECT count(*) FROM pg_constraint
			WHERE conrelid = 'clicks'::regclass AND confrelid = 'links'::regclass AND contype = 'f'`
	}
	var n int
	require.NoError(t, s.DB().QueryRowContext(t.Context(), query).Scan(&n))
	return n
}

// insertWideClick writes a row of clicks as the schema before migration
// 20261202000001 has it, with every column set.
func insertWideClick(t *testing.T, s *store.Store, l *linking.Link, at time.Time, ip string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	row := map[string]any{
		"id": id, "org_id": l.OrgID, "link_id": l.ID, "app_id": l.AppID, "domain": l.Domain, "slug": l.Slug,
		"occurred_at": at.UTC(), "source": "redirect", "platform": "ios", "os": "iOS", "os_version": "17.5",
		"device_model": "iPhone", "browser": "Safari", "in_app_browser": "", "ip": ip, "ip_key": analytics.IPKey(ip),
		"user_agent": "ua", "accept_language": "en-US", "referer": "https://news.example/", "utm_source": "news",
		"utm_medium": "", "utm_campaign": "", "utm_term": "", "utm_content": "", "country": "GB", "region": "ENG",
		"city": "London", "referer_host": "news.example", "ip_class": analytics.NetworkClass(ip),
	}
	_, err := s.DB().NewInsert().Model(&row).TableExpr("clicks").Exec(t.Context())
	require.NoError(t, err)
	return id
}

// The narrow clicks migration runs on a database that has rows of clicks
// and installs that claimed them: the rows keep their values (less the
// dropped columns), the installs their click, the matcher finds them by
// IP key and by id, the purge clears the IP key of the old one from the
// organization's mark; it rolls back on its own, keeping the rows, and
// applies again.
func TestNarrowClicksMigrationOnAPopulatedDatabase(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261127000001_webhooks")
		o := createOrg(t, s, c, "acme")
		w := &attrWorld{orgID: o.ID, appA: createApp(t, s, c, o.ID), appB: createApp(t, s, c, o.ID)}
		w.linkA = newLink(c, o.ID, "hop.example", "a")
		w.linkA.AppID = &w.appA
		createLink(t, s, w.linkA)
		w.linkB = createLink(t, s, newLink(c, o.ID, "hop.example", "b"))
		old := insertWideClick(t, s, w.linkA, daysAgo(10), "203.0.113.7")
		recent := insertWideClick(t, s, w.linkA, daysAgo(1), "203.0.113.7")
		claimed := insertWideClick(t, s, w.linkB, daysAgo(1).Add(time.Minute), "198.51.100.4")
		rec, att := installFor(w, w.linkB, claimed, daysAgo(1).Add(time.Hour))
		// Today's claim also writes the link rollups, a later migration's
		// table: a stand-in holds them for the claim, and goes before the
		// migrations run.
		_, err := s.DB().ExecContext(ctx, `CREATE TABLE click_link_rollups (org_id uuid, link_id uuid, span integer,
			start bigint, data bytea, PRIMARY KEY (org_id, link_id, span, start))`)
		require.NoError(t, err)
		require.NoError(t, s.Claim(ctx, rec, att))
		_, err = s.DB().ExecContext(ctx, `DROP TABLE click_link_rollups`)
		require.NoError(t, err)

		dropped := []string{"slug", "referer", "region", "city", "ip", "ip_class"}
		check := func(when string) {
			for _, col := range dropped {
				assert.False(t, columnExists(t, s, "clicks", col), "%s: %s", when, col)
			}
			assert.False(t, indexExists(t, s, "clicks_link_id_occurred_at_idx"), when)
			assert.False(t, indexExists(t, s, "clicks_with_ip_occurred_at_idx"), when)
			assert.True(t, indexExists(t, s, "clicks_org_id_occurred_at_idx"), when)
			assert.True(t, indexExists(t, s, "clicks_app_id_platform_ip_key_occurred_at_idx"), when)
			assert.True(t, indexExists(t, s, "clicks_org_id_tap_id_key"), when)
			assert.Zero(t, linkForeignKeys(t, s), when)

			rows := purgedClicks(t, s, w.orgID)
			require.Len(t, rows, 3, when)
			assert.Equal(t, daysAgo(10), rows[old].OccurredAt.UTC(), when)
			assert.Equal(t, "GB", rows[old].Country, when)
			assert.Equal(t, &rec.ID, rows[claimed].ClaimedByInstall, when)
			var clickID *uuid.UUID
			require.NoError(t, s.DB().NewSelect().Table("installs").Column("click_id").Where("id = ?", rec.ID).Scan(ctx, &clickID))
			assert.Equal(t, &claimed, clickID, "%s: the install keeps its click", when)

			got, err := s.MatchClick(ctx, w.orgID, recent)
			require.NoError(t, err, when)
			assert.Equal(t, w.linkA.ID, got.LinkID, when)
			if s.Dialect() == "sqlite" {
				// A key's clicks are read from the segments there
				// (click_rows.go), which this test does not write.
				return
			}
			found, err := s.CandidateClicks(ctx, attribution.CandidateQuery{OrgID: w.orgID, AppIDs: []uuid.UUID{w.appA, w.appB},
				IPKey: "203.0.113.7", Since: daysAgo(2), Until: purgeNow, Limit: 10})
			require.NoError(t, err, when)
			require.Len(t, found, 1, when)
			assert.Equal(t, recent, found[0].ID, when)
		}
		require.NoError(t, s.Migrate(ctx))
		check("after up")

		res, err := newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1, res.IPsCleared, "the row of ten days ago, found from the mark")
		rows := purgedClicks(t, s, w.orgID)
		assert.Empty(t, rows[old].IPKey)
		assert.Equal(t, "203.0.113.7", rows[recent].IPKey)
		assert.Equal(t, "198.51.100.4", rows[claimed].IPKey)

		require.NoError(t, s.Rollback(ctx), "rolls back the narrow clicks migration alone")
		for _, col := range dropped {
			assert.True(t, columnExists(t, s, "clicks", col), "after the rollback: %s", col)
		}
		assert.True(t, indexExists(t, s, "clicks_link_id_occurred_at_idx"))
		assert.True(t, indexExists(t, s, "clicks_with_ip_occurred_at_idx"))
		assert.Equal(t, 1, linkForeignKeys(t, s))
		assert.False(t, tableExists(t, s, "click_ip_marks"))
		wide := wideClicks(t, s, w.orgID)
		require.Len(t, wide, 3, "the rows stay")
		assert.Equal(t, "203.0.113.7", wide[recent].IPKey)
		var clickID *uuid.UUID
		require.NoError(t, s.DB().NewSelect().Table("installs").Column("click_id").Where("id = ?", rec.ID).Scan(ctx, &clickID))
		assert.Equal(t, &claimed, clickID, "the install keeps its click through the rollback")

		require.NoError(t, s.Migrate(ctx))
		for _, col := range dropped {
			assert.False(t, columnExists(t, s, "clicks", col), "after up again: %s", col)
		}
		assert.Len(t, purgedClicks(t, s, w.orgID), 3)
	})
}

// A row written after the purge moved its organization's mark, but older
// than the mark (a batch the spool kept through an outage), moves the mark
// down as it is written: the next purge clears it. Many rows are cleared
// in batches smaller than their number.
func TestPurgeClearsARowWrittenBehindTheMark(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createAppLink(t, s, c, o.ID, "spring")
		var batch []analytics.Click
		for i := range 7 {
			batch = append(batch, withRow(newClick(l, daysAgo(9).Add(time.Duration(i)*time.Second))))
		}
		batch = append(batch, withRow(newClick(l, daysAgo(1))))
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		mark := func() time.Time {
			var us int64
			require.NoError(t, s.DB().NewSelect().Table("click_ip_marks").Column("cleared_until").
				Where("org_id = ?", o.ID).Scan(ctx, &us))
			return time.UnixMicro(us).UTC()
		}
		assert.Equal(t, daysAgo(9), mark(), "the oldest row with an IP key")

		res, err := newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 7, res.IPsCleared)
		assert.Equal(t, daysAgo(7), mark(), "moved up to the IP window's start")

		late := withRow(newClick(l, daysAgo(20)))
		_, err = s.InsertClicks(ctx, []analytics.Click{late})
		require.NoError(t, err)
		assert.Equal(t, daysAgo(20), mark())
		noKey := withRow(newClick(l, daysAgo(30)))
		noKey.IP = ""
		_, err = s.InsertClicks(ctx, []analytics.Click{noKey})
		require.NoError(t, err)
		assert.Equal(t, daysAgo(20), mark(), "a row without an IP key leaves the mark")

		res, err = newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1, res.IPsCleared)
		for id, r := range purgedClicks(t, s, o.ID) {
			if r.OccurredAt.Before(daysAgo(7)) {
				assert.Empty(t, r.IPKey, "click %s", id)
			} else {
				assert.NotEmpty(t, r.IPKey, "click %s", id)
			}
		}
		again, err := newPurger(s, 2).RunOnce(ctx)
		require.NoError(t, err)
		assert.True(t, again.Empty(), "%+v", again)
	})
}

// A purge and claims at once (a replica purging while installs are
// matched) both finish without error, whatever row each takes first: on
// PostgreSQL the purge skips the rows a claim holds and a later purge
// clears them.
func TestConcurrentPurgeAndClaims(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		l := createAppLink(t, s, c, o.ID, "spring")
		const n = 200
		batch := make([]analytics.Click, n)
		for i := range batch {
			batch[i] = withRow(newClick(l, daysAgo(30).Add(time.Duration(i)*time.Second)))
		}
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)

		w := &attrWorld{orgID: o.ID}
		var (
			wg        sync.WaitGroup
			claimErrs []error
			purgeErrs []error
			cleared   int64
		)
		wg.Go(func() {
			// Each install claims two clicks, the later one first.
			for i := 0; i+1 < n; i += 2 {
				rec, att := installFor(w, l, batch[i+1].ID, daysAgo(29))
				rec.ClaimedClickIDs = []uuid.UUID{batch[i+1].ID, batch[i].ID}
				if err := s.Claim(ctx, rec, att); err != nil {
					claimErrs = append(claimErrs, err)
				}
			}
		})
		wg.Go(func() {
			for range 5 {
				res, err := newPurger(s, 7).RunOnce(ctx)
				if err != nil {
					purgeErrs = append(purgeErrs, err)
				}
				cleared += res.IPsCleared
			}
		})
		wg.Wait()
		require.Empty(t, errors.Join(claimErrs...))
		require.Empty(t, errors.Join(purgeErrs...))

		res, err := newPurger(s, 7).RunOnce(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, n, cleared+res.IPsCleared, "each row's key cleared once")
		rows := purgedClicks(t, s, o.ID)
		require.Len(t, rows, n)
		for id, r := range rows {
			assert.Empty(t, r.IPKey, "click %s", id)
			assert.NotNil(t, r.ClaimedByInstall, "click %s", id)
		}
	})
}

// A deleted link whose compaction did not run yet (the process stopped)
// has rows of clicks left: the matcher reads none of them, and the
// compaction the purge finishes deletes them.
func TestADeletedLinksRowsAreNoCandidates(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		gone := createAppLink(t, s, c, o.ID, "gone")
		kept := createLink(t, s, func() *linking.Link {
			l := newLink(c, o.ID, gone.Domain, "kept")
			l.AppID = gone.AppID
			return l
		}())
		at := c.next()
		batch := []analytics.Click{newClick(gone, at), newClick(kept, at.Add(time.Second)), newClick(gone, at.Add(2*time.Second))}
		// A row on SQLite too; the other click of the link is in its
		// segment alone there.
		batch[0] = withRow(batch[0])
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)

		// The delete's transaction without its compaction.
		_, err = s.DB().NewInsert().Table("click_link_tombstones").Model(&map[string]any{
			"link_id": gone.ID, "org_id": o.ID, "since": gone.CreatedAt, "deleted_at": time.Now().UTC(),
		}).Exec(ctx)
		require.NoError(t, err)
		_, err = s.DB().NewDelete().Table("links").Where("id = ?", gone.ID).Exec(ctx)
		require.NoError(t, err)
		rows := 2
		if s.Dialect() == "sqlite" {
			rows = 1
		}
		require.Len(t, clickRows(t, s, "link_id = ?", gone.ID), rows, "the rows stay until the compaction")

		q := attribution.CandidateQuery{OrgID: o.ID, AppIDs: []uuid.UUID{*gone.AppID}, IPKey: "203.0.113.7",
			Since: at.Add(-time.Hour), Until: at.Add(time.Hour), Limit: 10}
		found, err := s.CandidateClicks(ctx, q)
		require.NoError(t, err)
		require.Len(t, found, 1)
		assert.Equal(t, batch[1].ID, found[0].ID, "only the kept link's click")
		for _, id := range []uuid.UUID{batch[0].ID, batch[2].ID} {
			_, err = s.MatchClick(ctx, o.ID, id)
			assert.ErrorIs(t, err, errcode.ErrNotFound, "not by its id either")
		}

		n, err := s.CompactDeletedLinks(ctx, 10)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Empty(t, clickRows(t, s, "link_id = ?", gone.ID), "the compaction deletes the rows")
		assert.Len(t, clickRows(t, s, "link_id = ?", kept.ID), rows-1)
	})
}
