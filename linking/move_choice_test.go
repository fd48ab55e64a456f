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
