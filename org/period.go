package org

import "time"

// PeriodStart returns the start of the monthly billing period that holds
// now, for an organization whose billing_period_start is anchor. Periods
// start on the anchor's day of the month at the anchor's time of day (UTC),
// every month; in a month too short for that day, on its last day (a
// January 31 anchor gives February 28 or 29, then March 31). Before the
// anchor, the anchor itself. The result is in UTC.
func PeriodStart(anchor, now time.Time) time.Time {
	anchor, now = anchor.UTC(), now.UTC()
	if !now.After(anchor) {
		return anchor
	}
	months := (now.Year()-anchor.Year())*12 + int(now.Month()-anchor.Month())
	start := addMonths(anchor, months)
	for start.After(now) {
		months--
		start = addMonths(anchor, months)
	}
	return start
}

// addMonths returns t moved by n months, keeping its day of the month, or
// the last day of the target month when that month is shorter.
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if last := first.AddDate(0, 1, -1).Day(); d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}
