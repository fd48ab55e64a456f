package linking_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store/storetest"
)

// onlyLinks hides every method of the store but those of LinkStore.
type onlyLinks struct{ linking.LinkStore }

// movingLink creates, through the store, a link of f's organization with an
// app whose previous subdomain is previous, on domain.
func movingLink(t *testing.T, f *linkFixture, previous, domain string) *linking.Link {
	t.Helper()
	app := f.newApp(t, f.org.ID, func(a *linking.App) { a.PreviousLinkDomain = &previous })
	now := f.clock.Now()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: f.org.ID, AppID: &app.ID, Domain: domain, Slug: "spring",
		DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, f.s.CreateLink(t.Context(), l, linking.LinkQuota{}))
	return l
}

func TestMoveChoiceComparesThePreviousSubdomainNormalized(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	l := movingLink(t, f, "OLD-App.hop.example.", "old-app.hop.example")
	keep := linking.MoveChoiceKeep
	c, err := f.svc.SetMoveChoice(t.Context(), f.owner, l.ID, linking.MoveChoiceInput{Choice: &keep})
	require.NoError(t, err)
	assert.Equal(t, linking.MoveChoiceKeep, c.Choice)
	assert.Nil(t, c.NewSlug)
	assert.Equal(t, "https://old-app.hop.example/spring", c.ShortURL)
}

func TestMoveChoiceNeedsAMoveChoiceStore(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	l := movingLink(t, f, "old-app.hop.example", "old-app.hop.example")
	svc := linking.NewLinkService(onlyLinks{f.s}, f.s, f.s, linking.LinkServiceOptions{DefaultLinkDomain: linkDefaultDomain})
	keep := linking.MoveChoiceKeep
	_, err := svc.SetMoveChoice(t.Context(), f.owner, l.ID, linking.MoveChoiceInput{Choice: &keep})
	require.Error(t, err)
	_, coded := errcode.As(err)
	assert.False(t, coded, "an internal error: %v", err)
	err = svc.ClearMoveChoice(t.Context(), f.owner, l.ID)
	require.Error(t, err)
	_, coded = errcode.As(err)
	assert.False(t, coded, "an internal error: %v", err)
	assert.NoError(t, svc.CheckMoveChoice(t.Context(), f.owner, l.ID), "the checks before the body need no move store")
}

// heldSetup is an app of f's organization whose previous subdomain is
// prev, as given (so that its case and trailing dot are normalized away),
// and a link waiting there to move with the slug "spring".
func heldSetup(t *testing.T, f *linkFixture, prev string) (*linking.App, *linking.Link) {
	t.Helper()
	app := f.newApp(t, f.org.ID, func(a *linking.App) { a.PreviousLinkDomain = &prev })
	now := f.clock.Now()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: f.org.ID, AppID: &app.ID, Domain: linking.NormalizeDomain(prev),
		Slug: "spring", DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, f.s.CreateLink(t.Context(), l, linking.LinkQuota{}))
	return app, l
}

func TestCreateRefusesASlugHeldForALinkWaitingToMove(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	ctx := t.Context()
	app, waiting := heldSetup(t, f, "OLD-App.hop.example.")
	in := linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring"), AppID: &app.ID}

	_, err := f.svc.Create(ctx, f.owner, in)
	e := requireCode(t, err, errcode.SlugTaken)
	assert.Equal(t, map[string]any{linking.DetailSlug: "spring", linking.DetailDomain: app.LinkDomain,
		linking.DetailHeldBy: linking.HeldBy{Domain: "old-app.hop.example", Slug: "spring"}}, e.Details)

	other, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring"), AppID: &f.app.ID})
	require.NoError(t, err, "the slug is held on that app's subdomain only")
	assert.Equal(t, f.app.LinkDomain, other.Domain)

	keep := linking.MoveChoiceKeep
	_, err = f.svc.SetMoveChoice(ctx, f.owner, waiting.ID, linking.MoveChoiceInput{Choice: &keep})
	require.NoError(t, err)
	l, err := f.svc.Create(ctx, f.owner, in)
	require.NoError(t, err, "a link that chose keep holds no slug")
	assert.Equal(t, app.LinkDomain, l.Domain)
	assert.Equal(t, "spring", l.Slug)

	_, err = f.svc.Create(ctx, f.owner, in)
	e = requireCode(t, err, errcode.SlugTaken)
	assert.NotContains(t, e.Details, linking.DetailHeldBy, "a link at the address is not a held slug")
}

func TestGeneratedSlugIsGeneratedAgainWhenHeld(t *testing.T) {
	t.Parallel()
	random := zeroThenOne()
	f := newLinkFixture(t, storetest.SQLite(t), func(o *linking.LinkServiceOptions) { o.Random = random })
	app, waiting := heldSetup(t, f, "old-app.hop.example")
	_, err := f.s.DB().NewUpdate().Table("links").Set("slug = ?", "aaaaaaa").Where("id = ?", waiting.ID).Exec(t.Context())
	require.NoError(t, err)

	l, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", AppID: &app.ID})
	require.NoError(t, err)
	assert.Equal(t, "bbbbbbb", l.Slug, "aaaaaaa was held, so a second slug was generated")
}

func TestCreateOnAnAppWithAPreviousSubdomainNeedsAMoveChoiceStore(t *testing.T) {
	t.Parallel()
	f := newLinkFixture(t, storetest.SQLite(t))
	app, _ := heldSetup(t, f, "old-app.hop.example")
	svc := linking.NewLinkService(onlyLinks{f.s}, f.s, f.s, linking.LinkServiceOptions{DefaultLinkDomain: linkDefaultDomain})
	_, err := svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("summer"), AppID: &app.ID})
	require.Error(t, err)
	_, coded := errcode.As(err)
	assert.False(t, coded, "an internal error: %v", err)
	_, err = svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("summer"), AppID: &f.app.ID})
	assert.NoError(t, err, "an app with no previous subdomain holds no slug")
}
