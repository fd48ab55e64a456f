package mcpserver_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// get_analytics answers what GET /v1/analytics/timeseries and
// /v1/analytics/breakdown answer for the same arguments, and refuses what
// they refuse.
func TestGetAnalytics(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		at := h.clock.Now().UTC().Truncate(time.Millisecond)
		l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: linkDomain, Slug: "spring",
			DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: at, UpdatedAt: at}
		require.NoError(t, s.CreateLink(context.Background(), l, linking.LinkQuota{}))
		var clicks []analytics.Click
		for i, country := range []string{"US", "US", "GB", ""} {
			clicks = append(clicks, analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, LinkID: l.ID,
				Domain: l.Domain, Slug: l.Slug, OccurredAt: at.Add(-time.Duration(i+1) * time.Hour),
				Source: analytics.SourceRedirect, Platform: "ios", Country: country})
		}
		_, err := s.InsertClicks(context.Background(), clicks)
		require.NoError(t, err)
		session := h.session(t, o.key)

		for _, tc := range []struct {
			path string
			args map[string]any
		}{
			{"/v1/analytics/timeseries?interval=hour&timezone=Asia%2FKolkata",
				map[string]any{"kind": "timeseries", "interval": "hour", "timezone": "Asia/Kolkata"}},
			{"/v1/analytics/timeseries?platform=ios", map[string]any{"kind": "timeseries", "platform": "ios"}},
			{"/v1/analytics/breakdown?by=country&limit=1", map[string]any{"kind": "breakdown", "by": "country", "limit": 1}},
			{"/v1/analytics/breakdown?by=country&link_id=" + l.ID.String(),
				map[string]any{"kind": "breakdown", "by": "country", "link_id": l.ID.String()}},
		} {
			status, body := h.rest(t, http.MethodGet, tc.path, o.key, "")
			require.Equal(t, http.StatusOK, status, "body: %s", body)
			assert.JSONEq(t, string(body), string(ok(t, call(t, session, "get_analytics", tc.args))), tc.path)
		}
		b := object(t, ok(t, call(t, session, "get_analytics", map[string]any{"kind": "breakdown", "by": "country"})))
		assert.Equal(t, map[string]any{"clicks": 4.0, "installs": 0.0, "unstored_clicks": 0.0}, b["total"])

		readOnly := h.key(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeLinksRead}})
		for _, tc := range []struct {
			name   string
			token  string
			args   map[string]any
			code   errcode.Code
			fields []any
		}{
			{"a kind that is neither", "", map[string]any{"kind": "funnel"}, errcode.ValidationError, []any{"kind"}},
			{"kind is required", "", map[string]any{"by": "country"}, errcode.ValidationError, []any{"kind"}},
			{"by of a time series", "", map[string]any{"kind": "timeseries", "by": "country"}, errcode.ValidationError, []any{"by"}},
			{"timezone of a breakdown", "", map[string]any{"kind": "breakdown", "by": "os", "timezone": "UTC"},
				errcode.ValidationError, []any{"timezone"}},
			{"an unknown dimension", "", map[string]any{"kind": "breakdown", "by": "city"}, errcode.ValidationError, []any{"by"}},
			{"an unknown zone", "", map[string]any{"kind": "timeseries", "timezone": "Nowhere/Else"},
				errcode.ValidationError, []any{"timezone"}},
			{"Free reads 30 days back", "", map[string]any{"kind": "timeseries",
				"from": at.AddDate(0, 0, -60).Format(time.RFC3339)}, errcode.LookbackExceeded, nil},
			{"a key without analytics:read", readOnly, map[string]any{"kind": "timeseries"}, errcode.Forbidden, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := session
				if tc.token != "" {
					s = h.session(t, tc.token)
				}
				e := toolError(t, call(t, s, "get_analytics", tc.args), tc.code)
				if tc.fields != nil {
					var names []any
					for _, f := range e.Error.Details["fields"].([]any) {
						names = append(names, f.(map[string]any)["field"])
					}
					assert.Equal(t, tc.fields, names)
				}
			})
		}
	})
}
