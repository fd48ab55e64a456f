package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// get_app shows an open rename period and the links on the previous
// subdomain, and no period once it has ended.
func TestGetAppShowsTheSubdomainState(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newHarness(t, s)
		o := h.newOrg(t, "Acme")
		appID := h.newApp(t, o.ID)
		app, err := s.AppByID(context.Background(), o.ID, appID)
		require.NoError(t, err)
		now := h.clock.Now().UTC().Truncate(time.Millisecond)
		l := &linking.Link{ID: appID, OrgID: o.ID, AppID: &appID, Domain: app.LinkDomain, Slug: "spring",
			DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
		require.NoError(t, s.CreateLink(context.Background(), l, linking.LinkQuota{}))
		_, err = s.RenameApp(context.Background(), &linking.AppRename{OrgID: o.ID, AppID: appID, Handle: "renamed",
			FromLinkDomain: app.LinkDomain, ToLinkDomain: "renamed." + linkDomain, Confirm: true, LinkState: app.LinkState,
			At: now, EndsAt: now.Add(linking.RenamePeriod)})
		require.NoError(t, err)

		session, err := h.connect(t, h.key(t, o, auth.CreateKeyInput{Scopes: []auth.Scope{auth.ScopeAppsRead}}), "")
		require.NoError(t, err)
		got := object(t, ok(t, call(t, session, "get_app", map[string]any{"id": appID.String()})))
		assert.Equal(t, "renamed."+linkDomain, got["link_domain"])
		assert.Equal(t, app.LinkDomain, got["previous_link_domain"])
		period, _ := got["rename_period"].(map[string]any)
		require.NotNil(t, period, "rename_period: %v", got["rename_period"])
		assert.Equal(t, now.Add(linking.RenamePeriod).Format(time.RFC3339Nano), period["ends_at"])
		assert.EqualValues(t, 2, period["extensions_left"])
		assert.Equal(t, map[string]any{"moving": 1.0, "waiting": 0.0, "kept": 0.0}, got["previous_links"])

		h.clock.Advance(linking.RenamePeriod)
		got = object(t, ok(t, call(t, session, "get_app", map[string]any{"id": appID.String()})))
		assert.Nil(t, got["rename_period"], "ended by time")
		assert.Nil(t, got["previous_link_domain"])
	})
}
