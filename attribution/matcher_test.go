package attribution_test

import (
	"encoding/json"
	"sync"
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

func TestProbabilisticMatchAtHome(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		c := f.click(clickSpec{ago: 5 * time.Minute})

		res, err := f.match(f.input(iosRequest(), ""))
		require.NoError(t, err)
		require.True(t, res.Matched)
		assert.Equal(t, attribution.MatchProbabilistic, res.MatchType)
		assert.GreaterOrEqual(t, res.MatchConfidence, attribution.MatchThreshold)
		assert.Less(t, res.MatchConfidence, 1.0)
		assert.Equal(t, f.link.ID, res.LinkID)
		assert.Equal(t, "shop://product/42", *res.DeepLinkURL, "iOS gets ios_url")
		assert.Equal(t, f.link.DestinationURL, *res.DestinationURL)
		assert.Equal(t, map[string]string{"promo": "spring", "ref": "hop"}, res.CustomParams)
		assert.Equal(t, &f.app.ID, res.AppID)

		ins := f.installs()
		require.Len(t, ins, 1)
		assert.Equal(t, res.InstallID, ins[0].ID)
		assert.Equal(t, &c.ID, ins[0].ClickID)
		assert.False(t, ins[0].MatchGuaranteed)
		assert.Equal(t, false, *ins[0].IsReinstall)
		assert.True(t, ins[0].HasDeviceID)
		assert.False(t, ins[0].HasDeviceFingerprint)
		assert.True(t, ins[0].HasMatchedPayload)
		assert.Equal(t, &res.InstallID, f.claimedBy(c.ID))

		a := f.lastAttempt()
		assert.True(t, a.Matched)
		assert.Nil(t, a.FailReason)
		assert.Equal(t, attribution.SourceClaim, *a.MatchSource)
		assert.Equal(t, attribution.IPClassIPv4, *a.IPClass)
		assert.Equal(t, attribution.CandidateCounts{Found: 1, Eligible: 1, Unclaimed: 1, Scored: 1}, a.Candidates)
		assert.Equal(t, res.MatchConfidence, *a.TopConfidence)
		assert.Nil(t, a.RunnerUpConfidence)
		assert.Contains(t, a.Signals, "time")
		assert.Contains(t, a.Signals, "ip")
	})
}

func TestDeterministicReferrerMatch(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		// Clicked five days ago from another network: only the referrer ties it.
		c := f.click(clickSpec{ago: 5 * 24 * time.Hour, ip: "198.51.100.9", ua: androidPixel8C})
		req := androidRequest()
		req.Referrer = "utm_source=ads&hop_click_id=" + c.ID.String()

		res, err := f.match(f.input(req, ""))
		require.NoError(t, err)
		require.True(t, res.Matched)
		assert.Equal(t, attribution.MatchDeterministic, res.MatchType)
		assert.Equal(t, 1.0, res.MatchConfidence)
		assert.Equal(t, "https://shop.example/app/42", *res.DeepLinkURL, "Android gets android_url")
		ins := f.installs()
		require.Len(t, ins, 1)
		assert.True(t, ins[0].MatchGuaranteed)
		assert.Equal(t, &c.ID, ins[0].ClickID)
		a := f.lastAttempt()
		assert.Equal(t, []string{"referrer"}, a.Signals)
		assert.Equal(t, attribution.MatchDeterministic, *a.MatchType)
	})
}

func TestDeterministicWindowIsTheLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		c := f.click(clickSpec{ago: 8 * 24 * time.Hour, ip: "198.51.100.9", ua: androidPixel8C})
		req := androidRequest()
		req.Referrer = "hop_click_id=" + c.ID.String()
		res, err := f.match(f.input(req, ""))
		require.NoError(t, err)
		assert.False(t, res.Matched, "older than the default 168 hours")
		assert.Equal(t, reason(attribution.FailNoCandidates), f.lastAttempt().FailReason)
	})
}

func TestFailReasons(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		setup  func(f *fixture) attribution.MatchInput
		reason attribution.FailReason
		counts attribution.CandidateCounts
	}{
		{
			name: "no_signals: nothing beyond the IP address",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute})
				req := iosRequest()
				req.DeviceID, req.UserAgent, req.AcceptLanguage = "", "", ""
				return f.input(req, "")
			},
			reason: attribution.FailNoSignals,
		},
		{
			name: "no_signals: a timezone and a screen, which no click carries",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 5 * time.Minute})
				req := iosRequest()
				w, h, tz := 1179, 2556, 60
				req.UserAgent, req.AcceptLanguage = "", ""
				req.ScreenWidth, req.ScreenHeight, req.TimezoneOffset = &w, &h, &tz
				return f.input(req, "")
			},
			reason: attribution.FailNoSignals,
		},
		{
			name: "no_candidates: no click on this IP key",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute, ip: "198.51.100.1"})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailNoCandidates,
		},
		{
			name: "no_candidates: the click is older than the probabilistic window",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 25 * time.Hour})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailNoCandidates,
		},
		{
			name: "candidates_filtered: another platform",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute, ua: androidPixel8C})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailCandidatesFiltered,
			counts: attribution.CandidateCounts{Found: 1},
		},
		{
			name: "candidates_filtered: the install's OS is older than the click's",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute})
				req := iosRequest()
				req.UserAgent = iosWebView16_0
				return f.input(req, "")
			},
			reason: attribution.FailCandidatesFiltered,
			counts: attribution.CandidateCounts{Found: 1},
		},
		{
			name: "candidates_filtered: outside the link's match window",
			setup: func(f *fixture) attribution.MatchInput {
				one := 1
				l := f.newLink(f.org.ID, &f.app.ID, nil)
				_, err := f.s.DB().NewUpdate().Table("links").Set("match_window_hours = ?", one).Where("id = ?", l.ID).Exec(f.t.Context())
				require.NoError(f.t, err)
				f.click(clickSpec{link: l, ago: 2 * time.Hour})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailCandidatesFiltered,
			counts: attribution.CandidateCounts{Found: 1},
		},
		{
			name: "candidates_filtered: carrier NAT's 6-hour window",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 7 * time.Hour, ip: "100.64.3.4"})
				return f.input(iosRequest(), "100.64.3.4")
			},
			reason: attribution.FailCandidatesFiltered,
			counts: attribution.CandidateCounts{Found: 1},
		},
		{
			name: "candidates_filtered: a known bot's click",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute, ua: iosSafari17_5 + " facebookexternalhit/1.1"})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailCandidatesFiltered,
			counts: attribution.CandidateCounts{Found: 1},
		},
		{
			name: "candidates_claimed: another install holds the click",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 10 * time.Minute})
				res, err := f.match(f.input(iosRequest(), ""))
				require.NoError(f.t, err)
				require.True(f.t, res.Matched)
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailCandidatesClaimed,
			counts: attribution.CandidateCounts{Found: 1, Eligible: 1},
		},
		{
			name: "scored_zero: another device model",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: time.Minute, ua: androidSamsung})
				return f.input(androidRequest(), "")
			},
			reason: attribution.FailScoredZero,
			counts: attribution.CandidateCounts{Found: 1, Eligible: 1, Unclaimed: 1},
		},
		{
			name: "no_match: the click is too old to be likely",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 20 * time.Hour, lang: "de-DE"})
				req := iosRequest()
				req.AcceptLanguage = "en-US"
				return f.input(req, "")
			},
			reason: attribution.FailNoMatch,
			counts: attribution.CandidateCounts{Found: 1, Eligible: 1, Unclaimed: 1, Scored: 1},
		},
		{
			name: "no_match: two devices alike are ambiguous",
			setup: func(f *fixture) attribution.MatchInput {
				f.click(clickSpec{ago: 4 * time.Minute})
				f.click(clickSpec{ago: 6 * time.Minute, ua: iosSafari17_5 + " ", lang: "en-US,en;q=0.9"})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailNoMatch,
			counts: attribution.CandidateCounts{Found: 2, Eligible: 2, Unclaimed: 2, Scored: 2},
		},
		{
			name: "ambiguous_app: an untied key, no header and two iOS apps",
			setup: func(f *fixture) attribution.MatchInput {
				f.newApp(f.org.ID, "com.acme.other", "")
				f.click(clickSpec{ago: time.Minute})
				return f.input(iosRequest(), "")
			},
			reason: attribution.FailAmbiguousApp,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				f := newFixture(t, s)
				in := tc.setup(f)
				res, err := f.match(in)
				require.NoError(t, err)
				assert.False(t, res.Matched)
				b, err := json.Marshal(res)
				require.NoError(t, err)
				assert.JSONEq(t, `{"matched":false}`, string(b))
				a := f.lastAttempt()
				assert.False(t, a.Matched)
				assert.Equal(t, reason(tc.reason), a.FailReason)
				assert.Nil(t, a.MatchSource)
				assert.Equal(t, tc.counts, a.Candidates)
			})
		})
	}
}

func TestKeyAppMismatch(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		other := f.newApp(f.org.ID, "com.acme.other", "")
		f.click(clickSpec{ago: time.Minute})
		foreign := f.newOrg("globex")
		foreignApp := f.newApp(foreign.ID, "com.globex.app", "")

		cases := []struct {
			name   string
			keyApp uuid.UUID
			header string
		}{
			{"tied key used for another app by id", f.app.ID, other.ID.String()},
			{"tied key used for another app by bundle id", f.app.ID, "com.acme.other"},
			{"app unknown to the organization", f.app.ID, "com.unknown.app"},
			{"app of another organization", f.app.ID, foreignApp.ID.String()},
		}
		var messages []string
		for _, tc := range cases {
			in := f.input(iosRequest(), "")
			in.KeyAppID, in.AppHeader = &tc.keyApp, tc.header
			_, err := f.match(in)
			e, ok := errcode.As(err)
			require.True(t, ok, tc.name)
			assert.Equal(t, errcode.KeyAppMismatch, e.Code, tc.name)
			messages = append(messages, e.Message)
			a := f.lastAttempt()
			assert.Equal(t, reason(attribution.FailKeyAppMismatch), a.FailReason, tc.name)
		}
		for _, m := range messages {
			assert.Equal(t, messages[0], m, "one message for every case")
		}

		in := f.input(iosRequest(), "")
		in.AppHeader = "com.unknown.app"
		_, err := f.match(in)
		assert.Equal(t, errcode.KeyAppMismatch, errcode.CodeOf(err), "an untied key naming an unknown app")
		assert.Empty(t, f.installs())
	})
}

func TestAppResolution(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		other := f.newApp(f.org.ID, "com.acme.other", "")
		otherLink := f.newLink(f.org.ID, &other.ID, nil)
		f.click(clickSpec{ago: 2 * time.Minute, link: otherLink})

		in := f.input(iosRequest(), "")
		in.AppHeader = "com.acme.other"
		res, err := f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched, "the header names the app by bundle id")
		assert.Equal(t, otherLink.ID, res.LinkID)

		f.click(clickSpec{ago: time.Minute, ip: "192.0.2.50"})
		in = f.input(iosRequest(), "192.0.2.50")
		in.KeyAppID = &f.app.ID
		res, err = f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched, "a tied key names its app")
		assert.Equal(t, f.link.ID, res.LinkID)
	})
}

func TestAmbiguousAppMatchedThroughReferrer(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		f.newApp(f.org.ID, "", "com.acme.other")
		c := f.click(clickSpec{ago: time.Hour, ua: androidPixel8C})
		req := androidRequest()
		req.Referrer = "hop_click_id%3D" + c.ID.String()
		res, err := f.match(f.input(req, "198.51.100.77"))
		require.NoError(t, err)
		require.True(t, res.Matched, "the referrer names the link, and the app")
		assert.Equal(t, &f.app.ID, res.AppID)
		a := f.lastAttempt()
		assert.True(t, a.Matched)
		assert.Equal(t, reason(attribution.FailAmbiguousApp), a.FailReason, "a lookup across several apps")
	})
}

func TestReplayIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		f.click(clickSpec{ago: 3 * time.Minute})
		req := iosRequest()
		first, err := f.match(f.input(req, ""))
		require.NoError(t, err)
		require.True(t, first.Matched)

		for i := range 3 {
			f.clock.Advance(time.Hour)
			again, err := f.match(f.input(req, "198.51.100.200"))
			require.NoError(t, err)
			assert.Equal(t, first, again, "retry %d", i)
			a := f.lastAttempt()
			assert.Equal(t, attribution.SourceReplay, *a.MatchSource)
			assert.Equal(t, []string{"device_id"}, a.Signals)
		}
		assert.Len(t, f.installs(), 1, "a replay creates nothing")

		byFingerprint := iosRequest()
		byFingerprint.DeviceID = ""
		byFingerprint.Fingerprint = "a3f1c2d4e5b6a7980a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"
		f.click(clickSpec{ago: time.Minute, ip: "192.0.2.80"})
		fp, err := f.match(f.input(byFingerprint, "192.0.2.80"))
		require.NoError(t, err)
		require.True(t, fp.Matched)
		fpAgain, err := f.match(f.input(byFingerprint, "192.0.2.81"))
		require.NoError(t, err)
		assert.Equal(t, fp, fpAgain)
		assert.Equal(t, []string{"fingerprint"}, f.lastAttempt().Signals)

		f.clock.Advance(24 * time.Hour)
		late, err := f.match(f.input(req, "198.51.100.200"))
		require.NoError(t, err)
		assert.False(t, late.Matched, "past the replay window the request is matched afresh")
	})
}

func TestReinstallRestrictsCandidates(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		f.click(clickSpec{ago: 3 * time.Minute})
		req := iosRequest()
		_, err := f.match(f.input(req, ""))
		require.NoError(t, err)

		f.clock.Advance(2 * 24 * time.Hour)
		c := f.click(clickSpec{ago: 4 * time.Minute, ua: androidPixel8C})
		areq := androidRequest()
		areq.DeviceID = req.DeviceID
		areq.Referrer = "hop_click_id=" + c.ID.String()
		res, err := f.match(f.input(areq, ""))
		require.NoError(t, err)
		require.True(t, res.Matched)
		ins := f.installs()
		require.Len(t, ins, 2)
		assert.True(t, *ins[0].IsReinstall, "the device id was seen on an earlier install")
		assert.False(t, *ins[1].IsReinstall)

		// A click older than the device's last install is never a candidate.
		f.clock.Advance(25 * time.Hour)
		old := f.click(clickSpec{ago: 26 * time.Hour, ua: androidPixel8C})
		areq.Referrer = "hop_click_id=" + old.ID.String()
		res, err = f.match(f.input(areq, ""))
		require.NoError(t, err)
		assert.False(t, res.Matched)
	})
}

func TestClaimTakesTheDeviceSession(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		l2 := f.newLink(f.org.ID, &f.app.ID, nil)
		l3 := f.newLink(f.org.ID, &f.app.ID, nil)
		early := f.click(clickSpec{ago: 50 * time.Minute, link: l2})
		mid := f.click(clickSpec{ago: 20 * time.Minute, link: l2})
		latest := f.click(clickSpec{ago: 5 * time.Minute, link: l3})

		res, err := f.match(f.input(iosRequest(), ""))
		require.NoError(t, err)
		require.True(t, res.Matched)
		assert.Equal(t, l3.ID, res.LinkID, "the latest click's link is delivered")
		assert.Equal(t, &res.InstallID, f.claimedBy(latest.ID))
		assert.Equal(t, &res.InstallID, f.claimedBy(mid.ID), "the same device's click of the last 30 minutes goes with it")
		assert.Nil(t, f.claimedBy(early.ID), "older than 30 minutes before the claimed click")
	})
}

func TestConcurrentMatchesClaimAClickOnce(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		f.click(clickSpec{ago: 4 * time.Minute})
		const n = 8
		var wg sync.WaitGroup
		results := make([]attribution.MatchResult, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = f.m.Match(t.Context(), f.input(iosRequest(), ""))
			}()
		}
		wg.Wait()
		matched := 0
		for i := range n {
			require.NoError(t, errs[i])
			if results[i].Matched {
				matched++
			}
		}
		assert.Equal(t, 1, matched, "one install claims the click")
		assert.Len(t, f.installs(), 1)
		assert.Len(t, f.attempts(), n, "one attempt per request")
	})
}

func TestIsolation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		// Same organization, another app: never a candidate.
		other := f.newApp(f.org.ID, "com.acme.other", "com.acme.other")
		f.click(clickSpec{ago: time.Minute, link: f.newLink(f.org.ID, &other.ID, nil)})
		// Another organization's app with the same bundle id, same IP.
		g := f.newOrg("globex")
		gApp := f.newApp(g.ID, "com.acme.shop", "com.acme.shop")
		gClick := f.click(clickSpec{ago: time.Minute, link: f.newLink(g.ID, &gApp.ID, nil), ua: androidPixel8C})

		in := f.input(iosRequest(), "")
		in.AppHeader = "com.acme.shop"
		res, err := f.match(in)
		require.NoError(t, err)
		assert.False(t, res.Matched)
		assert.Equal(t, reason(attribution.FailNoCandidates), f.lastAttempt().FailReason)

		req := androidRequest()
		req.Referrer = "hop_click_id=" + gClick.ID.String()
		in = f.input(req, "198.51.100.3")
		in.AppHeader = "com.acme.shop"
		res, err = f.match(in)
		require.NoError(t, err)
		assert.False(t, res.Matched, "another organization's click id in the referrer")
		assert.Nil(t, f.claimedBy(gClick.ID))
	})
}

// Records carry millisecond times, as every resource does (DESIGN.md),
// whatever precision the request's time has.
func TestRecordTimesAreMilliseconds(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		f.click(clickSpec{ago: 5 * time.Minute})
		in := f.input(iosRequest(), "")
		in.At = f.clock.Now().Truncate(time.Millisecond).Add(123456 * time.Nanosecond)
		res, err := f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched)

		want := in.At.Truncate(time.Millisecond)
		a := f.lastAttempt()
		assert.True(t, want.Equal(a.CreatedAt), "attempt created_at %s", a.CreatedAt)
		ins := f.installs()
		require.Len(t, ins, 1)
		assert.True(t, want.Equal(ins[0].InstalledAt), "installed_at %s", ins[0].InstalledAt)
	})
}

func TestOnAttemptIsToldOfEveryRecordedAttempt(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		var seen []string
		f.m = attribution.NewMatcher(s, attribution.MatcherOptions{Clock: f.clock.Now, OnAttempt: func(a *attribution.Attempt) {
			switch {
			case a.Matched:
				seen = append(seen, string(*a.MatchSource)+" "+string(*a.MatchType))
			default:
				seen = append(seen, "unmatched "+string(*a.FailReason))
			}
		}})
		f.click(clickSpec{ago: 3 * time.Minute})
		req := iosRequest()
		_, err := f.match(f.input(req, ""))
		require.NoError(t, err)
		f.clock.Advance(time.Hour)
		_, err = f.match(f.input(req, "198.51.100.200"))
		require.NoError(t, err)
		f.clock.Advance(24 * time.Hour)
		_, err = f.match(f.input(req, "198.51.100.200"))
		require.NoError(t, err)
		assert.Equal(t, []string{"claim probabilistic", "replay probabilistic", "unmatched " + string(*f.lastAttempt().FailReason)}, seen,
			"the claim, its replay, and the attempt past the replay window that matched nothing")
	})
}
