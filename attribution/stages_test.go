package attribution_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestAppForItsPlatform checks the app of an untied key without the
// X-Service-App-Id header: the organization's only app for the request's
// platform, or its only app when that has no identifier.
func TestAppForItsPlatform(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		g := f.newOrg("globex")
		iosApp := f.newApp(g.ID, "com.globex.ios", "")
		androidApp := f.newApp(g.ID, "", "com.globex.android")
		f.click(clickSpec{ago: 3 * time.Minute, ip: "203.0.113.20", link: f.newLink(g.ID, &iosApp.ID, nil)})
		f.click(clickSpec{ago: 3 * time.Minute, ip: "203.0.113.21", ua: androidPixel8C, link: f.newLink(g.ID, &androidApp.ID, nil)})

		in := f.input(iosRequest(), "203.0.113.20")
		in.OrgID = g.ID
		res, err := f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched, "the only iOS app of two")
		assert.Equal(t, &iosApp.ID, res.AppID)

		in = f.input(androidRequest(), "203.0.113.21")
		in.OrgID = g.ID
		res, err = f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched, "the only Android app of two")
		assert.Equal(t, &androidApp.ID, res.AppID)

		h := f.newOrg("initech")
		bare := f.newApp(h.ID, "", "")
		f.click(clickSpec{ago: 3 * time.Minute, ip: "203.0.113.22", link: f.newLink(h.ID, &bare.ID, nil)})
		in = f.input(iosRequest(), "203.0.113.22")
		in.OrgID = h.ID
		res, err = f.match(in)
		require.NoError(t, err)
		require.True(t, res.Matched, "the organization's only app, which names no platform")
		assert.Equal(t, &bare.ID, res.AppID)
	})
}

// TestDeviceInstallsOfSeveralApps checks that a device id whose earlier
// installs belong to several apps of the organization sets ambiguous_app
// on the attempt even when it matches, and that installs of one app do not.
func TestDeviceInstallsOfSeveralApps(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		other := f.newApp(f.org.ID, "", "com.acme.other")
		otherLink := f.newLink(f.org.ID, &other.ID, nil)
		device := androidRequest().DeviceID
		install := func(header string, spec clickSpec) attribution.Attempt {
			t.Helper()
			spec.ua, spec.ip = androidPixel8C, "198.51.100.9"
			c := f.click(spec)
			req := androidRequest()
			req.DeviceID, req.Referrer = device, "hop_click_id="+c.ID.String()
			in := f.input(req, "192.0.2.99")
			in.AppHeader = header
			res, err := f.match(in)
			require.NoError(t, err)
			require.True(t, res.Matched)
			assert.Equal(t, attribution.MatchDeterministic, res.MatchType)
			return f.lastAttempt()
		}

		first := install("com.acme.other", clickSpec{ago: time.Minute, link: otherLink})
		assert.Nil(t, first.FailReason)
		f.clock.Advance(time.Hour)
		second := install("com.acme.shop", clickSpec{ago: time.Minute})
		assert.Nil(t, second.FailReason, "the device's earlier installs are of one app")
		assert.True(t, *f.installs()[0].IsReinstall)
		f.clock.Advance(25 * time.Hour)
		third := install("com.acme.shop", clickSpec{ago: time.Minute})
		assert.True(t, third.Matched)
		assert.Equal(t, reason(attribution.FailAmbiguousApp), third.FailReason, "earlier installs of two apps")
	})
}

// TestCarrierNATByDevices checks that an IPv4 address outside the shared
// address space with CGNATMinDevices devices clicking from it is cgnat,
// with its 6-hour window, and with one device fewer is ipv4.
func TestCarrierNATByDevices(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		langs := []string{"de-DE", "fr-FR", "es-ES", "it-IT", "nl-NL"}
		for _, tc := range []struct {
			ip      string
			devices int
			class   attribution.IPClass
			counts  attribution.CandidateCounts
		}{
			{"203.0.113.30", attribution.CGNATMinDevices - 1, attribution.IPClassIPv4,
				attribution.CandidateCounts{Found: 4, Eligible: 4, Unclaimed: 4, Scored: 4}},
			{"203.0.113.31", attribution.CGNATMinDevices, attribution.IPClassCGNAT,
				attribution.CandidateCounts{Found: 5, Eligible: 4, Unclaimed: 4, Scored: 4}},
		} {
			// devices-1 recent clicks of other devices, and one 7 hours old.
			for i := range tc.devices - 1 {
				f.click(clickSpec{ago: time.Duration(i+2) * time.Minute, ip: tc.ip, lang: langs[i]})
			}
			f.click(clickSpec{ago: 7 * time.Hour, ip: tc.ip, lang: langs[len(langs)-1]})
			req := iosRequest()
			req.AcceptLanguage = "ja-JP"
			_, err := f.match(f.input(req, tc.ip))
			require.NoError(t, err)
			a := f.lastAttempt()
			require.NotNil(t, a.IPClass, tc.ip)
			assert.Equal(t, tc.class, *a.IPClass, "%d devices", tc.devices)
			assert.Equal(t, tc.counts, a.Candidates, "%d devices", tc.devices)
		}
	})
}

// TestDeterministicClaimTakesTheDeviceSession checks that a referrer match
// claims the same device's other clicks of the 30 minutes before its click,
// and delivers the referrer click's link.
func TestDeterministicClaimTakesTheDeviceSession(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		l2 := f.newLink(f.org.ID, &f.app.ID, nil)
		spec := func(ago time.Duration) clickSpec {
			return clickSpec{ago: ago, link: l2, ip: "198.51.100.9", ua: androidPixel8C}
		}
		early := f.click(spec(50 * time.Minute))
		mid := f.click(spec(20 * time.Minute))
		named := spec(5 * time.Minute)
		named.link = f.link
		c := f.click(named)
		req := androidRequest()
		req.Referrer = "hop_click_id=" + c.ID.String()
		res, err := f.match(f.input(req, "192.0.2.99"))
		require.NoError(t, err)
		require.True(t, res.Matched)
		assert.Equal(t, f.link.ID, res.LinkID, "the referrer's click's link is delivered")
		assert.Equal(t, &res.InstallID, f.claimedBy(c.ID))
		assert.Equal(t, &res.InstallID, f.claimedBy(mid.ID), "the same device's click of the 30 minutes before")
		assert.Nil(t, f.claimedBy(early.ID))
	})
}

// TestReferrerOfAnotherApp checks cross-app isolation of the deterministic
// stage: a referrer naming a click of another app's link of the same
// organization matches nothing for this app, and leaves the click unclaimed.
func TestReferrerOfAnotherApp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s)
		other := f.newApp(f.org.ID, "", "com.acme.other")
		c := f.click(clickSpec{ago: time.Minute, ip: "198.51.100.9", ua: androidPixel8C, link: f.newLink(f.org.ID, &other.ID, nil)})
		req := androidRequest()
		req.Referrer = "hop_click_id=" + c.ID.String()
		in := f.input(req, "192.0.2.99")
		in.AppHeader = "com.acme.shop"
		res, err := f.match(in)
		require.NoError(t, err)
		assert.False(t, res.Matched)
		assert.Nil(t, f.claimedBy(c.ID))
		assert.Equal(t, reason(attribution.FailNoCandidates), f.lastAttempt().FailReason)
	})
}
