package attribution_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestBackgroundOverAShorterWindow checks the time factor of a background
// read over a shorter window than the model's: the delay density times that
// window, not the model's BackgroundWindow.
func TestBackgroundOverAShorterWindow(t *testing.T) {
	m := attribution.DefaultModel
	install := attribution.Signals{OSVersion: "17.5", Model: "iPhone", Language: "en-us"}
	sessions := attribution.SessionsOf([]attribution.Click{pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5")},
		attribution.ClaimSessionWindow)
	timeFactor := func(bg attribution.Background) float64 {
		s := m.Score(install, t0, sessions, bg)
		require.Len(t, s, 1)
		require.Equal(t, "time", s[0].Factors[0].Signal)
		return s[0].Factors[0].Ratio
	}
	density := m.DelayDensity(5 * time.Minute)
	assert.InDelta(t, density*24, timeFactor(attribution.NewBackground(sessions)), 1e-9, "the model's window by default")
	assert.InDelta(t, density*6, timeFactor(attribution.NewBackground(sessions).Over(attribution.CGNATWindow)), 1e-9)
}

// TestBusyKeyReadsItsCGNATWindowOnly checks that a key with
// MaxCandidateClicks clicks of the organization's apps in the last day is
// carrier NAT and that only its clicks of the last CGNATWindow are read,
// while one click fewer reads the whole day as before.
func TestBusyKeyReadsItsCGNATWindowOnly(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		for _, tc := range []struct {
			name  string
			older int
			class attribution.IPClass
			found int
		}{
			{"a busy key reads its last six hours", attribution.MaxCandidateClicks - 1, attribution.IPClassCGNAT, 1},
			{"one click fewer reads the day", attribution.MaxCandidateClicks - 2, attribution.IPClassIPv4, 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, s)
				other := f.newApp(f.org.ID, "com.acme.other", "com.acme.other")
				otherLink := f.newLink(f.org.ID, &other.ID, nil)
				// Another app's clicks from one Samsung phone count towards the
				// key's business; one of the app's own, seven hours ago, is
				// outside the carrier NAT window.
				for range tc.older - 1 {
					f.click(clickSpec{link: otherLink, ago: 20 * time.Hour, ua: androidSamsung})
				}
				f.click(clickSpec{ago: 7 * time.Hour, ua: androidSamsung})
				f.click(clickSpec{ago: 5 * time.Minute})

				in := f.input(iosRequest(), "")
				in.AppHeader = "com.acme.shop"
				res, err := f.match(in)
				require.NoError(t, err)
				assert.True(t, res.Matched)
				a := f.lastAttempt()
				require.NotNil(t, a.IPClass)
				assert.Equal(t, tc.class, *a.IPClass)
				assert.Equal(t, tc.found, a.Candidates.Found, "the app's clicks read")
			})
		}
	})
}

// TestKeyClicks checks the store's read of a key: the clicks of the given
// apps on the key in [Since, Until), newest first with their links'
// windows, not another organization's; when the key has Limit clicks or
// more there, only those since busySince, and busy, even when there is
// none.
func TestKeyClicks(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		window := 48
		short := f.newLink(f.org.ID, &f.app.ID, nil)
		_, err := s.DB().NewUpdate().Table("links").Set("match_window_hours = ?", window).Where("id = ?", short.ID).Exec(t.Context())
		require.NoError(t, err)
		other := f.newOrg("globex")
		otherApp := f.newApp(other.ID, "com.acme.shop", "com.acme.shop")
		otherLink := f.newLink(other.ID, &otherApp.ID, nil)
		newest := f.click(clickSpec{link: short, ago: 10 * time.Minute})
		for range 2 {
			f.click(clickSpec{ago: time.Hour})
		}
		f.click(clickSpec{ago: time.Hour, ua: androidSamsung})
		oldest := f.click(clickSpec{ago: 3 * time.Hour})
		f.click(clickSpec{ago: time.Hour, ip: "203.0.113.8"})
		f.click(clickSpec{link: otherLink, ago: time.Hour})
		now := f.clock.Now()
		q := attribution.CandidateQuery{OrgID: f.org.ID, AppIDs: []uuid.UUID{f.app.ID}, IPKey: "203.0.113.7",
			Since: now.Add(-4 * time.Hour), Until: now, Limit: 10}
		read := func(q attribution.CandidateQuery, busySince time.Time) ([]attribution.Click, bool) {
			clicks, busy, err := s.KeyClicks(t.Context(), q, busySince)
			require.NoError(t, err)
			for i := 1; i < len(clicks); i++ {
				assert.False(t, clicks[i].OccurredAt.After(clicks[i-1].OccurredAt), "newest first")
			}
			return clicks, busy
		}

		clicks, busy := read(q, now.Add(-30*time.Minute))
		assert.False(t, busy)
		require.Len(t, clicks, 5, "every platform of the key in the window, not another organization's app")
		assert.Equal(t, newest.ID, clicks[0].ID)
		require.NotNil(t, clicks[0].MatchWindowHours)
		assert.Equal(t, window, *clicks[0].MatchWindowHours, "the link's window")
		assert.Equal(t, oldest.ID, clicks[4].ID)
		assert.Nil(t, clicks[4].MatchWindowHours)
		assert.Equal(t, f.app.ID, *clicks[4].AppID)
		assert.Equal(t, "203.0.113.7", clicks[4].IPKey)
		assert.Equal(t, "17.5", clicks[4].OSVersion)
		assert.False(t, clicks[4].Claimed)

		q.Limit = 5
		clicks, busy = read(q, now.Add(-30*time.Minute))
		assert.True(t, busy, "as many clicks as the limit")
		require.Len(t, clicks, 1, "only those since busySince")
		assert.Equal(t, newest.ID, clicks[0].ID)
		clicks, busy = read(q, now.Add(-5*time.Minute))
		assert.True(t, busy)
		assert.Empty(t, clicks, "busy without a click since busySince")

		q.Limit, q.Since = 10, now.Add(-2*time.Hour)
		clicks, busy = read(q, now.Add(-30*time.Minute))
		assert.False(t, busy)
		assert.Len(t, clicks, 4)
		q.IPKey = "198.51.100.1"
		clicks, busy = read(q, now.Add(-30*time.Minute))
		assert.False(t, busy)
		assert.Empty(t, clicks, "a key without clicks")
		q.IPKey, q.AppIDs = "203.0.113.7", nil
		clicks, busy = read(q, now.Add(-30*time.Minute))
		assert.False(t, busy)
		assert.Empty(t, clicks)
		q.AppIDs, q.OrgID = []uuid.UUID{f.app.ID}, other.ID
		clicks, _ = read(q, now.Add(-30*time.Minute))
		assert.Empty(t, clicks, "another organization's apps are never read")
	})
}

// TestAppsAreCachedUntilInvalidated checks the Matcher's apps cache: an app
// written behind the Matcher's back is seen after AppsTTL, and at once after
// InvalidateAll.
func TestAppsAreCachedUntilInvalidated(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		in := f.input(iosRequest(), "")
		in.AppHeader = "com.acme.late"
		_, err := f.match(in)
		require.Equal(t, errcode.KeyAppMismatch, errcode.CodeOf(err))

		late := f.newApp(f.org.ID, "com.acme.late", "") // invalidates
		_, err = f.match(in)
		require.NoError(t, err, "an app written in this process is seen at once")

		// Written directly, as another replica would.
		sneaky := *late
		sneaky.ID, sneaky.Handle, sneaky.LinkDomain, sneaky.DefaultLinkDomain = uuid.Must(uuid.NewV7()), "sneaky-app", "sneaky.hop.example", "sneaky.hop.example"
		bundle := "com.acme.sneaky"
		sneaky.IOSBundleID = &bundle
		require.NoError(t, s.CreateApp(t.Context(), &sneaky, 1000))
		in.AppHeader = bundle
		_, err = f.match(in)
		assert.Equal(t, errcode.KeyAppMismatch, errcode.CodeOf(err), "not yet seen within the TTL")
		f.clock.Advance(attribution.DefaultAppsTTL)
		_, err = f.match(in)
		assert.NoError(t, err, "seen once the TTL has passed")
	})
}
