package store_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// linkRollupSets are the click sets of w that reduce to a few links: each
// link, each tag, a link with a tag, a member's reach alone and with a
// tag or a link.
func linkRollupSets(w *rollupWorld) []analytics.ClickSet {
	str := func(v string) *string { return &v }
	var filters []analytics.Filter
	for i := range w.links {
		filters = append(filters, analytics.Filter{LinkID: &w.links[i].ID})
	}
	filters = append(filters, analytics.Filter{Tag: str("spring")}, analytics.Filter{Tag: str("sale")},
		analytics.Filter{Tag: str("none")}, analytics.Filter{LinkID: &w.links[1].ID, Tag: str("spring")},
		analytics.Filter{LinkID: &w.links[2].ID, Tag: str("spring")})
	var sets []analytics.ClickSet
	for _, f := range filters {
		sets = append(sets, analytics.ClickSet{OrgID: w.org, Filter: f})
	}
	for i := range w.members {
		m := &w.members[i]
		sets = append(sets, analytics.ClickSet{OrgID: w.org, CreatedBy: m},
			analytics.ClickSet{OrgID: w.org, CreatedBy: m, Filter: analytics.Filter{Tag: str("spring")}},
			analytics.ClickSet{OrgID: w.org, CreatedBy: m, Filter: analytics.Filter{LinkID: &w.links[0].ID}})
	}
	return sets
}

// linkRollupWindows returns windows on quarter hours around w's clicks
// from on: whole days, days with hours and quarter hours at either edge,
// windows inside a day or an hour, and random ones.
func linkRollupWindows(r *rand.Rand, from, to time.Time, n int) []analytics.Window {
	day := analytics.SlotOf(from).Truncate(24 * time.Hour)
	for day.Before(from) {
		day = day.Add(24 * time.Hour)
	}
	out := []analytics.Window{
		{From: day, To: day.Add(48 * time.Hour)},
		{From: day.Add(-45 * time.Minute), To: day.Add(24*time.Hour + 5*time.Hour + 15*time.Minute)},
		{From: day.Add(3*time.Hour + 30*time.Minute), To: day.Add(40 * time.Hour)},
		{From: day.Add(5 * time.Hour), To: day.Add(7 * time.Hour)},
		{From: day.Add(5*time.Hour + 15*time.Minute), To: day.Add(6*time.Hour + 45*time.Minute)},
		{From: day.Add(5*time.Hour + 15*time.Minute), To: day.Add(5*time.Hour + 45*time.Minute)},
		{From: day.Add(-30 * 24 * time.Hour), To: day.Add(30 * 24 * time.Hour)},
	}
	quarters := int64(to.Sub(from) / analytics.Slot)
	for range n {
		a := analytics.SlotOf(from).Add(time.Duration(r.Int64N(quarters)) * analytics.Slot)
		if a.Before(from) {
			a = a.Add(analytics.Slot)
		}
		out = append(out, analytics.Window{From: a, To: a.Add(time.Duration(1+r.Int64N(quarters)) * analytics.Slot)})
	}
	var kept []analytics.Window
	for _, win := range out {
		if !win.From.Before(from) {
			kept = append(kept, win)
		}
	}
	return kept
}

// assertLinkRollupsEqualScan compares, for every set and window and a few
// dimensions each (link always), the breakdown read from the link rollups
// with the raw scan, and with CountClicksBy.
func assertLinkRollupsEqualScan(t *testing.T, s *store.Store, r *rand.Rand, sets []analytics.ClickSet, windows []analytics.Window) {
	t.Helper()
	ctx := t.Context()
	dims := analytics.Dimensions()
	sample := newCaseSample()
	for _, win := range windows {
		for _, set := range sets {
			set.Window = win
			by := []analytics.Dimension{analytics.DimLink, analytics.DimApp, analytics.DimDomain, dims[r.IntN(len(dims))], dims[r.IntN(len(dims))]}
			if !sample.next() {
				continue
			}
			for _, d := range by {
				name := fmt.Sprintf("by %s, window %s..%s, filter %+v, member %v", d, win.From.Format(time.RFC3339),
					win.To.Format(time.RFC3339), set.Filter, set.CreatedBy != nil)
				want, err := s.CountClicksByScan(ctx, set, d)
				require.NoError(t, err)
				got, ok, err := s.CountClicksByLinkRollups(ctx, set, d)
				require.NoError(t, err)
				require.True(t, ok, "the link rollups answer, %s", name)
				assert.Equal(t, valueMap(want), valueMap(got), name)
				got, err = s.CountClicksBy(ctx, set, d)
				require.NoError(t, err)
				assert.Equal(t, valueMap(want), valueMap(got), "CountClicksBy, %s", name)
			}
		}
	}
}

// linkRollupCount returns how many rows of click_link_rollups match where.
func linkRollupCount(t *testing.T, s *store.Store, where string, args ...any) int {
	t.Helper()
	n, err := s.DB().NewSelect().TableExpr("click_link_rollups").Where(where, args...).Count(t.Context())
	require.NoError(t, err)
	return int(n)
}

// A breakdown narrowed to a few links, read from the link rollups, equals
// the raw scan exactly: for each link, tag, member's reach and their
// combinations, over windows on and off day and hour boundaries, with
// installs attributed; after a link's deletion (whose compaction removes
// its rows) and after the purge (for the windows after its cut).
func TestLinkRollupsEqualRawCounts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		r := rand.New(rand.NewPCG(7, 21))
		w := newRollupWorld(t, s, 700, 3)
		require.NotEmpty(t, w.installs)
		sets := linkRollupSets(w)
		end := w.start.Add(72 * time.Hour)
		assertLinkRollupsEqualScan(t, s, r, sets, linkRollupWindows(r, w.start.Add(-2*time.Hour), end.Add(2*time.Hour), 10))

		// A deleted link's clicks leave the rollups with it: its
		// compaction subtracts them, so none of its rows is left from a
		// day before its creation on (the compaction's reach; the world's
		// clicks start earlier).
		gone := w.links[0].ID
		reach := w.links[0].CreatedAt.Add(-24 * time.Hour).Unix()
		require.NotZero(t, linkRollupCount(t, s, "link_id = ? AND start >= ?", gone, reach))
		require.NoError(t, s.DeleteLink(ctx, w.org, gone))
		assert.Zero(t, linkRollupCount(t, s, "link_id = ? AND start >= ?", gone, reach), "the deleted link's rows")
		assert.NotZero(t, linkRollupCount(t, s, "link_id <> ?", gone), "the other links' rows")
		// Its installs go too, from the other rollups as well: the
		// compaction reads them before it deletes the clicks' rows.
		whole := analytics.ClickSet{OrgID: w.org, Window: analytics.Window{From: w.start, To: end}}
		all, err := s.CountClicksBy(ctx, whole, analytics.DimLink)
		require.NoError(t, err)
		scanned, err := s.CountClicksByScan(ctx, whole, analytics.DimLink)
		require.NoError(t, err)
		assert.Equal(t, valueMap(scanned), valueMap(all))
		assertLinkRollupsEqualScan(t, s, r, sets, linkRollupWindows(r, w.start, end, 6))

		// The purge deletes the rows whose hour or day has ended by its
		// cut, and keeps the rest.
		cut := w.start.Add(30*time.Hour + 20*time.Minute)
		_, err = s.DeleteUnstoredBefore(ctx, w.org, cut, 7)
		require.NoError(t, err)
		assert.Zero(t, linkRollupCount(t, s, "org_id = ? AND start + span <= ?", w.org, cut.Unix()))
		assert.NotZero(t, linkRollupCount(t, s, "org_id = ? AND span = 3600 AND start = ?", w.org, cut.Truncate(time.Hour).Unix()),
			"the hour the cut falls in stays")
		assert.NotZero(t, linkRollupCount(t, s, "org_id = ? AND span = 86400 AND start = ?", w.org, cut.Truncate(24*time.Hour).Unix()),
			"the day the cut falls in stays")
		_, err = s.DeleteSegmentsBefore(ctx, w.org, cut, 1000)
		require.NoError(t, err)
		assertLinkRollupsEqualScan(t, s, r, sets, linkRollupWindows(r, cut, end, 6))
	})
}

// A set of more links than the link rollups answer for, or a filter that
// does not name links (app_id, whose link may change app; several
// filters), is scanned.
func TestLinkRollupsLeaveOtherSets(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		str := func(v string) *string { return &v }
		for i := range store.MaxRollupLinks + 1 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i))
			l.Tags = []string{"many"}
			createLink(t, s, l)
		}
		app := uuid.Must(uuid.NewV7())
		win := analytics.Window{From: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
		link := uuid.Must(uuid.NewV7())
		for _, f := range []analytics.Filter{{Tag: str("many")}, {AppID: &app}, {Country: str("US")},
			{LinkID: &link, Country: str("US")}} {
			_, ok, err := s.CountClicksByLinkRollups(ctx, analytics.ClickSet{OrgID: o.ID, Window: win, Filter: f}, analytics.DimCountry)
			require.NoError(t, err)
			assert.False(t, ok, "%+v", f)
		}
	})
}

// Writers at once, each a batch in its own transaction, lose no click of
// the link rows they share (on PostgreSQL the rows are read FOR UPDATE,
// in one order, so none deadlocks either).
func TestLinkRollupsConcurrentWriters(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
		var links []*linking.Link
		byID := map[uuid.UUID]int{}
		for i := range 3 {
			links = append(links, createLink(t, s, newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i))))
			byID[links[i].ID] = i
		}
		const writers, batches, size = 4, 8, 30
		var wg sync.WaitGroup
		errs := make(chan error, writers*batches)
		for wr := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(wr), 9))
				for range batches {
					batch := make([]analytics.Click, size)
					for i := range batch {
						batch[i] = newClick(links[r.IntN(len(links))], at.Add(time.Duration(r.IntN(3600))*time.Second))
						batch[i].Country = pick(r, "US", "GB")
					}
					// Each batch's link rows in another order than its
					// clicks: the writer sorts its keys.
					sort.Slice(batch, func(i, j int) bool { return byID[batch[i].LinkID] > byID[batch[j].LinkID] })
					if _, err := s.InsertClicks(ctx, batch); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		set := analytics.ClickSet{OrgID: o.ID, Window: analytics.Window{From: at.Truncate(24 * time.Hour), To: at.Truncate(24 * time.Hour).Add(24 * time.Hour)}}
		var total int64
		for _, l := range links {
			set.Filter = analytics.Filter{LinkID: &l.ID}
			got, ok, err := s.CountClicksByLinkRollups(ctx, set, analytics.DimCountry)
			require.NoError(t, err)
			require.True(t, ok)
			want, err := s.CountClicksByScan(ctx, set, analytics.DimCountry)
			require.NoError(t, err)
			assert.Equal(t, valueMap(want), valueMap(got))
			for _, vc := range got {
				total += vc.Clicks
			}
		}
		assert.Equal(t, int64(writers*batches*size), total)
	})
}

// linkRollupRows returns click_link_rollups' rows of org, decoded, by key.
func linkRollupRows(t *testing.T, s *store.Store, org uuid.UUID) map[string]*analytics.LinkRollup {
	t.Helper()
	var rows []struct {
		LinkID uuid.UUID `bun:"link_id"`
		Span   int64     `bun:"span"`
		Start  int64     `bun:"start"`
		Data   []byte    `bun:"data"`
	}
	require.NoError(t, s.DB().NewSelect().TableExpr("click_link_rollups").Column("link_id", "span", "start", "data").
		Where("org_id = ?", org).Scan(t.Context(), &rows))
	out := map[string]*analytics.LinkRollup{}
	for _, r := range rows {
		lr, err := analytics.DecodeLinkRollup(r.Data)
		require.NoError(t, err)
		out[fmt.Sprintf("%s/%d/%d", r.LinkID, r.Span, r.Start)] = lr
	}
	return out
}

// The link rollups migration counts the clicks already in segments, with
// their installs, into the rows the writer would have written; it rolls
// back and applies again.
func TestClickLinkRollupsMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		migrateTo(t, s, "20261202000002_link_list_indexes")
		require.NoError(t, s.Migrate(ctx))
		w := newRollupWorld(t, s, 400, 4)
		require.NotEmpty(t, w.installs)
		written := linkRollupRows(t, s, w.org)
		require.NotEmpty(t, written)

		require.NoError(t, s.Rollback(ctx))
		require.NoError(t, s.Migrate(ctx))
		// The writer wrote no day rows from the organization's fold mark
		// on (the backfill, which knows none, writes them: the fold would
		// replace them).
		backfilled := linkRollupRows(t, s, w.org)
		mark, ok := foldMark(t, s, w.org)
		require.True(t, ok)
		for k := range backfilled {
			var link string
			var span, start int64
			_, err := fmt.Sscanf(strings.ReplaceAll(k, "/", " "), "%s %d %d", &link, &span, &start)
			require.NoError(t, err)
			if span == 86400 && start >= mark.Unix() {
				delete(backfilled, k)
			}
		}
		assert.Equal(t, written, backfilled, "the backfill's rows are the writer's")
		r := rand.New(rand.NewPCG(4, 4))
		assertLinkRollupsEqualScan(t, s, r, linkRollupSets(w)[:8], linkRollupWindows(r, w.start, w.start.Add(72*time.Hour), 3))
		assertMigratesDownAndUp(t, s, "click_link_rollups")
	})
}

// The migration that keys the link rollups by start (20261203000006)
// carries every row over under the new primary key, the writer and the
// readers agree with a scan after it, and rolling it back restores the old
// key with the same rows.
func TestLinkRollupsByStartMigration(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		migrateTo(t, s, "20261203000005_list_order_indexes")
		w := newRollupWorld(t, s, 300, 6)
		rows := linkRollupRows(t, s, w.org)
		require.NotEmpty(t, rows)
		byLink := []string{"org_id", "link_id", "span", "start"}
		require.Equal(t, byLink, primaryKey(t, s, "click_link_rollups"))

		require.NoError(t, s.Migrate(ctx))
		assert.Equal(t, []string{"org_id", "span", "start", "link_id"}, primaryKey(t, s, "click_link_rollups"))
		assert.Equal(t, rows, linkRollupRows(t, s, w.org), "every row carried over")
		r := rand.New(rand.NewPCG(6, 6))
		assertLinkRollupsEqualScan(t, s, r, linkRollupSets(w)[:6], linkRollupWindows(r, w.start, w.start.Add(72*time.Hour), 2))

		require.NoError(t, s.Rollback(ctx))
		assert.Equal(t, byLink, primaryKey(t, s, "click_link_rollups"))
		assert.Equal(t, rows, linkRollupRows(t, s, w.org), "every row kept by the rollback")
		require.NoError(t, s.Migrate(ctx))
	})
}

// primaryKey returns the columns of table's primary key in their order.
func primaryKey(t *testing.T, s *store.Store, table string) []string {
	t.Helper()
	query := `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`
	if s.DB().Dialect().Name() == dialect.PG {
		query = `SELECT a.attname FROM pg_index AS i
			JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
			WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`
	}
	var cols []string
	require.NoError(t, s.DB().NewRaw(query, table).Scan(t.Context(), &cols))
	return cols
}
