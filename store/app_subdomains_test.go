package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		due, err := s.EndedRenamePeriods(t.Context(), end.At, 10)
		require.NoError(t, err)
		assert.Empty(t, due)

		end.At = r.EndsAt
		due, err = s.EndedRenamePeriods(t.Context(), end.At, 10)
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
