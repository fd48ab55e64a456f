package analytics_test

import (
	"fmt"
	"testing"
	"time"
	_ "time/tzdata" // the zone rules the tests expect, wherever they run

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v
}

// formatStarts renders bucket starts as RFC 3339 with their local offset,
// which pins both the instant and the zone's reading of it.
func formatStarts(starts []time.Time) []string {
	out := make([]string, len(starts))
	for i, s := range starts {
		out[i] = s.Format(time.RFC3339)
	}
	return out
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		zone     string
		from, to string
		interval analytics.Interval
		want     []string
	}{
		{
			name: "UTC days start at midnight and the first one contains from",
			zone: "UTC", from: "2026-03-01T10:00:00Z", to: "2026-03-04T00:00:00Z", interval: analytics.IntervalDay,
			want: []string{"2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"},
		},
		{
			name: "from on a boundary starts there and a bucket starting at to is left out",
			zone: "UTC", from: "2026-03-01T00:00:00Z", to: "2026-03-01T03:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z", "2026-03-01T02:00:00Z"},
		},
		{
			name: "the last bucket is the one holding the instant just before to",
			zone: "UTC", from: "2026-03-01T00:00:00Z", to: "2026-03-01T02:00:01Z", interval: analytics.IntervalHour,
			want: []string{"2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z", "2026-03-01T02:00:00Z"},
		},
		{
			name: "Berlin's spring-forward day lasts 23 hours",
			zone: "Europe/Berlin", from: "2026-03-28T12:00:00+01:00", to: "2026-03-30T12:00:00+02:00", interval: analytics.IntervalDay,
			want: []string{"2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"},
		},
		{
			name: "Berlin's fall-back day lasts 25 hours",
			zone: "Europe/Berlin", from: "2026-10-24T12:00:00+02:00", to: "2026-10-26T12:00:00+01:00", interval: analytics.IntervalDay,
			want: []string{"2026-10-24T00:00:00+02:00", "2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00"},
		},
		{
			name: "a spring-forward hour does not exist: 01:00 is followed by 03:00",
			zone: "Europe/Berlin", from: "2026-03-29T00:30:00Z", to: "2026-03-29T02:30:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"},
		},
		{
			name: "a fall-back hour happens twice and is two buckets",
			zone: "Europe/Berlin", from: "2026-10-24T23:30:00Z", to: "2026-10-25T02:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00"},
		},
		{
			name: "Kolkata's hours begin at half past the UTC hour",
			zone: "Asia/Kolkata", from: "2026-01-01T00:00:00Z", to: "2026-01-01T02:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-01-01T05:00:00+05:30", "2026-01-01T06:00:00+05:30", "2026-01-01T07:00:00+05:30"},
		},
		{
			name: "Kolkata's days begin at 18:30 UTC",
			zone: "Asia/Kolkata", from: "2026-01-01T12:00:00Z", to: "2026-01-02T20:00:00Z", interval: analytics.IntervalDay,
			want: []string{"2026-01-01T00:00:00+05:30", "2026-01-02T00:00:00+05:30", "2026-01-03T00:00:00+05:30"},
		},
		{
			name: "Kathmandu's hours begin at a quarter past the UTC hour",
			zone: "Asia/Kathmandu", from: "2026-01-01T00:00:00Z", to: "2026-01-01T01:30:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-01-01T05:00:00+05:45", "2026-01-01T06:00:00+05:45", "2026-01-01T07:00:00+05:45"},
		},
		{
			name: "Kathmandu's move from +05:30 to +05:45 starts a 45-minute hour",
			zone: "Asia/Kathmandu", from: "1985-12-31T17:45:00Z", to: "1985-12-31T20:00:00Z", interval: analytics.IntervalHour,
			want: []string{"1985-12-31T23:00:00+05:30", "1986-01-01T00:15:00+05:45", "1986-01-01T01:00:00+05:45"},
		},
		{
			name: "Sao Paulo 2018: midnight did not exist, the day began at 01:00 and lasted 23 hours",
			zone: "America/Sao_Paulo", from: "2018-11-03T12:00:00-03:00", to: "2018-11-05T12:00:00-02:00", interval: analytics.IntervalDay,
			want: []string{"2018-11-03T00:00:00-03:00", "2018-11-04T01:00:00-02:00", "2018-11-05T00:00:00-02:00"},
		},
		{
			name: "Sao Paulo 2018: the hour after 23:00 is 01:00",
			zone: "America/Sao_Paulo", from: "2018-11-04T02:00:00Z", to: "2018-11-04T04:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2018-11-03T23:00:00-03:00", "2018-11-04T01:00:00-02:00"},
		},
		{
			name: "Sao Paulo 2019: midnight happened twice and the day before kept its 25 hours",
			zone: "America/Sao_Paulo", from: "2019-02-15T12:00:00-02:00", to: "2019-02-17T12:00:00-03:00", interval: analytics.IntervalDay,
			want: []string{"2019-02-15T00:00:00-02:00", "2019-02-16T00:00:00-02:00", "2019-02-17T00:00:00-03:00"},
		},
		{
			name: "Lord Howe springs forward 30 minutes: a 30-minute hour bucket",
			zone: "Australia/Lord_Howe", from: "2026-10-03T14:30:00Z", to: "2026-10-03T16:30:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-10-04T01:00:00+10:30", "2026-10-04T02:30:00+11:00", "2026-10-04T03:00:00+11:00"},
		},
		{
			name: "Lord Howe falls back 30 minutes: the repeated half hour is its own bucket",
			zone: "Australia/Lord_Howe", from: "2026-04-04T14:00:00Z", to: "2026-04-04T16:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2026-04-05T01:00:00+11:00", "2026-04-05T01:30:00+10:30", "2026-04-05T02:00:00+10:30"},
		},
		{
			name: "Lord Howe's spring-forward day lasts 23.5 hours",
			zone: "Australia/Lord_Howe", from: "2026-10-03T12:00:00+10:30", to: "2026-10-05T12:00:00+11:00", interval: analytics.IntervalDay,
			want: []string{"2026-10-03T00:00:00+10:30", "2026-10-04T00:00:00+10:30", "2026-10-05T00:00:00+11:00"},
		},
		{
			name: "a date the zone skipped has no bucket (Apia, 30 December 2011)",
			zone: "Pacific/Apia", from: "2011-12-29T12:00:00-10:00", to: "2012-01-01T12:00:00+14:00", interval: analytics.IntervalDay,
			want: []string{"2011-12-29T00:00:00-10:00", "2011-12-31T00:00:00+14:00", "2012-01-01T00:00:00+14:00"},
		},
		{
			name: "months follow January 31 with February 1",
			zone: "UTC", from: "2026-01-31T12:00:00Z", to: "2026-04-01T00:00:00Z", interval: analytics.IntervalMonth,
			want: []string{"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"},
		},
		{
			name: "a leap February is one month like the others",
			zone: "UTC", from: "2028-02-29T23:59:59Z", to: "2028-03-01T00:00:01Z", interval: analytics.IntervalMonth,
			want: []string{"2028-02-01T00:00:00Z", "2028-03-01T00:00:00Z"},
		},
		{
			name: "months start at local midnight across a DST change",
			zone: "Europe/Berlin", from: "2026-02-15T00:00:00Z", to: "2026-04-15T00:00:00Z", interval: analytics.IntervalMonth,
			want: []string{"2026-02-01T00:00:00+01:00", "2026-03-01T00:00:00+01:00", "2026-04-01T00:00:00+02:00"},
		},
		{
			name: "days follow the zone's rule past the database's last transition, leap years too",
			zone: "America/New_York", from: "2040-12-30T12:00:00-05:00", to: "2041-01-02T00:00:00-05:00", interval: analytics.IntervalDay,
			want: []string{"2040-12-30T00:00:00-05:00", "2040-12-31T00:00:00-05:00", "2041-01-01T00:00:00-05:00"},
		},
		{
			name: "DST changes follow the zone's rule in the far future",
			zone: "Europe/Berlin", from: "2041-03-31T00:30:00Z", to: "2041-03-31T02:00:00Z", interval: analytics.IntervalHour,
			want: []string{"2041-03-31T01:00:00+01:00", "2041-03-31T03:00:00+02:00"},
		},
		{
			name: "ISO weeks start on Monday across a year boundary",
			zone: "UTC", from: "2026-12-30T12:00:00Z", to: "2027-01-12T00:00:00Z", interval: analytics.IntervalWeek,
			want: []string{"2026-12-28T00:00:00Z", "2027-01-04T00:00:00Z", "2027-01-11T00:00:00Z"},
		},
		{
			name: "a Sunday belongs to the week that began the Monday before",
			zone: "Europe/Berlin", from: "2027-01-03T23:30:00+01:00", to: "2027-01-04T00:00:00+01:00", interval: analytics.IntervalWeek,
			want: []string{"2026-12-28T00:00:00+01:00"},
		},
		{
			name: "a week holding a fall-back day lasts 169 hours",
			zone: "Europe/Berlin", from: "2026-10-20T00:00:00Z", to: "2026-10-27T00:00:00Z", interval: analytics.IntervalWeek,
			want: []string{"2026-10-19T00:00:00+02:00", "2026-10-26T00:00:00+01:00"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			starts, err := analytics.Buckets(mustTime(t, tc.from), mustTime(t, tc.to), tc.interval, mustZone(t, tc.zone))
			require.NoError(t, err)
			assert.Equal(t, tc.want, formatStarts(starts))
		})
	}
}

func TestBucketsLengths(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	for _, tc := range []struct {
		name      string
		day       string
		wantHours int
	}{
		{"a spring-forward day has 23 hourly buckets", "2026-03-29T00:00:00+01:00", 23},
		{"a fall-back day has 25 hourly buckets", "2026-10-25T00:00:00+02:00", 25},
		{"an ordinary day has 24 hourly buckets", "2026-06-01T00:00:00+02:00", 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := mustTime(t, tc.day)
			to := analytics.IntervalDay.Next(from, berlin)
			hours, err := analytics.Buckets(from, to, analytics.IntervalHour, berlin)
			require.NoError(t, err)
			assert.Len(t, hours, tc.wantHours)
			for i := 1; i < len(hours); i++ {
				assert.Equal(t, time.Hour, hours[i].Sub(hours[i-1]), "every hour bucket is a real hour")
			}
			assert.Equal(t, time.Duration(tc.wantHours)*time.Hour, to.Sub(from))
		})
	}
}

func TestBucketsNilLocationIsUTC(t *testing.T) {
	starts, err := analytics.Buckets(mustTime(t, "2026-05-01T10:00:00+02:00"), mustTime(t, "2026-05-02T00:00:00Z"), analytics.IntervalDay, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"2026-05-01T00:00:00Z"}, formatStarts(starts))
}

func TestBucketsErrors(t *testing.T) {
	from := mustTime(t, "2026-01-01T00:00:00Z")
	for _, tc := range []struct {
		name      string
		to        time.Time
		interval  analytics.Interval
		wantField string
	}{
		{"from equal to to is refused", from, analytics.IntervalDay, "from"},
		{"from after to is refused", from.Add(-time.Hour), analytics.IntervalDay, "from"},
		{"an unknown interval is refused", from.Add(time.Hour), analytics.Interval("minute"), "interval"},
		{"more than MaxBuckets buckets is an interval error", from.Add(analytics.MaxBuckets*time.Hour + time.Nanosecond), analytics.IntervalHour, "interval"},
		{"two years of hours is too many", from.AddDate(2, 0, 0), analytics.IntervalHour, "interval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			starts, err := analytics.Buckets(from, tc.to, tc.interval, time.UTC)
			assert.Nil(t, starts)
			e, ok := errcode.As(err)
			require.True(t, ok, "an *errcode.Error, got %v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, tc.wantField, e.Fields[0].Field)
		})
	}
	t.Run("exactly MaxBuckets buckets is allowed", func(t *testing.T) {
		starts, err := analytics.Buckets(from, from.Add(analytics.MaxBuckets*time.Hour), analytics.IntervalHour, time.UTC)
		require.NoError(t, err)
		assert.Equal(t, analytics.MaxBuckets, len(starts))
	})
	t.Run("a century of months is allowed", func(t *testing.T) {
		ny := mustZone(t, "America/New_York")
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, ny)
		starts, err := analytics.Buckets(start, start.AddDate(100, 0, 0), analytics.IntervalMonth, ny)
		require.NoError(t, err)
		assert.Equal(t, 1200, len(starts))
	})
}

func TestParseInterval(t *testing.T) {
	for _, s := range []string{"hour", "day", "week", "month"} {
		t.Run(s+" is an interval", func(t *testing.T) {
			iv, err := analytics.ParseInterval(s)
			require.NoError(t, err)
			assert.Equal(t, analytics.Interval(s), iv)
		})
	}
	for _, s := range []string{"", "Day", "DAY", "minute", "year", " day", "days"} {
		t.Run(fmt.Sprintf("%q is refused", s), func(t *testing.T) {
			_, err := analytics.ParseInterval(s)
			e, ok := errcode.As(err)
			require.True(t, ok)
			assert.Equal(t, errcode.ValidationError, e.Code)
			assert.Equal(t, "interval", e.Fields[0].Field)
		})
	}
	assert.Equal(t, analytics.IntervalDay, analytics.DefaultInterval)
}

func TestBucketIndex(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	from := mustTime(t, "2026-10-24T12:00:00Z")
	starts, err := analytics.Buckets(from, mustTime(t, "2026-10-27T12:00:00Z"), analytics.IntervalDay, berlin)
	require.NoError(t, err)
	require.Len(t, starts, 4)
	for _, tc := range []struct {
		name string
		at   string
		want int
	}{
		{"an instant before the first bucket is in none", "2026-10-23T21:59:59Z", -1},
		{"the first bucket's start is in it", "2026-10-23T22:00:00Z", 0},
		{"an instant inside a bucket", "2026-10-25T12:00:00Z", 1},
		{"the repeated hour belongs to the fall-back day", "2026-10-25T01:30:00Z", 1},
		{"the last instant of the 25-hour day", "2026-10-25T22:59:59Z", 1},
		{"the next local midnight starts the next bucket", "2026-10-25T23:00:00Z", 2},
		{"an instant after the last start is in the last bucket", "2026-10-27T11:00:00Z", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, analytics.BucketIndex(starts, mustTime(t, tc.at)))
		})
	}
	t.Run("no starts, no bucket", func(t *testing.T) {
		assert.Equal(t, -1, analytics.BucketIndex(nil, from))
	})
}

// TestBucketsInvariants walks a year of buckets of every interval in zones
// with every kind of offset change and checks the rules of the Interval
// doc on each bucket.
func TestBucketsInvariants(t *testing.T) {
	for _, tc := range []struct{ zone, from string }{
		{"UTC", "2026-01-01T00:00:00Z"},
		{"Europe/Berlin", "2026-01-01T00:00:00Z"},
		{"America/New_York", "2026-01-01T00:00:00Z"},
		{"Asia/Kolkata", "2026-01-01T00:00:00Z"},
		{"Asia/Kathmandu", "1985-07-01T00:00:00Z"},
		{"America/Sao_Paulo", "2018-07-01T00:00:00Z"},
		{"Australia/Lord_Howe", "2026-01-01T00:00:00Z"},
		{"Pacific/Chatham", "2026-01-01T00:00:00Z"},
		{"Pacific/Apia", "2011-06-01T00:00:00Z"},
		{"America/New_York", "2040-06-01T00:00:00Z"},
		{"Australia/Lord_Howe", "2040-06-01T00:00:00Z"},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			loc := mustZone(t, tc.zone)
			from := mustTime(t, tc.from)
			to := from.AddDate(1, 0, 0)
			hours, err := analytics.Buckets(from, to, analytics.IntervalHour, loc)
			require.NoError(t, err)
			isHour := make(map[int64]bool, len(hours))
			for i, h := range hours {
				isHour[h.Unix()] = true
				if i > 0 {
					d := h.Sub(hours[i-1])
					require.True(t, d > 0 && d <= time.Hour, "hour bucket %s lasts %v", hours[i-1], d)
				}
				require.Equal(t, i, analytics.BucketIndex(hours, h))
			}
			for _, iv := range []analytics.Interval{analytics.IntervalDay, analytics.IntervalWeek, analytics.IntervalMonth} {
				starts, err := analytics.Buckets(from, to, iv, loc)
				require.NoError(t, err)
				for i, s := range starts {
					end := iv.Next(s, loc)
					require.True(t, end.After(s), "%s bucket %s is not empty", iv, s)
					if i+1 < len(starts) {
						require.Equal(t, starts[i+1], end, "%s buckets are contiguous", iv)
					}
					require.True(t, s.Equal(iv.Start(s, loc)), "%s %s starts its own bucket", iv, s)
					require.True(t, s.Equal(iv.Start(end.Add(-time.Nanosecond), loc)), "%s %s holds its last instant", iv, s)
					require.Equal(t, i, analytics.BucketIndex(starts, end.Add(-time.Nanosecond)))
					if s.After(hours[0]) && s.Before(to) {
						require.True(t, isHour[s.Unix()], "%s start %s is an hour boundary", iv, s)
					}
					// The local date of the bucket's first and last instants is
					// the bucket's date, and the instant before it is earlier.
					y, m, d := s.Date()
					first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
					ly, lm, ld := end.Add(-time.Nanosecond).Date()
					last := time.Date(ly, lm, ld, 0, 0, 0, 0, time.UTC)
					py, pm, pd := s.Add(-time.Nanosecond).In(loc).Date()
					require.True(t, time.Date(py, pm, pd, 0, 0, 0, 0, time.UTC).Before(first), "%s %s: the instant before is an earlier date", iv, s)
					switch iv {
					case analytics.IntervalDay:
						require.Equal(t, first, last, "a day bucket is one local date")
					case analytics.IntervalWeek:
						require.Equal(t, time.Monday, first.Weekday(), "a week starts on a Monday: %s", s)
						require.Equal(t, time.Sunday, last.Weekday(), "a week ends on a Sunday: %s", s)
					case analytics.IntervalMonth:
						require.Equal(t, 1, first.Day(), "a month starts on the first: %s", s)
						require.Equal(t, first.Month(), last.Month(), "a month is one month: %s", s)
					}
				}
			}
		})
	}
}

func ExampleBuckets() {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	from := time.Date(2026, 3, 28, 9, 30, 0, 0, berlin)
	to := time.Date(2026, 3, 31, 0, 0, 0, 0, berlin)
	starts, _ := analytics.Buckets(from, to, analytics.IntervalDay, berlin)
	for _, s := range starts {
		fmt.Println(s.Format("Mon 2006-01-02 15:04 -07:00"), analytics.IntervalDay.Next(s, berlin).Sub(s))
	}
	fmt.Println(analytics.BucketIndex(starts, time.Date(2026, 3, 29, 23, 59, 0, 0, berlin)))
	// Output:
	// Sat 2026-03-28 00:00 +01:00 24h0m0s
	// Sun 2026-03-29 00:00 +01:00 23h0m0s
	// Mon 2026-03-30 00:00 +02:00 24h0m0s
	// 1
}

func BenchmarkBuckets(b *testing.B) {
	kolkata := mustZone(b, "Asia/Kolkata")
	berlin := mustZone(b, "Europe/Berlin")
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, bc := range []struct {
		name string
		to   time.Time
		iv   analytics.Interval
		loc  *time.Location
	}{
		{"90 days in Berlin", from.AddDate(0, 0, 90), analytics.IntervalDay, berlin},
		{"30 days of hours in Kolkata", from.AddDate(0, 0, 30), analytics.IntervalHour, kolkata},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := analytics.Buckets(from, bc.to, bc.iv, bc.loc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
