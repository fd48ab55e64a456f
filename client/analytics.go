package client

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// AnalyticsFilters narrow the clicks that analytics count; zero values are
// not sent. From and To default to the last 30 days.
type AnalyticsFilters struct {
	From, To time.Time
	LinkID   string
	AppID    string
	Domain   string
	Tag      string
	// Source is "redirect" or "app_open".
	Source string
	// Platform is "ios", "android", "desktop" or "unknown".
	Platform string
	// Country is an ISO 3166-1 alpha-2 code.
	Country     string
	UTMSource   string
	UTMMedium   string
	UTMCampaign string
}

func (f AnalyticsFilters) query() url.Values {
	q := url.Values{}
	setTime(q, "from", f.From)
	setTime(q, "to", f.To)
	setString(q, "link_id", f.LinkID)
	setString(q, "app_id", f.AppID)
	setString(q, "domain", f.Domain)
	setString(q, "tag", f.Tag)
	setString(q, "source", f.Source)
	setString(q, "platform", f.Platform)
	setString(q, "country", f.Country)
	setString(q, "utm_source", f.UTMSource)
	setString(q, "utm_medium", f.UTMMedium)
	setString(q, "utm_campaign", f.UTMCampaign)
	return q
}

// TimeseriesParams are the inputs of GetAnalyticsTimeseries.
type TimeseriesParams struct {
	AnalyticsFilters
	// Interval is "hour", "day" (the default), "week" or "month".
	Interval string
	// Timezone is an IANA zone name; UTC by default.
	Timezone string
}

// BreakdownParams are the inputs of GetAnalyticsBreakdown.
type BreakdownParams struct {
	AnalyticsFilters
	// By is the dimension, such as "country", "link" or "utm_campaign"
	// (required).
	By string
	// Limit is how many values are listed before "other"; 10 by default.
	Limit int
}

// AnalyticsTotals are the totals of a window.
type AnalyticsTotals struct {
	Clicks   int `json:"clicks"`
	Installs int `json:"installs"`
	// UnstoredClicks are clicks counted over the allowance without being
	// stored; nil when the window has none to say.
	UnstoredClicks *int `json:"unstored_clicks"`
}

// AnalyticsCounts are clicks and installs.
type AnalyticsCounts struct {
	Clicks   int `json:"clicks"`
	Installs int `json:"installs"`
}

// AnalyticsTimeseries is the answer of GetAnalyticsTimeseries.
type AnalyticsTimeseries struct {
	Data []struct {
		Start    time.Time `json:"start"`
		Clicks   int       `json:"clicks"`
		Installs int       `json:"installs"`
	} `json:"data"`
	Total  AnalyticsTotals `json:"total"`
	Window struct {
		From     time.Time `json:"from"`
		To       time.Time `json:"to"`
		Interval string    `json:"interval"`
		Timezone string    `json:"timezone"`
	} `json:"window"`
}

// AnalyticsBreakdown is the answer of GetAnalyticsBreakdown.
type AnalyticsBreakdown struct {
	Data []struct {
		// Value is the dimension's value; nil for clicks without one.
		Value    *string `json:"value"`
		Clicks   int     `json:"clicks"`
		Installs int     `json:"installs"`
	} `json:"data"`
	Other  AnalyticsCounts `json:"other"`
	Total  AnalyticsTotals `json:"total"`
	Window Window          `json:"window"`
}

// ClickExportFilters narrow the clicks of an export; empty fields are not
// sent.
type ClickExportFilters struct {
	LinkID      string `json:"link_id,omitempty"`
	AppID       string `json:"app_id,omitempty"`
	Domain      string `json:"domain,omitempty"`
	Tag         string `json:"tag,omitempty"`
	Source      string `json:"source,omitempty"`
	Platform    string `json:"platform,omitempty"`
	Country     string `json:"country,omitempty"`
	UTMSource   string `json:"utm_source,omitempty"`
	UTMMedium   string `json:"utm_medium,omitempty"`
	UTMCampaign string `json:"utm_campaign,omitempty"`
}

// StartClickExportRequest is the body of StartClickExport. To defaults to
// now and From to 30 days before To.
type StartClickExportRequest struct {
	From *time.Time `json:"from,omitempty"`
	To   *time.Time `json:"to,omitempty"`
	ClickExportFilters
}

// ClickExport is a CSV export job of clicks.
type ClickExport struct {
	ID string `json:"id"`
	// Status is "pending", "running", "complete" or "failed".
	Status      string             `json:"status"`
	Rows        int                `json:"rows"`
	Filters     ClickExportFilters `json:"filters"`
	Window      Window             `json:"window"`
	Failure     *string            `json:"failure"`
	CreatedAt   time.Time          `json:"created_at"`
	CompletedAt *time.Time         `json:"completed_at"`
	ExpiresAt   *time.Time         `json:"expires_at"`
	DownloadURL *string            `json:"download_url"`
}

// ClickExportList is a page of click exports.
type ClickExportList struct {
	Data       []ClickExport `json:"data"`
	Pagination Pagination    `json:"pagination"`
}

// GetAnalyticsTimeseries counts clicks and installs per interval
// (GET /analytics/timeseries).
func (c *Client) GetAnalyticsTimeseries(ctx context.Context, p TimeseriesParams) (*AnalyticsTimeseries, error) {
	q := p.query()
	setString(q, "interval", p.Interval)
	setString(q, "timezone", p.Timezone)
	return do[AnalyticsTimeseries](ctx, c, request{method: http.MethodGet, path: "/analytics/timeseries", query: q})
}

// GetAnalyticsBreakdown counts clicks and installs by one dimension
// (GET /analytics/breakdown).
func (c *Client) GetAnalyticsBreakdown(ctx context.Context, p BreakdownParams) (*AnalyticsBreakdown, error) {
	q := p.query()
	setString(q, "by", p.By)
	setInt(q, "limit", p.Limit)
	return do[AnalyticsBreakdown](ctx, c, request{method: http.MethodGet, path: "/analytics/breakdown", query: q})
}

// StartClickExport starts a CSV export of clicks
// (POST /analytics/exports); poll GetClickExport until its status is
// "complete", then DownloadClickExport.
func (c *Client) StartClickExport(ctx context.Context, in StartClickExportRequest) (*ClickExport, error) {
	return do[ClickExport](ctx, c, request{method: http.MethodPost, path: "/analytics/exports", body: in})
}

// ListClickExports returns one page of click exports, newest first
// (GET /analytics/exports).
func (c *Client) ListClickExports(ctx context.Context, p Page) (*ClickExportList, error) {
	return do[ClickExportList](ctx, c, request{method: http.MethodGet, path: "/analytics/exports", query: pageQuery(p)})
}

// AllClickExports walks every page of ListClickExports from p.
func (c *Client) AllClickExports(ctx context.Context, p Page) iter.Seq2[ClickExport, error] {
	return offsetSeq(p, func(pg Page) ([]ClickExport, Pagination, error) {
		l, err := c.ListClickExports(ctx, pg)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// GetClickExport returns a click export (GET /analytics/exports/{id}).
func (c *Client) GetClickExport(ctx context.Context, id string) (*ClickExport, error) {
	return do[ClickExport](ctx, c, request{method: http.MethodGet, path: pathf("/analytics/exports/%s", id)})
}

// DownloadClickExport returns the CSV of a complete export as it streams
// from the server (GET /analytics/exports/{id}/download); the caller
// closes it. An export not complete yet is *Error 409
// EXPORT_NOT_COMPLETE, an expired one 410 GONE.
func (c *Client) DownloadClickExport(ctx context.Context, id string) (io.ReadCloser, error) {
	resp, err := c.send(ctx, request{method: http.MethodGet, path: pathf("/analytics/exports/%s/download", id),
		header: http.Header{"Accept": {"text/csv"}}})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
