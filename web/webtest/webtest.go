// Package webtest checks Hoplink's pages as a person sees them, in
// headless Chromium: at a desktop's and a phone's size, each page must
// have the viewport tag, be no wider than the window, and pass axe-core's
// serious and critical rules. It is imported by tests only.
//
// axe-core is the npm package axe-core at AxeVersion. AxeSource reads the
// axe.min.js that HOPLINK_AXE_CORE names, or installs the package with npm
// into the user's cache directory on first use; it skips the test, saying
// why, when neither works. Chromium is found by FindChromium; tests skip
// without it.
package webtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AxeVersion is the axe-core release the checks run.
const AxeVersion = "4.14.1"

// SkipNoChromium is the message of a test skipped without Chromium.
const SkipNoChromium = "chromium not installed: apt-get install chromium to run the browser test"

// chromiumNames are looked up in PATH, then debianChromium is tried.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

const debianChromium = "/usr/lib/chromium/chromium"

// FindChromium returns the path of a Chromium, "" when there is none.
func FindChromium() string {
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

// axe caches the source once read; installing is done once per process.
var axe struct {
	sync.Mutex
	src  string
	skip string
}

// AxeSource returns axe.min.js, or skips t when it cannot be had.
func AxeSource(t testing.TB) string {
	t.Helper()
	src, why := Axe()
	if why != "" {
		t.Skip(why)
	}
	return src
}

// AxeOrSubtest returns axe.min.js for a test that checks more than pages.
// When it cannot be had, a subtest "axe-core" says why, skipped when npm
// is absent (and HOPLINK_AXE_CORE unset), failed otherwise, and it returns
// "": the test goes on and CheckPage checks all but axe's rules.
func AxeOrSubtest(t *testing.T) string {
	t.Helper()
	src, why := Axe()
	if why == "" {
		return src
	}
	t.Run("axe-core", func(t *testing.T) {
		if _, err := exec.LookPath("npm"); err != nil && os.Getenv("HOPLINK_AXE_CORE") == "" {
			t.Skip(why)
		}
		t.Fatal(why)
	})
	return ""
}

// Axe returns axe.min.js, or "" and why it cannot be had, for tests that
// check more than pages and go on without axe (CheckPage then checks the
// rest).
func Axe() (src, why string) {
	axe.Lock()
	defer axe.Unlock()
	if axe.src == "" && axe.skip == "" {
		axe.src, axe.skip = loadAxe()
	}
	return axe.src, axe.skip
}

func loadAxe() (src, skip string) {
	path := os.Getenv("HOPLINK_AXE_CORE")
	if path == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		parent := filepath.Join(cache, "hoplink")
		dir := filepath.Join(parent, "axe-core-"+AxeVersion)
		path = filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if why := installAxe(parent, dir); why != "" {
				return "", why
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "reading axe-core: " + err.Error()
	}
	return string(b), ""
}

// installAxe installs axe-core with npm into dir, inside parent. It
// installs into a folder of its own and renames it into place, so that
// test binaries that install at once (go test runs packages in parallel)
// never see a half-installed one: the first rename wins, the others drop
// their copy.
func installAxe(parent, dir string) (why string) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "axe-core is not installed and npm is absent: install Node.js and npm, or set HOPLINK_AXE_CORE to axe.min.js"
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "axe-core: " + err.Error()
	}
	tmp, err := os.MkdirTemp(parent, "installing-axe-core-")
	if err != nil {
		return "axe-core: " + err.Error()
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, "axe-core@"+AxeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "installing axe-core " + AxeVersion + " with npm failed (" + err.Error() + "): " + string(out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			return "axe-core: " + err.Error()
		}
		// Another test binary installed it first.
	}
	return ""
}

// Size is a window size the pages are checked at.
type Size struct {
	Name          string
	Width, Height int64
	// Mobile emulates a phone: a touch screen, device scale 3, and the
	// layout width that the viewport tag chooses.
	Mobile bool
}

// Sizes are a desktop's 1280x900 and a phone's 390x844.
var Sizes = []Size{
	{Name: "1280x900", Width: 1280, Height: 900},
	{Name: "390x844", Width: 390, Height: 844, Mobile: true},
}

// Emulate returns the action that sizes the window to s.
func Emulate(s Size) chromedp.Action[chromedp.Void] {
	if s.Mobile {
		return chromedp.EmulateViewport(s.Width, s.Height, chromedp.EmulateMobile, chromedp.EmulateScale(3))
	}
	return chromedp.EmulateViewport(s.Width, s.Height)
}

// ColorScheme returns the action that makes the page see
// prefers-color-scheme as scheme ("light" or "dark"; "" ends the
// emulation).
func ColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		p := emulation.SetEmulatedMediaParams{}
		if scheme != "" {
			p.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

// Violation is what the checks keep of one of axe.run's violations.
type Violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// CheckPage checks the page the browser of ctx shows now, at size s (it
// resizes the window, without reloading): the viewport tag, no horizontal
// overflow (document.documentElement.scrollWidth <= window.innerWidth),
// and no serious or critical axe-core violation; lesser ones are logged.
// axeSrc is AxeSource's or Axe's; "" checks all but axe's rules.
func CheckPage(t testing.TB, ctx context.Context, s Size, axeSrc string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, Emulate(s)))
	where, _ := chromedp.Run(ctx, chromedp.Location())
	viewport, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`(document.querySelector('meta[name="viewport"]') || {content: ""}).content`))
	require.NoError(t, err)
	assert.Equal(t, "width=device-width, initial-scale=1", viewport, "the viewport tag of %s", where)

	inner, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
	require.NoError(t, err)
	assert.Equal(t, int(s.Width), inner, "the window is the device's width")
	scroll, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	require.NoError(t, err)
	if !assert.LessOrEqual(t, scroll, inner, "nothing on %s is wider than the window at %s", where, s.Name) {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('body *'))
			.filter(e => e.getBoundingClientRect().right > window.innerWidth)
			.map(e => e.tagName + (e.getAttribute('id') ? '#' + e.getAttribute('id') : '') + ' ' + Math.round(e.getBoundingClientRect().right))`))
		t.Logf("wider than %d: %v", inner, wide)
	}

	if axeSrc == "" {
		t.Logf("axe-core unavailable: %s not checked for accessibility", where)
		return
	}
	// DevTools evaluation is not bound by the page's CSP: axe runs
	// although the pages allow no script.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe === 'object' || (function(){`+axeSrc+`;return true})()`))
	require.NoError(t, err, "injecting axe-core")
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](`axe.run(document, {resultTypes: ['violations']})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help,
			nodes: v.nodes.map(n => n.target.join(' '))})))`, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "running axe-core")
	for _, v := range violations {
		switch v.Impact {
		case "serious", "critical":
			t.Errorf("axe on %s at %s: %s (%s): %s at %v", where, s.Name, v.ID, v.Impact, v.Help, v.Nodes)
		default:
			t.Logf("axe on %s at %s, %s only: %s (%s) at %v", where, s.Name, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
}

// CheckPageAtEverySize is CheckPage at each of Sizes, then the window as
// it was (no emulation), so that a test goes on as before.
func CheckPageAtEverySize(t testing.TB, ctx context.Context, axeSrc string) {
	t.Helper()
	for _, s := range Sizes {
		CheckPage(t, ctx, s, axeSrc)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateReset()))
}

// StartChromium starts headless Chromium bin for t with only loopback
// reachable (extra resolver rules, such as "MAP hop.localhost 127.0.0.1",
// come first) and plain HTTP kept as it is, and returns the browser's
// context, bound to a deadline of timeout; the browser closes, before its
// user-data dir is removed, when t ends.
func StartChromium(t testing.TB, bin string, timeout time.Duration, resolverRules ...string) context.Context {
	t.Helper()
	rules := strings.Join(append(resolverRules, "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"), ", ")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container without a sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", rules),
		chromedp.Flag("disable-features", "HttpsUpgrades,HttpsFirstBalancedModeAutoEnable"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	// The first Run binds the browser's life to its context.
	require.NoError(t, chromedp.Do(browser), "starting chromium")
	return browser
}
