package attribution_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
)

func TestClassifyIP(t *testing.T) {
	cases := []struct {
		name    string
		ip      string
		devices int
		want    attribution.IPClass
	}{
		{"shared address space is carrier NAT", "100.64.0.1", 0, attribution.IPClassCGNAT},
		{"the top of the shared space", "100.127.255.254", 1, attribution.IPClassCGNAT},
		{"just outside the shared space", "100.128.0.1", 1, attribution.IPClassIPv4},
		{"a home address", "203.0.113.7", 2, attribution.IPClassIPv4},
		{"many devices behind one address is carrier NAT", "203.0.113.7", attribution.CGNATMinDevices, attribution.IPClassCGNAT},
		{"one fewer is not", "203.0.113.7", attribution.CGNATMinDevices - 1, attribution.IPClassIPv4},
		{"an IPv4-mapped address is IPv4", "::ffff:100.64.0.1", 0, attribution.IPClassCGNAT},
		{"IPv6 whatever its devices", "2001:db8::1", 1000, attribution.IPClassIPv6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, attribution.ClassifyIP(netip.MustParseAddr(tc.ip), tc.devices))
		})
	}
	assert.Equal(t, attribution.IPClass(""), attribution.ClassifyIP(netip.Addr{}, 0))
	assert.Equal(t, "2001:db8:1:2::/64", attribution.IPKey(netip.MustParseAddr("2001:db8:1:2:aaaa::1")))
	assert.Equal(t, "192.0.2.1", attribution.IPKey(netip.MustParseAddr("::ffff:192.0.2.1")))
}

func TestPrimaryLanguage(t *testing.T) {
	for in, want := range map[string]string{
		"fr-CA,fr;q=0.9,en;q=0.8": "fr-ca",
		"en_US":                   "en-us",
		" de ;q=1":                "de",
		"*":                       "",
		"":                        "",
	} {
		assert.Equal(t, want, attribution.PrimaryLanguage(in), in)
	}
}

func TestCompareOSVersions(t *testing.T) {
	cases := []struct {
		a, b string
		cmp  int
		ok   bool
	}{
		{"17.5", "17.5.1", 0, true},
		{"17.5", "17.4", 1, true},
		{"16", "17.0", -1, true},
		{"18_1", "18.1", 0, true},
		{"", "17.5", 0, false},
		{"x", "17.5", 0, false},
	}
	for _, tc := range cases {
		cmp, ok := attribution.CompareOSVersions(tc.a, tc.b)
		assert.Equal(t, tc.ok, ok, "%s vs %s", tc.a, tc.b)
		assert.Equal(t, tc.cmp, cmp, "%s vs %s", tc.a, tc.b)
	}
}

func TestRequestSignals(t *testing.T) {
	w, h := 1179, 2556
	zero := 0
	r := attribution.MatchRequest{Platform: "ios", UserAgent: iosWebView17_5, AcceptLanguage: "en-GB,en;q=0.8", ScreenWidth: &w, ScreenHeight: &h}
	s := attribution.RequestSignals(&r)
	assert.Equal(t, "17.5", s.OSVersion)
	assert.Equal(t, "iPhone", s.Model)
	assert.Equal(t, "en-gb", s.Language)
	assert.True(t, s.Usable())

	r = attribution.MatchRequest{Platform: "android", UserAgent: iosWebView17_5, ScreenWidth: &zero, ScreenHeight: &zero}
	s = attribution.RequestSignals(&r)
	assert.False(t, s.Usable(), "an agent of another platform and a 0x0 screen say nothing")

	tz := 60
	r = attribution.MatchRequest{Platform: "ios", ScreenWidth: &w, ScreenHeight: &h, TimezoneOffset: &tz}
	s = attribution.RequestSignals(&r)
	assert.False(t, s.Usable(), "a timezone and a screen alone: no click carries them")

	r = attribution.MatchRequest{Platform: "android", UserAgent: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"}
	assert.Equal(t, "", attribution.RequestSignals(&r).OSVersion, "a reduced agent's frozen Android 10 is unknown")
}

func TestDelayDensity(t *testing.T) {
	m := attribution.DefaultModel
	integrate := func(to time.Duration) float64 {
		sum, step := 0.0, time.Minute
		for d := time.Duration(0); d < to; d += step {
			sum += m.DelayDensity(d+step/2) * step.Hours()
		}
		return sum
	}
	assert.InDelta(t, 0.73, integrate(time.Hour), 0.02, "about three installs in four within an hour")
	assert.InDelta(t, 0.94, integrate(24*time.Hour), 0.01, "94% within a day")
	assert.InDelta(t, 1.0, integrate(7*24*time.Hour), 0.01)
	assert.Zero(t, m.DelayDensity(-time.Second))
	assert.Greater(t, m.DelayDensity(5*time.Minute), m.DelayDensity(time.Hour), "most installs come minutes after the click")
}

// click builds a click at at for the pure tests.
func pureClick(at time.Time, ua, lang, model, osv string) attribution.Click {
	return attribution.Click{ID: uuid.Must(uuid.NewV7()), LinkID: uuid.Nil, OccurredAt: at, Platform: "ios",
		UserAgent: ua, AcceptLanguage: lang, DeviceModel: model, OSVersion: osv}
}

func TestSessionsOf(t *testing.T) {
	now := t0
	a1 := pureClick(now.Add(-5*time.Minute), "A", "en", "iPhone", "17.5")
	a2 := pureClick(now.Add(-30*time.Minute), "A", "en", "iPhone", "17.5")
	a3 := pureClick(now.Add(-36*time.Minute), "A", "en", "iPhone", "17.5")
	b1 := pureClick(now.Add(-10*time.Minute), "B", "en", "iPhone", "17.5")
	sessions := attribution.SessionsOf([]attribution.Click{a3, b1, a1, a2}, attribution.ClaimSessionWindow)
	require.Len(t, sessions, 3)
	assert.Equal(t, []uuid.UUID{a1.ID, a2.ID}, ids(sessions[0].Clicks), "newest session first, its clicks within 30 minutes of its latest")
	assert.Equal(t, []uuid.UUID{b1.ID}, ids(sessions[1].Clicks))
	assert.Equal(t, []uuid.UUID{a3.ID}, ids(sessions[2].Clicks))
}

func ids(cs []attribution.Click) []uuid.UUID {
	var out []uuid.UUID
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestScoreAndDecide(t *testing.T) {
	m := attribution.DefaultModel
	install := attribution.Signals{OSVersion: "17.5", Model: "iPhone", Language: "en-us"}
	score := func(clicks ...attribution.Click) []attribution.Scored {
		sessions := attribution.SessionsOf(clicks, attribution.ClaimSessionWindow)
		return m.Score(install, t0, sessions, attribution.NewBackground(sessions))
	}

	t.Run("a lone recent click of the same device matches", func(t *testing.T) {
		s := score(pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5"))
		d := attribution.Decide(s)
		assert.True(t, d.Matched)
		assert.GreaterOrEqual(t, s[0].Probability, attribution.MatchThreshold)
		assert.Equal(t, -1, d.RunnerUp)
	})
	t.Run("a different device model is decisive", func(t *testing.T) {
		s := score(pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPad", "17.5"))
		assert.Zero(t, s[0].Odds)
		assert.Equal(t, -1, attribution.Decide(s).Best)
		assert.Contains(t, s[0].Decisive(), "device_model")
	})
	t.Run("two alike devices are ambiguous: the runner-up rule", func(t *testing.T) {
		s := score(pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5"),
			pureClick(t0.Add(-6*time.Minute), "B", "en-US", "iPhone", "17.5"))
		d := attribution.Decide(s)
		assert.False(t, d.Matched)
		assert.Equal(t, 1, d.RunnerUp)
		assert.Less(t, s[0].Odds, attribution.RunnerUpFactor*s[1].Odds)
	})
	t.Run("a crowded address counts for little", func(t *testing.T) {
		var clicks []attribution.Click
		clicks = append(clicks, pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5"))
		for i := range 40 {
			clicks = append(clicks, pureClick(t0.Add(-time.Duration(i+1)*20*time.Minute), uuid.NewString(), "en-US", "iPhone", "17.5"))
		}
		s := score(clicks...)
		home := score(clicks[0])
		assert.Less(t, s[0].Odds, home[0].Odds/10)
		assert.False(t, attribution.Decide(s).Matched)
	})
	t.Run("scores are deterministic", func(t *testing.T) {
		c := []attribution.Click{pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5"),
			pureClick(t0.Add(-9*time.Minute), "B", "fr-FR", "iPhone", "17.5")}
		assert.Equal(t, score(c...), score(c...))
	})
	t.Run("timezone and screen count when the click has them", func(t *testing.T) {
		tz, other := 60, -300
		w, h, w2 := 1179, 2556, 1290
		withTZ := install
		withTZ.TimezoneOffset, withTZ.ScreenWidth, withTZ.ScreenHeight = &tz, &w, &h
		factor := func(s attribution.Scored, name string) (float64, bool) {
			for _, f := range s.Factors {
				if f.Signal == name {
					return f.Ratio, true
				}
			}
			return 0, false
		}
		scoreTZ := func(c attribution.Click) attribution.Scored {
			sessions := attribution.SessionsOf([]attribution.Click{c}, attribution.ClaimSessionWindow)
			return m.Score(withTZ, t0, sessions, attribution.NewBackground(sessions))[0]
		}
		c := pureClick(t0.Add(-5*time.Minute), "A", "en-US", "iPhone", "17.5")
		s := scoreTZ(c)
		_, ok := factor(s, "timezone")
		assert.False(t, ok, "a click without a timezone: no factor")
		_, ok = factor(s, "screen")
		assert.False(t, ok)

		c.TimezoneOffset, c.ScreenWidth, c.ScreenHeight = &tz, &h, &w // rotated
		s = scoreTZ(c)
		r, _ := factor(s, "timezone")
		assert.InDelta(t, m.Timezone.SameProb/m.Timezone.DefaultShare, r, 1e-9)
		r, _ = factor(s, "screen")
		assert.InDelta(t, m.Screen.SameProb/m.Screen.DefaultShare, r, 1e-9, "a rotated screen is the same")

		c.TimezoneOffset, c.ScreenWidth = &other, &w2
		s = scoreTZ(c)
		r, _ = factor(s, "timezone")
		assert.InDelta(t, (1-m.Timezone.SameProb)/(1-m.Timezone.DefaultShare), r, 1e-9)
		assert.Zero(t, s.Odds, "another screen is decisive")
		assert.Contains(t, s.Decisive(), "screen")
	})
	t.Run("thresholds", func(t *testing.T) {
		assert.True(t, attribution.Decide([]attribution.Scored{{Odds: 40, Probability: 0.86}, {Odds: 10, Probability: 0.1}}).Matched)
		assert.False(t, attribution.Decide([]attribution.Scored{{Odds: 40, Probability: 0.86}, {Odds: 10.1, Probability: 0.1}}).Matched, "odds under 4 times the runner-up's")
		assert.False(t, attribution.Decide([]attribution.Scored{{Odds: 5, Probability: 0.849}}).Matched, "under 0.85")
	})
}
