package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/web"
)

// axeVersion is the axe-core release the page test runs (npm package
// axe-core).
const axeVersion = "4.14.1"

// chromiumNames are looked up in PATH, then debianChromium is tried.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

const debianChromium = "/usr/lib/chromium/chromium"

func findChromium() string {
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if fi, err := os.Stat(debianChromium); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		return debianChromium
	}
	return ""
}

// axeSource returns axe.min.js: the file HOPLINK_AXE_CORE names, or the
// one in the user's cache, installed there with npm when missing. It skips
// t, saying why, when neither can be had.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("HOPLINK_AXE_CORE")
	if path == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "hoplink", "axe-core-"+axeVersion)
		path = filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			npm, err := exec.LookPath("npm")
			if err != nil {
				t.Skip("axe-core is not installed and npm is absent: install Node.js and npm, or set HOPLINK_AXE_CORE to axe.min.js")
			}
			require.NoError(t, os.MkdirAll(dir, 0o755))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, "axe-core@"+axeVersion)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("installing axe-core %s with npm failed (%v): %s", axeVersion, err, out)
			}
		}
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err, "reading axe-core")
	return string(b)
}

// policyOf is the policy each page is served under in Hoplink.
func policyOf(page string) web.Policy {
	switch page {
	case web.PagePassword, web.PageLinkError, web.PagePreview:
		return web.LinkDomainPolicy
	case web.PageConsent, web.PageConnections:
		return web.OAuthPolicy
	}
	return web.AccountPolicy
}

// axeResult is what the page test keeps of axe.run's violations.
type axeResult struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// TestBrowserPagesFitAPhoneAndPassAxe renders every page, in each state
// that looks different, in headless Chromium under its real headers at a
// desktop's 1280x900 and a phone's 390x844, and checks that it has the
// viewport tag, that nothing is wider than the window
// (scrollWidth <= innerWidth), that the stylesheet applied (the CSP let it
// through), and that axe-core finds no serious or critical violation.
func TestBrowserPagesFitAPhoneAndPassAxe(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("chromium not installed: apt-get install chromium to run the browser test")
	}
	axe := axeSource(t)

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

	browser := startChromium(t, bin, 3*time.Minute)
	sizes := []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"1280x900", 1280, 900, false},
		{"390x844", 390, 844, true},
	}
	for _, size := range sizes {
		for i, s := range all {
			t.Run(size.name+"/"+s.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(browser, 30*time.Second)
				defer cancel()
				emulate := chromedp.EmulateViewport(size.width, size.height)
				if size.mobile {
					emulate = chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateMobile, chromedp.EmulateScale(3))
				}
				require.NoError(t, chromedp.Do(ctx,
					emulate,
					chromedp.Navigate(fmt.Sprintf("%s/page/%d", srv.URL, i)),
					chromedp.WaitReady(chromedp.CSS("main")),
				))
				viewport, err := chromedp.Run(ctx, chromedp.Evaluate[string](
					`(document.querySelector('meta[name="viewport"]') || {content: ""}).content`))
				require.NoError(t, err)
				assert.Equal(t, "width=device-width, initial-scale=1", viewport, "the viewport tag")

				inner, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
				require.NoError(t, err)
				assert.Equal(t, int(size.width), inner, "the window is the device's width")
				scroll, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
				require.NoError(t, err)
				if !assert.LessOrEqual(t, scroll, inner, "nothing is wider than the window") {
					wide, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('body *'))
						.filter(e => e.getBoundingClientRect().right > window.innerWidth)
						.map(e => e.tagName + (e.getAttribute('id') ? '#' + e.getAttribute('id') : '') + ' ' + Math.round(e.getBoundingClientRect().right))`))
					t.Logf("wider than %d: %v", inner, wide)
				}
				font, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).maxWidth`))
				require.NoError(t, err)
				assert.Equal(t, "640px", font, "the stylesheet applies under the CSP")

				// DevTools evaluation is not bound by the page's CSP: axe
				// runs although the page allows no script.
				_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
				require.NoError(t, err, "injecting axe-core")
				violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeResult](`axe.run(document, {resultTypes: ['violations']})
					.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help,
						nodes: v.nodes.map(n => n.target.join(' '))})))`, chromedp.EvalAwaitPromise))
				require.NoError(t, err, "running axe-core")
				for _, v := range violations {
					switch v.Impact {
					case "serious", "critical":
						t.Errorf("axe %s (%s): %s at %v", v.ID, v.Impact, v.Help, v.Nodes)
					default:
						t.Logf("axe, %s only: %s (%s) at %v", v.Impact, v.ID, v.Help, v.Nodes)
					}
				}
			})
		}
	}
}

// startChromium starts headless Chromium bin for t with only loopback
// reachable and returns the browser's context, bound to a deadline of
// timeout; the browser closes when t ends.
func startChromium(t *testing.T, bin string, timeout time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container without a sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	require.NoError(t, chromedp.Do(browser), "starting chromium")
	return browser
}
