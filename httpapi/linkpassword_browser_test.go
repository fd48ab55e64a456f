package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/web/webtest"
)

// chromiumNames are the executables the browser test looks for in PATH,
// and debianChromium is where Debian's chromium package puts its binary
// (for a PATH that lacks /usr/bin).
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

const debianChromium = "/usr/bin/chromium"

// skipNoChromium is the message of a browser test on a machine without
// Chromium.
const skipNoChromium = "chromium not installed: apt-get install chromium to run the browser test"

// findChromium returns the first Chromium found: each of chromiumNames in
// PATH (lookPath), then debianChromium if it is an executable file
// (executable). It returns "" when there is none.
func findChromium(lookPath func(string) (string, error), executable func(string) bool) string {
	for _, name := range chromiumNames {
		if p, err := lookPath(name); err == nil && p != "" {
			return p
		}
	}
	if executable(debianChromium) {
		return debianChromium
	}
	return ""
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func TestBrowserFindChromium(t *testing.T) {
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	in := func(names ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, n := range names {
				if n == name {
					return "/opt/bin/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	none := func(string) bool { return false }
	debian := func(p string) bool { return p == debianChromium }

	assert.Empty(t, findChromium(notFound, none), "nothing installed: the browser test skips")
	assert.Equal(t, debianChromium, findChromium(notFound, debian), "Debian's binary outside PATH")
	assert.Equal(t, "/opt/bin/chromium", findChromium(in("chromium", "google-chrome"), debian), "PATH first, in order")
	assert.Equal(t, "/opt/bin/chromium-browser", findChromium(in("chromium-browser"), none))
	assert.Equal(t, "/opt/bin/google-chrome", findChromium(in("google-chrome"), none))
	assert.False(t, isExecutable(t.TempDir()), "a directory is not a browser")
}

// TestBrowserLinkPassword opens a password-protected short URL in headless
// Chromium, types the password, submits the form and lands on the
// destination; a second visit goes straight there on the password cookie.
// Chromium reaches the link domain through a host-resolver rule that maps
// it to loopback and resolves no other name, so the test never leaves the
// machine.
func TestBrowserLinkPassword(t *testing.T) {
	bin := findChromium(exec.LookPath, isExecutable)
	if bin == "" {
		t.Skip(skipNoChromium)
	}

	var arrivals atomic.Int32
	dest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/landing" {
			http.NotFound(w, r)
			return
		}
		arrivals.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html><head><title>Destination</title></head>`+
			`<body><p id="arrived">You made it.</p></body></html>`)
	}))
	t.Cleanup(dest.Close)

	h := newPWHarness(t, storetest.SQLite(t))
	o, _ := h.linkOrg(t, "Acme")
	h.create(t, o.key.raw, `{"slug":"secret","password":"open sesame","destination_url":"`+dest.URL+`/landing"}`)
	expires := h.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	h.create(t, o.key.raw, `{"slug":"expiring","destination_url":"https://shop.example/","expires_at":"`+expires+`"}`)
	h.clock.Advance(time.Hour)
	// A long unbroken destination is what a phone-sized preview must wrap.
	h.create(t, o.key.raw, `{"slug":"sale","destination_url":"https://shop.example/collections/winter-sale-2026/`+
		strings.Repeat("very-long-path-segment-", 8)+`?utm_source=hoplink","og_title":"Winter sale",`+
		`"og_description":"Up to 50% off coats, boots and everything warm","og_image_url":"https://shop.example/sale.png"}`)

	srv, err := url.Parse(h.server.URL)
	require.NoError(t, err)
	short := "http://" + linkDomain + ":" + srv.Port() + "/secret"

	axe := webtest.AxeOrSubtest(t)
	browser := webtest.StartChromium(t, bin, 60*time.Second, "MAP "+linkDomain+" 127.0.0.1")
	step := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(browser, 15*time.Second)
	}
	// page reads the title and URL of the page the browser shows.
	page := func(t *testing.T, ctx context.Context) (title, location string) {
		t.Helper()
		title, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		location, err = chromedp.Run(ctx, chromedp.Location())
		require.NoError(t, err)
		return title, location
	}

	// Each step needs the one before it.
	require.True(t, t.Run("the short URL shows the form", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(short),
			chromedp.WaitVisible(chromedp.ID("password")),
		))
		title, location := page(t, ctx)
		assert.Equal(t, "Password required", title)
		assert.Equal(t, short, location)
		assert.Zero(t, arrivals.Load(), "no destination before the password")
		webtest.CheckPageAtEverySize(t, ctx, axe)
	}))

	require.True(t, t.Run("typing the password and submitting lands on the destination", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("password"), "open sesame"),
			chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.ID("arrived")),
		))
		title, location := page(t, ctx)
		assert.Equal(t, "Destination", title)
		assert.Equal(t, dest.URL+"/landing", location)
		assert.Equal(t, int32(1), arrivals.Load())
		assert.Equal(t, 1, h.eventCount(), "one click for the redirect after the password")
	}))

	t.Run("a link-domain 404 page fits a phone", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate("http://"+linkDomain+":"+srv.Port()+"/no-such-link"),
			chromedp.WaitReady(chromedp.CSS("main")),
		))
		title, _ := page(t, ctx)
		assert.Equal(t, "Link not found", title)
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})

	t.Run("an expired link's 410 page fits a phone", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate("http://"+linkDomain+":"+srv.Port()+"/expiring"),
			chromedp.WaitReady(chromedp.CSS("main")),
		))
		title, _ := page(t, ctx)
		assert.Equal(t, "Link expired", title)
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})

	t.Run("the cookie opens the short URL again without the form", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(short),
			chromedp.WaitVisible(chromedp.ID("arrived")),
		))
		title, location := page(t, ctx)
		assert.Equal(t, "Destination", title)
		assert.Equal(t, dest.URL+"/landing", location)
		forms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[name="password"]').length`))
		require.NoError(t, err)
		assert.Zero(t, forms)
		assert.Equal(t, int32(2), arrivals.Load())
		assert.Equal(t, 2, h.eventCount(), "the cookie redirected without the form")
	})

	// Last: the browser keeps the bot's user agent from here on.
	t.Run("a bot's preview page fits a phone", func(t *testing.T) {
		ctx, cancel := step()
		defer cancel()
		require.NoError(t, chromedp.Do(ctx,
			userAgent(uaTwitter),
			chromedp.Navigate("http://"+linkDomain+":"+srv.Port()+"/sale"),
			chromedp.WaitReady(chromedp.CSS("main")),
		))
		title, location := page(t, ctx)
		assert.Equal(t, "Winter sale", title)
		assert.Equal(t, "http://"+linkDomain+":"+srv.Port()+"/sale", location, "a preview, not a redirect")
		card, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`document.querySelector('meta[name="twitter:card"]').content`))
		require.NoError(t, err)
		assert.Equal(t, "summary_large_image", card)
		webtest.CheckPageAtEverySize(t, ctx, axe)
	})
}

// userAgent returns the action that makes the browser send ua.
func userAgent(ua string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
		return err
	})
}
