package analytics_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// storeOrgs reads organizations straight from the store.
type storeOrgs struct{ s *store.Store }

func (o storeOrgs) ByID(ctx context.Context, id uuid.UUID) (*org.Organization, error) {
	got, err := o.s.OrganizationByID(ctx, id)
	return got, errcode.NotFoundAs(err, "organization not found")
}

// exportClock is a clock tests move by hand.
type exportClock struct{ now time.Time }

func (c *exportClock) Now() time.Time { return c.now }

func newExports(s *store.Store, c *exportClock, owner string) *analytics.Exports {
	return analytics.NewExports(s, storeOrgs{s}, analytics.ExportsOptions{Clock: c.Now, PublicURL: "https://api.example/",
		PageSize: 3, Owner: owner, Logger: quiet})
}

func reader(orgID uuid.UUID) *auth.Principal {
	return &auth.Principal{KeyID: uuid.Must(uuid.NewV7()), OrgID: orgID, Type: auth.KeyTypeAPI,
		Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAnalyticsRead})}
}

func TestExportLifecycle(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		o, l := seed(t, s, 1_000_000)
		clicks := make([]analytics.Click, 10)
		for i := range clicks {
			clicks[i] = linkClick(l, i)
			clicks[i].Referer = "=cmd|' /C calc'!A0"
		}
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)
		c := &exportClock{now: t0.Add(time.Hour)}
		x := newExports(s, c, "one")
		p := reader(o.ID)

		e, err := x.Start(ctx, p, analytics.StartExportInput{})
		require.NoError(t, err)
		assert.Equal(t, analytics.ExportPending, e.Status)
		assert.Nil(t, e.DownloadURL)
		_, err = x.Download(ctx, p, e.ID)
		assert.Equal(t, errcode.ExportNotComplete, errcode.CodeOf(err))

		ran, err := x.RunOnce(ctx)
		require.NoError(t, err)
		assert.False(t, ran, "the window settles first")
		c.now = c.now.Add(analytics.DefaultExportSettle)
		ran, err = x.RunOnce(ctx)
		require.NoError(t, err)
		assert.True(t, ran)

		e, err = x.Get(ctx, p, e.ID)
		require.NoError(t, err)
		assert.Equal(t, analytics.ExportComplete, e.Status)
		assert.Equal(t, int64(10), e.Rows)
		require.NotNil(t, e.DownloadURL)
		assert.Equal(t, "https://api.example/v1/analytics/exports/"+e.ID.String()+"/download", *e.DownloadURL)
		assert.Equal(t, c.now.Add(analytics.DefaultExportLifetime), *e.ExpiresAt)

		d, err := x.Download(ctx, p, e.ID)
		require.NoError(t, err)
		var buf bytes.Buffer
		var seen []int64
		n, err := d.Stream(ctx, &buf, func(rows int64) { seen = append(seen, rows) })
		require.NoError(t, err)
		assert.Equal(t, int64(10), n)
		assert.Equal(t, []int64{3, 6, 9, 10}, seen, "a flush per page")
		records, err := csv.NewReader(&buf).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 11)
		assert.Equal(t, analytics.ExportColumns(), records[0])
		assert.Equal(t, "'=cmd|' /C calc'!A0", records[1][12], "formula neutralised")

		c.now = *e.ExpiresAt
		_, err = x.Download(ctx, p, e.ID)
		assert.Equal(t, errcode.Gone, errcode.CodeOf(err))
		e, err = x.Get(ctx, p, e.ID)
		require.NoError(t, err)
		assert.Nil(t, e.DownloadURL, "expired")
	})
}

// A job whose worker died (its lease left running) is resumed by another
// worker from the progress recorded, and counts every click once.
func TestExportResumesAfterAWorkerDied(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		o, l := seed(t, s, 1_000_000)
		clicks := make([]analytics.Click, 50)
		for i := range clicks {
			clicks[i] = linkClick(l, i)
		}
		_, err := s.InsertClicks(ctx, clicks)
		require.NoError(t, err)
		c := &exportClock{now: t0.Add(time.Hour)}
		x := newExports(s, c, "survivor")
		e, err := x.Start(ctx, reader(o.ID), analytics.StartExportInput{})
		require.NoError(t, err)

		// The dead worker claimed it and counted one page of 30.
		c.now = c.now.Add(analytics.DefaultExportSettle)
		job, err := s.ClaimExport(ctx, "dead", c.now, c.now, c.now.Add(analytics.DefaultExportLease))
		require.NoError(t, err)
		n, last, err := s.CountExportClicks(ctx, job.Scope(), nil, 30)
		require.NoError(t, err)
		require.NoError(t, s.CheckpointExport(ctx, job.ID, "dead", int64(n), *last, c.now.Add(analytics.DefaultExportLease)))

		ran, err := x.RunOnce(ctx)
		require.NoError(t, err)
		assert.False(t, ran, "the lease still holds")
		c.now = c.now.Add(analytics.DefaultExportLease + time.Millisecond)
		ran, err = x.RunOnce(ctx)
		require.NoError(t, err)
		assert.True(t, ran)
		got, err := x.Get(ctx, reader(o.ID), e.ID)
		require.NoError(t, err)
		assert.Equal(t, analytics.ExportComplete, got.Status)
		assert.Equal(t, int64(50), got.Rows)
	})
}

// A job interrupted more often than Attempts allows ends failed with a
// reason.
func TestExportFailsAfterTooManyInterruptions(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := t.Context()
	o, _ := seed(t, s, 1_000_000)
	c := &exportClock{now: t0.Add(time.Hour)}
	x := newExports(s, c, "last")
	e, err := x.Start(ctx, reader(o.ID), analytics.StartExportInput{})
	require.NoError(t, err)
	for range analytics.DefaultExportAttempts {
		c.now = c.now.Add(time.Hour)
		job, err := s.ClaimExport(ctx, "crashing", c.now, c.now, c.now.Add(time.Minute))
		require.NoError(t, err)
		require.NotNil(t, job)
	}
	c.now = c.now.Add(time.Hour)
	ran, err := x.RunOnce(ctx)
	require.NoError(t, err)
	assert.True(t, ran)
	got, err := x.Get(ctx, reader(o.ID), e.ID)
	require.NoError(t, err)
	assert.Equal(t, analytics.ExportFailed, got.Status)
	require.NotNil(t, got.Failure)
	assert.Equal(t, "the export was interrupted 3 times", *got.Failure)
	_, err = x.Download(ctx, reader(o.ID), e.ID)
	assert.Equal(t, errcode.ExportNotComplete, errcode.CodeOf(err))
}

func TestExportStartRules(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := t.Context()
	o, _ := seed(t, s, 1_000_000) // a Free organization
	c := &exportClock{now: t0.Add(time.Hour)}
	x := newExports(s, c, "w")
	old := c.now.Add(-31 * 24 * time.Hour)
	_, err := x.Start(ctx, reader(o.ID), analytics.StartExportInput{From: &old})
	assert.Equal(t, errcode.LookbackExceeded, errcode.CodeOf(err), "Free look-back")
	empty := ""
	_, err = x.Start(ctx, reader(o.ID), analytics.StartExportInput{Filter: analytics.Filter{Country: &empty}})
	assert.Equal(t, errcode.ValidationError, errcode.CodeOf(err))
	noScope := reader(o.ID)
	noScope.Scopes = auth.NewScopeSet([]auth.Scope{auth.ScopeLinksRead})
	_, err = x.Start(ctx, noScope, analytics.StartExportInput{})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
	_, err = x.Get(ctx, reader(uuid.Must(uuid.NewV7())), uuid.Must(uuid.NewV7()))
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err))
}
