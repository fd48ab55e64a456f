package attribution_test

import (
	"database/sql"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

// User agents of the tests: a browser's on the click, the web view's on
// the install.
const (
	iosSafari17_5  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	iosWebView17_5 = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
	iosWebView16_0 = "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
	androidPixel8  = "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.210 Mobile Safari/537.36"
	androidPixel8C = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	androidSamsung = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// fixture is an organization with one app and link on a store, and a
// Matcher over it.
type fixture struct {
	t     testing.TB
	s     *store.Store
	clock *testkit.Clock
	m     *attribution.Matcher
	org   *org.Organization
	app   *linking.App
	link  *linking.Link
}

func newFixture(t testing.TB, s *store.Store) *fixture {
	t.Helper()
	f := &fixture{t: t, s: s, clock: testkit.NewClock(t0)}
	f.m = attribution.NewMatcher(s, attribution.MatcherOptions{Clock: f.clock.Now})
	f.org = f.newOrg("acme")
	f.app = f.newApp(f.org.ID, "com.acme.shop", "com.acme.shop")
	f.link = f.newLink(f.org.ID, &f.app.ID, nil)
	return f
}

func (f *fixture) newOrg(slug string) *org.Organization {
	f.t.Helper()
	at := t0.Add(-90 * 24 * time.Hour)
	o := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Org " + slug, Slug: slug + strings.ReplaceAll(uuid.NewString()[:8], "-", ""),
		Plan: org.PlanGrowth, MonthlyClickLimit: 1_000_000, BillingPeriodStart: at, CreatedAt: at, UpdatedAt: at}
	require.NoError(f.t, f.s.CreateOrganization(f.t.Context(), o, nil))
	return o
}

func (f *fixture) newApp(orgID uuid.UUID, bundleID, packageName string) *linking.App {
	f.t.Helper()
	id := uuid.Must(uuid.NewV7())
	handle := "app-" + strings.ReplaceAll(id.String(), "-", "")
	a := &linking.App{ID: id, OrgID: orgID, Name: "App", Handle: handle, LinkDomain: handle + ".hop.example",
		DefaultLinkDomain: handle + ".hop.example", CreatedAt: t0, UpdatedAt: t0}
	if bundleID != "" {
		a.IOSBundleID = &bundleID
	}
	if packageName != "" {
		a.AndroidPackageName = &packageName
	}
	require.NoError(f.t, f.s.CreateApp(f.t.Context(), a, 1000))
	// As linking.AppService tells the Matcher of this process.
	f.m.InvalidateAll()
	return a
}

func (f *fixture) newLink(orgID uuid.UUID, appID *uuid.UUID, createdBy *uuid.UUID) *linking.Link {
	f.t.Helper()
	id := uuid.Must(uuid.NewV7())
	ios, android := "shop://product/42", "https://shop.example/app/42"
	l := &linking.Link{ID: id, OrgID: orgID, AppID: appID, Domain: "hop.example", Slug: "s" + id.String()[24:],
		DestinationURL: "https://shop.example/spring?promo=spring&ref=hop", IOSURL: &ios, AndroidURL: &android,
		IsActive: true, Tags: []string{}, CreatedBy: createdBy, CreatedAt: t0, UpdatedAt: t0}
	require.NoError(f.t, f.s.CreateLink(f.t.Context(), l, linking.LinkQuota{}))
	return l
}

// clickSpec describes a click; zero fields take the defaults of click.
type clickSpec struct {
	link *linking.Link
	ago  time.Duration
	ip   string
	ua   string
	lang string
}

// click records a click on the link of spec (the fixture's by default),
// spec.ago before now, from 203.0.113.7 with an iPhone's Safari in en-US.
func (f *fixture) click(spec clickSpec) analytics.Click {
	f.t.Helper()
	l := spec.link
	if l == nil {
		l = f.link
	}
	if spec.ip == "" {
		spec.ip = "203.0.113.7"
	}
	if spec.ua == "" {
		spec.ua = iosSafari17_5
	}
	if spec.lang == "" {
		spec.lang = "en-US,en;q=0.9"
	}
	d := linking.ClassifyDevice(spec.ua)
	c := analytics.Click{
		ID: testkit.IDAt(f.clock.Now().Add(-spec.ago)), OrgID: l.OrgID, LinkID: l.ID, AppID: l.AppID, Domain: l.Domain, Slug: l.Slug,
		OccurredAt: f.clock.Now().Add(-spec.ago), Source: analytics.SourceRedirect, Platform: string(d.Platform),
		OS: d.OS, OSVersion: d.OSVersion, DeviceModel: d.Model, Browser: d.Browser, IP: spec.ip,
		UserAgent: spec.ua, AcceptLanguage: spec.lang,
	}
	c.Normalize()
	// Written as the click recorder writes it: a row and a segment.
	n, err := f.s.InsertClicks(f.t.Context(), []analytics.Click{c})
	require.NoError(f.t, err)
	require.Equal(f.t, 1, n)
	return c
}

// iosRequest is an install request from the iPhone of the default click.
func iosRequest() attribution.MatchRequest {
	return attribution.MatchRequest{
		Platform: attribution.PlatformIOS, FingerprintVersion: attribution.FingerprintBasic, SDKVersion: "1.4.0",
		DeviceID: uuid.NewString(), UserAgent: iosWebView17_5, AcceptLanguage: "en-US",
	}
}

func androidRequest() attribution.MatchRequest {
	return attribution.MatchRequest{
		Platform: attribution.PlatformAndroid, FingerprintVersion: attribution.FingerprintBasic, SDKVersion: "1.4.0",
		DeviceID: uuid.NewString(), UserAgent: androidPixel8, AcceptLanguage: "en-US",
	}
}

// input is a match of req from ip for the fixture's organization with an
// untied key and no header.
func (f *fixture) input(req attribution.MatchRequest, ip string) attribution.MatchInput {
	if ip == "" {
		ip = "203.0.113.7"
	}
	return attribution.MatchInput{OrgID: f.org.ID, Request: req, ClientIP: netip.MustParseAddr(ip)}
}

func (f *fixture) match(in attribution.MatchInput) (attribution.MatchResult, error) {
	f.t.Helper()
	require.NoError(f.t, in.Request.Validate())
	return f.m.Match(f.t.Context(), in)
}

// attempts returns the organization's attempts, newest first.
func (f *fixture) attempts() []attribution.Attempt {
	f.t.Helper()
	page, err := f.m.ListAttempts(f.t.Context(), attribution.AttemptFilter{OrgID: f.org.ID,
		From: t0.Add(-365 * 24 * time.Hour), To: f.clock.Now().Add(365 * 24 * time.Hour), Limit: 500})
	require.NoError(f.t, err)
	return page.Data
}

func (f *fixture) lastAttempt() attribution.Attempt {
	f.t.Helper()
	a := f.attempts()
	require.NotEmpty(f.t, a)
	return a[0]
}

func (f *fixture) installs() []attribution.Install {
	f.t.Helper()
	page, err := f.m.ListInstalls(f.t.Context(), attribution.InstallFilter{OrgID: f.org.ID,
		From: t0.Add(-365 * 24 * time.Hour), To: f.clock.Now().Add(365 * 24 * time.Hour), Limit: 500})
	require.NoError(f.t, err)
	return page.Data
}

// claimedBy returns the install that claimed click id, or nil. On SQLite
// an unclaimed click may have no row of clicks (a claim writes it).
func (f *fixture) claimedBy(id uuid.UUID) *uuid.UUID {
	f.t.Helper()
	var by *uuid.UUID
	err := f.s.DB().NewSelect().Table("clicks").Column("claimed_by_install").Where("id = ?", id).Scan(f.t.Context(), &by)
	if errors.Is(err, sql.ErrNoRows) && f.s.Dialect() == "sqlite" {
		return nil
	}
	require.NoError(f.t, err)
	return by
}

func reason(r attribution.FailReason) *attribution.FailReason { return &r }
