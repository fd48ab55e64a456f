package analytics_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// seed creates an organization with limit clicks a month and one link of
// it, through the store's own methods.
func seed(t *testing.T, s *store.Store, limit int) (*org.Organization, *linking.Link) {
	t.Helper()
	ctx := t.Context()
	o := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Acme", Slug: "acme-" + uuid.NewString()[:8],
		Plan: org.PlanFree, MonthlyClickLimit: limit, BillingPeriodStart: t0, CreatedAt: t0, UpdatedAt: t0}
	require.NoError(t, s.CreateOrganization(ctx, o, nil))
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: "hop.example", Slug: "spring",
		DestinationURL: "https://example.com/spring", IsActive: true, Tags: []string{}, CreatedAt: t0, UpdatedAt: t0}
	require.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
	return o, l
}

func linkClick(l *linking.Link, i int) analytics.Click {
	return analytics.Click{
		OrgID: l.OrgID, LinkID: l.ID, Domain: l.Domain, Slug: l.Slug,
		OccurredAt: t0.Add(time.Duration(i) * time.Millisecond), Source: analytics.SourceRedirect,
		Platform: "android", OS: "Android", OSVersion: "15", DeviceModel: "Pixel 8", Browser: "Chrome",
		IP: "198.51.100.4", UserAgent: "Mozilla/5.0 (Linux; Android 15; Pixel 8)", AcceptLanguage: "de-DE",
	}
}

// countRows counts orgID's stored clicks: those of its click segments.
func countRows(t *testing.T, s *store.Store, orgID uuid.UUID) int {
	t.Helper()
	var n int
	require.NoError(t, s.DB().NewSelect().Table("click_segments").ColumnExpr("coalesce(sum(clicks), 0)").
		Where("org_id = ?", orgID).Scan(t.Context(), &n))
	return n
}

// Every click accepted before shutdown is in the database once Run returns,
// with many goroutines recording while it shuts down.
func TestRecorderWritesEveryAcceptedClickToTheStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		o, l := seed(t, s, 1_000_000)
		r := analytics.NewRecorder(s, analytics.RecorderOptions{BufferSize: 256, BatchSize: 50, Clock: newFakeClock(), Logger: quiet})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = r.Run(ctx) }()

		var (
			wg      sync.WaitGroup
			halfway = make(chan struct{})
			once    sync.Once
		)
		tap := uuid.New()
		for g := range 4 {
			wg.Go(func() {
				for i := range 500 {
					if i == 250 {
						once.Do(func() { close(halfway) })
					}
					c := linkClick(l, g*1000+i)
					if i%100 == 0 {
						c.Source, c.TapID = analytics.SourceAppOpen, &tap // one tap, retried
					}
					r.Record(c)
				}
			})
		}
		<-halfway
		cancel() // while the producers are still recording
		wg.Wait()
		<-done

		st := r.Stats()
		assert.Equal(t, uint64(2000), st.Accepted+st.Dropped)
		assert.Zero(t, st.Failed)
		assert.Equal(t, st.Accepted, st.Written+st.Duplicates+st.CountedOnly)
		assert.Equal(t, int(st.Written), countRows(t, s, o.ID))
		n, err := s.ClickCount(t.Context(), o.ID, t0)
		require.NoError(t, err)
		assert.Equal(t, int64(st.Written+st.CountedOnly), n, "rows written and clicks over the buffer are counted")
	})
}

func TestRecorderWithTheAllowanceOnTheStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		o, l := seed(t, s, 3)
		now := t0.Add(time.Hour)
		a := analytics.NewAllowance(s, analytics.AllowanceOptions{Clock: func() time.Time { return now }, Logger: quiet})
		require.NoError(t, a.Refresh(ctx, o.ID))
		r := analytics.NewRecorder(s, analytics.RecorderOptions{Allowance: a, Clock: newFakeClock(), Logger: quiet})
		for i := range 5 {
			require.True(t, r.Record(linkClick(l, i)), "a click past the allowance still redirects")
		}
		start(r)()

		assert.Equal(t, 3, countRows(t, s, o.ID), "stored up to the limit")
		n, err := s.ClickCount(ctx, o.ID, t0)
		require.NoError(t, err)
		assert.Equal(t, int64(5), n, "every click counted")

		require.NoError(t, a.Refresh(ctx, o.ID))
		assert.False(t, a.Store(o.ID), "the next read sees the month's count")
	})
}
