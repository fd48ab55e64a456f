package httpapi_test

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// clickJourney is the whole path of a click, as a deployment runs it: the
// dashboard (links, analytics and exports, with the exports' worker
// running), a link-domain server on loopback whose redirects go through a
// running click recorder (the batch writer) into the store, and the
// destination site the visitors land on.
type clickJourney struct {
	*dashHarness
	// links is the link service the dashboard calls: short URLs on the
	// link-domain server's port.
	links *linking.LinkService
	// port is the link-domain server's.
	port string
	// flushed gets a token after each batch the recorder writes (or tries
	// to), so that a test waits for the writer rather than for a time.
	flushed chan struct{}
	// dest is the destination site; arrivals counts its visitors.
	dest     *httptest.Server
	arrivals atomic.Int32
}

func newClickJourney(t *testing.T, s *store.Store) *clickJourney {
	t.Helper()
	j := &clickJourney{flushed: make(chan struct{}, 64)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, j.port, err = net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)

	var resolver *linking.Resolver
	var exports *analytics.Exports
	j.dashHarness = newDashHarness(t, s, withAPI(func(h *harness, o *httpapi.Options) {
		resolver = linking.NewResolver(h.store, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: h.clock.Now})
		h.appListeners = append(h.appListeners, func(uuid.UUID) { resolver.InvalidateAll() })
		j.links = linking.NewLinkService(h.store, h.store, h.store, linking.LinkServiceOptions{
			DefaultLinkDomain: linkDomain,
			ShortURLBase:      "http://{domain}:" + j.port,
			Clock:             h.clock.Now,
			HashPassword:      func(pw string) (string, error) { return "fast:" + pw, nil },
			Cache:             resolver,
		})
		o.Links = j.links
		exports = analytics.NewExports(s, h.orgs, analytics.ExportsOptions{Clock: h.clock.Now, PublicURL: publicURL,
			Logger: slog.New(slog.DiscardHandler)})
		o.Exports = exports
	}))

	ctx, cancel := context.WithCancel(context.Background())
	rec := analytics.NewRecorder(s, analytics.RecorderOptions{Logger: slog.New(slog.DiscardHandler),
		OnFlush: func(int, time.Duration, error) {
			select {
			case j.flushed <- struct{}{}:
			default:
			}
		}})
	recorded, worked := make(chan error, 1), make(chan error, 1)
	go func() { recorded <- rec.Run(ctx) }()
	go func() { worked <- exports.Run(ctx) }()

	domain := httptest.NewUnstartedServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: resolver, Ready: s.Ping, Clock: j.clock.Now,
		OnRedirect: httpapi.RecordClicks(rec),
	}))
	require.NoError(t, domain.Listener.Close())
	domain.Listener = ln
	domain.Start()

	j.dest = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/landing" {
			http.NotFound(w, r)
			return
		}
		j.arrivals.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Shop</title></head><body><p id="arrived">Welcome to the shop.</p></body></html>`)
	}))
	t.Cleanup(func() {
		j.dest.Close()
		domain.Close()
		cancel()
		assert.NoError(t, <-recorded)
		assert.NoError(t, <-worked)
	})
	return j
}

// waitForFlush waits for the recorder's next batch, or one it wrote since
// the last wait, for at most a few seconds.
func (j *clickJourney) waitForFlush(t testing.TB) {
	t.Helper()
	select {
	case <-j.flushed:
	case <-time.After(10 * time.Second):
		require.Fail(t, "the click recorder wrote nothing in 10 seconds")
	}
}

// breakdownRows reads the table of the breakdown chart id on the browser's
// page: the clicks of each value.
func breakdownRows(t testing.TB, ctx context.Context, id string) map[string]string {
	t.Helper()
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(
		Array.from(document.querySelectorAll('#`+id+` table.chart-table tr'))
			.filter(r => r.querySelector('th[scope=row]'))
			.map(r => [r.querySelector('th').textContent.trim(), r.querySelector('td').textContent.trim()]))`))
	require.NoError(t, err)
	return rows
}

// TestBrowserDashboardClickJourney walks issue 21's main journey in
// headless Chromium: sign in, create an app (through the API: the apps
// pages are not built yet), create a link in the dashboard's form (its
// preview card following what is typed), visit the short URL as an iPhone
// and as a desktop browser, see both clicks in the link's analytics and in
// its platform and country breakdowns once the recorder has written them,
// export them, wait for the export's page to say it is complete, download
// the CSV and read the two clicks in it. Every page on the way is checked
// at a desktop's and a phone's size for overflow and axe-core's serious
// and critical rules. Chromium reaches the link domains through a
// host-resolver rule that maps them to loopback.
func TestBrowserDashboardClickJourney(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}
	j := newClickJourney(t, storetest.SQLite(t))
	m := j.member(t, auth.RoleOwner)
	base := j.srv.URL

	axe := webtest.AxeOrSubtest(t)
	chromium := webtest.StartChromium(t, bin, 4*time.Minute, "MAP *."+linkDomain+" 127.0.0.1")
	step := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(chromium, 60*time.Second)
	}
	var appID, appDomain, linkPage, shortURL, exportPage string

	require.True(t, t.Run("sign in and create an app", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/dashboard")))
		waitForID(t, ctx, "email")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("email"), m.email),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
		))
		waitForID(t, ctx, "empty")
		assert.Contains(t, elementText(t, ctx, "empty"), "needs an app before its first link")

		r := j.post(t, j.org.key.raw, "/v1/apps", `{"name":"Acme Shop"}`)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		var app struct {
			ID                string `json:"id"`
			DefaultLinkDomain string `json:"default_link_domain"`
		}
		r.decode(t, &app)
		appID, appDomain = app.ID, app.DefaultLinkDomain
		require.True(t, strings.HasSuffix(appDomain, "."+linkDomain), appDomain)

		require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
		waitForID(t, ctx, "new-link")
	}))

	require.True(t, t.Run("create a link, its preview card following the form", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("new-link"))))
		waitForID(t, ctx, "preview-card")
		assert.Equal(t, linkDomain, elementText(t, ctx, "preview-domain"))
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-destination_url"), j.dest.URL+"/landing"),
			chromedp.SendKeys(chromedp.ID("f-slug"), "launch"),
			chromedp.SetValue(chromedp.ID("f-app_id"), appID),
		))
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('f-app_id').dispatchEvent(new Event('change'))`))
		require.NoError(t, err)
		assert.Equal(t, appDomain, elementText(t, ctx, "preview-domain"), "choosing the app chooses its domain")
		assert.Equal(t, j.dest.URL+"/landing", elementText(t, ctx, "preview-title"), "no title yet: the destination")
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("f-og_title"), "Spring launch"),
			chromedp.SendKeys(chromedp.ID("f-og_description"), "New shoes & coats"),
			chromedp.SendKeys(chromedp.ID("f-og_image_url"), "https://cdn.example.com/launch.png"),
		))
		assert.Equal(t, "Spring launch", elementText(t, ctx, "preview-title"), "the card follows what is typed: its script runs under the CSP")
		assert.Equal(t, "New shoes & coats", elementText(t, ctx, "preview-description"))
		assert.Equal(t, "Image from cdn.example.com", elementText(t, ctx, "preview-image"))
		webtest.CheckPageAtEverySize(t, ctx, axe)

		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("save"))))
		waitForID(t, ctx, "short-url")
		linkPage = pageLocation(t, ctx)
		shortURL = elementText(t, ctx, "short-url")
		assert.Equal(t, "http://"+appDomain+":"+j.port+"/launch", shortURL)
	}))

	require.True(t, t.Run("visit the short URL as an iPhone and as a desktop browser", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		for i, ua := range []string{uaIPhone, uaDesktop} {
			require.NoError(t, chromedp.Do(ctx, userAgent(ua), chromedp.Navigate(shortURL)))
			waitForID(t, ctx, "arrived")
			assert.Equal(t, j.dest.URL+"/landing", pageLocation(t, ctx))
			assert.Equal(t, int32(i+1), j.arrivals.Load())
		}
		require.NoError(t, chromedp.Do(ctx, userAgent(uaDesktop)))
		// A minute on: the clicks are in every window that ends now.
		j.clock.Advance(time.Minute)
	}))

	require.True(t, t.Run("see both clicks in the link's analytics", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(linkPage)))
		waitForID(t, ctx, "link-analytics")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("link-analytics"))))
		waitForID(t, ctx, "totals")
		analyticsPage := pageLocation(t, ctx)
		// The recorder writes in batches: reload after each batch until
		// both clicks are in.
		for !strings.HasPrefix(elementText(t, ctx, "totals"), "2 clicks") {
			j.waitForFlush(t)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(analyticsPage)))
			waitForID(t, ctx, "totals")
		}
		assert.Equal(t, map[string]string{"ios": "1", "desktop": "1", "Total": "2"}, breakdownRows(t, ctx, "by-platform"))
		assert.Equal(t, map[string]string{"Unknown": "2", "Total": "2"}, breakdownRows(t, ctx, "by-country"),
			"loopback has no country")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("export them and wait for the export", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("export-clicks"))))
		waitForID(t, ctx, "export-state")
		exportPage = pageLocation(t, ctx)
		assert.Contains(t, elementText(t, ctx, "refreshing"), "reloads itself every 5 seconds")
		webtest.CheckPageAtEverySize(t, ctx, axe)
		// The job waits for its window to settle (the recorder's buffer);
		// then the worker counts it, and the page, reloading itself,
		// offers the file.
		j.clock.Advance(analytics.DefaultExportSettle)
		wait, cancelWait := context.WithTimeout(ctx, 30*time.Second)
		defer cancelWait()
		require.NoError(t, chromedp.Do(wait, chromedp.WaitVisible(chromedp.ID("download-csv"))), "the page reloads until the export is complete")
		assert.Equal(t, exportPage, pageLocation(t, ctx), "the same page, reloaded")
		assert.Equal(t, "Complete: 2 rows.", elementText(t, ctx, "export-state"))
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	t.Run("download the CSV", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		dir := t.TempDir()
		enabled := true
		_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &enabled})
		require.NoError(t, err)
		progress := chromedp.BrowserEvents(ctx, cdpbrowser.DownloadProgress)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("download-csv"))))
		var done cdpbrowser.EventDownloadProgress
		for ev, err := range progress {
			require.NoError(t, err)
			if ev.State != cdpbrowser.DownloadProgressStateInProgress {
				done = ev
				break
			}
		}
		require.Equal(t, cdpbrowser.DownloadProgressStateCompleted, done.State)
		f, err := os.Open(filepath.Join(dir, done.GUID))
		require.NoError(t, err)
		defer f.Close()
		records, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 3, "the header and the two clicks")
		assert.Equal(t, analytics.ExportColumns(), records[0])
		col := map[string]int{}
		for i, name := range records[0] {
			col[name] = i
		}
		var platforms []string
		for _, r := range records[1:] {
			platforms = append(platforms, r[col["platform"]])
			assert.Equal(t, "launch", r[col["slug"]])
			assert.Equal(t, appDomain, r[col["domain"]])
		}
		assert.ElementsMatch(t, []string{"ios", "desktop"}, platforms)
		assert.Equal(t, exportPage, pageLocation(t, ctx), "the download leaves the page where it is")
	})
}
