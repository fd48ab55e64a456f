package analytics_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/org"
)

// fakePurgeStore holds, per organization and kind, how many rows are
// older than the cutoff asked about, and records the cutoffs.
type fakePurgeStore struct {
	mu      sync.Mutex
	orgs    []analytics.PurgeOrg
	rows    map[string]int // "kind org" -> rows left
	cutoffs map[string]time.Time
	calls   int
	fail    map[string]error
	passes  chan struct{}
}

func (f *fakePurgeStore) PurgeOrgs(context.Context) ([]analytics.PurgeOrg, error) {
	if f.passes != nil {
		f.passes <- struct{}{}
	}
	return f.orgs, nil
}

func (f *fakePurgeStore) take(kind string, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := kind + " " + orgID.String()
	if orgID == uuid.Nil {
		key = kind
	}
	f.calls++
	f.cutoffs[key] = before
	if err := f.fail[key]; err != nil {
		return 0, err
	}
	n := min(f.rows[key], limit)
	f.rows[key] -= n
	return n, nil
}

func (f *fakePurgeStore) DeleteClicksBefore(_ context.Context, o uuid.UUID, b time.Time, l int) (int, error) {
	return f.take("clicks", o, b, l)
}

func (f *fakePurgeStore) DeleteInstallsBefore(_ context.Context, o uuid.UUID, b time.Time, l int) (int, error) {
	return f.take("installs", o, b, l)
}

func (f *fakePurgeStore) DeleteAttemptsBefore(_ context.Context, o uuid.UUID, b time.Time, l int) (int, error) {
	return f.take("attempts", o, b, l)
}

func (f *fakePurgeStore) DeleteUnstoredBefore(_ context.Context, o uuid.UUID, b time.Time, l int) (int, error) {
	return f.take("unstored", o, b, l)
}

func (f *fakePurgeStore) ClearClickIPsBefore(_ context.Context, b time.Time, l int) (int, error) {
	return f.take("ips", uuid.Nil, b, l)
}

func (f *fakePurgeStore) ClearInstallIPsBefore(_ context.Context, b time.Time, l int) (int, error) {
	return f.take("install ips", uuid.Nil, b, l)
}

func (f *fakePurgeStore) FoldLinkRollupDays(_ context.Context, o uuid.UUID, now time.Time, l int) (int, error) {
	return f.take("folds", o, now, l)
}

func (f *fakePurgeStore) DeleteSegmentsBefore(_ context.Context, o uuid.UUID, b time.Time, l int) (int, error) {
	return f.take("segments", o, b, l)
}

func (f *fakePurgeStore) ClearSegmentIPsBefore(_ context.Context, b time.Time, l int) (int, error) {
	return f.take("segment ips", uuid.Nil, b, l)
}

func (f *fakePurgeStore) CompactDeletedLinks(_ context.Context, l int) (int, error) {
	return f.take("compact", uuid.Nil, time.Time{}, l)
}

func newFakePurgeStore(orgs ...analytics.PurgeOrg) *fakePurgeStore {
	return &fakePurgeStore{orgs: orgs, rows: map[string]int{}, cutoffs: map[string]time.Time{}, fail: map[string]error{}}
}

var purgeAt = time.Date(2027, 3, 1, 9, 30, 0, 0, time.UTC)

// Each organization is purged at its plan's retention, every kind in
// batches until a batch comes back short, and IPs at seven days.
func TestPurgerRetentionPerPlan(t *testing.T) {
	t.Parallel()
	free := analytics.PurgeOrg{ID: uuid.New(), Plan: org.PlanFree}
	growth := analytics.PurgeOrg{ID: uuid.New(), Plan: org.PlanGrowth}
	f := newFakePurgeStore(free, growth)
	f.rows["clicks "+free.ID.String()] = 25
	f.rows["installs "+free.ID.String()] = 10
	f.rows["attempts "+growth.ID.String()] = 3
	f.rows["unstored "+growth.ID.String()] = 1
	f.rows["ips"] = 20
	f.rows["install ips"] = 4
	f.rows["segments "+free.ID.String()] = 7
	f.rows["segment ips"] = 3
	f.rows["compact"] = 1
	f.rows["folds "+growth.ID.String()] = 12
	p := analytics.NewPurger(f, analytics.PurgerOptions{Clock: func() time.Time { return purgeAt }, BatchSize: 10, SegmentBatch: 3})

	res, err := p.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Equal(t, analytics.PurgeResult{ClicksDeleted: 25, SegmentsDeleted: 7, InstallsDeleted: 10, AttemptsDeleted: 3,
		UnstoredDeleted: 1, IPsCleared: 20, InstallIPsCleared: 4, SegmentIPsCleared: 3, LinksCompacted: 1, LinkDaysFolded: 12}, res)
	for kind, o := range map[string]analytics.PurgeOrg{"clicks": free, "attempts": growth} {
		assert.Equal(t, purgeAt.Add(-org.LimitsOf(o.Plan).Retention), f.cutoffs[kind+" "+o.ID.String()], kind)
	}
	assert.Equal(t, purgeAt.AddDate(0, 0, -365), f.cutoffs["installs "+free.ID.String()], "Free keeps 365 days")
	assert.Equal(t, purgeAt.AddDate(0, 0, -730), f.cutoffs["unstored "+growth.ID.String()], "Growth keeps 730 days")
	assert.Equal(t, purgeAt.Add(-7*24*time.Hour), f.cutoffs["ips"], "IPs are kept 7 days")
	assert.Equal(t, purgeAt.Add(-7*24*time.Hour), f.cutoffs["install ips"], "installs' IPs too")
	assert.Equal(t, purgeAt.AddDate(0, 0, -365), f.cutoffs["segments "+free.ID.String()], "segments go at the plan's retention")
	assert.Equal(t, purgeAt.Add(-7*24*time.Hour), f.cutoffs["segment ips"], "segments' IPs are kept 7 days")
	for _, o := range []analytics.PurgeOrg{free, growth} {
		assert.Equal(t, purgeAt, f.cutoffs["folds "+o.ID.String()], "every organization's link rollups are folded up to now")
	}
	// Per organization: clicks 10, 10, 5 / 0; segments (in threes) 3, 3,
	// 1 / 0; installs 10, 0 / 0; attempts 0 / 3; unstored 0 / 1; folds 0 /
	// 10, 2. Then segment IPs 3, 0; compaction 1; IPs 10, 10, 0; install
	// IPs 4.
	assert.Equal(t, (3+3+2+1+1+1)+(1+1+1+1+1+2)+2+1+3+1, f.calls)
}

// A failing organization is reported and the others are still purged.
func TestPurgerGoesOnPastAFailure(t *testing.T) {
	t.Parallel()
	a := analytics.PurgeOrg{ID: uuid.New(), Plan: org.PlanFree}
	b := analytics.PurgeOrg{ID: uuid.New(), Plan: org.PlanScale}
	f := newFakePurgeStore(a, b)
	boom := errors.New("boom")
	f.fail["clicks "+a.ID.String()] = boom
	f.rows["clicks "+b.ID.String()] = 4
	f.rows["ips"] = 2
	res, err := analytics.NewPurger(f, analytics.PurgerOptions{Clock: func() time.Time { return purgeAt }}).RunOnce(t.Context())
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, analytics.PurgeResult{ClicksDeleted: 4, IPsCleared: 2}, res)
	_, triedInstalls := f.cutoffs["installs "+a.ID.String()]
	assert.False(t, triedInstalls, "the failing organization's other rows wait for the next purge")
}

// Run purges at once and stops when its context is done.
func TestPurgerRunStopsWithItsContext(t *testing.T) {
	t.Parallel()
	f := newFakePurgeStore()
	f.passes = make(chan struct{}, 1)
	p := analytics.NewPurger(f, analytics.PurgerOptions{Interval: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	<-f.passes
	cancel()
	assert.NoError(t, <-done)
}
