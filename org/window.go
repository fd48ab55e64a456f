package org

import (
	"time"

	"github.com/hoplink/hoplink/errcode"
)

// ReadFrom applies the plan's look-back and retention to a read of stored
// clicks, installs or attempts over [from, to) at now, and returns the
// effective start of the window (SPEC.md, installs and attempts, rules 1
// and 3 to 5; issue 15 for analytics and exports). from is nil when the
// request named none; defaultFrom is then the start the caller reads by
// default (each reader has its own). what names the data in the
// LOOKBACK_EXCEEDED message ("clicks", "installs and attempts").
//
//   - A requested from must be before to, else 400 VALIDATION_ERROR on "to".
//   - On a plan with a look-back (Free: 30 days), a requested from earlier
//     than now minus the look-back is 403 LOOKBACK_EXCEEDED with
//     details.earliest_allowed; a default from is raised to it instead,
//     unless to is at or before it, which is the same 403.
//   - A window that ends at or before the start of retention is 422
//     RETENTION_WINDOW_UNAVAILABLE with details.earliest_allowed.
//   - A from before the start of retention is raised to it.
//
// The start returned is before to whenever the error is nil.
func (l Limits) ReadFrom(now time.Time, from *time.Time, defaultFrom, to time.Time, what string) (time.Time, error) {
	start := defaultFrom
	if from != nil {
		start = *from
		if !start.Before(to) {
			return start, errcode.Field("to", "must be after from")
		}
	}
	if l.Lookback > 0 {
		earliest := now.Add(-l.Lookback)
		if start.Before(earliest) || (from == nil && !to.After(earliest)) {
			if from != nil || !to.After(earliest) {
				return start, errcode.Newf(errcode.LookbackExceeded, "this plan reads %s of the last %d days only",
					what, int(l.Lookback/day)).WithDetail("earliest_allowed", earliest)
			}
			start = earliest
		}
	}
	retention := now.Add(-l.Retention)
	if !to.After(retention) {
		return start, errcode.New(errcode.RetentionWindowUnavailable, "the window ends before the start of this plan's data retention").
			WithDetail("earliest_allowed", retention)
	}
	if start.Before(retention) {
		start = retention
	}
	return start, nil
}
