package client_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

// TestAnalytics proves the analytics queries and a click export, from start
// to the CSV download, over a click an SDK resolve recorded.
func TestAnalytics(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c
	app := newApp(t, c, "Acme", "com.acme.app")
	l, err := c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://acme.example/",
		Slug: client.Ptr("promo"), AppID: client.Ptr(app.ID), UTMCampaign: client.Ptr("spring")})
	require.NoError(t, err)
	key, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "ios", Type: "sdk"})
	require.NoError(t, err)
	_, err = s.client(t, key.RawKey).ResolveLink(ctx, "promo", client.ResolveParams{Domain: app.LinkDomain, TapID: uuid.NewString()})
	require.NoError(t, err)
	s.waitForClicks(t, 1)

	ts, err := c.GetAnalyticsTimeseries(ctx, client.TimeseriesParams{Interval: "day", Timezone: "Europe/Berlin",
		AnalyticsFilters: client.AnalyticsFilters{LinkID: l.ID}})
	require.NoError(t, err)
	assert.Equal(t, 1, ts.Total.Clicks)
	assert.Equal(t, "Europe/Berlin", ts.Window.Timezone)
	sum := 0
	for _, b := range ts.Data {
		sum += b.Clicks
	}
	assert.Equal(t, 1, sum)
	apiError(t, firstErr(c.GetAnalyticsTimeseries(ctx, client.TimeseriesParams{Interval: "fortnight"})),
		http.StatusBadRequest, client.CodeValidationError)
	e := apiError(t, firstErr(s.newTenant(t, org.PlanFree).c.GetAnalyticsTimeseries(ctx, client.TimeseriesParams{
		AnalyticsFilters: client.AnalyticsFilters{From: time.Now().AddDate(0, -3, 0)}})),
		http.StatusForbidden, client.CodeLookbackExceeded)
	assert.NotEmpty(t, e.Details["earliest_allowed"])

	bd, err := c.GetAnalyticsBreakdown(ctx, client.BreakdownParams{By: "source", Limit: 5,
		AnalyticsFilters: client.AnalyticsFilters{UTMCampaign: "spring", Source: "app_open"}})
	require.NoError(t, err)
	require.Len(t, bd.Data, 1)
	assert.Equal(t, "app_open", *bd.Data[0].Value)
	assert.Equal(t, 1, bd.Data[0].Clicks)
	apiError(t, firstErr(c.GetAnalyticsBreakdown(ctx, client.BreakdownParams{})), http.StatusBadRequest, client.CodeValidationError)

	x, err := c.StartClickExport(ctx, client.StartClickExportRequest{
		ClickExportFilters: client.ClickExportFilters{LinkID: l.ID}})
	require.NoError(t, err)
	assert.Equal(t, "pending", x.Status)
	assert.Equal(t, l.ID, x.Filters.LinkID)
	_, err = c.DownloadClickExport(ctx, x.ID)
	apiError(t, err, http.StatusConflict, client.CodeExportNotComplete)
	// The worker claims the job once its window has settled (seconds).
	require.Eventually(t, func() bool {
		got, err := c.GetClickExport(ctx, x.ID)
		require.NoError(t, err)
		return got.Status == "complete"
	}, 60*time.Second, 500*time.Millisecond)
	list, err := c.ListClickExports(ctx, client.Page{})
	require.NoError(t, err)
	require.Len(t, list.Data, 1)
	assert.Equal(t, 1, list.Data[0].Rows)
	require.NotNil(t, list.Data[0].DownloadURL)
	var n int
	for ex, err := range c.AllClickExports(ctx, client.Page{Limit: 1}) {
		require.NoError(t, err)
		assert.Equal(t, x.ID, ex.ID)
		n++
	}
	assert.Equal(t, 1, n)

	body, err := c.DownloadClickExport(ctx, x.ID)
	require.NoError(t, err)
	rows, err := csv.NewReader(body).ReadAll()
	require.NoError(t, body.Close())
	require.NoError(t, err)
	require.Len(t, rows, 2, "a header and the click")
	assert.Contains(t, rows[1], l.ID)
	apiError(t, firstErr(c.GetClickExport(ctx, uuid.NewString())), http.StatusNotFound, client.CodeNotFound)
}

// TestOpenAPIDocument proves GetOpenAPIDocument, which takes no key.
func TestOpenAPIDocument(t *testing.T) {
	s := startServer(t)
	raw, err := s.client(t, "").GetOpenAPIDocument(context.Background())
	require.NoError(t, err)
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, "3.0.3", doc.OpenAPI)
}
