package store_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestClickSpoolMarksMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "click_spool_marks")
		mark, err := s.SpoolMark(t.Context(), "0123456789abcdef0123456789abcdef")
		require.NoError(t, err)
		assert.Zero(t, mark, "a spool without a mark reads 0")
	})
}

// A batch of a spool is written once: a replay of it, or of an earlier
// batch, writes no row and counts nothing, while the mark moves with every
// batch committed.
func TestInsertClickBatchWritesEachBatchOnce(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		at := c.next()
		const spool = "0123456789abcdef0123456789abcdef"
		first := []analytics.Click{newClick(l, at), newClick(l, at), newClick(l, at)}

		n, err := s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 1, Clicks: first})
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		assert.Equal(t, int64(3), clickCount(t, s, o, at))
		mark, err := s.SpoolMark(ctx, spool)
		require.NoError(t, err)
		assert.Equal(t, int64(1), mark)

		// The replay carries new ids, so only the mark can stop it.
		replay := []analytics.Click{newClick(l, at), newClick(l, at), newClick(l, at)}
		n, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 1, Clicks: replay})
		require.ErrorIs(t, err, analytics.ErrBatchCommitted)
		assert.Zero(t, n)
		assert.Len(t, storedRows(t, s, o.ID), 3, "a replayed batch writes no row")
		assert.Equal(t, int64(3), clickCount(t, s, o, at), "a replayed batch counts nothing")

		only := newClick(l, at)
		only.CountOnly, only.Weight = true, 5
		n, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 2, Clicks: []analytics.Click{newClick(l, at), only}})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Len(t, storedRows(t, s, o.ID), 4)
		assert.Equal(t, int64(3+1+5), clickCount(t, s, o, at), "the counts move with the rows and the counted-only clicks")

		_, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 2, Clicks: []analytics.Click{only}})
		require.ErrorIs(t, err, analytics.ErrBatchCommitted, "a counted-only click replayed is not counted twice")
		_, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 1, Clicks: []analytics.Click{newClick(l, at)}})
		require.ErrorIs(t, err, analytics.ErrBatchCommitted, "an older batch than the mark is committed")
		assert.Equal(t, int64(9), clickCount(t, s, o, at))

		other := "fedcba9876543210fedcba9876543210"
		n, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: other, Seq: 1, Clicks: []analytics.Click{newClick(l, at)}})
		require.NoError(t, err, "each spool has its own mark")
		assert.Equal(t, 1, n)
		mark, err = s.SpoolMark(ctx, spool)
		require.NoError(t, err)
		assert.Equal(t, int64(2), mark)

		// A batch without a spool records no mark.
		n, err = s.InsertClickBatch(ctx, analytics.Batch{Clicks: []analytics.Click{newClick(l, at)}})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, int64(11), clickCount(t, s, o, at))
		var marks int64
		marks, err = s.DB().NewSelect().Table("click_spool_marks").Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(2), marks)

		_, err = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 0, Clicks: []analytics.Click{newClick(l, at)}})
		assert.Error(t, err, "a sequence number must be above 0")
	})
}

// Two writers of one batch at once: one commits it, the other finds it
// committed, and its rows are written once.
func TestInsertClickBatchRacingReplays(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "hop.example", "spring"))
		at := c.next()
		const spool = "00000000000000000000000000000001"
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				clicks := make([]analytics.Click, 10)
				for j := range clicks {
					clicks[j] = newClick(l, at)
					clicks[j].ID = uuid.Must(uuid.NewV7())
				}
				_, errs[i] = s.InsertClickBatch(ctx, analytics.Batch{Spool: spool, Seq: 7, Clicks: clicks})
			}()
		}
		wg.Wait()
		assertOneWins(t, errs, analytics.ErrBatchCommitted)
		assert.Len(t, storedRows(t, s, o.ID), 10)
		assert.Equal(t, int64(10), clickCount(t, s, o, at))
	})
}
