package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/web"
)

// The analytics page, GET /dashboard/o/{org_id}/analytics, shows the clicks
// and installs of the organization, or of one link (link={id}), over a
// window of whole days ending with the current UTC hour (days: 1, 7, 30 or
// 90; analyticsWindow), bucketed by interval (hour,
// day, week or month) in a time zone (tz, an IANA name): a time series and
// breakdowns, read through analytics.Queries as GET /v1/analytics/... reads
// them, with the member's scopes and role (a member sees their own links'
// clicks). A refusal of the plan (the Free look-back) or a bad time zone is
// shown on the page, which keeps the form. Countries are shown by their
// English names (countryLabel), and the page offers to export its clicks
// (dashboard_exports.go).

// analyticsParams are the page's query parameters; any other, or one given
// twice, is a 400 page.
var analyticsPageParams = []string{"link", "days", "interval", "tz"}

var (
	analyticsDays = []web.Option{{Value: "1", Label: "Last 24 hours"}, {Value: "7", Label: "Last 7 days"},
		{Value: "30", Label: "Last 30 days"}, {Value: "90", Label: "Last 90 days"}}
	analyticsIntervals = []web.Option{{Value: "hour", Label: "Hours"}, {Value: "day", Label: "Days"},
		{Value: "week", Label: "Weeks"}, {Value: "month", Label: "Months"}}
	// analyticsBreakdowns are the page's breakdowns, in order.
	analyticsBreakdowns = []struct{ by, title, dimension string }{
		{"platform", "Clicks by platform", "Platform"},
		{"country", "Clicks by country", "Country"},
		{"os", "Clicks by operating system", "Operating system"},
		{"browser", "Clicks by browser", "Browser"},
		{"referer_host", "Clicks by referrer", "Referrer"},
		{"utm_source", "Clicks by UTM source", "UTM source"},
		{"utm_campaign", "Clicks by UTM campaign", "UTM campaign"},
	}
)

// analyticsWindow returns the window of the given days that the analytics
// page shows at now: it ends at the end of now's UTC hour, not at now, so
// that its edges are whole hours, which the rollups answer from their hour
// rows without reading the quarter hours (or, for a link, the raw clicks)
// at the edges. The rest of the hour holds no clicks yet.
func analyticsWindow(now time.Time, days int) (from, to time.Time) {
	to = now.UTC().Truncate(time.Hour)
	if to.Before(now) {
		to = to.Add(time.Hour)
	}
	return to.Add(-time.Duration(days) * 24 * time.Hour), to
}

// maxTimezoneLen bounds the time zone a URL may name.
const maxTimezoneLen = 64

func (d *dashboard) analyticsRoutes(root routes) {
	root.handle(http.MethodGet, "/dashboard/o/:org/analytics", d.orgPage(d.analyticsPage))
	d.exportRoutes(root)
}

// hasAnalytics reports whether c's member is offered the analytics page.
func (d *dashboard) hasAnalytics(c *dashCtx) bool {
	if d.a.opts.Analytics == nil {
		return false
	}
	return c.may(auth.ScopeAnalyticsRead, auth.ActAnalyticsRead)
}

// analyticsPath is the analytics page of link id, or of the organization
// when id is nil.
func (c *dashCtx) analyticsPath(id *uuid.UUID) string {
	if id == nil {
		return c.base + "/analytics"
	}
	return c.base + "/analytics?link=" + id.String()
}

// analyticsPage answers GET /analytics.
func (d *dashboard) analyticsPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !c.analytics {
		return d.notFound(w, r, c, "There are no analytics to show you here.")
	}
	q := r.URL.Query()
	v := &web.AnalyticsView{Path: c.analyticsPath(nil), Days: "30", Interval: "day", Timezone: "UTC",
		DayOptions: analyticsDays, IntervalOptions: analyticsIntervals}
	view := web.DashboardView{Frame: web.Frame{Title: "Analytics"}, Nav: c.nav("Analytics"), Analytics: v}
	bad := func(msg string) error {
		view.Error = msg
		return d.render(w, r, c, http.StatusBadRequest, web.PageDashboardAnalytics, view)
	}
	if err := strictValues(q, analyticsPageParams...).err(); err != nil {
		_, msg, _ := dashboardError(err)
		return bad(msg)
	}
	if s := q.Get("days"); s != "" {
		v.Days = s
		if !hasOption(analyticsDays, s) {
			return bad("Choose one of the windows offered.")
		}
	}
	if v.Days == "1" {
		v.Interval = "hour"
	}
	if s := q.Get("interval"); s != "" {
		v.Interval = s
		if !hasOption(analyticsIntervals, s) {
			return bad("Choose one of the bucket sizes offered.")
		}
	}
	if s := q.Get("tz"); s != "" {
		v.Timezone = s
		if len(s) > maxTimezoneLen {
			v.Timezone = s[:maxTimezoneLen]
			return bad("The time zone is not one we know: use an IANA name such as Europe/Berlin.")
		}
	}
	var in analytics.Params
	if s := q.Get("link"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return d.notFound(w, r, c, "There is no such link in this organization.")
		}
		l, err := d.a.opts.Links.Get(r.Context(), c.p, id)
		if errcode.CodeOf(err) == errcode.NotFound {
			return d.notFound(w, r, c, "There is no such link in this organization.")
		}
		if err != nil {
			return d.serviceError(w, r, c, err)
		}
		v.LinkID, v.LinkTitle, v.LinkPath = id.String(), linkTitle(&l.Link), c.linkPath(id)
		view.Title = "Analytics of " + v.LinkTitle
		in.LinkID = &v.LinkID
	}
	days, _ := strconv.Atoi(v.Days)
	fromT, toT := analyticsWindow(d.p.clock(), days)
	from, to := fromT.Format(time.RFC3339), toT.Format(time.RFC3339)
	in.From, in.To = &from, &to

	refused := func(err error) error {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		if errcode.CodeOf(err) == errcode.ValidationError {
			msg = "The time zone is not one we know: use an IANA name such as Europe/Berlin."
		}
		view.Error = msg
		return d.render(w, r, c, status, web.PageDashboardAnalytics, view)
	}
	ts, err := d.a.opts.Analytics.TimeSeries(r.Context(), c.p, analytics.TimeSeriesQuery{Params: in, Interval: &v.Interval, Timezone: &v.Timezone})
	if err != nil {
		return refused(err)
	}
	loc, err := time.LoadLocation(ts.Window.Timezone)
	if err != nil {
		loc = time.UTC
	}
	series := &web.TimeSeries{ID: "series", Title: "Clicks and installs per " + v.Interval, Interval: v.Interval, Timezone: ts.Window.Timezone}
	for _, p := range ts.Data {
		series.Buckets = append(series.Buckets, web.Bucket{Start: p.Start.In(loc), Clicks: p.Clicks, Installs: p.Installs})
	}
	v.Series = series
	v.From, v.To = ts.Window.From.In(loc).Format("2 Jan 2006 15:04"), ts.Window.To.In(loc).Format("2 Jan 2006 15:04")
	v.Clicks, v.Installs = strconv.FormatInt(ts.Total.Clicks, 10), strconv.FormatInt(ts.Total.Installs, 10)
	if u := ts.Total.UnstoredClicks; u != nil && *u > 0 {
		v.Unstored = strconv.FormatInt(*u, 10)
	}
	for _, b := range analyticsBreakdowns {
		by := b.by
		res, err := d.a.opts.Analytics.Breakdown(r.Context(), c.p, analytics.BreakdownQuery{Params: in, By: &by})
		if err != nil {
			return refused(err)
		}
		chart := web.Breakdown{ID: "by-" + b.by, Title: b.title, Dimension: b.dimension,
			Other: web.Counts{Clicks: res.Other.Clicks, Installs: res.Other.Installs}}
		for _, row := range res.Data {
			value := row.Value
			if b.by == "country" && value != nil {
				value = ptrTo(countryLabel(*value))
			}
			chart.Rows = append(chart.Rows, web.BreakdownRow{Value: value, Counts: web.Counts{Clicks: row.Clicks, Installs: row.Installs}})
		}
		v.Breakdowns = append(v.Breakdowns, chart)
	}
	if d.a.opts.Exports != nil {
		v.Export = &web.ExportForm{Action: c.exportsPath(), Days: v.Days, LinkID: v.LinkID, ListPath: c.exportsPath()}
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardAnalytics, view)
}

// countryNames names regions in English, from the Unicode CLDR data that
// golang.org/x/text carries.
var countryNames = display.English.Regions()

// countryLabel is how the analytics page shows a country code (ISO 3166-1
// alpha-2, as the click store keeps it): its English name and the code,
// "Germany (DE)". A code CLDR does not name (a user-assigned one such as
// XX, or not a region code at all) is shown as it is.
func countryLabel(code string) string {
	r, err := language.ParseRegion(code)
	if err != nil || !r.IsCountry() {
		return code
	}
	name := countryNames.Name(r)
	if name == "" {
		return code
	}
	return name + " (" + code + ")"
}

// hasOption reports whether value is one of options'.
func hasOption(options []web.Option, value string) bool {
	return slices.ContainsFunc(options, func(o web.Option) bool { return o.Value == value })
}
