package analytics

import (
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/org"
)

// DefaultWindow is the window of an analytics query or export that names
// neither from nor to: the last 30 days.
const DefaultWindow = 30 * 24 * time.Hour

// Filter narrows the clicks an analytics query or an export reads (issue
// 15: link_id, app_id, domain, tag, source, platform, country, utm_source,
// utm_medium, utm_campaign). A nil field does not filter; a set one keeps
// the clicks whose value equals it exactly, Tag the clicks of links that
// carry the tag. Every filter applies to the organization's own clicks only.
type Filter struct {
	LinkID      *uuid.UUID `json:"link_id,omitempty"`
	AppID       *uuid.UUID `json:"app_id,omitempty"`
	Domain      *string    `json:"domain,omitempty"`
	Tag         *string    `json:"tag,omitempty"`
	Source      *string    `json:"source,omitempty"`
	Platform    *string    `json:"platform,omitempty"`
	Country     *string    `json:"country,omitempty"`
	UTMSource   *string    `json:"utm_source,omitempty"`
	UTMMedium   *string    `json:"utm_medium,omitempty"`
	UTMCampaign *string    `json:"utm_campaign,omitempty"`
}

// Window is the half-open interval [From, To) of clicks a query or an export
// reads, From after the plan's retention raised it.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// OnSlots returns w widened to whole slots of UTC: From rounded down and
// To rounded up to a quarter hour (Slot). The analytics queries read
// windows so widened, which the store's rollups answer exactly; the
// buckets of a time series start on local midnights or hours, which are
// quarter hours of UTC in every zone in use.
func (w Window) OnSlots() Window {
	out := Window{From: SlotOf(w.From), To: SlotOf(w.To)}
	if out.To.Before(w.To.UTC()) {
		out.To = out.To.Add(Slot)
	}
	return out
}

// ResolveWindow applies the plan rules to a requested window of an
// organization on plan at now. from and to may be nil (absent): to defaults
// to now and from to DefaultWindow before to. Then:
//   - from must be before to, else 400 VALIDATION_ERROR on "to";
//   - on a plan with a look-back (Free: 30 days), a from earlier than
//     now minus the look-back is 403 LOOKBACK_EXCEEDED with
//     details.earliest_allowed (a defaulted from is raised to it instead);
//   - a window that ends at or before the start of retention is 422
//     RETENTION_WINDOW_UNAVAILABLE with details.earliest_allowed;
//   - a from before the start of retention is raised to it, so the window's
//     From is the effective start.
//
// Times are truncated to milliseconds, the resolution of the API's times.
func ResolveWindow(plan org.Plan, from, to *time.Time, now time.Time) (Window, error) {
	now = now.UTC().Truncate(time.Millisecond)
	w := Window{To: now}
	if to != nil {
		w.To = to.UTC().Truncate(time.Millisecond)
	}
	var requested *time.Time
	if from != nil {
		f := from.UTC().Truncate(time.Millisecond)
		requested = &f
	}
	var err error
	w.From, err = org.LimitsOf(plan).ReadFrom(now, requested, w.To.Add(-DefaultWindow), w.To, "clicks")
	return w, err
}
