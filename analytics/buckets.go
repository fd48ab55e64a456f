package analytics

import (
	"fmt"
	"sort"
	"time"

	"github.com/hoplink/hoplink/errcode"
)

// Interval is the length of the buckets of a click time series (issue 15,
// GET /v1/analytics/timeseries): an hour, or a calendar day, ISO week or
// month of the series' time zone.
//
// Bucket boundaries are absolute instants computed from the IANA time zone
// database, so they follow daylight saving time and every historical
// offset change:
//
//   - An hour bucket begins whenever the local clock shows a full hour
//     (hh:00:00), and also whenever the zone's UTC offset changes. Each is
//     therefore one real hour long, except around a change by a fraction of
//     an hour (Australia/Lord_Howe moves by 30 minutes), where one bucket is
//     shorter. A day that springs forward has 23 hour buckets, one that
//     falls back 25 (the repeated hour is two buckets). In zones with a
//     :30 or :45 offset (Asia/Kolkata, Asia/Kathmandu) hours begin at :30
//     or :15 past the UTC hour.
//   - A day bucket begins at local midnight; when midnight does not exist
//     (America/Sao_Paulo began DST at midnight until 2018), at the first
//     instant of that local date, and when midnight happens twice (its DST
//     ended at midnight, turning 00:00 back to 23:00), at the second
//     midnight, so that the day before keeps all of its 25 hours. In
//     general, the bucket of date D begins at the instant after which the
//     local date never reads earlier than D again. A date a zone skipped
//     entirely (Pacific/Apia had no 30 December 2011) has no bucket.
//   - A week bucket is the day bucket of a Monday (ISO 8601 weeks); a month
//     bucket the day bucket of the first of the month.
//
// Every day, week and month boundary is also an hour boundary. Boundaries
// do not all fall on UTC hours: a day in Asia/Kolkata begins at 18:30 UTC,
// in Asia/Kathmandu at 18:15 UTC, so counts kept per UTC hour cannot be
// summed into them exactly, while counts kept per 15 minutes can (every
// offset in use today is a multiple of 15 minutes).
type Interval string

// The intervals of a time series.
const (
	IntervalHour  Interval = "hour"
	IntervalDay   Interval = "day"
	IntervalWeek  Interval = "week"
	IntervalMonth Interval = "month"
)

// DefaultInterval is the interval of a time series that names none
// (issue 15).
const DefaultInterval = IntervalDay

// MaxBuckets is the most buckets one time series may have: 10,000, more
// than a year of hours or 27 years of days. Buckets refuses a window that
// needs more.
const MaxBuckets = 10_000

// ParseInterval returns the Interval named s: "hour", "day", "week" or
// "month", exactly (lower case). Anything else is a VALIDATION_ERROR naming
// the field interval. An absent parameter is the caller's to default (see
// DefaultInterval).
func ParseInterval(s string) (Interval, error) {
	iv := Interval(s)
	if !iv.Valid() {
		return "", errcode.Field("interval", "must be one of hour, day, week, month")
	}
	return iv, nil
}

// Valid reports whether iv is one of the four intervals.
func (iv Interval) Valid() bool {
	switch iv {
	case IntervalHour, IntervalDay, IntervalWeek, IntervalMonth:
		return true
	}
	return false
}

// Buckets returns the start of every bucket of length interval that
// overlaps the window [from, to), in loc (nil means UTC), in ascending
// order. The first bucket is the one containing from, so its start is at
// or before from; the last is the one containing the last instant before
// to, so it starts before to and may end after it. Buckets does not move
// the window: a first or last bucket that reaches beyond it holds only the
// window's part (a caller counts clicks in [from, to) only). The starts are
// returned in loc, so that they print with the local offset.
//
// It returns a VALIDATION_ERROR naming interval for an invalid interval or
// for a window that needs more than MaxBuckets buckets, and naming from
// when from is not before to.
func Buckets(from, to time.Time, interval Interval, loc *time.Location) ([]time.Time, error) {
	if !interval.Valid() {
		return nil, errcode.Field("interval", "must be one of hour, day, week, month")
	}
	if !from.Before(to) {
		return nil, errcode.Field("from", "must be before to")
	}
	if loc == nil {
		loc = time.UTC
	}
	it := newBucketIter(from, interval, loc)
	starts := make([]time.Time, 0, estimateBuckets(from, to, interval))
	for s := it.start; s.Before(to); s = it.next() {
		if len(starts) == MaxBuckets {
			return nil, errcode.Field("interval", fmt.Sprintf(
				"the window needs more than %d buckets of one %s; choose a longer interval or a shorter window",
				MaxBuckets, interval))
		}
		starts = append(starts, s)
	}
	return starts, nil
}

// BucketIndex returns the index of the bucket, among starts as Buckets
// returns them, that contains t: the last start not after t. It returns -1
// when t is before the first start. An instant at or after the window's
// end lands in the last bucket, so a caller places only instants of the
// window. It runs in O(log n).
func BucketIndex(starts []time.Time, t time.Time) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i].After(t) }) - 1
}

// Start returns the start of the bucket of length iv, in loc (nil means
// UTC), that contains t. It panics if iv is not Valid.
func (iv Interval) Start(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return newBucketIter(t, iv, loc).start
}

// Next returns the start of the bucket after the one, of length iv in loc
// (nil means UTC), that contains t: the first bucket boundary after t. It
// panics if iv is not Valid.
func (iv Interval) Next(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return newBucketIter(t, iv, loc).next()
}

// estimateBuckets returns about how many buckets [from, to) needs, to size
// the slice, never more than MaxBuckets.
func estimateBuckets(from, to time.Time, iv Interval) int {
	per := time.Hour
	switch iv {
	case IntervalDay:
		per = 24 * time.Hour
	case IntervalWeek:
		per = 7 * 24 * time.Hour
	case IntervalMonth:
		per = 28 * 24 * time.Hour
	}
	n := to.Sub(from)/per + 2
	if n > MaxBuckets {
		return MaxBuckets
	}
	return int(n)
}

// bucketIter walks the buckets of one interval in one zone. For calendar
// intervals it keeps the local date that names the current bucket (its
// label), so that the next one is found without reading the date again.
type bucketIter struct {
	iv    Interval
	loc   *time.Location
	start time.Time // the current bucket's start
	label time.Time // calendar intervals: the bucket's local date, as a UTC midnight
}

// newBucketIter returns an iterator at the bucket that contains t.
func newBucketIter(t time.Time, iv Interval, loc *time.Location) *bucketIter {
	it := &bucketIter{iv: iv, loc: loc}
	switch iv {
	case IntervalHour:
		it.start = hourStart(t, loc)
	case IntervalDay, IntervalWeek, IntervalMonth:
		lt := t.In(loc)
		d := it.floor(time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, time.UTC))
		s := dayStart(d, loc)
		// Where midnight happens twice, t may read date d before the bucket
		// of d begins: it then belongs to an earlier bucket.
		for s.After(t) {
			d = it.step(d, -1)
			s = dayStart(d, loc)
		}
		it.label, it.start = d, s
	default:
		panic(fmt.Sprintf("analytics: invalid interval %q", string(iv)))
	}
	return it
}

// next moves to the following bucket and returns its start.
func (it *bucketIter) next() time.Time {
	if it.iv == IntervalHour {
		it.start = hourNext(it.start, it.loc)
		return it.start
	}
	d := it.step(it.label, 1)
	s := dayStart(d, it.loc)
	for !s.After(it.start) { // a date the zone skipped has no bucket
		d = it.step(d, 1)
		s = dayStart(d, it.loc)
	}
	it.label, it.start = d, s
	return s
}

// floor returns the label of the calendar bucket that contains local date
// d: d itself, its Monday, or the first of its month.
func (it *bucketIter) floor(d time.Time) time.Time {
	switch it.iv {
	case IntervalWeek:
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case IntervalMonth:
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return d
}

// step returns the label n buckets after label d.
func (it *bucketIter) step(d time.Time, n int) time.Time {
	switch it.iv {
	case IntervalWeek:
		return d.AddDate(0, 0, 7*n)
	case IntervalMonth:
		return d.AddDate(0, n, 0) // labels are firsts of months: no overflow
	}
	return d.AddDate(0, 0, n)
}

// zoneSlack bounds how far a local clock may be from UTC, with room to
// spare: real offsets, local mean times included, stay within 16 hours.
const zoneSlack = 30 * 60 * 60

// dayStart returns the start of local date d (given as a UTC midnight) in
// loc: the instant after which the local date is never before d again,
// the supremum of {t : localDate(t) < d}.
//
// Within one zone period [start, end) of offset off, the local date is
// before d exactly for t < w - off, where w is d's midnight read as UTC. So
// the answer is min(end, w - off) for the last period that has any such
// instant. Only the periods within zoneSlack of w can matter.
func dayStart(d time.Time, loc *time.Location) time.Time {
	w := d.Unix()
	t := time.Unix(w-zoneSlack, 0).In(loc)
	best := w - zoneSlack
	for {
		_, off := t.Zone()
		end := zoneEnd(t)
		if lim := w - int64(off); t.Unix() < lim {
			if end.IsZero() || end.Unix() >= lim {
				best = lim
			} else {
				best = end.Unix()
			}
		}
		if end.IsZero() || end.Unix() > w+zoneSlack {
			break
		}
		t = end
	}
	return time.Unix(best, 0).In(loc)
}

// hourStart returns the last hour boundary at or before t in loc: the
// last instant at which the local clock showed a full hour, or the zone's
// offset changed, whichever is later.
func hourStart(t time.Time, loc *time.Location) time.Time {
	for {
		lt := t.In(loc)
		_, off := lt.Zone()
		begin, _ := lt.ZoneBounds()
		o := int64(off)
		onHour := floorDiv(lt.Unix()+o, 3600)*3600 - o
		if begin.IsZero() || begin.Unix() <= onHour || begin.After(lt) {
			return time.Unix(onHour, 0).In(loc)
		}
		// The zone period began after the last full hour: its beginning is a
		// boundary if the offset changed there; if only the zone's name or
		// DST flag did, look further back.
		if _, prev := begin.Add(-time.Second).In(loc).Zone(); prev != off {
			return begin
		}
		t = begin.Add(-time.Second)
	}
}

// hourNext returns the first hour boundary after t in loc (see hourStart).
func hourNext(t time.Time, loc *time.Location) time.Time {
	for {
		lt := t.In(loc)
		_, off := lt.Zone()
		end := zoneEnd(lt)
		o := int64(off)
		onHour := (floorDiv(lt.Unix()+o, 3600)+1)*3600 - o
		if end.IsZero() || end.Unix() >= onHour {
			return time.Unix(onHour, 0).In(loc)
		}
		if _, nextOff := end.Zone(); nextOff != off {
			return end
		}
		t = end // the same offset goes on: so does the count of hours
	}
}

// zoneEnd returns when the zone period that contains t ends (the end of
// t.ZoneBounds), or the zero Time when the zone never changes again.
//
// Past the last transition of the database, the time package derives
// periods from the zone's rule, and splits them at each UTC year. On the
// last day of a leap year it answers bounds that end at or before t; the
// period is then taken to end at the next UTC year, where the bounds are
// right again. No zone's rule moves its clocks on 31 December.
func zoneEnd(t time.Time) time.Time {
	_, end := t.ZoneBounds()
	if end.IsZero() || end.After(t) {
		return end
	}
	return time.Date(t.UTC().Year()+1, time.January, 1, 0, 0, 0, 0, time.UTC).In(t.Location())
}

// floorDiv returns a / b rounded towards negative infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
