package httpapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/scaledata"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// The environment of BenchmarkDashboardPagesAtScale.
const (
	// envPageBench enables the benchmark (any non-empty value): loading
	// ten million clicks takes far too long for a routine benchmark run.
	envPageBench = "HOPLINK_BENCH_DASHBOARD"
	// envPageClicks is how many clicks to load; 10,000,000 when unset.
	envPageClicks = "HOPLINK_BENCH_CLICKS"
	// envPageLinks is how many links to create; 100,000 when unset.
	envPageLinks = "HOPLINK_BENCH_DASHBOARD_LINKS"
	// envPageDB names a SQLite file that keeps the loaded organization
	// between runs (scaledata.OpenSQLite).
	envPageDB = "HOPLINK_BENCH_DASHBOARD_DB"
)

// pageOrgPrefix, with the numbers of links and clicks, is the slug of the
// benchmark's organization.
const pageOrgPrefix = "dashboard-bench-"

// The rest of the benchmark organization, within the Scale plan's limits
// (50 apps, 50 custom domains, 100 seats) and beyond them where the plan
// has none.
const (
	pageApps        = 48 // and the two apps of scaledata.Load
	pageDomains     = 50
	pageMembers     = 80 // the owner included
	pageInvitations = 20
	pageKeys        = 400
	pageInstalls    = 3_000
	pageAttempts    = 9_000 // one per install, and misses
	pageAudit       = 6_000
	pageExports     = 300
)

// pagePassword is the password of the benchmark's owner.
const pagePassword = "correct horse battery"

// pageTags are the tags of the benchmark's links: each link has one, every
// third a second.
var pageTags = []string{"spring", "summer", "autumn", "winter", "email", "social", "print", "partner", "retail",
	"app-only", "web", "launch", "promo", "support", "blog", "press", "events", "b2b", "b2c", "internal"}

// pageNames are the words of the links' names.
var pageNames = []string{"Product page", "Spring sale", "Onboarding", "Invite a friend", "Newsletter issue",
	"Store locator", "Gift card", "Podcast episode", "Black Friday", "Help article", "Recipe", "Event ticket"}

func envCount(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// pageConfig is the benchmark's organization of links links and clicks
// clicks: links named and tagged, created over the year before the load,
// one in ten paused, one in fifty expired, a few with UTM defaults and a
// preview.
func pageConfig(b *testing.B, links, clicks int) scaledata.Config {
	return scaledata.Config{
		Slug: pageOrgPrefix + strconv.Itoa(links) + "-" + strconv.Itoa(clicks), Name: "Dashboard bench",
		Links: links, Clicks: clicks, Logf: b.Logf,
		Link: func(i int, l *linking.Link) {
			end := l.CreatedAt
			name := fmt.Sprintf("%s %d", pageNames[i%len(pageNames)], i)
			l.Name = &name
			l.Tags = []string{pageTags[i%len(pageTags)]}
			if i%3 == 0 {
				if t := pageTags[(i/3+7)%len(pageTags)]; t != l.Tags[0] {
					l.Tags = append(l.Tags, t)
				}
			}
			// Spread over the year before the load, the first link oldest.
			step := 365 * 24 * time.Hour / time.Duration(links)
			l.CreatedAt = end.Add(-time.Duration(links-i) * step).Truncate(time.Millisecond)
			l.UpdatedAt = l.CreatedAt
			if i%4 == 0 {
				l.UpdatedAt = l.CreatedAt.Add(time.Duration(i%97) * time.Hour)
			}
			l.IsActive = i%10 != 9
			if i%50 == 7 {
				expired := end.Add(-time.Duration(i%30+1) * 24 * time.Hour)
				l.ExpiresAt = &expired
			}
			if i%5 == 1 {
				src, medium, campaign := "newsletter", "email", "spring_sale"
				l.UTMSource, l.UTMMedium, l.UTMCampaign = &src, &medium, &campaign
			}
			if i%8 == 2 {
				title, desc := name, "Everything about "+strings.ToLower(name)
				l.OGTitle, l.OGDescription = &title, &desc
			}
		},
	}
}

// pageWorld is the benchmark's organization, its server and a session of
// its owner.
type pageWorld struct {
	store   *store.Store
	org     *org.Organization
	clock   *testkit.Clock
	handler http.Handler
	cookies []*http.Cookie
	// The records the pages of one item show.
	link, app, domain, install, attempt, export uuid.UUID
}

// newPageWorld builds the server over s, with every service the dashboard
// serves, on a clock set a minute after the load's end; seeds o's records
// other than links and clicks when s does not hold them yet; and signs the
// owner in through the login form.
func newPageWorld(b *testing.B, s *store.Store, o *org.Organization) *pageWorld {
	ctx := context.Background()
	w := &pageWorld{store: s, org: o, clock: testkit.NewClock(o.CreatedAt.UTC().Add(time.Minute))}
	quiet := slog.New(slog.DiscardHandler)
	now := w.clock.Now
	a := auth.NewAuthenticator(s, auth.AuthenticatorOptions{Clock: now, StoreTimeout: time.Minute, Logger: quiet})
	keys := auth.NewKeys(s, auth.KeysOptions{Forget: a, Clock: now})
	orgs := org.NewService(s, org.ServiceOptions{Forget: a, Clock: now, HashPassword: testkit.HashPassword})
	resolver := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: now})
	domains := linking.NewDomainService(s, s, linking.DomainServiceOptions{
		Reserved: linking.ReservedDomains{DefaultLinkDomain: linkDomain, CNAMETarget: cnameTarget},
		Cache:    resolver, Clock: now,
	})
	matcher := attribution.NewMatcher(s, attribution.MatcherOptions{Clock: now})
	apps := linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: linkDomain, Forget: a, CustomDomains: s,
		OnAppChange: func(uuid.UUID) { resolver.InvalidateAll(); matcher.InvalidateAll() }, Clock: now})
	links := linking.NewLinkService(s, s, s, linking.LinkServiceOptions{DefaultLinkDomain: linkDomain,
		ShortURLBase: "https://{domain}", Clock: now, Cache: resolver, CustomDomains: domains,
		HashPassword: testkit.HashPassword})
	accounts, err := account.NewService(s, testSecret, account.ServiceOptions{Clock: now, HashPassword: testkit.HashPassword})
	require.NoError(b, err)
	auditSvc, err := audit.NewService(s, testSecret, audit.ServiceOptions{Clock: now})
	require.NoError(b, err)
	invitations, err := org.NewInvitations(s, s, testSecret, org.InvitationsOptions{Clock: now})
	require.NoError(b, err)
	w.handler = httpapi.New(httpapi.Options{
		Authenticator:     a,
		Keys:              keys,
		Orgs:              orgs,
		Apps:              apps,
		Links:             links,
		Parameters:        org.NewParameters(s, org.ParametersOptions{Clock: now}),
		Domains:           domains,
		Team:              org.NewTeam(s, org.TeamOptions{Forget: a, Clock: now}),
		Invitations:       invitations,
		Accounts:          accounts,
		Audit:             auditSvc,
		AccountPages:      &httpapi.AccountPagesOptions{Secret: testSecret, Clock: now},
		Resolver:          resolver,
		DefaultLinkDomain: linkDomain,
		Clock:             now,
		Attribution:       matcher,
		Lists:             attribution.NewLists(s, orgs, attribution.ListsOptions{Secret: cursorSecret, Clock: now}),
		Analytics:         analytics.NewQueries(s, orgs, analytics.QueriesOptions{Clock: now}),
		Exports:           analytics.NewExports(s, orgs, analytics.ExportsOptions{Clock: now, PublicURL: publicURL}),
		Ready:             s.Ping,
		Logger:            quiet,
	})
	owner := seedPageWorld(b, s, o, keys, invitations, now())
	w.signIn(b, owner)
	first := func(table, order string) uuid.UUID {
		var id uuid.UUID
		err := s.DB().NewSelect().Table(table).Column("id").Where("org_id = ?", o.ID).OrderExpr(order).Limit(1).
			Scan(ctx, &id)
		require.NoError(b, err, table)
		return id
	}
	// The link with the most clicks: the generator's Zipf draw gives them
	// to the first link created.
	w.link = first("links", "slug")
	w.app = first("apps", "created_at DESC, id DESC")
	w.domain = first("domains", "created_at DESC, id DESC")
	w.install = first("installs", "installed_at DESC, id DESC")
	w.attempt = first("attribution_attempts", "created_at DESC, id DESC")
	w.export = first("click_exports", "created_at DESC, id DESC")
	return w
}

// pageOwnerEmail is the email of the benchmark organization's owner.
func pageOwnerEmail(o *org.Organization) string { return "owner@" + o.Slug + ".example" }

// seedPageWorld gives o, unless s holds them already, an owner who is also
// a member of a second organization, members and invitations, keys, apps,
// custom domains, installs with their attempts and misses, audit events and
// click exports, written through the store (keys and invitations through
// their services). It returns the owner. The second organization, made
// last, marks a complete seed; a partial one fails the benchmark.
func seedPageWorld(b *testing.B, s *store.Store, o *org.Organization, keys *auth.Keys, invitations *org.Invitations,
	now time.Time) *identity.User {
	ctx := context.Background()
	now = now.UTC().Truncate(time.Millisecond)
	email := pageOwnerEmail(o)
	if u, err := s.UserByEmail(ctx, email); err == nil {
		side, err := scaledata.FindOrg(ctx, s, o.Slug+"-side")
		require.NoError(b, err)
		require.NotNil(b, side, "the seed of %s was interrupted: load it again", o.Slug)
		return u
	}
	started := time.Now()
	owner := testkit.User(b, s, email, pagePassword, o.CreatedAt)
	require.NoError(b, s.AddMember(ctx, &org.Member{OrgID: o.ID, UserID: owner.ID, Role: auth.RoleOwner, CreatedAt: now, UpdatedAt: now}))

	roles := []auth.Role{auth.RoleAdmin, auth.RoleMember, auth.RoleMember, auth.RoleMember}
	users := []*identity.User{owner}
	for i := 1; i < pageMembers; i++ {
		u := testkit.User(b, s, fmt.Sprintf("member%03d@%s.example", i, o.Slug), pagePassword, o.CreatedAt)
		require.NoError(b, s.AddMember(ctx, &org.Member{OrgID: o.ID, UserID: u.ID, Role: roles[i%len(roles)], CreatedAt: now, UpdatedAt: now}))
		users = append(users, u)
	}
	ownerP := &auth.Principal{OrgID: o.ID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet(auth.AllScopes),
		CreatedBy: &owner.ID, Role: auth.RoleOwner}
	for i := range pageInvitations {
		email, role := fmt.Sprintf("invited%03d@elsewhere.example", i), roles[i%len(roles)]
		_, err := invitations.Create(ctx, ownerP, org.CreateInvitationInput{Email: &email, Role: &role})
		require.NoError(b, err)
	}
	for i := range pageKeys {
		u := users[i%len(users)]
		in := auth.CreateKeyInput{Name: fmt.Sprintf("key %d", i), Scopes: []auth.Scope{auth.ScopeLinksRead, auth.ScopeAnalyticsRead}}
		if i%5 == 0 {
			in.Type = auth.KeyTypeSDK
			in.Scopes = nil
		}
		_, err := keys.CreateFor(ctx, o.ID, nil, "", in)
		require.NoError(b, err, "key of %s", u.Email)
	}
	var apps []uuid.UUID
	for i := range pageApps {
		handle := fmt.Sprintf("bench-app-x%02d", i)
		a := &linking.App{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Name: fmt.Sprintf("Bench app %d", i), Handle: handle,
			LinkDomain: handle + ".hop.example", DefaultLinkDomain: handle + ".hop.example", CreatedAt: now, UpdatedAt: now}
		require.NoError(b, s.CreateApp(ctx, a, 1000))
		apps = append(apps, a.ID)
	}
	for i := range pageDomains {
		d := &linking.Domain{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Domain: fmt.Sprintf("go%02d.brand%d.example", i, i%7),
			SSLStatus: linking.SSLPending, VerificationToken: uuid.NewString(), CreatedAt: now, UpdatedAt: now}
		if i%3 != 0 {
			d.Verified, d.SSLStatus, d.VerifiedAt = true, linking.SSLActive, &now
		}
		require.NoError(b, s.CreateDomain(ctx, d, 1000))
	}
	// Installs, each claiming a click of the day it was installed, and
	// attempts that matched nothing.
	var clicks []struct {
		ID     uuid.UUID  `bun:"id"`
		LinkID uuid.UUID  `bun:"link_id"`
		AppID  *uuid.UUID `bun:"app_id"`
		At     time.Time  `bun:"occurred_at"`
	}
	err := s.DB().NewSelect().Table("clicks").Column("id", "link_id", "app_id", "occurred_at").
		Where("org_id = ? AND app_id IS NOT NULL AND occurred_at >= ?", o.ID, o.CreatedAt.Add(-30*24*time.Hour)).
		OrderExpr("occurred_at DESC").Limit(pageInstalls).Scan(ctx, &clicks)
	require.NoError(b, err)
	mt, src := attribution.MatchProbabilistic, attribution.SourceClaim
	for i, c := range clicks {
		at := c.At.Add(time.Duration(i%600+30) * time.Second)
		id, device := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		platform := attribution.PlatformIOS
		if i%2 == 1 {
			platform = attribution.PlatformAndroid
		}
		rec := attribution.InstallRecord{
			Install: attribution.Install{ID: id, ClickID: &c.ID, LinkID: &c.LinkID, AppID: c.AppID, InstalledAt: at,
				HasDeviceID: true, HasMatchedPayload: true},
			OrgID: o.ID, DeviceID: &device, IP: fmt.Sprintf("203.0.113.%d", i%250+1), Platform: platform,
			Payload:         &attribution.Payload{MatchType: mt, MatchConfidence: 0.9, LinkID: c.LinkID, AppID: c.AppID, CustomParams: map[string]string{}},
			ClaimedClickIDs: []uuid.UUID{c.ID},
		}
		att := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, Matched: true, MatchSource: &src,
			MatchType: &mt, InstallID: &id, AppID: c.AppID, CreatedAt: at, Platform: platform, Signals: []string{"time", "ip"}}
		require.NoError(b, s.Claim(ctx, rec, att))
	}
	reason := attribution.FailNoCandidates
	for i := len(clicks); i < pageAttempts; i++ {
		app := apps[i%len(apps)]
		att := attribution.Attempt{ID: uuid.Must(uuid.NewV7()), OrgID: o.ID, FailReason: &reason, AppID: &app,
			CreatedAt: now.Add(-time.Duration(i) * time.Minute), Platform: attribution.PlatformAndroid, Signals: []string{}}
		require.NoError(b, s.RecordAttempt(ctx, att))
	}
	actions := []audit.Action{audit.SignInSucceeded, audit.SignInSucceeded, audit.KeyCreated, audit.SignedOut,
		audit.SignInFailed, audit.MemberAdded}
	events := make([]audit.Event, 0, pageAudit)
	for i := range pageAudit {
		u := users[i%len(users)]
		events = append(events, audit.Event{ID: uuid.Must(uuid.NewV7()), OrgID: &o.ID,
			OccurredAt: now.Add(-time.Duration(pageAudit-i) * 7 * time.Minute), Action: actions[i%len(actions)],
			ActorType: audit.ActorUser, ActorID: &u.ID, TargetType: "user", TargetID: u.ID.String(),
			IP: fmt.Sprintf("198.51.100.%d", i%250+1), UserAgent: "Mozilla/5.0", Details: map[string]string{}})
	}
	require.NoError(b, s.InsertAuditEvents(ctx, events))
	statuses := []analytics.ExportStatus{analytics.ExportComplete, analytics.ExportComplete, analytics.ExportFailed,
		analytics.ExportPending}
	for i := range pageExports {
		created := now.Add(-time.Duration(pageExports-i) * 3 * time.Hour)
		job := &analytics.ExportJob{
			Export: analytics.Export{ID: uuid.Must(uuid.NewV7()), Status: statuses[i%len(statuses)], Rows: int64(i * 1000),
				Window: analytics.Window{From: created.Add(-30 * 24 * time.Hour), To: created}, CreatedAt: created},
			OrgID: o.ID, CreatedBy: &users[i%len(users)].ID,
		}
		require.NoError(b, s.CreateExport(ctx, job))
	}
	other := &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Side project", Slug: o.Slug + "-side", Plan: org.PlanFree,
		MonthlyClickLimit: 10_000, BillingPeriodStart: now, CreatedAt: now, UpdatedAt: now}
	require.NoError(b, s.CreateOrganization(ctx, other, nil))
	require.NoError(b, s.AddMember(ctx, &org.Member{OrgID: other.ID, UserID: owner.ID, Role: auth.RoleOwner, CreatedAt: now, UpdatedAt: now}))
	b.Logf("%s: seeded the organization's members, keys, apps, domains, installs, attempts, audit events and exports in %s",
		s.Dialect(), time.Since(started).Round(time.Millisecond))
	return owner
}

// signIn signs owner in through the login form, keeping the cookies.
func (w *pageWorld) signIn(b *testing.B, owner *identity.User) {
	rec := w.serve(http.MethodGet, "/login?return_to=%2Fdashboard", nil)
	require.Equal(b, http.StatusOK, rec.Code, rec.Body.String())
	w.keep(rec)
	m := csrfField.FindStringSubmatch(rec.Body.String())
	require.NotNil(b, m, "a CSRF token on the login form")
	form := url.Values{"email": {owner.Email}, "password": {pagePassword}, "return_to": {"/dashboard"},
		httpapi.AccountCSRFField: {m[1]}}
	rec = w.serve(http.MethodPost, "/login", form)
	require.Equal(b, http.StatusSeeOther, rec.Code, "signing in: %s", rec.Body.String())
	w.keep(rec)
}

// keep keeps the cookies rec sets.
func (w *pageWorld) keep(rec *httptest.ResponseRecorder) {
	for _, c := range rec.Result().Cookies() {
		kept := w.cookies[:0]
		for _, k := range w.cookies {
			if k.Name != c.Name {
				kept = append(kept, k)
			}
		}
		w.cookies = append(kept, c)
	}
}

// serve runs one request through the handler in-process, with the
// session's cookies.
func (w *pageWorld) serve(method, path string, form url.Values) *httptest.ResponseRecorder {
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15")
	for _, c := range w.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, req)
	return rec
}

// dashPage is one page the benchmark serves: its name and path.
type dashPage struct {
	name string
	path func(w *pageWorld) string
}

func dashPages() []dashPage {
	org := func(rest string) func(w *pageWorld) string {
		return func(w *pageWorld) string { return "/dashboard/o/" + w.org.ID.String() + rest }
	}
	item := func(format string, id func(w *pageWorld) uuid.UUID) func(w *pageWorld) string {
		return func(w *pageWorld) string {
			return "/dashboard/o/" + w.org.ID.String() + fmt.Sprintf(format, id(w))
		}
	}
	link := func(w *pageWorld) uuid.UUID { return w.link }
	return []dashPage{
		{"home", func(*pageWorld) string { return "/dashboard" }},
		{"links", org("/links")},
		{"links-search", org("/links?q=" + url.QueryEscape("gift card 12"))},
		{"links-tag", org("/links?tag=partner")},
		{"links-paused", org("/links?state=paused")},
		{"links-sort-slug", org("/links?sort=slug")},
		{"links-page-50", org("/links?page=50")},
		{"link", item("/links/%s", link)},
		{"link-edit", item("/links/%s/edit", link)},
		{"link-new", org("/links/new")},
		{"link-qr", item("/links/%s/qr", link)},
		{"analytics", org("/analytics")},
		{"analytics-90d", org("/analytics?days=90")},
		{"analytics-link", item("/analytics?link=%s", link)},
		{"apps", org("/apps")},
		{"app", item("/apps/%s", func(w *pageWorld) uuid.UUID { return w.app })},
		{"domains", org("/domains")},
		{"domain", item("/domains/%s", func(w *pageWorld) uuid.UUID { return w.domain })},
		{"keys", org("/keys")},
		{"team", org("/team")},
		{"installs", org("/installs")},
		{"install", item("/installs/%s", func(w *pageWorld) uuid.UUID { return w.install })},
		{"attempts", org("/attempts")},
		{"attempt", item("/attempts/%s", func(w *pageWorld) uuid.UUID { return w.attempt })},
		{"audit", org("/audit")},
		{"settings", org("/settings")},
		{"exports", org("/analytics/exports")},
		{"export", item("/analytics/exports/%s", func(w *pageWorld) uuid.UUID { return w.export })},
	}
}

// pageBudget bounds the time one page's sub-benchmark spends serving it:
// a page that takes seconds is served fewer than b.N times.
const pageBudget = 30 * time.Second

// benchDashPages serves each page b.N times as a sub-benchmark, or as many
// times as fit in pageBudget, and reports its server time's p50 and p99
// and the requests they are of (runs; ns/op divides by b.N, so it means
// nothing when runs is lower). Every answer must be 200; no time is
// asserted.
func benchDashPages(b *testing.B, w *pageWorld) {
	for _, p := range dashPages() {
		b.Run(p.name, func(b *testing.B) {
			path := p.path(w)
			lat := make([]time.Duration, 0, b.N)
			var spent time.Duration
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				rec := w.serve(http.MethodGet, path, nil)
				took := time.Since(start)
				lat = append(lat, took)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body.String())
				}
				if spent += took; spent > pageBudget {
					break
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(lat)), "runs")
			b.ReportMetric(scaledata.Quantile(lat, 50), "p50-ms")
			b.ReportMetric(scaledata.Quantile(lat, 99), "p99-ms")
		})
	}
}

// BenchmarkDashboardPagesAtScale measures the server time of the
// dashboard's pages (issue 21) for an organization with 100,000 links and
// ten million clicks over the last 90 days (HOPLINK_BENCH_DASHBOARD_LINKS
// and HOPLINK_BENCH_CLICKS to change the numbers; scaledata.Load), with
// members, invitations, keys, apps, custom domains, installs, attempts,
// audit events and exports, on a SQLite file (WAL, as serve opens it) and,
// when HOPLINK_TEST_POSTGRES is set, on PostgreSQL in a schema of its own.
// Each page is served by the real handler in-process (an httptest
// recorder), signed in as the organization's owner, so the figure is the
// server's time without the network; the rate limits are off.
//
// At ten million clicks on PostgreSQL, add read_timeout=15m to the DSN of
// HOPLINK_TEST_POSTGRES: the load's closing VACUUM ANALYZE outlasts the
// driver's default read timeout of 10 seconds.
//
// Loading takes tens of minutes, so the benchmark runs only when
// HOPLINK_BENCH_DASHBOARD is set, never under -short, and
// HOPLINK_BENCH_DASHBOARD_DB may name a SQLite file that keeps the
// organization for the next run. Each page is a sub-benchmark reporting
// p50-ms and p99-ms over b.N requests, or fewer when they take more than
// pageBudget (runs); use -benchtime Nx.
func BenchmarkDashboardPagesAtScale(b *testing.B) {
	if testing.Short() {
		b.Skip("loads millions of clicks")
	}
	if os.Getenv(envPageBench) == "" {
		b.Skip(envPageBench + " is not set")
	}
	links, clicks := envCount(envPageLinks, 100_000), envCount(envPageClicks, 10_000_000)
	b.Run("sqlite", func(b *testing.B) {
		path := os.Getenv(envPageDB)
		if path == "" {
			path = filepath.Join(b.TempDir(), "dashboard.db")
		}
		s, o, err := scaledata.OpenSQLite(context.Background(), path, pageConfig(b, links, clicks))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		benchDashPages(b, newPageWorld(b, s, o))
	})
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(storetest.EnvPostgres) == "" {
			b.Skip(storetest.EnvPostgres + " is not set")
		}
		ctx := context.Background()
		s, err := store.Open(ctx, storetest.PostgresDSN(b))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(ctx))
		world, err := scaledata.Load(ctx, s, pageConfig(b, links, clicks))
		require.NoError(b, err)
		benchDashPages(b, newPageWorld(b, s, world.Org))
	})
}
