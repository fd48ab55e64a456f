package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

// TestSDKRoutes proves the SDK routes as a Go back end calls them with an
// SDK key: validate, resolve (a click per tap), and an install matched to
// that click, which the installs and attempts lists then show.
func TestSDKRoutes(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c
	app := newApp(t, c, "Acme", "com.acme.app")
	other := newApp(t, c, "Other", "com.acme.other")
	_, err := c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://acme.example/promo?x=1",
		Slug: client.Ptr("promo"), AppID: client.Ptr(app.ID), AndroidURL: client.Ptr("acme://promo")})
	require.NoError(t, err)
	_, err = c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://acme.example/secret",
		Slug: client.Ptr("secret"), AppID: client.Ptr(app.ID), Password: client.Ptr("open sesame")})
	require.NoError(t, err)
	key, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "android", Type: "sdk", AppID: client.Ptr(app.ID)})
	require.NoError(t, err)
	sdk := s.client(t, key.RawKey)

	v, err := sdk.ValidateSDKKey(ctx)
	require.NoError(t, err)
	assert.True(t, v.Valid)
	assert.Equal(t, tn.org.ID.String(), v.OrgID)

	tap := uuid.NewString()
	r, err := sdk.ResolveLink(ctx, "promo", client.ResolveParams{Domain: app.LinkDomain, Params: "utm_source=news", TapID: tap})
	require.NoError(t, err)
	assert.Equal(t, "promo", r.Slug)
	assert.Equal(t, "acme://promo", *r.AndroidURL)
	assert.Equal(t, map[string]string{"x": "1", "utm_source": "news"}, r.CustomParams)
	apiError(t, firstErr(sdk.ResolveLink(ctx, "secret", client.ResolveParams{Domain: app.LinkDomain})),
		http.StatusForbidden, client.CodePasswordRequired)
	apiError(t, firstErr(sdk.ResolveLink(ctx, "nothing-here", client.ResolveParams{Domain: app.LinkDomain})),
		http.StatusNotFound, client.CodeNotFound)
	s.waitForClicks(t, 1)

	// The install the tap led to: deterministic, through the click id.
	android := client.MatchRequest{Platform: "android", FingerprintVersion: "basic", SDKVersion: "1.0.0",
		Referrer: "hop_click_id=" + tap, DeviceID: uuid.NewString(), AppID: app.ID}
	m, err := sdk.MatchAttribution(ctx, android)
	require.NoError(t, err)
	require.True(t, m.Matched)
	assert.Equal(t, "deterministic", m.MatchType)
	assert.Equal(t, 1.0, m.MatchConfidence)
	assert.NotEmpty(t, m.InstallID)
	// A repeat (as a retry sends it) is answered from that install.
	again, err := sdk.MatchAttribution(ctx, android)
	require.NoError(t, err)
	assert.Equal(t, m.InstallID, again.InstallID)
	unmatched, err := sdk.MatchAttribution(ctx, client.MatchRequest{Platform: "ios", FingerprintVersion: "basic",
		SDKVersion: "1.0.0", DeviceID: uuid.NewString(), ScreenWidth: client.Ptr(390), AppID: app.ID})
	require.NoError(t, err)
	assert.False(t, unmatched.Matched)
	assert.Empty(t, unmatched.InstallID)
	apiError(t, firstErr(sdk.MatchAttribution(ctx, client.MatchRequest{Platform: "ios", FingerprintVersion: "basic",
		SDKVersion: "1.0.0", AppID: other.ID})), http.StatusForbidden, client.CodeKeyAppMismatch)
	e := apiError(t, firstErr(sdk.MatchAttribution(ctx, client.MatchRequest{Platform: "windows", FingerprintVersion: "basic",
		SDKVersion: "1.0.0"})), http.StatusBadRequest, client.CodeValidationError)
	assert.Equal(t, "platform", e.Fields[0].Field)
	apiError(t, firstErr(c.MatchAttribution(ctx, android)), http.StatusForbidden, client.CodeForbidden)

	installs, err := c.ListInstalls(ctx, client.ListInstallsParams{AppID: app.ID})
	require.NoError(t, err)
	require.Len(t, installs.Data, 1)
	assert.Equal(t, m.InstallID, installs.Data[0].ID)
	assert.Equal(t, tap, *installs.Data[0].ClickID)
	assert.True(t, installs.Data[0].MatchGuaranteed)
	assert.False(t, installs.Pagination.HasMore)
	var n int
	for in, err := range c.AllInstalls(ctx, client.ListInstallsParams{Limit: 1}) {
		require.NoError(t, err)
		assert.Equal(t, m.InstallID, in.ID)
		n++
	}
	assert.Equal(t, 1, n)
	apiError(t, firstErr(sdk.ListInstalls(ctx, client.ListInstallsParams{})), http.StatusForbidden, client.CodeSDKKeyRouteForbidden)

	all, err := c.ListAttributionAttempts(ctx, client.ListAttributionAttemptsParams{Limit: 100})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(all.Data), 3)
	var ids []string
	for a, err := range c.AllAttributionAttempts(ctx, client.ListAttributionAttemptsParams{Limit: 1}) {
		require.NoError(t, err)
		ids = append(ids, a.ID)
	}
	want := make([]string, len(all.Data))
	for i, a := range all.Data {
		want[i] = a.ID
	}
	assert.Equal(t, want, ids, "one attempt a page, each once, newest first")
	matched, err := c.ListAttributionAttempts(ctx, client.ListAttributionAttemptsParams{Matched: client.Ptr(true)})
	require.NoError(t, err)
	require.Len(t, matched.Data, 2)
	assert.Equal(t, "replay", *matched.Data[0].MatchSource)
	assert.Equal(t, "claim", *matched.Data[1].MatchSource)
	// A cursor of one list is refused by the other.
	page, err := c.ListAttributionAttempts(ctx, client.ListAttributionAttemptsParams{Limit: 1})
	require.NoError(t, err)
	require.NotNil(t, page.Pagination.NextCursor)
	apiError(t, firstErr(c.ListInstalls(ctx, client.ListInstallsParams{Cursor: *page.Pagination.NextCursor})),
		http.StatusBadRequest, client.CodeCursorInvalid)
}
