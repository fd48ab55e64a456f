package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestRedirectsRecordClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newDomainHarness(t, s)
		o := h.newOrg(t, "Acme")
		app := h.fullApp(t, o, "null")
		web := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/p","slug":"web","utm_source":"newsletter","app_id":"`+app.ID.String()+`"}`)
		stores := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"stores","app_id":"`+app.ID.String()+`"}`)

		// Real visitors are redirected and recorded; a bot, a 404 and a
		// paused link are not.
		require.Equal(t, http.StatusFound, h.visit(t, visit{host: web.Domain, path: "/web?utm_medium=social", ua: uaDesktop}).status)
		require.Equal(t, http.StatusFound, h.visit(t, visit{host: stores.Domain, path: "/stores?utm_source=tiktok", ua: uaIPhone}).status)
		require.Equal(t, http.StatusOK, h.visit(t, visit{host: web.Domain, path: "/web", ua: uaTwitter}).status)
		require.Equal(t, http.StatusNotFound, h.visit(t, visit{host: web.Domain, path: "/nope", ua: uaDesktop}).status)

		h.mu.Lock()
		events := append([]httpapi.RedirectEvent(nil), h.events...)
		h.mu.Unlock()
		require.Len(t, events, 2)

		desktop := httpapi.ClickFromRedirect(events[0])
		assert.Equal(t, analytics.SourceRedirect, desktop.Source)
		assert.Equal(t, o.ID, desktop.OrgID)
		assert.Equal(t, web.ID, desktop.LinkID)
		assert.Equal(t, &app.ID, desktop.AppID)
		assert.Equal(t, "web", desktop.Slug)
		assert.Equal(t, web.Domain, desktop.Domain)
		assert.Equal(t, "desktop", desktop.Platform)
		assert.Equal(t, "127.0.0.1", desktop.IP)
		assert.Equal(t, uaDesktop, desktop.UserAgent)
		assert.Equal(t, "newsletter", desktop.UTMSource, "UTM rule 4: a web destination records the final URL's values")
		assert.Equal(t, "social", desktop.UTMMedium)
		assert.Equal(t, events[0].ClickID, desktop.ID)

		store := httpapi.ClickFromRedirect(events[1])
		assert.Equal(t, "ios", store.Platform)
		assert.Equal(t, "tiktok", store.UTMSource, "UTM rule 4: an app-store target keeps the tap's values")

		// Through the recorder, both clicks reach the database.
		rec := analytics.NewRecorder(s, analytics.RecorderOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- rec.Run(ctx) }()
		hook := httpapi.RecordClicks(rec)
		for _, ev := range events {
			hook(context.Background(), ev)
		}
		cancel()
		require.NoError(t, <-done)
		var n int
		require.NoError(t, s.DB().NewSelect().Table("click_segments").ColumnExpr("coalesce(sum(clicks), 0)").
			Where("org_id = ?", o.ID).Scan(context.Background(), &n))
		assert.Equal(t, 2, n, "both clicks stored, in the segments")
	})
}
