package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The links WaitingLinks lists are exactly those PreviousLinkCounts counts
// as waiting: no keep choice, their slug taken by a link or an old address
// on the app's subdomain, or reserved there; oldest first, up to the limit,
// and only the app's own on its previous subdomain.
func TestWaitingLinksAreTheOnesCountedAsWaiting(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		a := newApp(c, o.ID, "App")
		require.NoError(t, s.CreateApp(t.Context(), a, 1000))
		other := newApp(c, o.ID, "Other")
		require.NoError(t, s.CreateApp(t.Context(), other, 1000))
		previous, current := a.LinkDomain, "renamed.hop.example"
		put := func(app *linking.App, domain, slug string) *linking.Link {
			l := linkOf(c, app, domain, slug)
			require.NoError(t, s.CreateLink(t.Context(), l, linking.LinkQuota{}))
			return l
		}
		busy := put(a, previous, "busy")
		put(a, previous, "free")
		reserved := put(a, previous, "test")
		kept := put(a, previous, "kept")
		crowded := put(a, previous, "crowded")
		put(other, current, "busy")
		put(other, current, "kept")
		put(other, current, "crowded")
		put(other, previous+".other", "lonely")
		was := put(other, current, "was")
		require.NoError(t, s.MoveLink(t.Context(), &linking.LinkMove{OrgID: o.ID, LinkID: was.ID, FromDomain: current, FromSlug: "was",
			ToDomain: current, ToSlug: "now", At: c.next()}))
		put(a, previous, "was") // the old address current/was takes its slug there
		require.NoError(t, s.SaveMoveChoice(t.Context(), &linking.MoveChoice{LinkID: kept.ID, OrgID: o.ID, Domain: previous,
			Choice: linking.MoveChoiceKeep, CreatedAt: c.next(), UpdatedAt: c.next()}))

		counts, err := s.PreviousLinkCounts(t.Context(), o.ID, a.ID, previous, current)
		require.NoError(t, err)
		assert.Equal(t, linking.PreviousLinks{Moving: 1, Waiting: 4, Kept: 1}, counts)

		got, err := s.WaitingLinks(t.Context(), o.ID, a.ID, previous, current, 10)
		require.NoError(t, err)
		var slugs []string
		for _, w := range got {
			slugs = append(slugs, w.Slug)
		}
		assert.Equal(t, []string{"busy", "test", "crowded", "was"}, slugs, "oldest first")
		assert.Equal(t, busy.ID, got[0].ID)
		assert.Equal(t, reserved.ID, got[1].ID)
		assert.Equal(t, crowded.ID, got[2].ID)

		got, err = s.WaitingLinks(t.Context(), o.ID, a.ID, previous, current, 2)
		require.NoError(t, err)
		assert.Len(t, got, 2, "at most the limit")
		got, err = s.WaitingLinks(t.Context(), o.ID, other.ID, previous, current, 10)
		require.NoError(t, err)
		assert.Empty(t, got, "another app's links are not this app's")
		got, err = s.WaitingLinks(t.Context(), createOrg(t, s, c, "beta").ID, a.ID, previous, current, 10)
		require.NoError(t, err)
		assert.Empty(t, got, "another organization sees none")
	})
}
