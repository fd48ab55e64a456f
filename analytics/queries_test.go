package analytics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

// fakeQueryStore answers from fixed slots and values, and remembers the
// set it was asked for.
type fakeQueryStore struct {
	slots    []analytics.SlotCount
	values   []analytics.ValueCount
	unstored int64
	asked    analytics.ClickSet
}

func (f *fakeQueryStore) CountClickSlots(_ context.Context, set analytics.ClickSet) ([]analytics.SlotCount, error) {
	f.asked = set
	return f.slots, nil
}

func (f *fakeQueryStore) CountClicksBy(_ context.Context, set analytics.ClickSet, _ analytics.Dimension) ([]analytics.ValueCount, error) {
	f.asked = set
	return append([]analytics.ValueCount(nil), f.values...), nil
}

func (f *fakeQueryStore) UnstoredClicks(context.Context, uuid.UUID, analytics.Window) (int64, error) {
	return f.unstored, nil
}

type fakeOrgs struct{ plan org.Plan }

func (f fakeOrgs) ByID(_ context.Context, id uuid.UUID) (*org.Organization, error) {
	return &org.Organization{ID: id, Plan: f.plan}, nil
}

func strp(s string) *string { return &s }

func analyst() *auth.Principal {
	return &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAnalyticsRead})}
}

// Slots land in the local bucket that holds them, across a DST change and
// in a zone with a half-hour offset.
func TestTimeSeriesBucketsInZones(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	utc := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v.UTC() }
	tests := []struct {
		name, zone, from, to string
		slots                []string
		want                 map[string]int64 // bucket start -> clicks
		buckets              int
	}{
		{"Berlin springs forward: 29 March has 23 hours", "Europe/Berlin",
			"2026-03-28T23:00:00Z", "2026-03-30T22:00:00Z",
			[]string{"2026-03-28T23:00:00Z", "2026-03-29T21:45:00Z", "2026-03-29T22:00:00Z"},
			map[string]int64{"2026-03-29T00:00:00+01:00": 2, "2026-03-30T00:00:00+02:00": 1}, 2},
		{"Berlin falls back: 25 October has 25 hours", "Europe/Berlin",
			"2026-10-24T22:00:00Z", "2026-10-26T23:00:00Z",
			[]string{"2026-10-24T22:00:00Z", "2026-10-25T22:45:00Z", "2026-10-25T23:00:00Z"},
			map[string]int64{"2026-10-25T00:00:00+02:00": 2, "2026-10-26T00:00:00+01:00": 1}, 2},
		{"Kolkata days begin at 18:30 UTC", "Asia/Kolkata",
			"2026-10-01T18:30:00Z", "2026-10-03T18:30:00Z",
			[]string{"2026-10-02T18:15:00Z", "2026-10-02T18:30:00Z"},
			map[string]int64{"2026-10-02T00:00:00+05:30": 1, "2026-10-03T00:00:00+05:30": 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &fakeQueryStore{}
			for _, s := range tt.slots {
				st.slots = append(st.slots, analytics.SlotCount{Start: utc(s), Clicks: 1})
			}
			q := analytics.NewQueries(st, fakeOrgs{org.PlanScale}, analytics.QueriesOptions{Clock: func() time.Time { return now }})
			got, err := q.TimeSeries(t.Context(), analyst(), analytics.TimeSeriesQuery{
				Params: analytics.Params{From: strp(tt.from), To: strp(tt.to)}, Timezone: strp(tt.zone)})
			require.NoError(t, err)
			require.Len(t, got.Data, tt.buckets)
			for _, p := range got.Data {
				assert.Equal(t, tt.want[p.Start.Format(time.RFC3339)], p.Clicks, p.Start.Format(time.RFC3339))
			}
			assert.Equal(t, int64(len(tt.slots)), got.Total.Clicks)
			assert.Equal(t, tt.zone, got.Window.Timezone)
			assert.Equal(t, analytics.IntervalDay, got.Window.Interval)
		})
	}
}

// A breakdown keeps the top values by clicks, ties by value with the
// unknown value last, and sums the rest.
func TestBreakdownRanking(t *testing.T) {
	st := &fakeQueryStore{unstored: 9, values: []analytics.ValueCount{
		{Value: nil, Clicks: 5, Installs: 1},
		{Value: strp("b"), Clicks: 5},
		{Value: strp("a"), Clicks: 5, Installs: 2},
		{Value: strp("z"), Clicks: 7},
		{Value: strp("y"), Clicks: 1, Installs: 1},
	}}
	q := analytics.NewQueries(st, fakeOrgs{org.PlanScale}, analytics.QueriesOptions{})
	got, err := q.Breakdown(t.Context(), analyst(), analytics.BreakdownQuery{By: strp("country"), Limit: strp("3")})
	require.NoError(t, err)
	var order []any
	for _, r := range got.Data {
		if r.Value == nil {
			order = append(order, nil)
		} else {
			order = append(order, *r.Value)
		}
	}
	assert.Equal(t, []any{"z", "a", "b"}, order)
	assert.Equal(t, analytics.Counts{Clicks: 6, Installs: 2}, got.Other)
	assert.Equal(t, int64(23), got.Total.Clicks)
	assert.Equal(t, int64(4), got.Total.Installs)
	require.NotNil(t, got.Total.UnstoredClicks)
	assert.Equal(t, int64(9), *got.Total.UnstoredClicks)

	got, err = q.Breakdown(t.Context(), analyst(), analytics.BreakdownQuery{By: strp("country"),
		Params: analytics.Params{Country: strp("US")}})
	require.NoError(t, err)
	assert.Nil(t, got.Total.UnstoredClicks, "unstored clicks cannot be filtered")
}

// Bad parameters are one VALIDATION_ERROR naming each; a member's key
// reads its own links' clicks; keys without the scope are refused.
func TestQueriesRefuse(t *testing.T) {
	st := &fakeQueryStore{}
	q := analytics.NewQueries(st, fakeOrgs{org.PlanScale}, analytics.QueriesOptions{})
	_, err := q.Breakdown(t.Context(), analyst(), analytics.BreakdownQuery{By: strp("city"), Limit: strp("101"),
		Params: analytics.Params{LinkID: strp("x"), Platform: strp("tv"), Country: strp("us"), From: strp("yesterday")}})
	var e *errcode.Error
	require.True(t, errors.As(err, &e))
	var fields []string
	for _, f := range e.Fields {
		fields = append(fields, f.Field)
	}
	assert.ElementsMatch(t, []string{"from", "link_id", "platform", "country", "by", "limit"}, fields)

	_, err = q.TimeSeries(t.Context(), analyst(), analytics.TimeSeriesQuery{Interval: strp("year"), Timezone: strp("Local")})
	require.True(t, errors.As(err, &e))
	assert.Len(t, e.Fields, 2)

	member := uuid.New()
	p := analyst()
	p.CreatedBy, p.Role = &member, auth.RoleMember
	_, err = q.TimeSeries(t.Context(), p, analytics.TimeSeriesQuery{})
	require.NoError(t, err)
	assert.Equal(t, &member, st.asked.CreatedBy)

	p = &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeLinksRead})}
	_, err = q.TimeSeries(t.Context(), p, analytics.TimeSeriesQuery{})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}
