package store_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The previous and current subdomains of the move tests.
const (
	prevDomain = "old-app.hop.example"
	currDomain = "new-app.hop.example"
)

// moveChoice builds a choice for l on its domain, made at the clock's next time.
func moveChoice(c *clock, l *linking.Link, choice string, newSlug *string) *linking.MoveChoice {
	at := c.next()
	return &linking.MoveChoice{LinkID: l.ID, OrgID: l.OrgID, Domain: l.Domain, Choice: choice, NewSlug: newSlug,
		CreatedAt: at, UpdatedAt: at}
}

// move builds the move of l from where it is to currDomain with slug, the
// held slugs counted on prevDomain.
func move(c *clock, l *linking.Link, slug string) *linking.LinkMove {
	return &linking.LinkMove{OrgID: l.OrgID, LinkID: l.ID, FromDomain: l.Domain, FromSlug: l.Slug,
		ToDomain: currDomain, ToSlug: slug, Previous: prevDomain, At: c.next()}
}

func TestMoveChoicesMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "link_move_choices")
	})
}

func TestSaveReadAndDeleteMoveChoices(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, prevDomain, "spring"))

		_, err := s.MoveChoiceOf(ctx, acme.ID, l.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "none saved yet")

		keep := moveChoice(c, l, linking.MoveChoiceKeep, nil)
		require.NoError(t, s.SaveMoveChoice(ctx, keep))
		got, err := s.MoveChoiceOf(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, keep, got)
		_, err = s.MoveChoiceOf(ctx, other.ID, l.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization sees none")

		again := moveChoice(c, l, linking.MoveChoiceKeep, nil)
		require.NoError(t, s.SaveMoveChoice(ctx, again))
		got, err = s.MoveChoiceOf(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, again.UpdatedAt, got.UpdatedAt, "a second save replaces the first")
		assert.Equal(t, keep.CreatedAt, got.CreatedAt, "and keeps when it was first made")

		stray := moveChoice(c, l, linking.MoveChoiceKeep, nil)
		stray.OrgID = other.ID
		assert.ErrorIs(t, s.SaveMoveChoice(ctx, stray), errcode.ErrNotFound, "the link is not in the organization")
		stray = moveChoice(c, l, linking.MoveChoiceKeep, nil)
		stray.Domain = currDomain
		assert.ErrorIs(t, s.SaveMoveChoice(ctx, stray), linking.ErrLinkMoved, "the link is not on that domain")

		require.NoError(t, s.DeleteMoveChoice(ctx, other.ID, l.ID))
		_, err = s.MoveChoiceOf(ctx, acme.ID, l.ID)
		require.NoError(t, err, "another organization deletes nothing")
		require.NoError(t, s.DeleteMoveChoice(ctx, acme.ID, l.ID))
		_, err = s.MoveChoiceOf(ctx, acme.ID, l.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		require.NoError(t, s.DeleteMoveChoice(ctx, acme.ID, l.ID), "deleting none is no error")

		require.NoError(t, s.SaveMoveChoice(ctx, moveChoice(c, l, linking.MoveChoiceKeep, nil)))
		require.NoError(t, s.DeleteLink(ctx, acme.ID, l.ID))
		assert.Equal(t, 0, orgRows(t, s, "link_move_choices", acme.ID), "the choice goes with its link")
	})
}

func TestMoveLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, acme.ID, prevDomain, "spring"))
		stays := createLink(t, s, newLink(c, acme.ID, prevDomain, "summer"))
		require.NoError(t, s.SaveMoveChoice(ctx, moveChoice(c, stays, linking.MoveChoiceKeep, nil)))

		slug := "spring-sale"
		m := move(c, l, slug)
		m.Choice = moveChoice(c, l, linking.MoveChoiceNewSlug, &slug)
		require.NoError(t, s.MoveLink(ctx, m))

		moved, err := s.LinkByID(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, currDomain, moved.Domain)
		assert.Equal(t, slug, moved.Slug)
		assert.Equal(t, m.At, moved.UpdatedAt)
		old, err := s.OldAddresses(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, []linking.OldAddress{{Domain: prevDomain, Slug: "spring", LinkID: l.ID, OrgID: acme.ID, BeganAt: m.At}}, old)
		byOld, err := s.LinkByOldAddress(ctx, prevDomain, "spring")
		require.NoError(t, err)
		assert.Equal(t, l.ID, byOld.ID)
		saved, err := s.MoveChoiceOf(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, m.Choice, saved, "the choice is saved with the move")

		// A move without a choice deletes the saved one.
		m = move(c, stays, "summer")
		require.NoError(t, s.MoveLink(ctx, m))
		_, err = s.MoveChoiceOf(ctx, acme.ID, stays.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		moved, err = s.LinkByID(ctx, acme.ID, stays.ID)
		require.NoError(t, err)
		assert.Equal(t, currDomain, moved.Domain)
		assert.Equal(t, "summer", moved.Slug)
	})
}

func TestMoveLinkRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, prevDomain, "spring"))
		createLink(t, s, newLink(c, other.ID, currDomain, "taken"))
		gone := createLink(t, s, newLink(c, acme.ID, "elsewhere.hop.example", "gone"))
		recordOldAddress(t, s, oldAddress(c, gone, currDomain, "was-here"))
		createLink(t, s, newLink(c, acme.ID, prevDomain, "waiting"))
		keeper := createLink(t, s, newLink(c, acme.ID, prevDomain, "kept"))
		require.NoError(t, s.SaveMoveChoice(ctx, moveChoice(c, keeper, linking.MoveChoiceKeep, nil)))

		assert.ErrorIs(t, s.MoveLink(ctx, move(c, l, "taken")), linking.ErrMoveTargetTaken,
			"a link is at the new address, whatever its organization")
		assert.ErrorIs(t, s.MoveLink(ctx, move(c, l, "was-here")), linking.ErrMoveTargetTaken,
			"the new address is an old address")
		assert.ErrorIs(t, s.MoveLink(ctx, move(c, l, "waiting")), linking.ErrMoveTargetHeld,
			"another link of the previous subdomain would move there with that slug")
		stale := move(c, l, "autumn")
		stale.FromSlug = "winter"
		assert.ErrorIs(t, s.MoveLink(ctx, stale), linking.ErrLinkMoved, "the link is not at the address the move leaves")
		stray := move(c, l, "autumn")
		stray.OrgID = other.ID
		assert.ErrorIs(t, s.MoveLink(ctx, stray), errcode.ErrNotFound)
		stray = move(c, l, "autumn")
		stray.LinkID = uuid.Must(uuid.NewV7())
		assert.ErrorIs(t, s.MoveLink(ctx, stray), errcode.ErrNotFound)

		got, err := s.LinkByID(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, prevDomain, got.Domain, "no refused move changed the link")
		assert.Equal(t, "spring", got.Slug)
		old, err := s.OldAddresses(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Empty(t, old, "nor recorded an old address")

		require.NoError(t, s.MoveLink(ctx, move(c, l, "kept")), "a link that chose keep holds no slug")
		noHeld := move(c, createLink(t, s, newLink(c, acme.ID, prevDomain, "autumn")), "waiting")
		noHeld.Previous = ""
		require.NoError(t, s.MoveLink(ctx, noHeld), "held slugs count only with Previous")
	})
}

func TestConcurrentMovesToOneSlug(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		const n = 6
		moves := make([]*linking.LinkMove, n)
		for i := range moves {
			l := createLink(t, s, newLink(c, acme.ID, prevDomain, fmt.Sprintf("link-%d", i)))
			moves[i] = move(c, l, "popular")
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i, m := range moves {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.MoveLink(ctx, m)
			}()
		}
		wg.Wait()
		assertOneWins(t, errs[:], linking.ErrMoveTargetTaken, "one move takes the slug")
		assert.Equal(t, n, orgRows(t, s, "links", acme.ID), "every link is still there")
		assert.Equal(t, 1, orgRows(t, s, "link_old_addresses", acme.ID), "one old address, of the link that moved")
	})
}

func TestCreateLinkOnMoveTarget(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		create := func(slug string, quota linking.LinkQuota) error {
			return s.CreateLinkOnMoveTarget(ctx, newLink(c, acme.ID, currDomain, slug), quota, prevDomain)
		}
		waiting := createLink(t, s, newLink(c, acme.ID, prevDomain, "waiting"))
		keeper := createLink(t, s, newLink(c, acme.ID, prevDomain, "kept"))
		require.NoError(t, s.SaveMoveChoice(ctx, moveChoice(c, keeper, linking.MoveChoiceKeep, nil)))
		createLink(t, s, newLink(c, acme.ID, prevDomain, "taken"))
		createLink(t, s, newLink(c, other.ID, currDomain, "taken"))
		createLink(t, s, newLink(c, acme.ID, prevDomain, "was-here"))
		gone := createLink(t, s, newLink(c, acme.ID, "elsewhere.hop.example", "gone"))
		recordOldAddress(t, s, oldAddress(c, gone, currDomain, "was-here"))
		createLink(t, s, newLink(c, acme.ID, prevDomain, "autumn"))
		links := orgRows(t, s, "links", acme.ID)

		err := create("waiting", linking.LinkQuota{})
		assert.ErrorIs(t, err, linking.ErrSlugHeld, "a link waiting on the previous subdomain has the slug")
		assert.ErrorIs(t, err, errcode.ErrConflict)
		err = create("taken", linking.LinkQuota{})
		assert.ErrorIs(t, err, errcode.ErrConflict, "a link at the address, whatever its organization")
		assert.NotErrorIs(t, err, linking.ErrSlugHeld, "wins over the held slug")
		err = create("was-here", linking.LinkQuota{})
		assert.ErrorIs(t, err, errcode.ErrConflict, "an old address")
		assert.NotErrorIs(t, err, linking.ErrSlugHeld, "wins over the held slug")
		assert.Equal(t, links, orgRows(t, s, "links", acme.ID), "no refused create inserted a link")

		require.NoError(t, create("kept", linking.LinkQuota{}), "a link that chose keep holds no slug")
		require.NoError(t, create("summer", linking.LinkQuota{}), "no link has the slug on the previous subdomain")
		require.NoError(t, s.CreateLink(ctx, newLink(c, acme.ID, currDomain, "autumn"), linking.LinkQuota{}),
			"CreateLink counts no held slug")

		// Once the waiting link moved with a new slug, its slug is free.
		slug := "waited"
		m := move(c, waiting, slug)
		m.Choice = moveChoice(c, waiting, linking.MoveChoiceNewSlug, &slug)
		require.NoError(t, s.MoveLink(ctx, m))
		require.NoError(t, create("waiting", linking.LinkQuota{}))

		assert.ErrorIs(t, create("winter", linking.LinkQuota{Max: orgRows(t, s, "links", acme.ID), Since: t0}),
			linking.ErrLinkLimit, "the quota still counts")
	})
}

// TestConcurrentCreateAndMoveOfAKeeperToOneSlug races a create on the
// current subdomain with the move there, with its slug, of the link of the
// previous subdomain that has that slug and chose keep (what DELETE
// move-choice does): one of them takes the address, the other is refused,
// and the create never sees a held slug.
func TestConcurrentCreateAndMoveOfAKeeperToOneSlug(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		const rounds = 6
		created := 0
		for i := range rounds {
			slug := fmt.Sprintf("race-%d", i)
			keeper := createLink(t, s, newLink(c, acme.ID, prevDomain, slug))
			require.NoError(t, s.SaveMoveChoice(ctx, moveChoice(c, keeper, linking.MoveChoiceKeep, nil)))
			l, m := newLink(c, acme.ID, currDomain, slug), move(c, keeper, slug)
			var createErr, moveErr error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				createErr = s.CreateLinkOnMoveTarget(ctx, l, linking.LinkQuota{}, prevDomain)
			}()
			go func() {
				defer wg.Done()
				moveErr = s.MoveLink(ctx, m)
			}()
			wg.Wait()
			if createErr == nil {
				created++
				assert.ErrorIs(t, moveErr, linking.ErrMoveTargetTaken, "round %d", i)
			} else {
				require.NoError(t, moveErr, "round %d: one of them wins", i)
				assert.ErrorIs(t, createErr, errcode.ErrConflict, "round %d", i)
				assert.NotErrorIs(t, createErr, linking.ErrSlugHeld, "round %d", i)
			}
		}
		t.Logf("creates won %d of %d rounds", created, rounds)
		assert.Equal(t, rounds+created, orgRows(t, s, "links", acme.ID))
	})
}
