package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store/storetest"
)

// export_clicks starts an export as POST /v1/analytics/exports does, polls
// it as GET /v1/analytics/exports/{id} answers, and its download_url
// serves the CSV.
func TestExportClicksStartsAndPolls(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	session := h.session(t, o.key)
	from := h.clock.Now().Add(-24 * time.Hour).Format(time.RFC3339)

	started := object(t, ok(t, call(t, session, "export_clicks", map[string]any{"from": from, "country": "GB"})))
	assert.Equal(t, "pending", started["status"])
	assert.Equal(t, map[string]any{"country": "GB"}, started["filters"])
	assert.Nil(t, started["download_url"])
	id := started["id"].(string)

	h.clock.Advance(analytics.DefaultExportSettle)
	ran, err := h.exports.RunOnce(context.Background())
	require.NoError(t, err)
	require.True(t, ran)

	polled := ok(t, call(t, session, "export_clicks", map[string]any{"id": id}))
	status, body := h.rest(t, http.MethodGet, "/v1/analytics/exports/"+id, o.key, "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, string(body), string(polled))
	got := object(t, polled)
	assert.Equal(t, "complete", got["status"])
	url := got["download_url"].(string)
	require.True(t, strings.HasPrefix(url, h.srv.URL+"/v1/analytics/exports/"), url)
	status, csv := h.rest(t, http.MethodGet, strings.TrimPrefix(url, h.srv.URL), o.key, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, strings.Join(analytics.ExportColumns(), ",")+"\n", string(csv), "a header and no click")

	toolError(t, call(t, session, "export_clicks", map[string]any{"id": id, "country": "GB"}), errcode.ValidationError)
	toolError(t, call(t, session, "export_clicks", map[string]any{"from": "yesterday"}), errcode.ValidationError)
	toolError(t, call(t, session, "export_clicks", map[string]any{"link_id": "spring"}), errcode.ValidationError)
	old := h.clock.Now().Add(-31 * 24 * time.Hour).Format(time.RFC3339)
	toolError(t, call(t, session, "export_clicks", map[string]any{"from": old}), errcode.LookbackExceeded)
	other := h.newOrg(t, "Other")
	toolError(t, call(t, h.session(t, other.key), "export_clicks", map[string]any{"id": id}), errcode.NotFound)
	linksOnly := h.key(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeLinksRead}})
	toolError(t, call(t, h.session(t, linksOnly), "export_clicks", nil), errcode.Forbidden)
}
