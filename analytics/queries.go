package analytics

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the host has installed

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

// Slot is the granularity at which the store counts clicks for a time
// series and keeps unstored clicks: a quarter hour of UTC. Every bucket
// boundary of a series in a zone whose offsets are whole quarter hours
// (every zone in use today) falls on a slot boundary, so counts per slot
// add up to counts per bucket exactly.
const Slot = 15 * time.Minute

// SlotOf returns the start of the slot that holds t, in UTC.
func SlotOf(t time.Time) time.Time { return t.UTC().Truncate(Slot) }

// Dimension is what a breakdown groups clicks by (issue 15,
// GET /v1/analytics/breakdown, parameter by).
type Dimension string

// The dimensions of a breakdown. Link and App group by id; the others by
// the click's own field; RefererHost by the host of its referer
// (RefererHost).
const (
	DimLink         Dimension = "link"
	DimApp          Dimension = "app"
	DimDomain       Dimension = "domain"
	DimSource       Dimension = "source"
	DimPlatform     Dimension = "platform"
	DimOS           Dimension = "os"
	DimOSVersion    Dimension = "os_version"
	DimBrowser      Dimension = "browser"
	DimDeviceModel  Dimension = "device_model"
	DimInAppBrowser Dimension = "in_app_browser"
	DimCountry      Dimension = "country"
	DimRefererHost  Dimension = "referer_host"
	DimUTMSource    Dimension = "utm_source"
	DimUTMMedium    Dimension = "utm_medium"
	DimUTMCampaign  Dimension = "utm_campaign"
	DimUTMTerm      Dimension = "utm_term"
	DimUTMContent   Dimension = "utm_content"
)

// Dimensions lists every dimension, in the order the API documents them.
func Dimensions() []Dimension {
	return []Dimension{DimLink, DimApp, DimDomain, DimSource, DimPlatform, DimOS, DimOSVersion, DimBrowser,
		DimDeviceModel, DimInAppBrowser, DimCountry, DimRefererHost, DimUTMSource, DimUTMMedium, DimUTMCampaign,
		DimUTMTerm, DimUTMContent}
}

// Valid reports whether d is one of Dimensions.
func (d Dimension) Valid() bool {
	for _, v := range Dimensions() {
		if d == v {
			return true
		}
	}
	return false
}

// Breakdown limits (issue 15).
const (
	DefaultBreakdownLimit = 10
	MaxBreakdownLimit     = 100
)

// ClickSet names the clicks a query counts: organization OrgID's clicks in
// Window that pass Filter, and when CreatedBy is set only the clicks of
// links that member created (a member's reach, auth.Own).
type ClickSet struct {
	OrgID     uuid.UUID
	Window    Window
	Filter    Filter
	CreatedBy *uuid.UUID
}

// SlotCount is what a ClickSet holds in one slot: its clicks, and how many
// of them an install was attributed to.
type SlotCount struct {
	// Start is the slot's start, in UTC.
	Start    time.Time
	Clicks   int64
	Installs int64
}

// ValueCount is what a ClickSet holds for one value of a dimension.
type ValueCount struct {
	// Value is nil for clicks whose value is unknown (stored empty, or no
	// app).
	Value    *string
	Clicks   int64
	Installs int64
}

// QueryStore is what the analytics queries read; package store implements
// it. It is kept small, so that a click store built another way (rollups
// instead of raw rows) can answer the same questions.
//
// Installs are attributed installs (those with a click) counted with their
// click: in the click's slot and by the click's values, for clicks of the
// set.
type QueryStore interface {
	// CountClickSlots returns the clicks and installs of set per Slot, in
	// any order, leaving out empty slots. Only clicks inside set.Window
	// count, however it cuts a slot.
	CountClickSlots(ctx context.Context, set ClickSet) ([]SlotCount, error)
	// CountClicksBy returns the clicks and installs of set per value of by,
	// one entry per value (all unknown values in one nil entry), in any
	// order, leaving out values without clicks.
	CountClicksBy(ctx context.Context, set ClickSet, by Dimension) ([]ValueCount, error)
	// UnstoredClicks returns how many of the organization's clicks were
	// counted but not stored in the slots that start in w.
	UnstoredClicks(ctx context.Context, orgID uuid.UUID, w Window) (int64, error)
}

// OrgReader reads an organization's plan for the queries' window;
// *org.Service implements it.
type OrgReader interface {
	// ByID returns the organization id; a NOT_FOUND error when there is none.
	ByID(ctx context.Context, id uuid.UUID) (*org.Organization, error)
}

// QueriesOptions configure Queries. The zero value is usable.
type QueriesOptions struct {
	// Clock is the time the default window ends at and the plan's
	// look-back counts from; time.Now when nil.
	Clock func() time.Time
}

// Queries answers the click analytics queries (issue 15): the time series
// and the breakdown. GET /v1/analytics/timeseries, GET
// /v1/analytics/breakdown and the MCP tool get_analytics call it alike. It
// owns the scope and role checks, the parsing of the parameters and the
// plan's window. It is safe for concurrent use.
type Queries struct {
	store QueryStore
	orgs  OrgReader
	clock func() time.Time
}

// NewQueries returns the queries over store, reading plans from orgs.
func NewQueries(store QueryStore, orgs OrgReader, opts QueriesOptions) *Queries {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Queries{store: store, orgs: orgs, clock: opts.Clock}
}

// Params are the parameters both queries take, each the text the client
// sent (nil when absent), whether as a query parameter or as an MCP tool
// argument, so that every adapter is parsed and refused alike.
type Params struct {
	// From is the inclusive start, an RFC 3339 instant with an offset; To
	// the exclusive end. See ResolveWindow for their defaults and rules.
	From, To *string
	// LinkID and AppID are UUIDs.
	LinkID, AppID *string
	// Domain, Tag, UTMSource, UTMMedium and UTMCampaign match exactly.
	Domain, Tag, UTMSource, UTMMedium, UTMCampaign *string
	// Source is "redirect" or "app_open"; Platform "ios", "android",
	// "desktop" or "unknown"; Country an ISO 3166-1 alpha-2 code in
	// upper case.
	Source, Platform, Country *string
	// Invalid are the problems the adapter found reading its request (an
	// unknown or repeated query parameter). They are reported after the
	// scope and role checks, ahead of the parameters' own problems, in one
	// 400 VALIDATION_ERROR.
	Invalid []errcode.FieldError
}

// TimeSeriesQuery asks for a time series.
type TimeSeriesQuery struct {
	Params
	// Interval is hour, day, week or month; DefaultInterval when nil.
	Interval *string
	// Timezone is an IANA zone name ("Europe/Berlin"); UTC when nil.
	Timezone *string
}

// BreakdownQuery asks for a breakdown.
type BreakdownQuery struct {
	Params
	// By is a Dimension; required.
	By *string
	// Limit is a decimal integer from 1 to MaxBreakdownLimit;
	// DefaultBreakdownLimit when nil.
	Limit *string
}

// Counts are the clicks and installs of a bucket, a value or the rest.
type Counts struct {
	Clicks   int64 `json:"clicks"`
	Installs int64 `json:"installs"`
}

// Totals are the counts of a whole answer, and the clicks of the window
// that were counted but not stored (past the monthly allowance or over the
// recorder's buffer). UnstoredClicks is nil when the query has a filter or
// the caller reads only their own links' clicks: unstored clicks keep no
// link or other value to filter them by.
type Totals struct {
	Clicks         int64  `json:"clicks"`
	Installs       int64  `json:"installs"`
	UnstoredClicks *int64 `json:"unstored_clicks"`
}

// SeriesPoint is one bucket of a time series.
type SeriesPoint struct {
	// Start is the bucket's start, with the offset of the series' zone.
	Start    time.Time `json:"start"`
	Clicks   int64     `json:"clicks"`
	Installs int64     `json:"installs"`
}

// SeriesWindow is the window a time series read, with its interval and
// zone.
type SeriesWindow struct {
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Interval Interval  `json:"interval"`
	Timezone string    `json:"timezone"`
}

// TimeSeries is the answer of TimeSeries.
type TimeSeries struct {
	// Data has every bucket of the window, oldest first, zeros included;
	// never nil.
	Data   []SeriesPoint `json:"data"`
	Total  Totals        `json:"total"`
	Window SeriesWindow  `json:"window"`
}

// BreakdownRow is one value of a breakdown.
type BreakdownRow struct {
	// Value is nil for unknown values, never "".
	Value    *string `json:"value"`
	Clicks   int64   `json:"clicks"`
	Installs int64   `json:"installs"`
}

// Breakdown is the answer of Breakdown.
type Breakdown struct {
	// Data holds the top values by clicks, ties by value (unknown last);
	// never nil.
	Data []BreakdownRow `json:"data"`
	// Other sums the values beyond the limit.
	Other  Counts `json:"other"`
	Total  Totals `json:"total"`
	Window Window `json:"window"`
}

var errAnalyticsScope = errcode.New(errcode.Forbidden, "this key needs the analytics:read scope")

// authorize checks the scope analytics:read and the role's reach for
// click analytics; it returns the member to narrow the clicks to, if any.
func authorize(p *auth.Principal) (*uuid.UUID, error) {
	if !p.Scopes.Has(auth.ScopeAnalyticsRead) {
		return nil, errAnalyticsScope
	}
	reach, err := p.Authorize(auth.ScopeAnalyticsRead, auth.ActAnalyticsRead)
	if err != nil {
		return nil, err
	}
	if reach == auth.Own {
		return p.CreatedBy, nil
	}
	return nil, nil
}

// TimeSeries returns the clicks and installs of the window per bucket of
// the interval in the zone (issue 15): every bucket present, zeros
// included. FORBIDDEN without the scope or role; VALIDATION_ERROR naming
// every bad parameter (a window of more than MaxBuckets buckets names
// interval); LOOKBACK_EXCEEDED and RETENTION_WINDOW_UNAVAILABLE as
// ResolveWindow says. A member's key counts the clicks of the links that
// member created.
func (q *Queries) TimeSeries(ctx context.Context, p *auth.Principal, in TimeSeriesQuery) (*TimeSeries, error) {
	createdBy, err := authorize(p)
	if err != nil {
		return nil, err
	}
	var fields errcode.FieldErrors
	from, to, filter := parseParams(in.Params, &fields)
	interval := DefaultInterval
	if in.Interval != nil {
		if iv := Interval(*in.Interval); iv.Valid() {
			interval = iv
		} else {
			fields.Add("interval", "must be one of hour, day, week, month")
		}
	}
	loc, zone := time.UTC, "UTC"
	if in.Timezone != nil {
		if l, ok := loadZone(*in.Timezone); ok {
			loc, zone = l, *in.Timezone
		} else {
			fields.Add("timezone", "must be an IANA time zone name, such as Europe/Berlin")
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	w, err := q.window(ctx, p.OrgID, from, to)
	if err != nil {
		return nil, err
	}
	starts, err := Buckets(w.From, w.To, interval, loc)
	if err != nil {
		return nil, err
	}
	set := ClickSet{OrgID: p.OrgID, Window: w, Filter: filter, CreatedBy: createdBy}
	slots, err := q.store.CountClickSlots(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("analytics: time series: %w", err)
	}
	out := &TimeSeries{Data: make([]SeriesPoint, len(starts)),
		Window: SeriesWindow{From: w.From, To: w.To, Interval: interval, Timezone: zone}}
	for i, s := range starts {
		out.Data[i].Start = s
	}
	for _, s := range slots {
		// A slot starts at or after the first bucket (whose start is a slot
		// boundary at or before the window's start); a zone with an offset
		// that is no whole quarter hour (local mean time, before 1980)
		// could still place one before it.
		i := max(BucketIndex(starts, s.Start), 0)
		out.Data[i].Clicks += s.Clicks
		out.Data[i].Installs += s.Installs
		out.Total.Clicks += s.Clicks
		out.Total.Installs += s.Installs
	}
	if out.Total.UnstoredClicks, err = q.unstored(ctx, set); err != nil {
		return nil, err
	}
	return out, nil
}

// Breakdown returns the clicks and installs of the window per value of a
// dimension (issue 15): the limit values with the most clicks, ties by
// value (unknown last), the rest summed in Other, and the totals. Its
// errors are those of TimeSeries, with by and limit validated.
func (q *Queries) Breakdown(ctx context.Context, p *auth.Principal, in BreakdownQuery) (*Breakdown, error) {
	createdBy, err := authorize(p)
	if err != nil {
		return nil, err
	}
	var fields errcode.FieldErrors
	from, to, filter := parseParams(in.Params, &fields)
	var by Dimension
	switch {
	case in.By == nil:
		fields.Add("by", "is required")
	case !Dimension(*in.By).Valid():
		names := make([]string, 0, len(Dimensions()))
		for _, d := range Dimensions() {
			names = append(names, string(d))
		}
		fields.Add("by", "must be one of "+strings.Join(names, ", "))
	default:
		by = Dimension(*in.By)
	}
	limit := DefaultBreakdownLimit
	if in.Limit != nil {
		n, err := strconv.Atoi(*in.Limit)
		switch {
		case err != nil:
			fields.Add("limit", "must be an integer")
		case n < 1 || n > MaxBreakdownLimit:
			fields.Add("limit", "must be 1 to 100")
		default:
			limit = n
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	w, err := q.window(ctx, p.OrgID, from, to)
	if err != nil {
		return nil, err
	}
	set := ClickSet{OrgID: p.OrgID, Window: w, Filter: filter, CreatedBy: createdBy}
	values, err := q.store.CountClicksBy(ctx, set, by)
	if err != nil {
		return nil, fmt.Errorf("analytics: breakdown: %w", err)
	}
	sort.Slice(values, func(i, j int) bool { return rankBefore(values[i], values[j]) })
	out := &Breakdown{Data: make([]BreakdownRow, 0, min(limit, len(values))), Window: w}
	for i, v := range values {
		out.Total.Clicks += v.Clicks
		out.Total.Installs += v.Installs
		if i < limit {
			out.Data = append(out.Data, BreakdownRow(v))
			continue
		}
		out.Other.Clicks += v.Clicks
		out.Other.Installs += v.Installs
	}
	if out.Total.UnstoredClicks, err = q.unstored(ctx, set); err != nil {
		return nil, err
	}
	return out, nil
}

// rankBefore orders a breakdown: more clicks first, then by value, the
// unknown value after every known one.
func rankBefore(a, b ValueCount) bool {
	if a.Clicks != b.Clicks {
		return a.Clicks > b.Clicks
	}
	if a.Value == nil || b.Value == nil {
		return b.Value == nil && a.Value != nil
	}
	return *a.Value < *b.Value
}

// unstored returns the unstored clicks of set's window, or nil when set is
// narrowed by a filter or to a member's links (see Totals).
func (q *Queries) unstored(ctx context.Context, set ClickSet) (*int64, error) {
	if set.CreatedBy != nil || set.Filter != (Filter{}) {
		return nil, nil
	}
	n, err := q.store.UnstoredClicks(ctx, set.OrgID, set.Window)
	if err != nil {
		return nil, fmt.Errorf("analytics: unstored clicks: %w", err)
	}
	return &n, nil
}

// window resolves the window of organization orgID's query now, and
// widens it to whole slots (Window.OnSlots): the plan's look-back and
// retention are checked on the window as asked, and the answer's window
// is the widened one.
func (q *Queries) window(ctx context.Context, orgID uuid.UUID, from, to *time.Time) (Window, error) {
	o, err := q.orgs.ByID(ctx, orgID)
	if err != nil {
		return Window{}, err
	}
	w, err := ResolveWindow(o.Plan, from, to, q.clock())
	if err != nil {
		return w, err
	}
	return w.OnSlots(), nil
}

// loadZone returns the IANA zone name; "Local" and "" are refused, so that
// the answer never depends on the server's own zone.
func loadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// parseParams parses the shared parameters, noting in.Invalid and then
// each bad value in fields.
func parseParams(in Params, fields *errcode.FieldErrors) (from, to *time.Time, f Filter) {
	*fields = append(*fields, in.Invalid...)
	instant := func(s *string, name string) *time.Time {
		if s == nil {
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, *s)
		if err != nil {
			fields.Add(name, "must be an RFC 3339 instant with an offset, such as 2026-01-02T15:04:05Z")
			return nil
		}
		return &t
	}
	from, to = instant(in.From, "from"), instant(in.To, "to")
	id := func(s *string, name string) *uuid.UUID {
		if s == nil {
			return nil
		}
		v, err := uuid.Parse(*s)
		if err != nil || len(*s) != 36 {
			fields.Add(name, "must be a UUID")
			return nil
		}
		return &v
	}
	f.LinkID, f.AppID = id(in.LinkID, "link_id"), id(in.AppID, "app_id")
	text := func(s *string, name string) *string {
		if s == nil {
			return nil
		}
		if *s == "" || len(*s) > MaxText {
			fields.Add(name, fmt.Sprintf("must be 1 to %d bytes", MaxText))
			return nil
		}
		return s
	}
	f.Domain, f.Tag = text(in.Domain, "domain"), text(in.Tag, "tag")
	f.UTMSource, f.UTMMedium, f.UTMCampaign = text(in.UTMSource, "utm_source"), text(in.UTMMedium, "utm_medium"),
		text(in.UTMCampaign, "utm_campaign")
	oneOf := func(s *string, name string, allowed ...string) *string {
		if s == nil {
			return nil
		}
		for _, a := range allowed {
			if *s == a {
				return s
			}
		}
		fields.Add(name, "must be one of "+strings.Join(allowed, ", "))
		return nil
	}
	f.Source = oneOf(in.Source, "source", string(SourceRedirect), string(SourceAppOpen))
	f.Platform = oneOf(in.Platform, "platform", "ios", "android", "desktop", "unknown")
	if in.Country != nil {
		if c := *in.Country; len(c) == 2 && isUpper(c[0]) && isUpper(c[1]) {
			f.Country = in.Country
		} else {
			fields.Add("country", "must be an ISO 3166-1 alpha-2 code in upper case, such as US")
		}
	}
	return from, to, f
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }
