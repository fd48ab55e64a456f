package store_test

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

const day = 24 * time.Hour

// foldMark returns org's fold mark, ok false when it has none.
func foldMark(t *testing.T, s *store.Store, org uuid.UUID) (time.Time, bool) {
	t.Helper()
	var marks []int64
	require.NoError(t, s.DB().NewSelect().TableExpr("click_link_rollup_folds").Column("days_from").
		Where("org_id = ?", org).Scan(t.Context(), &marks))
	if len(marks) == 0 {
		return time.Time{}, false
	}
	return time.Unix(marks[0], 0).UTC(), true
}

// Folding keeps every reader exact: the first fold gives the organization
// a mark at the next midnight; from it on the writer writes hour rows
// only and a reader sums them; a day is folded only once it has ended and
// the grace has passed, into day rows that replace any there; a late
// click or install of a folded day is added to its day row; several days
// fold at once, each once.
func TestLinkRollupFoldsKeepCountsExact(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		r := rand.New(rand.NewPCG(11, 5))
		w := newRollupWorld(t, s, 500, 8) // clicks over three days from w.start, day rows for each
		sets := linkRollupSets(w)
		check := func(from, to time.Time) {
			t.Helper()
			assertLinkRollupsEqualScan(t, s, r, sets[:8], linkRollupWindows(r, from, to, 3))
			// Every link over the whole days, always (the sample above
			// leaves cases out under the race detector).
			for _, l := range w.links {
				set := analytics.ClickSet{OrgID: w.org, Filter: analytics.Filter{LinkID: &l.ID}, Window: analytics.Window{From: from, To: to}}
				want, err := s.CountClicksByScan(ctx, set, analytics.DimCountry)
				require.NoError(t, err)
				got, ok, err := s.CountClicksByLinkRollups(ctx, set, analytics.DimCountry)
				require.NoError(t, err)
				require.True(t, ok)
				assert.Equal(t, valueMap(want), valueMap(got), "link %s, %s..%s", l.Slug, from, to)
			}
		}
		mark, ok := foldMark(t, s, w.org)
		require.True(t, ok, "a new organization has a mark")
		assert.Equal(t, t0.Truncate(day), mark, "its first day")

		// An organization without a mark (as from before the migration):
		// the first fold, on the day before the clicks, marks their first
		// day and folds nothing; the day rows of the world's days are now
		// the fold's to replace, and readers sum their hours meanwhile.
		_, err := s.DB().NewDelete().TableExpr("click_link_rollup_folds").Where("org_id = ?", w.org).Exec(ctx)
		require.NoError(t, err)
		n, err := s.FoldLinkRollupDays(ctx, w.org, w.start.Add(-10*time.Hour), 10)
		require.NoError(t, err)
		assert.Zero(t, n)
		mark, ok = foldMark(t, s, w.org)
		require.True(t, ok)
		assert.Equal(t, w.start, mark)
		check(w.start, w.start.Add(4*day))

		// A click of a day from the mark on gets an hour row and no day row.
		later := w.start.Add(5*day + 3*time.Hour)
		_, err = s.InsertClicks(ctx, []analytics.Click{newClick(w.links[1], later)})
		require.NoError(t, err)
		assert.Equal(t, 1, linkRollupCount(t, s, "org_id = ? AND span = 3600 AND start = ?", w.org, later.Truncate(time.Hour).Unix()))
		assert.Zero(t, linkRollupCount(t, s, "org_id = ? AND span = 86400 AND start = ?", w.org, later.Truncate(day).Unix()))

		// Within the grace after the day's end nothing is folded.
		n, err = s.FoldLinkRollupDays(ctx, w.org, w.start.Add(day+10*time.Minute), 10)
		require.NoError(t, err)
		assert.Zero(t, n)
		n, err = s.FoldLinkRollupDays(ctx, w.org, w.start.Add(day+20*time.Minute), 10)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the first day, and only it, has ended")
		mark, _ = foldMark(t, s, w.org)
		assert.Equal(t, w.start.Add(day), mark)
		check(w.start, w.start.Add(6*day))

		// A late click and an install of the folded day reach its day row
		// too: the readers read that day from it.
		late := newClick(w.links[0], w.start.Add(20*time.Hour))
		_, err = s.InsertClicks(ctx, []analytics.Click{late})
		require.NoError(t, err)
		attributedInstall(t, s, w.org, late.ID, late.OccurredAt.Add(time.Minute))
		check(w.start, w.start.Add(2*day))

		// Several days at once, each once, up to the limit.
		n, err = s.FoldLinkRollupDays(ctx, w.org, w.start.Add(10*day), 3)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		n, err = s.FoldLinkRollupDays(ctx, w.org, w.start.Add(10*day), 100)
		require.NoError(t, err)
		assert.Equal(t, 5, n, "the days up to the one that has not ended")
		mark, _ = foldMark(t, s, w.org)
		assert.Equal(t, w.start.Add(9*day), mark)
		assert.Equal(t, 1, linkRollupCount(t, s, "org_id = ? AND span = 86400 AND start = ?", w.org, later.Truncate(day).Unix()),
			"the later click's day is folded")
		check(w.start, w.start.Add(9*day))

		// Another organization's mark is its own.
		other, ok := foldMark(t, s, w.other)
		require.True(t, ok)
		assert.Equal(t, t0.Truncate(day), other)
	})
}

// On PostgreSQL a fold waits for a writer that read the old mark, so that
// it sums the hour row the writer had not yet committed, and the day row
// holds it.
func TestLinkRollupFoldWaitsForWriters(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t) // SQLite's transactions write one at a time
	ctx, c := t.Context(), newClock()
	o := createOrg(t, s, c, "acme")
	l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
	start := t0.Truncate(day) // the organization's mark
	_, err := s.InsertClicks(ctx, []analytics.Click{newClick(l, start.Add(2*time.Hour))})
	require.NoError(t, err)

	// A writer's transaction holds the lock writers take and an hour row
	// of the day, uncommitted, with one more click.
	tx, err := s.DB().BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, "LOCK TABLE click_link_rollups IN ROW EXCLUSIVE MODE")
	require.NoError(t, err)
	held := &analytics.LinkRollup{Dims: []analytics.LinkRollupDim{
		{Dim: analytics.DimCountry, Values: []analytics.LinkRollupValue{{Value: "FR", Clicks: 1}}}}}
	data, err := analytics.EncodeLinkRollup(nil, held)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `INSERT INTO click_link_rollups (org_id, span, start, link_id, data) VALUES (?, 3600, ?, ?, ?)`,
		o.ID, start.Add(5*time.Hour).Unix(), l.ID, data)
	require.NoError(t, err)

	var wg sync.WaitGroup
	wg.Add(1)
	var folded int
	var foldErr error
	go func() {
		defer wg.Done()
		folded, foldErr = s.FoldLinkRollupDays(ctx, o.ID, start.Add(2*day), 1)
	}()
	// The fold waits for the lock (bounded: 20 seconds of looks).
	waiting := false
	for range 400 {
		var n int
		require.NoError(t, s.DB().NewRaw(`SELECT count(*) FROM pg_locks WHERE NOT granted
			AND relation = 'click_link_rollups'::regclass`).Scan(ctx, &n))
		if waiting = n > 0; waiting {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	assert.True(t, waiting, "the fold waits for the writer")
	require.NoError(t, tx.Commit())
	wg.Wait()
	require.NoError(t, foldErr)
	require.Equal(t, 1, folded)

	var rows [][]byte
	require.NoError(t, s.DB().NewSelect().TableExpr("click_link_rollups").Column("data").
		Where("org_id = ? AND span = 86400 AND start = ? AND link_id = ?", o.ID, start.Unix(), l.ID).Scan(ctx, &rows))
	require.Len(t, rows, 1)
	got, err := analytics.DecodeLinkRollup(rows[0])
	require.NoError(t, err)
	assert.Equal(t, []analytics.LinkRollupValue{{Value: "FR", Clicks: 1}, {Value: "GB", Clicks: 1}}, got.Dim(analytics.DimCountry),
		"the day holds the committed click and the held one")
}

// The fold marks' migration rolls back by giving every organization's
// days from its mark day rows again, the sums of their hours, so that the
// readers before it find every day whole; it applies again.
func TestLinkRollupFoldsMigration(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		migrateTo(t, s, "20261203000007_click_txid")
		require.NoError(t, s.Migrate(ctx))
		w := newRollupWorld(t, s, 300, 9) // its organization's mark is its third day
		// Clicks of a fourth day, after the mark: hour rows only.
		r := rand.New(rand.NewPCG(9, 9))
		var batch []analytics.Click
		for range 200 {
			batch = append(batch, newClick(w.links[r.IntN(len(w.links))], w.start.Add(3*day+time.Duration(r.Int64N(int64(day))))))
		}
		_, err := s.InsertClicks(ctx, batch)
		require.NoError(t, err)
		dayRows := func() int {
			return linkRollupCount(t, s, "org_id = ? AND span = 86400 AND start >= ?", w.org, w.start.Add(3*day).Unix())
		}
		require.Zero(t, dayRows(), "the fourth day has hours only")

		require.NoError(t, s.Rollback(ctx))
		assert.False(t, tableExists(t, s, "click_link_rollup_folds"))
		assert.NotZero(t, dayRows(), "the rollback wrote the fourth day's rows")
		// Applied again, no organization has a mark: the day rows answer.
		require.NoError(t, s.Migrate(ctx))
		_, ok := foldMark(t, s, w.org)
		require.False(t, ok)
		assertLinkRollupsEqualScan(t, s, r, linkRollupSets(w)[:8], linkRollupWindows(r, w.start, w.start.Add(4*day), 3))
	})
}
