package attribution_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestBackgroundOverAShorterWindow checks the time factor of a background
// read over a shorter window than the model's: the delay density times that
// window, not the model's BackgroundWindow.
func TestBackgroundOverAShorterWindow(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestBusyKeyScoresAgainstItsNewestClicks checks what a busy key's
// candidate is scored against: the newest BusyBackgroundClicks clicks of
// every app on the key, over the span from the oldest of them to now, not
// the key's six hours.
func TestBusyKeyScoresAgainstItsNewestClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		other := f.newApp(f.org.ID, "com.acme.other", "com.acme.other")
		otherLink := f.newLink(f.org.ID, &other.ID, nil)
		for range attribution.MaxCandidateClicks - 150 {
			f.click(clickSpec{link: otherLink, ago: 20 * time.Hour, ua: androidSamsung})
		}
		langs := []string{"en-US", "fr-FR", "de-DE", "es-ES", "it-IT"}
		var window []attribution.Click // the key's six hours, newest first
		window = append(window, storedClick(f.click(clickSpec{ago: 5 * time.Minute})))
		for i := range 150 {
			c := f.click(clickSpec{link: otherLink, ago: time.Duration(11+i) * time.Minute, lang: langs[i%len(langs)]})
			window = append(window, storedClick(c))
		}

		in := f.input(iosRequest(), "")
		in.AppHeader = "com.acme.shop"
		_, err := f.match(in)
		require.NoError(t, err)
		a := f.lastAttempt()
		require.NotNil(t, a.IPClass)
		assert.Equal(t, attribution.IPClassCGNAT, *a.IPClass)
		require.NotNil(t, a.TopConfidence)

		now := f.clock.Now()
		candidates := attribution.SessionsOf(window[:1], attribution.ClaimSessionWindow)
		confidence := func(bg []attribution.Click, span time.Duration) float64 {
			b := attribution.NewBackground(attribution.SessionsOf(bg, attribution.ClaimSessionWindow)).Over(span)
			scored := attribution.DefaultModel.Score(attribution.RequestSignals(&in.Request), now, candidates, b)
			require.Len(t, scored, 1)
			return math.Round(scored[0].Probability*10000) / 10000
		}
		sample := window[:attribution.BusyBackgroundClicks]
		want := confidence(sample, now.Sub(sample[len(sample)-1].OccurredAt))
		assert.Equal(t, want, *a.TopConfidence, "scored against the newest clicks over their span")
		assert.NotEqual(t, confidence(window, attribution.CGNATWindow), want, "the six hours would score otherwise")
	})
}

// storedClick is c as the Matcher reads it back.
func storedClick(c analytics.Click) attribution.Click {
	return attribution.Click{ID: c.ID, LinkID: c.LinkID, AppID: c.AppID, OccurredAt: c.OccurredAt, Platform: c.Platform,
		OSVersion: c.OSVersion, DeviceModel: c.DeviceModel, UserAgent: c.UserAgent, AcceptLanguage: c.AcceptLanguage, IPKey: c.IPKey}
}

// TestKeyClicks checks the store's read of a key. A key with fewer than
// Limit clicks of the apps in [Since, Until) gives them all, newest first
// with their links' windows, not another organization's. A busy key gives
// the request app's clicks since BusySince as candidates (with their
// windows) and, as background, the newest Background clicks of every app
// since BusySince; busy even when there is none.
func TestKeyClicks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		window := 48
		short := f.newLink(f.org.ID, &f.app.ID, nil)
		_, err := s.DB().NewUpdate().Table("links").Set("match_window_hours = ?", window).Where("id = ?", short.ID).Exec(t.Context())
		require.NoError(t, err)
		sister := f.newApp(f.org.ID, "com.acme.sister", "com.acme.sister")
		sisterLink := f.newLink(f.org.ID, &sister.ID, nil)
		other := f.newOrg("globex")
		otherApp := f.newApp(other.ID, "com.acme.shop", "com.acme.shop")
		otherLink := f.newLink(other.ID, &otherApp.ID, nil)
		newest := f.click(clickSpec{link: short, ago: 10 * time.Minute})
		sisters := f.click(clickSpec{link: sisterLink, ago: 20 * time.Minute, ua: androidSamsung})
		for range 2 {
			f.click(clickSpec{ago: time.Hour})
		}
		samsung := f.click(clickSpec{ago: time.Hour, ua: androidSamsung})
		oldest := f.click(clickSpec{ago: 3 * time.Hour})
		f.click(clickSpec{ago: time.Hour, ip: "203.0.113.8"})
		f.click(clickSpec{link: otherLink, ago: time.Hour})
		f.click(clickSpec{link: otherLink, ago: 5 * time.Minute})
		now := f.clock.Now()
		q := attribution.KeyQuery{
			CandidateQuery: attribution.CandidateQuery{OrgID: f.org.ID, AppIDs: []uuid.UUID{f.app.ID, sister.ID}, IPKey: "203.0.113.7",
				Since: now.Add(-4 * time.Hour), Until: now, Limit: 10},
			AppID: f.app.ID, BusySince: now.Add(-90 * time.Minute), Background: 10,
		}
		newestFirst := func(clicks []attribution.Click) {
			for i := 1; i < len(clicks); i++ {
				assert.False(t, clicks[i].OccurredAt.After(clicks[i-1].OccurredAt), "newest first")
			}
		}
		read := func(q attribution.KeyQuery) attribution.KeyRead {
			r, err := s.KeyClicks(t.Context(), q)
			require.NoError(t, err)
			newestFirst(r.Clicks)
			newestFirst(r.Background)
			return r
		}
		ids := func(clicks []attribution.Click) []uuid.UUID {
			var out []uuid.UUID
			for _, c := range clicks {
				out = append(out, c.ID)
			}
			return out
		}

		r := read(q)
		assert.False(t, r.Busy)
		assert.Nil(t, r.Background, "no background of its own when the key is not busy")
		require.Len(t, r.Clicks, 6, "every app and platform of the key in the window, not another organization's app")
		assert.Equal(t, newest.ID, r.Clicks[0].ID)
		assert.Equal(t, sisters.ID, r.Clicks[1].ID)
		require.NotNil(t, r.Clicks[0].MatchWindowHours)
		assert.Equal(t, window, *r.Clicks[0].MatchWindowHours, "the link's window")
		c := r.Clicks[5]
		assert.Equal(t, oldest.ID, c.ID)
		assert.Nil(t, c.MatchWindowHours)
		assert.Equal(t, f.app.ID, *c.AppID)
		assert.Equal(t, "203.0.113.7", c.IPKey)
		assert.Equal(t, "17.5", c.OSVersion)
		assert.Equal(t, "ios", c.Platform)
		assert.False(t, c.Claimed)

		q.Limit = 6
		r = read(q)
		assert.True(t, r.Busy, "as many clicks as the limit")
		require.Len(t, r.Clicks, 4, "the app's clicks since BusySince, of every platform")
		assert.Equal(t, newest.ID, r.Clicks[0].ID)
		assert.Contains(t, ids(r.Clicks), samsung.ID)
		assert.NotContains(t, ids(r.Clicks), sisters.ID, "another app's click is no candidate")
		require.NotNil(t, r.Clicks[0].MatchWindowHours, "candidates carry their links' windows")
		require.Len(t, r.Background, 5, "every app's clicks since BusySince")
		assert.Equal(t, []uuid.UUID{newest.ID, sisters.ID}, ids(r.Background[:2]))
		assert.NotContains(t, ids(r.Background), oldest.ID)

		q.Background = 3
		r = read(q)
		assert.True(t, r.Busy)
		assert.Len(t, r.Clicks, 4, "the background's size does not bound the candidates")
		require.Len(t, r.Background, 3, "the newest Background clicks")
		assert.Equal(t, []uuid.UUID{newest.ID, sisters.ID}, ids(r.Background[:2]))
		assert.Equal(t, now.Add(-time.Hour), r.Background[2].OccurredAt, "one of the clicks an hour ago")

		q.BusySince = now.Add(-5 * time.Minute)
		r = read(q)
		assert.True(t, r.Busy)
		assert.Empty(t, r.Clicks, "busy without a click since BusySince")
		assert.Empty(t, r.Background)

		q.Limit, q.Since, q.BusySince = 10, now.Add(-2*time.Hour), now.Add(-90*time.Minute)
		r = read(q)
		assert.False(t, r.Busy)
		assert.Len(t, r.Clicks, 5)
		q.IPKey = "198.51.100.1"
		r = read(q)
		assert.False(t, r.Busy)
		assert.Empty(t, r.Clicks, "a key without clicks")
		q.IPKey, q.AppIDs = "203.0.113.7", nil
		r = read(q)
		assert.False(t, r.Busy)
		assert.Empty(t, r.Clicks)
		q.AppIDs, q.OrgID, q.AppID, q.Limit = []uuid.UUID{otherApp.ID}, f.org.ID, otherApp.ID, 1
		r = read(q)
		assert.Empty(t, r.Clicks, "another organization's apps are never read")
		assert.Empty(t, r.Background)
	})
}

// TestCandidateClicksNewestWithinLimit checks CandidateClicks' order and
// bound: newest first by (time, id), and the newest Limit when the key has
// more, ties at the same time included by id.
func TestCandidateClicksNewestWithinLimit(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		var want []uuid.UUID
		for i := range 6 {
			c := f.click(clickSpec{ago: time.Duration(i/2) * time.Hour, ua: benchAgent[i%len(benchAgent)]})
			want = append(want, c.ID)
		}
		// Two clicks a time, and UUIDv7 ids grow: newest first is each pair
		// swapped.
		for i := 0; i < len(want); i += 2 {
			want[i], want[i+1] = want[i+1], want[i]
		}
		f.click(clickSpec{ago: 5 * time.Hour, ip: "203.0.113.8"})
		now := f.clock.Now()
		q := attribution.CandidateQuery{OrgID: f.org.ID, AppIDs: []uuid.UUID{f.app.ID}, IPKey: "203.0.113.7",
			Since: now.Add(-4 * time.Hour), Until: now.Add(time.Millisecond), Limit: 6}
		for _, limit := range []int{6, 7, 5, 3, 1} {
			q.Limit = limit
			clicks, err := s.CandidateClicks(t.Context(), q)
			require.NoError(t, err)
			var got []uuid.UUID
			for _, c := range clicks {
				got = append(got, c.ID)
			}
			assert.Equal(t, want[:min(limit, len(want))], got, "limit %d", limit)
		}
	})
}

// TestAppsAreCachedUntilInvalidated checks the Matcher's apps cache: an app
// written behind the Matcher's back is seen after AppsTTL, and at once after
// InvalidateAll.
func TestAppsAreCachedUntilInvalidated(t *testing.T) {
	t.Parallel()
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
