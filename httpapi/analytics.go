package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/analytics"
)

// analyticsRoutes registers the click analytics queries on v1.
func (a *API) analyticsRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/analytics/timeseries", a.analyticsTimeSeries)
	v1.handle(http.MethodGet, "/analytics/breakdown", a.analyticsBreakdown)
}

// analyticsFilterParams are the query parameters both queries take.
var analyticsFilterParams = []string{"from", "to", "link_id", "app_id", "domain", "tag", "source", "platform",
	"country", "utm_source", "utm_medium", "utm_campaign"}

// analyticsParams reads the parameters both queries share from q; an
// unknown or repeated parameter is noted for the service to report after
// its scope and role checks.
func analyticsParams(q *query) analytics.Params {
	return analytics.Params{
		From: q.str("from"), To: q.str("to"), LinkID: q.str("link_id"), AppID: q.str("app_id"),
		Domain: q.str("domain"), Tag: q.str("tag"), Source: q.str("source"), Platform: q.str("platform"),
		Country: q.str("country"), UTMSource: q.str("utm_source"), UTMMedium: q.str("utm_medium"),
		UTMCampaign: q.str("utm_campaign"), Invalid: q.fields,
	}
}

// analyticsTimeSeries answers GET /v1/analytics/timeseries
// (analytics.Queries.TimeSeries).
func (a *API) analyticsTimeSeries(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, append([]string{"interval", "timezone"}, analyticsFilterParams...)...)
	out, err := a.opts.Analytics.TimeSeries(req.Context(), principal(req), analytics.TimeSeriesQuery{
		Params: analyticsParams(q), Interval: q.str("interval"), Timezone: q.str("timezone")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// analyticsBreakdown answers GET /v1/analytics/breakdown
// (analytics.Queries.Breakdown).
func (a *API) analyticsBreakdown(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, append([]string{"by", "limit"}, analyticsFilterParams...)...)
	out, err := a.opts.Analytics.Breakdown(req.Context(), principal(req), analytics.BreakdownQuery{
		Params: analyticsParams(q), By: q.str("by"), Limit: q.str("limit")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
