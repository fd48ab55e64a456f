package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/web"
	"github.com/hoplink/hoplink/web/webtest"
)

// policyOf is the policy each page is served under in Hoplink.
func policyOf(page string) web.Policy {
	switch page {
	case web.PagePassword, web.PageLinkError, web.PagePreview:
		return web.LinkDomainPolicy
	case web.PageConsent, web.PageConnections:
		return web.OAuthPolicy
	}
	if strings.HasPrefix(page, "dashboard") {
		return web.DashboardPolicy
	}
	return web.AccountPolicy
}

// TestBrowserPagesFitAPhoneAndPassAxe renders every page, in each state
// that looks different and with strings that cannot break, in headless
// Chromium under its real headers at a desktop's 1280x900 and a phone's
// 390x844, and checks that it has the viewport tag, that nothing is wider
// than the window, that the stylesheet applied (the CSP let it through),
// and that axe-core finds no serious or critical violation (webtest), in
// the light and the dark color scheme (axe checks the contrast of both).
func TestBrowserPagesFitAPhoneAndPassAxe(t *testing.T) {
	bin := webtest.FindChromium()
	if bin == "" {
		t.Skip(webtest.SkipNoChromium)
	}
	axe := webtest.AxeSource(t)

	all := samples()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page/"))
		if err != nil || i < 0 || i >= len(all) {
			http.NotFound(w, r)
			return
		}
		web.SetHeaders(w.Header(), policyOf(all[i].page))
		if err := web.Render(w, r, http.StatusOK, all[i].page, all[i].view); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)

	// The browser's budget grows with the samples (four checks each), so
	// that adding pages does not run it out on a busy machine; each check
	// still has its own deadline.
	browser := webtest.StartChromium(t, bin, max(3*time.Minute, time.Duration(len(all))*4*3*time.Second))
	for _, size := range webtest.Sizes {
		for _, scheme := range []string{"light", "dark"} {
			for i, s := range all {
				t.Run(size.Name+"/"+scheme+"/"+s.name, func(t *testing.T) {
					checkSample(t, browser, size, scheme, srv.URL, i, axe)
				})
			}
		}
	}
}

// checkSample checks sample i, served by base, at size in scheme.
func checkSample(t *testing.T, browser context.Context, size webtest.Size, scheme, base string, i int, axe string) {
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx,
		webtest.ColorScheme(scheme),
		webtest.Emulate(size),
		chromedp.Navigate(fmt.Sprintf("%s/page/%d", base, i)),
		chromedp.WaitReady(chromedp.CSS("main")),
	))
	width, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).maxWidth`))
	require.NoError(t, err)
	assert.Equal(t, "640px", width, "the stylesheet applies under the CSP")
	webtest.CheckPage(t, ctx, size, axe)
}

// TestBrowserChartsDrawInThePagesColours renders the charts sample under
// the account pages' CSP and checks that the stylesheet colours the
// series, differently in the light and the dark scheme, and that each
// chart is no wider than a phone's window.
func TestBrowserChartsDrawInThePagesColours(t *testing.T) {
	bin := webtest.FindChromium()
	if bin == "" {
		t.Skip(webtest.SkipNoChromium)
	}
	view := web.ChartsSampleView{Frame: web.Frame{Title: "Analytics"}, Series: []web.TimeSeries{dailySeries()},
		Breakdowns: []web.Breakdown{countryBreakdown()}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		web.SetHeaders(w.Header(), web.AccountPolicy)
		if err := web.Render(w, r, http.StatusOK, web.PageChartsSample, view); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	browser := webtest.StartChromium(t, bin, time.Minute)

	colours := map[string]string{}
	for _, scheme := range []string{"light", "dark"} {
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		require.NoError(t, chromedp.Do(ctx,
			webtest.ColorScheme(scheme),
			webtest.Emulate(webtest.Sizes[1]),
			chromedp.Navigate(srv.URL),
			chromedp.WaitReady(chromedp.CSS("svg")),
		))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[
			getComputedStyle(document.querySelector("polyline.chart-clicks")).stroke,
			getComputedStyle(document.querySelector("polyline.chart-installs")).stroke,
			getComputedStyle(document.querySelector("rect.chart-clicks")).fill,
			getComputedStyle(document.querySelector(".chart-svg text")).fill]`))
		require.NoError(t, err)
		require.Len(t, got, 4)
		assert.Equal(t, got[0], got[2], "%s: clicks are one colour in both charts", scheme)
		assert.NotEqual(t, got[0], got[1], "%s: clicks and installs differ", scheme)
		for _, c := range got {
			assert.True(t, strings.HasPrefix(c, "rgb("), "%s: a colour from the stylesheet, not %q", scheme, c)
		}
		colours[scheme] = got[0]
		widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](
			`[...document.querySelectorAll("svg")].map(s => s.getBoundingClientRect().right)`))
		require.NoError(t, err)
		assert.Len(t, widths, 2)
		for _, w := range widths {
			assert.LessOrEqual(t, w, float64(webtest.Sizes[1].Width), "%s: the chart fits the phone", scheme)
		}
		cancel()
	}
	assert.NotEqual(t, colours["light"], colours["dark"], "the dark scheme has its own colours")
}
