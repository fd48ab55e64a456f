package linking_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store/storetest"
)

// The waiting links of an app are those on its previous subdomain whose
// slug is taken on its subdomain, while its rename period is open; reading
// them needs links:read besides apps:read.
func TestWaitingLinksOfAnOpenRenamePeriod(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	opened := f.clock.Now()
	ends := opened.Add(linking.RenamePeriod)
	prev := "old-shop.hop.example"
	app := f.newApp(t, f.org.ID, func(a *linking.App) {
		a.PreviousLinkDomain, a.RenameOpenedAt, a.RenameEndsAt = &prev, &opened, &ends
	})
	put := func(domain, slug string) *linking.Link {
		l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: f.org.ID, AppID: &app.ID, Domain: domain, Slug: slug,
			DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now()}
		require.NoError(t, f.s.CreateLink(ctx, l, linking.LinkQuota{}))
		f.clock.Advance(1)
		return l
	}
	busy := put("old-shop.hop.example", "busy")
	put("old-shop.hop.example", "free")
	put(app.LinkDomain, "busy")
	svc := linking.NewAppService(f.s, f.s, linking.AppServiceOptions{DefaultLinkDomain: linkDefaultDomain, Clock: f.clock.Now})

	got, err := svc.WaitingLinks(ctx, f.owner, app.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, []linking.WaitingLink{{ID: busy.ID, Slug: "busy"}}, got)

	reader := testkit.Principal(f.org.ID, auth.ScopeAppsRead)
	_, err = svc.WaitingLinks(ctx, reader, app.ID, 10)
	requireCode(t, err, errcode.Forbidden)
	member := testkit.MemberPrincipal(f.org.ID, uuid.Must(uuid.NewV7()), auth.RoleMember, auth.ScopeAppsRead, auth.ScopeLinksRead)
	got, err = svc.WaitingLinks(ctx, member, app.ID, 10)
	require.NoError(t, err)
	assert.Len(t, got, 1, "every role reads them")

	other := linkOrg(t, f.s, "beta")
	_, err = svc.WaitingLinks(ctx, testkit.Principal(other.ID, auth.RequestableScopes...), app.ID, 10)
	requireCode(t, err, errcode.NotFound)

	got, err = svc.WaitingLinks(ctx, f.owner, f.app.ID, 10)
	require.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got, "no rename period, no waiting link")

	f.clock.Set(ends)
	got, err = svc.WaitingLinks(ctx, f.owner, app.ID, 10)
	require.NoError(t, err)
	assert.Empty(t, got, "the period ends first: nothing waits any more")
}
