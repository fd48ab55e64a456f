package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestClickExportsMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "click_exports")
	})
}

// newExportJob builds a pending export of orgID over [from, to).
func newExportJob(orgID uuid.UUID, from, to, created time.Time) *analytics.ExportJob {
	country := "GB"
	return &analytics.ExportJob{
		Export: analytics.Export{ID: uuid.Must(uuid.NewV7()), Status: analytics.ExportPending,
			Filters: analytics.Filter{Country: &country}, Window: analytics.Window{From: from, To: to}, CreatedAt: created},
		OrgID: orgID,
	}
}

func TestExportJobsKeepTheirFieldsAndTheirOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		member := uuid.Must(uuid.NewV7())
		first := newExportJob(o.ID, t0.Add(-time.Hour), t0, c.next())
		second := newExportJob(o.ID, t0.Add(-time.Hour), t0, c.next())
		second.CreatedBy, second.LinksOf = &member, &member
		require.NoError(t, s.CreateExport(ctx, first))
		require.NoError(t, s.CreateExport(ctx, second))

		got, err := s.ExportByID(ctx, o.ID, second.ID)
		require.NoError(t, err)
		assert.Equal(t, second, got)

		_, err = s.ExportByID(ctx, other.ID, second.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's export")

		list, total, err := s.ListExports(ctx, o.ID, nil, 10, 0)
		require.NoError(t, err)
		assert.Equal(t, 2, total)
		require.Len(t, list, 2)
		assert.Equal(t, second.ID, list[0].ID, "newest first")
		list, total, err = s.ListExports(ctx, o.ID, &member, 10, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, total)
		assert.Equal(t, second.ID, list[0].ID, "a member's own")
	})
}

// The lease: a claimed job is not claimed again until its lease expires;
// its progress survives the takeover; the former owner can no longer write.
func TestClaimExportLease(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		job := newExportJob(o.ID, t0.Add(-time.Hour), t0, t0)
		require.NoError(t, s.CreateExport(ctx, job))
		now := t0.Add(time.Minute)

		none, err := s.ClaimExport(ctx, "a", now, t0.Add(-time.Second), now.Add(time.Minute))
		require.NoError(t, err)
		assert.Nil(t, none, "a window that has not settled waits")

		a, err := s.ClaimExport(ctx, "a", now, now, now.Add(time.Minute))
		require.NoError(t, err)
		require.NotNil(t, a)
		assert.Equal(t, analytics.ExportRunning, a.Status)
		assert.Equal(t, 1, a.Attempts)
		pos := analytics.ExportPosition{Time: t0.Add(-time.Minute), ID: uuid.Must(uuid.NewV7())}
		require.NoError(t, s.CheckpointExport(ctx, job.ID, "a", 42, pos, now.Add(time.Minute)))

		b, err := s.ClaimExport(ctx, "b", now.Add(30*time.Second), now, now.Add(2*time.Minute))
		require.NoError(t, err)
		assert.Nil(t, b, "the lease holds")

		later := now.Add(time.Minute + time.Millisecond)
		b, err = s.ClaimExport(ctx, "b", later, later, later.Add(time.Minute))
		require.NoError(t, err)
		require.NotNil(t, b, "an expired lease is taken over")
		assert.Equal(t, 2, b.Attempts)
		assert.Equal(t, int64(42), b.Rows)
		assert.Equal(t, &pos, b.After, "the progress carries over")

		assert.ErrorIs(t, s.CheckpointExport(ctx, job.ID, "a", 50, pos, later), analytics.ErrLeaseLost)
		done := later.Truncate(time.Millisecond)
		assert.ErrorIs(t, s.FinishExport(ctx, job.ID, "a", analytics.ExportComplete, 50, nil, done, done), analytics.ErrLeaseLost)
		require.NoError(t, s.FinishExport(ctx, job.ID, "b", analytics.ExportComplete, 50, nil, done, done.Add(time.Hour)))
		got, err := s.ExportByID(ctx, o.ID, job.ID)
		require.NoError(t, err)
		assert.Equal(t, analytics.ExportComplete, got.Status)
		assert.Equal(t, int64(50), got.Rows)
		assert.Equal(t, done.Add(time.Hour), *got.ExpiresAt)
		assert.Empty(t, got.LeaseOwner)

		n, err := s.DeleteExports(ctx, done.Add(time.Hour))
		require.NoError(t, err)
		assert.Zero(t, n, "not expired before that instant")
		n, err = s.DeleteExports(ctx, done.Add(time.Hour+time.Millisecond))
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	})
}

// Two workers on two connections pools of one PostgreSQL database race for
// the same jobs: each job is claimed exactly once.
func TestClaimExportTwoWorkersOnePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	open := func() *store.Store {
		s, err := store.Open(t.Context(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a := open()
	require.NoError(t, a.Migrate(t.Context()))
	b := open()
	ctx, c := t.Context(), newClock()
	o := createOrg(t, a, c, "acme")
	const jobs = 20
	for range jobs {
		require.NoError(t, a.CreateExport(ctx, newExportJob(o.ID, t0.Add(-time.Hour), t0, c.next())))
	}
	now := t0.Add(time.Minute)
	claimed := map[uuid.UUID]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range []struct {
		name string
		s    *store.Store
	}{{"a", a}, {"b", b}, {"a2", a}, {"b2", b}} {
		wg.Go(func() {
			for {
				job, err := w.s.ClaimExport(ctx, w.name, now, now, now.Add(time.Minute))
				if !assert.NoError(t, err) || job == nil {
					return
				}
				mu.Lock()
				prev, twice := claimed[job.ID]
				claimed[job.ID] = w.name
				mu.Unlock()
				assert.False(t, twice, "job %s claimed by %s and %s", job.ID, prev, w.name)
			}
		})
	}
	wg.Wait()
	assert.Len(t, claimed, jobs)
}

// The count and the pages of an export walk the clicks in (occurred_at,
// id) order, ties in one instant included, and keep a member's own links.
func TestExportClicksPages(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		member := uuid.Must(uuid.NewV7())
		l := newLink(c, o.ID, "hop.example", "spring")
		l.CreatedBy = &member
		createLink(t, s, l)
		other := createLink(t, s, newLink(c, o.ID, "hop.example", "autumn"))
		at := t0.Add(time.Second)
		var clicks []analytics.Click
		for i := range 7 {
			clicks = append(clicks, newClick(l, at.Add(time.Duration(i/2)*time.Millisecond)))
		}
		clicks = append(clicks, newClick(other, at))
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)

		scope := analytics.ExportScope{OrgID: o.ID, Window: analytics.Window{From: t0, To: t0.Add(time.Minute)}}
		var after *analytics.ExportPosition
		total := 0
		for {
			n, last, err := s.CountExportClicks(ctx, scope, after, 3)
			require.NoError(t, err)
			total += n
			if last == nil {
				break
			}
			after = last
		}
		assert.Equal(t, 8, total)

		scope.LinksOf = &member
		var got []analytics.ExportClick
		after = nil
		for {
			page, err := s.ExportPage(ctx, scope, after, 2)
			require.NoError(t, err)
			got = append(got, page...)
			if len(page) < 2 {
				break
			}
			after = &page[len(page)-1].Position
		}
		require.Len(t, got, 7, "the member's own link only")
		for i := 1; i < len(got); i++ {
			p, q := got[i-1].Position, got[i].Position
			assert.True(t, p.Time.Before(q.Time) || (p.Time.Equal(q.Time) && p.ID.String() < q.ID.String()), "ordered")
		}
		assert.Equal(t, "spring", got[0].Row.Slug)
		assert.Equal(t, "https://news.example/", got[0].Row.Referer)
	})
}
