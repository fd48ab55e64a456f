package client_test

import (
	"bytes"
	"context"
	pngpkg "image/png"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

// newApp creates an app, which an organization needs before links.
func newApp(t *testing.T, c *client.Client, name, bundle string) *client.App {
	t.Helper()
	a, err := c.CreateApp(context.Background(), client.CreateAppRequest{Name: name,
		IOSBundleID: client.Ptr(bundle), AndroidPackageName: client.Ptr(bundle)})
	require.NoError(t, err)
	return a
}

func TestLinks(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c

	_, err := c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://shop.example/"})
	apiError(t, err, http.StatusForbidden, client.CodeAppRequired)

	app := newApp(t, c, "Acme Shop", "com.acme.shop")
	expires := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Millisecond)
	l, err := c.CreateLink(ctx, client.CreateLinkRequest{
		DestinationURL:   "https://shop.example/spring",
		Slug:             client.Ptr("spring"),
		Name:             client.Ptr("Spring sale"),
		AppID:            client.Ptr(app.ID),
		IOSURL:           client.Ptr("acme://spring"),
		OGTitle:          client.Ptr("Spring"),
		Tags:             []string{"email", "spring"},
		ExpiresAt:        &expires,
		UTMCampaign:      client.Ptr("spring"),
		MatchWindowHours: client.Ptr(24),
		Parameters: &client.LinkParamConfig{
			Injected:           []client.InjectedParam{{Key: "ref", Value: "mail", Mode: client.Ptr("always")}},
			InheritOrgInjected: true,
			SuppressedOrgKeys:  []string{},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, "spring", l.Slug)
	assert.Equal(t, app.LinkDomain, l.Domain, "a link with an app gets the app's subdomain")
	assert.Equal(t, "http://"+app.LinkDomain+":8080/spring", l.ShortURL)
	assert.Equal(t, "Spring sale", *l.Name)
	assert.Equal(t, "acme://spring", *l.IOSURL)
	assert.Nil(t, l.AndroidURL)
	assert.Equal(t, 24, *l.MatchWindowHours)
	assert.True(t, expires.Equal(*l.ExpiresAt))
	require.NotNil(t, l.Parameters)
	assert.Equal(t, "ref", l.Parameters.Injected[0].Key)

	e := apiError(t, firstErr(c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://shop.example/",
		Slug: client.Ptr("spring"), AppID: client.Ptr(app.ID)})), http.StatusConflict, client.CodeSlugTaken)
	assert.Equal(t, "spring", e.Details["slug"])
	e = apiError(t, firstErr(c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "not a url",
		AppID: client.Ptr(app.ID)})), http.StatusBadRequest, client.CodeValidationError)
	require.NotEmpty(t, e.Fields)
	assert.Equal(t, "destination_url", e.Fields[0].Field)

	got, err := c.GetLink(ctx, l.ID)
	require.NoError(t, err)
	assert.Equal(t, l.ID, got.ID)
	assert.NotNil(t, got.RedirectedFrom, "GET returns the old addresses, none yet")
	apiError(t, firstErr(c.GetLink(ctx, "not-a-uuid")), http.StatusBadRequest, client.CodeInvalidID)

	// PATCH: unset keeps, Null clears, Value sets.
	up, err := c.UpdateLink(ctx, l.ID, client.UpdateLinkRequest{
		Name:       client.Null[string](),
		IOSURL:     client.Value("acme://spring2"),
		Tags:       client.Value([]string{"sms"}),
		Parameters: client.Null[client.LinkParamConfig](),
		Password:   client.Value("open sesame"),
	})
	require.NoError(t, err)
	assert.Nil(t, up.Name, "null cleared the name")
	assert.Equal(t, "acme://spring2", *up.IOSURL)
	assert.Equal(t, []string{"sms"}, up.Tags)
	assert.Nil(t, up.Parameters)
	assert.Equal(t, "Spring", *up.OGTitle, "unset fields keep their values")
	assert.Equal(t, "spring", *up.UTMCampaign)
	e = apiError(t, firstErr(c.UpdateLink(ctx, l.ID, client.UpdateLinkRequest{OGTitle: client.Value(string(make([]byte, 300)))})),
		http.StatusBadRequest, client.CodeValidationError)
	assert.Equal(t, "og_title", e.Fields[0].Field)

	png, err := c.GetLinkQRCode(ctx, l.ID, "", 0)
	require.NoError(t, err)
	cfg, err := pngpkg.DecodeConfig(bytes.NewReader(png))
	require.NoError(t, err, "the default is a PNG")
	assert.Equal(t, 256, cfg.Width)
	svg, err := c.GetLinkQRCode(ctx, l.ID, "svg", 128)
	require.NoError(t, err)
	assert.Contains(t, string(svg), `width="128"`)
	e = apiError(t, firstErr(c.GetLinkQRCode(ctx, l.ID, "gif", 0)), http.StatusBadRequest, client.CodeValidationError)
	assert.Equal(t, "format", e.Fields[0].Field)

	paused, err := c.DeactivateLink(ctx, l.ID)
	require.NoError(t, err)
	assert.False(t, paused.IsActive)
	active, err := c.ActivateLink(ctx, l.ID)
	require.NoError(t, err)
	assert.True(t, active.IsActive)

	for _, slug := range []string{"a1", "a2", "a3", "a4"} {
		_, err := c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://shop.example/" + slug,
			Slug: client.Ptr(slug), AppID: client.Ptr(app.ID), Tags: []string{"batch"}})
		require.NoError(t, err)
	}
	page, err := c.ListLinks(ctx, client.ListLinksParams{Tag: "batch", Page: client.Page{Limit: 3}})
	require.NoError(t, err)
	assert.Len(t, page.Data, 3)
	assert.Equal(t, 4, page.Pagination.Total)
	assert.True(t, page.Pagination.HasMore)
	page, err = c.ListLinks(ctx, client.ListLinksParams{Search: "spring", IsActive: client.Ptr(true)})
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, l.ID, page.Data[0].ID)

	var slugs []string
	for link, err := range c.AllLinks(ctx, client.ListLinksParams{Page: client.Page{Limit: 2}}) {
		require.NoError(t, err)
		slugs = append(slugs, link.Slug)
	}
	assert.ElementsMatch(t, []string{"spring", "a1", "a2", "a3", "a4"}, slugs, "every page, each link once")
	n := 0
	for range c.AllLinks(ctx, client.ListLinksParams{Page: client.Page{Limit: 2}}) {
		n++
		break
	}
	assert.Equal(t, 1, n, "breaking out of the loop stops the iterator")
	for _, err := range c.AllLinks(ctx, client.ListLinksParams{Page: client.Page{Limit: 1000}}) {
		apiError(t, err, http.StatusBadRequest, client.CodeValidationError)
	}

	del, err := c.DeleteLink(ctx, l.ID)
	require.NoError(t, err)
	assert.Equal(t, l.ID, del.ID)
	apiError(t, firstErr(c.GetLink(ctx, l.ID)), http.StatusNotFound, client.CodeNotFound)

	// Another organization's link is a 404; a bad key is 401.
	other := s.newTenant(t, org.PlanFree)
	apiError(t, firstErr(other.c.GetLink(ctx, page.Data[0].ID)), http.StatusNotFound, client.CodeNotFound)
	apiError(t, firstErr(s.client(t, "svc_live_"+"0123456789abcdefghijABCDEFGHIJ01").ListLinks(ctx, client.ListLinksParams{})),
		http.StatusUnauthorized, client.CodeUnauthorized)
}

// TestLinkMoveChoice proves SetLinkMoveChoice and ClearLinkMoveChoice on a
// link left on its app's previous subdomain by a rename.
func TestLinkMoveChoice(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	owner, _ := s.member(t, tn, "owner")
	app := newApp(t, owner, "Acme", "com.acme.app")
	l, err := owner.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://acme.example/",
		Slug: client.Ptr("promo"), AppID: client.Ptr(app.ID)})
	require.NoError(t, err)

	l2, err := owner.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://acme.example/2",
		Slug: client.Ptr("promo-b"), AppID: client.Ptr(app.ID)})
	require.NoError(t, err)

	apiError(t, firstErr(owner.SetLinkMoveChoice(ctx, l.ID, client.MoveChoiceRequest{Choice: "keep"})),
		http.StatusConflict, client.CodeLinkMoveNotPending)
	_, err = owner.RenameAppSubdomain(ctx, app.ID, client.RenameSubdomainRequest{Handle: "acme-two", Confirm: true})
	require.NoError(t, err)

	// new_slug moves the link at once.
	mc, err := owner.SetLinkMoveChoice(ctx, l.ID, client.MoveChoiceRequest{Choice: "new_slug", NewSlug: client.Ptr("promo-2")})
	require.NoError(t, err)
	assert.Equal(t, "new_slug", mc.Choice)
	assert.Equal(t, "promo-2", *mc.NewSlug)
	assert.Equal(t, l.ID, mc.LinkID)
	assert.Equal(t, "http://acme-two."+defaultLinkDomain+":8080/promo-2", mc.ShortURL)

	// keep, then clearing the choice moves the link with its slug.
	mc, err = owner.SetLinkMoveChoice(ctx, l2.ID, client.MoveChoiceRequest{Choice: "keep"})
	require.NoError(t, err)
	assert.Nil(t, mc.NewSlug)
	require.NoError(t, owner.ClearLinkMoveChoice(ctx, l2.ID))
	moved, err := owner.GetLink(ctx, l2.ID)
	require.NoError(t, err)
	assert.Equal(t, "acme-two."+defaultLinkDomain, moved.Domain)
	apiError(t, owner.ClearLinkMoveChoice(ctx, l2.ID), http.StatusConflict, client.CodeLinkMoveNotPending)
}

// firstErr drops the value of a call and keeps its error.
func firstErr[T any](_ T, err error) error { return err }
