package attribution_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The purge keeps a click's IP as long as the longest window that reads
// it by default: the probabilistic match (24 hours) and the link's default
// deterministic window, whose claim gathers the device's session through
// the click's IP key.
func TestIPRetentionCoversAttributionsWindows(t *testing.T) {
	t.Parallel()
	assert.GreaterOrEqual(t, analytics.IPRetention, attribution.ProbabilisticWindow)
	assert.GreaterOrEqual(t, analytics.IPRetention, attribution.CGNATWindow)
	assert.Equal(t, time.Duration(attribution.DefaultMatchWindowHours)*time.Hour, analytics.IPRetention)
}

func (f *fixture) purge() {
	f.t.Helper()
	_, err := analytics.NewPurger(f.s, analytics.PurgerOptions{Clock: f.clock.Now}).RunOnce(f.t.Context())
	require.NoError(f.t, err)
}

// A click of the last day keeps its IP through the purge and still
// matches probabilistically.
func TestARecentClickKeepsItsIPThroughThePurge(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		c := f.click(clickSpec{ago: 5 * time.Minute})
		f.purge()
		res, err := f.match(f.input(iosRequest(), ""))
		require.NoError(t, err)
		require.True(t, res.Matched)
		assert.Equal(t, attribution.MatchProbabilistic, res.MatchType)
		ins := f.installs()
		require.Len(t, ins, 1)
		assert.Equal(t, &c.ID, ins[0].ClickID)
	})
}

// A click older than the IP window has lost its IP: it is no candidate of
// a probabilistic match (it could not be one anyway, being older than the
// 24-hour probabilistic window), but the Android referrer still finds it
// by its id within its link's window; only the same device's earlier
// clicks, found through the IP key, are no longer claimed with it.
func TestAPurgedClickMatchesByItsIDOnly(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		_, err := s.DB().NewUpdate().Table("links").Set("match_window_hours = ?", 30*24).Where("id = ?", f.link.ID).
			Exec(t.Context())
		require.NoError(t, err)
		earlier := f.click(clickSpec{ago: 10*24*time.Hour + 10*time.Minute, ua: androidPixel8C})
		c := f.click(clickSpec{ago: 10 * 24 * time.Hour, ua: androidPixel8C})
		f.purge()

		res, err := f.match(f.input(androidRequest(), ""))
		require.NoError(t, err)
		assert.False(t, res.Matched, "no probabilistic candidate")
		assert.Equal(t, reason(attribution.FailNoCandidates), f.lastAttempt().FailReason)

		req := androidRequest()
		req.Referrer = "hop_click_id=" + c.ID.String()
		res, err = f.match(f.input(req, ""))
		require.NoError(t, err)
		require.True(t, res.Matched, "the referrer's click id still finds the click")
		assert.Equal(t, attribution.MatchDeterministic, res.MatchType)
		ins := f.installs()
		require.Len(t, ins, 1)
		assert.Equal(t, &c.ID, ins[0].ClickID)
		assert.Equal(t, &ins[0].ID, f.claimedBy(c.ID))
		assert.Nil(t, f.claimedBy(earlier.ID), "the device's session is no longer found without the IP key")
	})
}
