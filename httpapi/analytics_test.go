package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/geo"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// analyticsHarness is a link harness with the analytics queries, and a
// link-domain server whose redirects go through a click recorder into the
// store. The link domain trusts loopback as a proxy, so that a visit
// chooses its client IP (and so its country) with X-Forwarded-For.
type analyticsHarness struct {
	*linkHarness
	domain *httptest.Server

	mu     sync.Mutex
	rec    *analytics.Recorder
	cancel context.CancelFunc
	done   chan error
}

func newAnalyticsHarness(t *testing.T, s *store.Store, opts ...option) *analyticsHarness {
	t.Helper()
	ah := &analyticsHarness{linkHarness: &linkHarness{}}
	lh := ah.linkHarness
	var resolver *linking.Resolver
	opts = append([]option{withAPI(func(h *harness, o *httpapi.Options) {
		resolver = linking.NewResolver(h.store, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: h.clock.Now})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { resolver.InvalidateAll() })
		lh.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:8080",
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:             resolver,
		})
		o.Links = lh.links
		o.Analytics = analytics.NewQueries(h.store, o.Orgs, analytics.QueriesOptions{Clock: h.clock.Now})
	})}, opts...)
	lh.harness = newHarness(t, s, opts...)
	ah.start(s)
	record := func(ctx context.Context, ev httpapi.RedirectEvent) {
		ah.mu.Lock()
		defer ah.mu.Unlock()
		httpapi.RecordClicks(ah.rec)(ctx, ev)
	}
	ah.domain = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: resolver, Ready: s.Ping, Clock: ah.clock.Now, OnRedirect: record,
		TrustedProxies: []netip.Prefix{loopback},
	}))
	t.Cleanup(func() {
		ah.domain.Close()
		ah.mu.Lock()
		defer ah.mu.Unlock()
		ah.cancel()
		<-ah.done
	})
	return ah
}

// start runs a new recorder; the caller holds mu or is the constructor.
func (h *analyticsHarness) start(s *store.Store) {
	h.rec = analytics.NewRecorder(s, analytics.RecorderOptions{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func(rec *analytics.Recorder) { h.done <- rec.Run(ctx) }(h.rec)
}

// flush writes every click recorded so far: the recorder is stopped, which
// drains it, and a new one takes the next clicks.
func (h *analyticsHarness) flush(t testing.TB) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cancel()
	require.NoError(t, <-h.done)
	st := h.rec.Stats()
	require.Equal(t, st.Accepted, st.Written, "every click is written")
	h.start(h.store)
}

// analyticsVisit is one visitor of a link domain.
type analyticsVisit struct {
	link    linkBody
	ua, ip  string
	query   string
	referer string
}

// redirect sends v to the link domain and requires a redirect.
func (h *analyticsHarness) redirect(t testing.TB, v analyticsVisit) {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, h.domain.URL+"/"+v.link.Slug+v.query, nil)
	require.NoError(t, err)
	r.Host = v.link.Domain
	r.Header.Set("User-Agent", v.ua)
	r.Header.Set("X-Forwarded-For", v.ip)
	if v.referer != "" {
		r.Header.Set("Referer", v.referer)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(r)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
}

// attribute records an install attributed to click through the store's
// claim, as the matcher does, so that the click rollups count it.
func attribute(t testing.TB, s *store.Store, orgID, click uuid.UUID, at time.Time) {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	mt := attribution.MatchDeterministic
	rec := attribution.InstallRecord{
		Install: attribution.Install{ID: id, ClickID: &click, MatchGuaranteed: true, InstalledAt: at},
		OrgID:   orgID, IP: "198.51.100.20", Platform: attribution.PlatformIOS,
		Payload: &attribution.Payload{MatchType: mt, MatchConfidence: 1},
	}
	att := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Matched: true, MatchType: &mt,
		InstallID: &id, CreatedAt: at, Platform: attribution.PlatformIOS}
	require.NoError(t, s.Claim(context.Background(), rec, att))
}

type seriesBody struct {
	Data []struct {
		Start    string `json:"start"`
		Clicks   int64  `json:"clicks"`
		Installs int64  `json:"installs"`
	} `json:"data"`
	Total  totalsBody `json:"total"`
	Window struct {
		From     time.Time `json:"from"`
		To       time.Time `json:"to"`
		Interval string    `json:"interval"`
		Timezone string    `json:"timezone"`
	} `json:"window"`
}

type totalsBody struct {
	Clicks         int64  `json:"clicks"`
	Installs       int64  `json:"installs"`
	UnstoredClicks *int64 `json:"unstored_clicks"`
}

type breakdownBody struct {
	Data []struct {
		Value    *string `json:"value"`
		Clicks   int64   `json:"clicks"`
		Installs int64   `json:"installs"`
	} `json:"data"`
	Other struct {
		Clicks   int64 `json:"clicks"`
		Installs int64 `json:"installs"`
	} `json:"other"`
	Total  totalsBody `json:"total"`
	Window struct {
		From time.Time `json:"from"`
		To   time.Time `json:"to"`
	} `json:"window"`
}

func (h *analyticsHarness) series(t testing.TB, key string, kv ...string) seriesBody {
	t.Helper()
	resp := h.get(t, key, withQuery("/v1/analytics/timeseries", kv...))
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	var b seriesBody
	resp.decode(t, &b)
	return b
}

func (h *analyticsHarness) breakdown(t testing.TB, key string, kv ...string) breakdownBody {
	t.Helper()
	resp := h.get(t, key, withQuery("/v1/analytics/breakdown", kv...))
	require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
	var b breakdownBody
	resp.decode(t, &b)
	return b
}

// values returns a breakdown's data as value -> clicks, "<null>" for the
// unknown value.
func (b breakdownBody) values() map[string]int64 {
	out := map[string]int64{}
	for _, d := range b.Data {
		k := "<null>"
		if d.Value != nil {
			k = *d.Value
		}
		out[k] = d.Clicks
	}
	return out
}

func (b seriesBody) sum() (clicks, installs int64) {
	for _, d := range b.Data {
		clicks += d.Clicks
		installs += d.Installs
	}
	return clicks, installs
}

// Totals are exact: N redirects with known user agents, UTM values,
// referers and IPs of known countries read back as N in every view, and
// each value's count is the number of visits that had it.
func TestAnalyticsExactTotals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAnalyticsHarness(t, s)
		o, app := h.linkOrg(t, "Acme")
		key := o.key.raw
		withApp := h.create(t, key, `{"destination_url":"https://shop.example/a","slug":"spring","utm_source":"newsletter","app_id":"`+app.ID.String()+`"}`)
		plain := h.create(t, key, `{"destination_url":"https://shop.example/b","slug":"plain"}`)
		other, _ := h.linkOrg(t, "Other")
		theirs := h.create(t, other.key.raw, `{"destination_url":"https://other.example/","slug":"theirs"}`)

		ips := []string{"8.8.8.8", "81.2.69.160", "133.242.0.1"}
		countries := map[string]string{}
		for _, ip := range ips {
			countries[ip] = geo.Country(netip.MustParseAddr(ip))
			require.Len(t, countries[ip], 2, "the built-in table knows %s", ip)
		}
		require.Equal(t, []string{"US", "GB", "JP"}, []string{countries[ips[0]], countries[ips[1]], countries[ips[2]]})
		uas := []string{uaIPhone, uaAndroid, uaDesktop}

		const n = 24
		want := map[string]map[string]int64{"platform": {}, "country": {}, "utm_source": {}, "utm_medium": {},
			"browser": {}, "link": {}, "app": {}, "referer_host": {}, "domain": {}, "source": {}}
		for i := range n {
			v := analyticsVisit{ua: uas[i%3], ip: ips[(i/3)%3], link: plain}
			if i%2 == 0 {
				v.link = withApp
			}
			if i%4 == 0 {
				v.referer = "https://WWW.News.Example:8443/story"
			}
			medium := "<null>"
			if i%5 == 0 {
				v.query, medium = "?utm_medium=social&utm_campaign=launch", "social"
			}
			source := "<null>"
			if v.link.ID == withApp.ID {
				source = "newsletter"
			} else if i%3 == 1 {
				v.query, source, medium = "?utm_source=ads&utm_medium=cpc", "ads", "cpc"
			}
			h.redirect(t, v)
			h.clock.Advance(time.Minute)

			d := linking.ClassifyDevice(v.ua)
			want["platform"][string(d.Platform)]++
			want["browser"][d.Browser]++
			want["country"][countries[v.ip]]++
			want["utm_source"][source]++
			want["utm_medium"][medium]++
			want["link"][v.link.ID.String()]++
			want["domain"][v.link.Domain]++
			want["source"]["redirect"]++
			if v.link.AppID != nil {
				want["app"][v.link.AppID.String()]++
			} else {
				want["app"]["<null>"]++
			}
			if v.referer != "" {
				want["referer_host"]["www.news.example"]++
			} else {
				want["referer_host"]["<null>"]++
			}
		}
		for range 3 { // another organization's clicks never count
			h.redirect(t, analyticsVisit{link: theirs, ua: uaDesktop, ip: ips[0]})
		}
		h.flush(t)

		// Two installs attributed to clicks of the app's link.
		var clicks []uuid.UUID
		require.NoError(t, s.DB().NewSelect().Table("clicks").Column("id").Where("link_id = ?", withApp.ID).
			OrderExpr("occurred_at").Limit(2).Scan(context.Background(), &clicks))
		require.Len(t, clicks, 2)
		for _, c := range clicks {
			attribute(t, s, o.ID, c, h.clock.Now())
		}
		h.clock.Advance(time.Second)

		for _, iv := range []string{"hour", "day", "week", "month"} {
			b := h.series(t, key, "interval", iv)
			c, i := b.sum()
			assert.Equal(t, int64(n), c, "time series by %s", iv)
			assert.Equal(t, int64(2), i, "installs by %s", iv)
			assert.Equal(t, totalsBody{Clicks: n, Installs: 2, UnstoredClicks: new(int64)}, b.Total)
		}
		for _, by := range analytics.Dimensions() {
			b := h.breakdown(t, key, "by", string(by), "limit", "100")
			assert.Equal(t, int64(n), b.Total.Clicks, "breakdown by %s", by)
			assert.Equal(t, int64(2), b.Total.Installs, "breakdown by %s", by)
			var sum int64
			for _, d := range b.Data {
				sum += d.Clicks
				if d.Value != nil {
					assert.NotEmpty(t, *d.Value, "unknown is null, never empty: %s", by)
				}
			}
			assert.Equal(t, int64(n), sum+b.Other.Clicks, "breakdown by %s", by)
			if w, ok := want[string(by)]; ok {
				assert.Equal(t, w, b.values(), "breakdown by %s", by)
			}
		}
		b := h.breakdown(t, key, "by", "link")
		require.NotEmpty(t, b.Data)
		assert.Equal(t, int64(2), b.Data[0].Installs, "installs count by their click's link")

		t.Run("filters narrow every view alike", func(t *testing.T) {
			for _, f := range []struct {
				name, value string
				want        int64
			}{
				{"platform", "ios", want["platform"]["ios"]},
				{"country", "GB", want["country"]["GB"]},
				{"utm_source", "ads", want["utm_source"]["ads"]},
				{"utm_medium", "social", want["utm_medium"]["social"]},
				{"utm_campaign", "launch", want["utm_medium"]["social"]},
				{"link_id", plain.ID.String(), want["link"][plain.ID.String()]},
				{"app_id", app.ID.String(), want["app"][app.ID.String()]},
				{"domain", plain.Domain, want["domain"][plain.Domain]},
				{"source", "redirect", n},
				{"source", "app_open", 0},
				{"tag", "none-has-it", 0},
				{"link_id", theirs.ID.String(), 0},
			} {
				s := h.series(t, key, f.name, f.value)
				c, _ := s.sum()
				assert.Equal(t, f.want, c, "%s=%s", f.name, f.value)
				assert.Nil(t, s.Total.UnstoredClicks, "a filtered query cannot count unstored clicks")
				bd := h.breakdown(t, key, "by", "country", f.name, f.value)
				assert.Equal(t, f.want, bd.Total.Clicks, "%s=%s", f.name, f.value)
			}
		})

		t.Run("limit keeps the top values and sums the rest in other", func(t *testing.T) {
			b := h.breakdown(t, key, "by", "country", "limit", "1")
			require.Len(t, b.Data, 1)
			assert.Equal(t, int64(n), b.Data[0].Clicks+b.Other.Clicks)
			b = h.breakdown(t, key, "by", "country")
			assert.Len(t, b.Data, 3, "the default limit is 10")
			for i := 1; i < len(b.Data); i++ {
				assert.GreaterOrEqual(t, b.Data[i-1].Clicks, b.Data[i].Clicks, "ordered by clicks")
			}
		})

		t.Run("clicks counted but not stored are reported as such", func(t *testing.T) {
			c := analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, LinkID: plain.ID, Domain: plain.Domain,
				Slug: plain.Slug, OccurredAt: h.clock.Now().Add(-time.Hour), Source: analytics.SourceRedirect,
				CountOnly: true, Weight: 7}
			_, err := s.InsertClicks(context.Background(), []analytics.Click{c})
			require.NoError(t, err)
			seven := int64(7)
			b := h.breakdown(t, key, "by", "platform")
			assert.Equal(t, totalsBody{Clicks: n, Installs: 2, UnstoredClicks: &seven}, b.Total)
			assert.Equal(t, &seven, h.series(t, key).Total.UnstoredClicks)
		})
	})
}

// Every parameter is validated, unknown and repeated ones refused, and each
// error names its field.
func TestAnalyticsValidation(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAnalyticsHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		key := o.key.raw
		now := h.clock.Now()
		both := []string{"/v1/analytics/timeseries?", "/v1/analytics/breakdown?by=country&"}
		tests := []struct {
			name   string
			paths  []string
			query  string
			fields []string
		}{
			{"an unknown parameter", both, "cursor=x", []string{"cursor"}},
			{"a repeated parameter", both, "country=US&country=GB", []string{"country"}},
			{"from not an instant", both, "from=yesterday", []string{"from"}},
			{"to without an offset", both, "to=2029-12-30T00:00:00", []string{"to"}},
			{"from not before to", both, "from=" + url.QueryEscape(rfc(now.Add(-time.Hour))) + "&to=" + url.QueryEscape(rfc(now.Add(-time.Hour))), []string{"to"}},
			{"link_id not a UUID", both, "link_id=spring", []string{"link_id"}},
			{"app_id not a UUID", both, "app_id=none", []string{"app_id"}},
			{"an empty domain", both, "domain=", []string{"domain"}},
			{"an empty tag", both, "tag=", []string{"tag"}},
			{"an unknown source", both, "source=api", []string{"source"}},
			{"an unknown platform", both, "platform=tv", []string{"platform"}},
			{"a country in lower case", both, "country=us", []string{"country"}},
			{"a country of three letters", both, "country=USA", []string{"country"}},
			{"an empty utm_source", both, "utm_source=", []string{"utm_source"}},
			{"an empty utm_medium", both, "utm_medium=", []string{"utm_medium"}},
			{"an empty utm_campaign", both, "utm_campaign=", []string{"utm_campaign"}},
			{"an unknown interval", both[:1], "interval=year", []string{"interval"}},
			{"an unknown time zone", both[:1], "timezone=Mars/Olympus", []string{"timezone"}},
			{"the server's local zone", both[:1], "timezone=Local", []string{"timezone"}},
			{"by on the time series", both[:1], "by=country", []string{"by"}},
			{"by missing", []string{"/v1/analytics/breakdown?"}, "limit=5", []string{"by"}},
			{"an unknown by", []string{"/v1/analytics/breakdown?"}, "by=city", []string{"by"}},
			{"limit 0", both[1:], "limit=0", []string{"limit"}},
			{"limit 101", both[1:], "limit=101", []string{"limit"}},
			{"limit not an integer", both[1:], "limit=ten", []string{"limit"}},
			{"interval on the breakdown", both[1:], "interval=day", []string{"interval"}},
			{"every problem at once", both[1:], "limit=0&country=x&platform=tv", []string{"limit", "country", "platform"}},
		}
		for _, tt := range tests {
			for _, p := range tt.paths {
				t.Run(tt.name+" "+p, func(t *testing.T) {
					resp := h.do(t, request{method: http.MethodGet, path: p + tt.query, key: key, off: true})
					e := assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
					assertFields(t, e, tt.fields...)
				})
			}
		}
		t.Run("a window of 10,000 hours at most", func(t *testing.T) {
			b := h.series(t, key, "interval", "hour", "from", rfc(now.Add(-7*24*time.Hour)))
			assert.Len(t, b.Data, 7*24+1, "the first hour reaches before the window")
		})
	})
}

// Scopes, roles and SDK keys, and another organization's ids.
func TestAnalyticsAccess(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAnalyticsHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanStarter)
		require.NoError(t, err)
		mine := h.newMember(t, o, auth.RoleMember)
		memberKey := h.memberKey(t, mine, auth.ScopeLinksWrite, auth.ScopeAnalyticsRead).raw
		admin := h.newMember(t, o, auth.RoleAdmin)
		adminKey := h.memberKey(t, admin, auth.ScopeAnalyticsRead).raw
		ownLink := h.create(t, memberKey, `{"destination_url":"https://shop.example/m","slug":"mine"}`)
		orgLink := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/o","slug":"ours"}`)
		h.redirect(t, analyticsVisit{link: ownLink, ua: uaDesktop, ip: "8.8.8.8"})
		for range 2 {
			h.redirect(t, analyticsVisit{link: orgLink, ua: uaDesktop, ip: "8.8.8.8"})
		}
		other, _ := h.linkOrg(t, "Other")
		theirs := h.create(t, other.key.raw, `{"destination_url":"https://other.example/","slug":"theirs"}`)
		h.redirect(t, analyticsVisit{link: theirs, ua: uaDesktop, ip: "8.8.8.8"})
		h.flush(t)
		h.clock.Advance(time.Second)

		paths := []string{"/v1/analytics/timeseries", "/v1/analytics/breakdown?by=link"}
		for _, p := range paths {
			assertError(t, h.get(t, "", p), http.StatusUnauthorized, errcode.Unauthorized)
			assertError(t, h.get(t, h.scopedKey(t, o, auth.ScopeLinksRead).raw, p), http.StatusForbidden, errcode.Forbidden)
			assertError(t, h.get(t, h.sdkKey(t, o).raw, p), http.StatusForbidden, errcode.SDKKeyRouteForbidden)
		}
		t.Run("a member reads the clicks of their own links", func(t *testing.T) {
			b := h.breakdown(t, memberKey, "by", "link")
			assert.Equal(t, map[string]int64{ownLink.ID.String(): 1}, b.values())
			assert.Nil(t, b.Total.UnstoredClicks)
			c, _ := h.series(t, memberKey).sum()
			assert.Equal(t, int64(1), c)
		})
		t.Run("an admin and a key without a creator read every link", func(t *testing.T) {
			for _, k := range []string{adminKey, o.key.raw, h.scopedKey(t, o, auth.ScopeAnalyticsRead).raw} {
				b := h.breakdown(t, k, "by", "link")
				assert.Equal(t, map[string]int64{ownLink.ID.String(): 1, orgLink.ID.String(): 2}, b.values())
			}
		})
		t.Run("another organization's link filters to zeros, not 404", func(t *testing.T) {
			b := h.breakdown(t, o.key.raw, "by", "link", "link_id", theirs.ID.String())
			assert.Empty(t, b.Data)
			assert.Equal(t, int64(0), b.Total.Clicks)
			c, _ := h.series(t, o.key.raw, "link_id", theirs.ID.String()).sum()
			assert.Equal(t, int64(0), c)
		})
	})
}

// The Free look-back and the plans' retention bound the window.
func TestAnalyticsWindows(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAnalyticsHarness(t, s)
		o, _ := h.linkOrg(t, "Acme")
		key := o.key.raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring"}`)
		h.redirect(t, analyticsVisit{link: l, ua: uaDesktop, ip: "8.8.8.8"})
		h.flush(t)
		h.clock.Advance(40 * 24 * time.Hour)
		h.redirect(t, analyticsVisit{link: l, ua: uaDesktop, ip: "8.8.8.8"})
		h.flush(t)
		h.clock.Advance(time.Second)
		now := h.clock.Now()
		day := 24 * time.Hour
		paths := []string{"/v1/analytics/timeseries", "/v1/analytics/breakdown?by=country"}

		b := h.series(t, key)
		// The window is widened to whole quarter hours of UTC.
		assert.True(t, analytics.SlotOf(now.Add(-30*day)).Equal(b.Window.From), "the last 30 days by default")
		assert.True(t, analytics.SlotOf(now).Add(analytics.Slot).Equal(b.Window.To))
		assert.Equal(t, "day", b.Window.Interval)
		assert.Equal(t, "UTC", b.Window.Timezone)
		assert.Len(t, b.Data, 31, "every day, zeros included")
		c, _ := b.sum()
		assert.Equal(t, int64(1), c)

		for _, p := range paths {
			resp := h.get(t, key, p+sep(p)+"from="+url.QueryEscape(rfc(now.Add(-31*day))))
			assertError(t, resp, http.StatusForbidden, errcode.LookbackExceeded)
			got, err := time.Parse(time.RFC3339Nano, details(t, resp)["earliest_allowed"].(string))
			require.NoError(t, err)
			assert.True(t, now.Add(-30*day).Equal(got))
		}
		assert.Equal(t, int64(1), h.breakdown(t, key, "by", "country", "from", rfc(now.Add(-30*day))).Total.Clicks)

		_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanStarter)
		require.NoError(t, err)
		bd := h.breakdown(t, key, "by", "country", "from", rfc(now.Add(-45*day)))
		assert.Equal(t, int64(2), bd.Total.Clicks, "a paid plan reads its retention")
		bd = h.breakdown(t, key, "by", "country", "from", rfc(now.Add(-500*day)))
		assert.True(t, analytics.SlotOf(now.Add(-365*day)).Equal(bd.Window.From), "from is raised to the start of retention")
		for _, p := range paths {
			resp := h.get(t, key, p+sep(p)+"from="+url.QueryEscape(rfc(now.Add(-800*day)))+"&to="+url.QueryEscape(rfc(now.Add(-400*day))))
			assertError(t, resp, http.StatusUnprocessableEntity, errcode.RetentionWindowUnavailable)
		}

		_, err = h.orgs.SetPlan(context.Background(), o.ID, org.PlanGrowth)
		require.NoError(t, err)
		resp := h.get(t, key, withQuery("/v1/analytics/timeseries", "interval", "hour", "from", rfc(now.Add(-700*day))))
		assertFields(t, assertError(t, resp, http.StatusBadRequest, errcode.ValidationError), "interval")
		assert.Len(t, h.series(t, key, "interval", "day", "from", rfc(now.Add(-700*day))).Data, 701,
			"more than 10,000 hours is too many buckets; 700 days are not")
	})
}

func sep(path string) string {
	for _, c := range path {
		if c == '?' {
			return "&"
		}
	}
	return "?"
}

// Local buckets follow the zone's rules: Berlin's days of 23 and 25 hours
// in 2026, and Kolkata's days that begin at 18:30 UTC.
func TestAnalyticsTimeZones(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		h := newAnalyticsHarness(t, s, withClock(testkit.NewClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))))
		o, _ := h.linkOrg(t, "Acme")
		_, err := h.orgs.SetPlan(context.Background(), o.ID, org.PlanStarter)
		require.NoError(t, err)
		key := o.key.raw
		l := h.create(t, key, `{"destination_url":"https://shop.example/p","slug":"spring"}`)
		at := func(s string) time.Time { v, err := time.Parse(time.RFC3339, s); require.NoError(t, err); return v }
		var clicks []analytics.Click
		for _, ts := range []string{
			"2026-03-28T22:59:59Z", // Berlin 28 March, 23:59:59
			"2026-03-28T23:00:00Z", // Berlin 29 March, 00:00
			"2026-03-29T01:30:00Z", // 03:30 CEST, after the skipped hour
			"2026-03-29T21:59:59Z", // 23:59:59 CEST, the last second of a 23-hour day
			"2026-03-29T22:00:00Z", // 30 March
			"2026-10-24T22:00:00Z", // Berlin 25 October, 00:00 CEST
			"2026-10-25T00:30:00Z", // 02:30 CEST, the first time
			"2026-10-25T01:30:00Z", // 02:30 CET, the second time
			"2026-10-25T22:59:59Z", // 23:59:59 CET
			"2026-10-25T23:00:00Z", // 26 October
			"2026-10-05T18:29:59Z", // Kolkata 5 October, 23:59:59
			"2026-10-05T18:30:00Z", // Kolkata 6 October, 00:00
		} {
			clicks = append(clicks, analytics.Click{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, LinkID: l.ID,
				Domain: l.Domain, Slug: l.Slug, OccurredAt: at(ts), Source: analytics.SourceRedirect, Platform: "desktop"})
		}
		_, err = s.InsertClicks(context.Background(), clicks)
		require.NoError(t, err)

		days := func(b seriesBody) map[string]int64 {
			out := map[string]int64{}
			for _, d := range b.Data {
				out[d.Start] = d.Clicks
			}
			return out
		}
		b := h.series(t, key, "timezone", "Europe/Berlin", "from", "2026-03-28T00:00:00+01:00", "to", "2026-03-31T00:00:00+02:00")
		assert.Equal(t, map[string]int64{"2026-03-28T00:00:00+01:00": 1, "2026-03-29T00:00:00+01:00": 3,
			"2026-03-30T00:00:00+02:00": 1}, days(b))
		assert.Equal(t, "Europe/Berlin", b.Window.Timezone)

		b = h.series(t, key, "timezone", "Europe/Berlin", "interval", "hour",
			"from", "2026-03-29T00:00:00+01:00", "to", "2026-03-30T00:00:00+02:00")
		assert.Len(t, b.Data, 23, "29 March 2026 has 23 hours in Berlin")
		assert.Equal(t, "2026-03-29T03:00:00+02:00", b.Data[2].Start, "02:00 does not exist")
		c, _ := b.sum()
		assert.Equal(t, int64(3), c)

		b = h.series(t, key, "timezone", "Europe/Berlin", "from", "2026-10-25T00:00:00+02:00", "to", "2026-10-27T00:00:00+01:00")
		assert.Equal(t, map[string]int64{"2026-10-25T00:00:00+02:00": 4, "2026-10-26T00:00:00+01:00": 1}, days(b))

		b = h.series(t, key, "timezone", "Europe/Berlin", "interval", "hour",
			"from", "2026-10-25T00:00:00+02:00", "to", "2026-10-26T00:00:00+01:00")
		require.Len(t, b.Data, 25, "25 October 2026 has 25 hours in Berlin")
		assert.Equal(t, "2026-10-25T02:00:00+02:00", b.Data[2].Start)
		assert.Equal(t, int64(1), b.Data[2].Clicks)
		assert.Equal(t, "2026-10-25T02:00:00+01:00", b.Data[3].Start, "the repeated hour is a bucket of its own")
		assert.Equal(t, int64(1), b.Data[3].Clicks)

		b = h.series(t, key, "timezone", "Asia/Kolkata", "from", "2026-10-05T00:00:00+05:30", "to", "2026-10-07T00:00:00+05:30")
		assert.Equal(t, map[string]int64{"2026-10-05T00:00:00+05:30": 1, "2026-10-06T00:00:00+05:30": 1}, days(b))

		b = h.series(t, key, "interval", "month", "from", "2026-03-01T00:00:00Z", "to", "2026-11-01T00:00:00Z")
		assert.Len(t, b.Data, 8)
		c, _ = b.sum()
		assert.Equal(t, int64(len(clicks)), c)

		b = h.series(t, key, "interval", "week", "timezone", "Europe/Berlin", "from", "2026-03-23T00:00:00+01:00", "to", "2026-04-06T00:00:00+02:00")
		assert.Equal(t, map[string]int64{"2026-03-23T00:00:00+01:00": 4, "2026-03-30T00:00:00+02:00": 1}, days(b), "weeks begin on Monday")
	})
}
