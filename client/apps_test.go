package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

func TestApps(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c

	a, err := c.CreateApp(ctx, client.CreateAppRequest{
		Name:                  "Acme Shop",
		IOSBundleID:           client.Ptr("com.acme.shop"),
		IOSTeamID:             client.Ptr("ABCDE12345"),
		IOSAppStoreURL:        client.Ptr("https://apps.apple.com/app/id123"),
		IOSUniversalLinkPaths: []string{"/shop/*"},
		AndroidPackageName:    client.Ptr("com.acme.shop"),
	})
	require.NoError(t, err)
	assert.Equal(t, "Acme Shop", a.Name)
	assert.Equal(t, "ABCDE12345", *a.IOSTeamID)
	assert.Equal(t, []string{"/shop/*"}, a.IOSUniversalLinkPaths)
	assert.Nil(t, a.AndroidPlayStoreURL)
	assert.Equal(t, a.Handle+"."+defaultLinkDomain, a.LinkDomain)
	assert.Equal(t, tn.org.ID.String(), a.OrgID)

	apiError(t, firstErr(c.CreateApp(ctx, client.CreateAppRequest{Name: "Again",
		IOSBundleID: client.Ptr("com.acme.shop")})), http.StatusConflict, client.CodeDuplicateApp)
	e := apiError(t, firstErr(c.CreateApp(ctx, client.CreateAppRequest{})), http.StatusBadRequest, client.CodeValidationError)
	assert.Equal(t, "name", e.Fields[0].Field)

	got, err := c.GetApp(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.ID)

	// PATCH: Null clears, Value sets, unset keeps.
	up, err := c.UpdateApp(ctx, a.ID, client.UpdateAppRequest{
		Name:                client.Ptr("Acme Store"),
		IOSTeamID:           client.Null[string](),
		AndroidPlayStoreURL: client.Value("https://play.google.com/store/apps/details?id=com.acme.shop"),
	})
	require.NoError(t, err)
	assert.Equal(t, "Acme Store", up.Name)
	assert.Nil(t, up.IOSTeamID, "null cleared the team id")
	assert.Equal(t, "https://play.google.com/store/apps/details?id=com.acme.shop", *up.AndroidPlayStoreURL)
	assert.Equal(t, "com.acme.shop", *up.IOSBundleID, "unset fields keep their values")

	b := newApp(t, c, "Beta", "com.acme.beta")
	page, err := c.ListApps(ctx, client.ListAppsParams{Search: "beta"})
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, b.ID, page.Data[0].ID)
	var ids []string
	for app, err := range c.AllApps(ctx, client.ListAppsParams{Page: client.Page{Limit: 1}}) {
		require.NoError(t, err)
		ids = append(ids, app.ID)
	}
	assert.ElementsMatch(t, []string{a.ID, b.ID}, ids)

	// The default link domain: a domain that is not the app's is refused,
	// null returns to the subdomain.
	apiError(t, firstErr(c.SetAppDefaultLinkDomain(ctx, a.ID, client.Ptr("elsewhere.example"))),
		http.StatusUnprocessableEntity, client.CodeInvalidDomain)
	got, err = c.SetAppDefaultLinkDomain(ctx, a.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, a.LinkDomain, got.DefaultLinkDomain)

	st, err := c.GetAppSubdomain(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.Handle, st.Handle)
	assert.Nil(t, st.RenamePeriod)

	// Renaming needs a key a member made.
	apiError(t, firstErr(c.RenameAppSubdomain(ctx, a.ID, client.RenameSubdomainRequest{Handle: "acme-new"})),
		http.StatusForbidden, client.CodeAttributedKeyRequired)
	owner, _ := s.member(t, tn, "owner")
	apiError(t, firstErr(owner.ExtendAppRenamePeriod(ctx, a.ID)), http.StatusConflict, client.CodeRenamePeriodNotOpen)
	st, err = owner.RenameAppSubdomain(ctx, a.ID, client.RenameSubdomainRequest{Handle: "acme-new"})
	require.NoError(t, err)
	assert.Equal(t, "acme-new", st.Handle)
	require.NotNil(t, st.PreviousLinkDomain)
	assert.Equal(t, a.LinkDomain, *st.PreviousLinkDomain)
	require.NotNil(t, st.RenamePeriod)
	assert.Equal(t, 0, st.RenamePeriod.ExtensionsUsed)
	st, err = owner.ExtendAppRenamePeriod(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.RenamePeriod.ExtensionsUsed)
	assert.Equal(t, 1, st.RenamePeriod.ExtensionsLeft)

	del, err := c.DeleteApp(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, b.ID, del.ID)
	apiError(t, firstErr(c.GetApp(ctx, b.ID)), http.StatusNotFound, client.CodeNotFound)
}
