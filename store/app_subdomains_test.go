package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// renameOf builds the rename of a to handle, as the apps service would.
func renameOf(a *linking.App, handle string, at time.Time) *linking.AppRename {
	return &linking.AppRename{OrgID: a.OrgID, AppID: a.ID, Handle: handle, FromLinkDomain: a.LinkDomain,
		ToLinkDomain: handle + ".hop.example", Confirm: true, LinkState: a.LinkState, At: at, EndsAt: at.Add(linking.RenamePeriod)}
}

func TestAppSubdomainsMigrateDownAndUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "app_handle_holds")
	})
}

// Two apps renamed at once to one handle: one gets it, the other
// ErrAppHandleTaken, whichever check (the look-up or the unique index)
// decides.
func TestRenameAppRaceForOneHandle(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		var apps []*linking.App
		for range 4 {
			a := newApp(c, o.ID, "App")
			require.NoError(t, s.CreateApp(t.Context(), a, 1000))
			apps = append(apps, a)
		}
		at := c.next()
		errs := make([]error, len(apps))
		var wg sync.WaitGroup
		for i, a := range apps {
			wg.Go(func() { _, errs[i] = s.RenameApp(t.Context(), renameOf(a, "contested", at)) })
		}
		wg.Wait()
		assertOneWins(t, errs, linking.ErrAppHandleTaken)
	})
}

// Renames of one app from one read of its state: one wins, the others see
// the state changed (APP_LINK_STATE_CHANGED), never two periods.
func TestRenameAppRaceOnOneApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		a := newApp(c, o.ID, "App")
		require.NoError(t, s.CreateApp(t.Context(), a, 1000))
		at := c.next()
		handles := []string{"one", "two", "three", "four"}
		errs := make([]error, len(handles))
		var wg sync.WaitGroup
		for i, h := range handles {
			wg.Go(func() { _, errs[i] = s.RenameApp(t.Context(), renameOf(a, h, at)) })
		}
		wg.Wait()
		assertOneWins(t, errs, linking.ErrAppStateChanged)
		got, err := s.AppByID(t.Context(), o.ID, a.ID)
		require.NoError(t, err)
		require.NotNil(t, got.PreviousLinkDomain)
		assert.Equal(t, a.LinkDomain, *got.PreviousLinkDomain)
		assert.Equal(t, a.LinkState+1, got.LinkState)
	})
}

// Ends of one period from several replicas at once: one ends it, the
// others find nothing to do; the hold is written once.
func TestEndRenamePeriodOnce(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		a := newApp(c, o.ID, "App")
		require.NoError(t, s.CreateApp(t.Context(), a, 1000))
		at := c.next()
		r := renameOf(a, "renamed", at)
		_, err := s.RenameApp(t.Context(), r)
		require.NoError(t, err)

		end := &linking.RenameEnd{OrgID: o.ID, AppID: a.ID, OldHandle: a.Handle, Previous: a.LinkDomain,
			Current: r.ToLinkDomain, At: r.EndsAt.Add(-time.Millisecond), HoldUntil: r.EndsAt.Add(linking.HandleHold)}
		res, err := s.EndRenamePeriod(t.Context(), end)
		require.NoError(t, err)
		assert.Nil(t, res, "not before the end")
		due, err := s.EndedRenamePeriods(t.Context(), end.At, nil, 10)
		require.NoError(t, err)
		assert.Empty(t, due)

		end.At = r.EndsAt
		due, err = s.EndedRenamePeriods(t.Context(), end.At, nil, 10)
		require.NoError(t, err)
		require.Len(t, due, 1)
		results := make([]*linking.RenameEnded, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() { results[i], errs[i] = s.EndRenamePeriod(t.Context(), end) })
		}
		wg.Wait()
		ended := 0
		for i := range results {
			require.NoError(t, errs[i])
			if results[i] != nil {
				ended++
			}
		}
		assert.Equal(t, 1, ended)
		got, err := s.AppByID(t.Context(), o.ID, a.ID)
		require.NoError(t, err)
		assert.Nil(t, got.PreviousLinkDomain)
		assert.Nil(t, got.RenameEndsAt)
		assert.ErrorIs(t, s.HandleInUse(t.Context(), createApp(t, s, c, o.ID), a.Handle, a.LinkDomain, end.At), linking.ErrAppHandleHeld)
		assert.NoError(t, s.HandleInUse(t.Context(), a.ID, a.Handle, a.LinkDomain, end.At), "free for the app that released it")
		assert.NoError(t, s.HandleInUse(t.Context(), createApp(t, s, c, o.ID), a.Handle, a.LinkDomain, end.HoldUntil), "free after the hold")
	})
}

// linkOf builds a link of app a on domain with slug.
func linkOf(c *clock, a *linking.App, domain, slug string) *linking.Link {
	at := c.next()
	return &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, AppID: &a.ID, Domain: domain, Slug: slug,
		DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: at, UpdatedAt: at}
}

// A link whose domain was chosen from an app state that a rename has
// changed since is refused; one chosen from the state now is created.
func TestCreateAppLinkChecksTheAppState(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		a := newApp(c, o.ID, "App")
		require.NoError(t, s.CreateApp(t.Context(), a, 1000))
		require.NoError(t, s.CreateAppLink(t.Context(), linkOf(c, a, a.LinkDomain, "before"), linking.LinkQuota{}, "", a.LinkState))

		r := renameOf(a, "renamed", c.next())
		renamed, err := s.RenameApp(t.Context(), r)
		require.NoError(t, err)
		err = s.CreateAppLink(t.Context(), linkOf(c, a, a.LinkDomain, "stale"), linking.LinkQuota{}, "", a.LinkState)
		assert.ErrorIs(t, err, linking.ErrAppStateChanged)
		n, err := s.CountLinksOnDomain(t.Context(), a.LinkDomain)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "nothing written against the stale state")
		require.NoError(t, s.CreateAppLink(t.Context(), linkOf(c, a, r.ToLinkDomain, "after"), linking.LinkQuota{},
			a.LinkDomain, renamed.LinkState))
	})
}

// Link creates racing an unconfirmed rename (Confirm false), all decided
// on the state before it. The rename's check that no link is on the old
// subdomain and the creates' check of the app's state are atomic with
// their writes: a rename that succeeded found no link on the old
// subdomain and none landed there after it (every create refused with
// ErrAppStateChanged); a rename refused for confirmation counted links
// that are there, and every create either landed or was refused. Several
// rounds, so that both orders are tried.
func TestCreateAppLinkRacesARename(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		const rounds, creates = 6, 8
		renamedRounds := 0
		for round := range rounds {
			a := newApp(c, o.ID, "App")
			require.NoError(t, s.CreateApp(t.Context(), a, 1000))
			links := make([]*linking.Link, creates)
			for i := range links {
				links[i] = linkOf(c, a, a.LinkDomain, "race-"+string(rune('a'+i)))
			}
			r := renameOf(a, "renamed-"+string(rune('a'+round)), c.next())
			r.Confirm = false
			errs := make([]error, creates)
			var renamed *linking.App
			var renameErr error
			var wg sync.WaitGroup
			start := make(chan struct{})
			// Half the creates start before the rename, half after, so
			// that either may win.
			for i := range links[:creates/2] {
				wg.Go(func() {
					<-start
					errs[i] = s.CreateAppLink(t.Context(), links[i], linking.LinkQuota{}, "", a.LinkState)
				})
			}
			wg.Go(func() {
				<-start
				renamed, renameErr = s.RenameApp(t.Context(), r)
			})
			for i := creates / 2; i < creates; i++ {
				wg.Go(func() {
					<-start
					errs[i] = s.CreateAppLink(t.Context(), links[i], linking.LinkQuota{}, "", a.LinkState)
				})
			}
			close(start)
			wg.Wait()

			created := 0
			for _, err := range errs {
				if err == nil {
					created++
					continue
				}
				require.ErrorIs(t, err, linking.ErrAppStateChanged)
			}
			onOld, err := s.CountLinksOnDomain(t.Context(), a.LinkDomain)
			require.NoError(t, err)
			require.Equal(t, created, onOld, "every create that succeeded is on the old subdomain, and no other")
			if renameErr == nil {
				renamedRounds++
				require.NotNil(t, renamed)
				assert.Zero(t, onOld, "round %d: the rename found no link on the old subdomain, and none landed after it", round)
				continue
			}
			var ce *linking.ConfirmationError
			require.ErrorAs(t, renameErr, &ce, "round %d", round)
			assert.Positive(t, ce.Links, "round %d: a refusal counted links that were there", round)
			assert.LessOrEqual(t, ce.Links, onOld, "round %d", round)
			assert.Zero(t, creates-created, "round %d: no rename committed, so no create was refused", round)
		}
		t.Logf("renames that won: %d of %d", renamedRounds, rounds)
	})
}

// A default link domain chosen from a read of the app that a rename has
// made stale is refused with ErrAppStateChanged and not written; one
// chosen from the state now is written, and a missing app is not found.
func TestSetAppDefaultLinkDomainChecksTheAppState(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		a := newApp(c, o.ID, "App")
		require.NoError(t, s.CreateApp(t.Context(), a, 1000))
		stale := a.LinkState
		r := renameOf(a, "renamed", c.next())
		renamed, err := s.RenameApp(t.Context(), r)
		require.NoError(t, err)

		_, err = s.SetAppDefaultLinkDomain(t.Context(), o.ID, a.ID, a.LinkDomain, stale, c.next())
		assert.ErrorIs(t, err, linking.ErrAppStateChanged)
		got, err := s.AppByID(t.Context(), o.ID, a.ID)
		require.NoError(t, err)
		assert.Equal(t, r.ToLinkDomain, got.DefaultLinkDomain, "nothing written against the stale state")
		assert.Equal(t, renamed.LinkState, got.LinkState)

		set, err := s.SetAppDefaultLinkDomain(t.Context(), o.ID, a.ID, r.ToLinkDomain, renamed.LinkState, c.next())
		require.NoError(t, err)
		assert.Equal(t, renamed.LinkState+1, set.LinkState)
		_, err = s.SetAppDefaultLinkDomain(t.Context(), o.ID, uuid.Must(uuid.NewV7()), r.ToLinkDomain, 0, c.next())
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}
