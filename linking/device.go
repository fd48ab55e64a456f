package linking

import (
	"bytes"
	"strings"

	"github.com/mileusna/useragent"
)

// Platform is the kind of device a visitor uses, as far as routing cares.
type Platform string

// The platforms ClassifyDevice reports.
const (
	// PlatformIOS is an iPhone or an iPad whose agent says so. The library
	// does not recognise the iPod touch (discontinued in 2022), which is
	// PlatformUnknown.
	PlatformIOS Platform = "ios"
	// PlatformAndroid is a phone or tablet running Android.
	PlatformAndroid Platform = "android"
	// PlatformDesktop is macOS, Windows, Linux, ChromeOS or a BSD. iPadOS 13
	// and later sends the agent of desktop Safari on a Mac by default, so such
	// an iPad is desktop too: a request cannot tell them apart.
	PlatformDesktop Platform = "desktop"
	// PlatformUnknown is every other agent, including an empty one, a
	// fetcher that names no system, and systems that install neither iOS
	// nor Android apps (Windows Phone, BlackBerry, OpenHarmony).
	PlatformUnknown Platform = "unknown"
)

// Device is what a visitor's User-Agent says about them. A field is ""
// when the agent does not say.
type Device struct {
	// Platform is never empty.
	Platform Platform
	// OS is "iOS", "Android", "macOS", "Windows", "Linux", "ChromeOS" or
	// another system's name.
	OS string
	// OSVersion is dotted ("18.6", "14", "10.15.7"). Browsers freeze parts of
	// it: Safari 26 still says iOS 18.6, macOS browsers say 10.15.7 and
	// Windows 11 says 10.0.
	OSVersion string
	// Model is the device model when the agent names one: "iPhone", "iPad",
	// "Pixel 8", "SM-S918B". Android browsers that reduce their agent send
	// "K", which is not a model and is dropped; desktops never have one.
	Model string
	// Browser is the browser ("Safari", "Chrome", "Firefox", "Edge",
	// "Samsung Internet", ...) or, in an in-app browser, the app.
	Browser string
	// BrowserVersion is the version of Browser, dotted, when the agent has one.
	BrowserVersion string
	// InAppBrowser is true inside another app's web view: a named app
	// (App), an iOS agent without a Safari token, or an Android web view
	// ("; wv)").
	InAppBrowser bool
	// App is the app of an in-app browser on Hoplink's list ("Facebook",
	// "Instagram", "TikTok", "LinkedIn", "X", ...: InAppBrowserNames), or "".
	App string
	// IsBot and BotName are IsBot's answer.
	IsBot   bool
	BotName string
}

// An inAppBrowser recognises one app's web view. Its patterns are
// lower-case; any one of them found in the agent (ASCII letters lowered)
// names the app. The app's version is read after the first of versionAfter
// found, as digits and dots.
type inAppBrowser struct {
	name         string
	patterns     [][]byte
	versionAfter [][]byte
}

// inAppBrowsers is the list of apps whose in-app browser ClassifyDevice
// names, first match wins (Messenger's agent also carries Facebook's tokens).
// Each entry is tested against real agents (testdata/useragents/inapp.txt).
var inAppBrowsers = []inAppBrowser{
	{name: "Messenger", patterns: patterns("fban/messengerforios", "fb_iab/orca-android", "fb_iab/messenger"), versionAfter: patterns("fbav/")},
	{name: "Facebook", patterns: patterns("fban/", "fb_iab/", "fbav/"), versionAfter: patterns("fbav/")},
	{name: "Instagram", patterns: patterns("instagram "), versionAfter: patterns("instagram ")},
	{name: "Threads", patterns: patterns(" barcelona "), versionAfter: patterns(" barcelona ")},
	{name: "TikTok", patterns: patterns("bytedancewebview", "musical_ly_", "trill_"), versionAfter: patterns("app_version/", "musical_ly_")},
	{name: "LinkedIn", patterns: patterns("linkedinapp"), versionAfter: patterns("[linkedinapp]/")},
	{name: "X", patterns: patterns("twitter for iphone", "twitter for ipad", "twitterandroid"), versionAfter: patterns("twitter for iphone/", "twitter for ipad/")},
	{name: "Snapchat", patterns: patterns("snapchat/"), versionAfter: patterns("snapchat/")},
	{name: "WeChat", patterns: patterns("micromessenger/"), versionAfter: patterns("micromessenger/")},
	{name: "LINE", patterns: patterns(" line/"), versionAfter: patterns(" line/")},
	{name: "KakaoTalk", patterns: patterns("kakaotalk"), versionAfter: patterns("kakaotalk ")},
	{name: "Pinterest", patterns: patterns("[pinterest/")},
	{name: "Telegram", patterns: patterns("telegram-android/"), versionAfter: patterns("telegram-android/")},
	{name: "Viber", patterns: patterns(" viber/"), versionAfter: patterns(" viber/")},
	{name: "WhatsApp", patterns: patterns(" whatsapp/"), versionAfter: patterns(" whatsapp/")},
	{name: "Google", patterns: patterns(" gsa/"), versionAfter: patterns(" gsa/")},
}

// InAppBrowserNames returns the apps whose in-app browser ClassifyDevice
// names in Device.App, in the order they are tried. The result is a new slice.
func InAppBrowserNames() []string {
	names := make([]string, len(inAppBrowsers))
	for i, a := range inAppBrowsers {
		names[i] = a.name
	}
	return names
}

// browserNames maps the library's browser names to the ones Device reports;
// a name not in it (an app, a crawler, a token the library guessed) is
// dropped.
var browserNames = map[string]string{
	useragent.Chrome:           "Chrome",
	useragent.Safari:           "Safari",
	useragent.Firefox:          "Firefox",
	useragent.Edge:             "Edge",
	useragent.Opera:            "Opera",
	useragent.OperaMini:        "Opera Mini",
	useragent.OperaTouch:       "Opera Touch",
	useragent.Vivaldi:          "Vivaldi",
	useragent.SamsungBrowser:   "Samsung Internet",
	useragent.InternetExplorer: "Internet Explorer",
	useragent.HeadlessChrome:   "Headless Chrome",
	"Miui Browser":             "Miui Browser",
	"Huawei Browser":           "Huawei Browser",
	"Android browser":          "Android Browser",
}

// platforms maps the library's operating systems to platforms; any other
// system is PlatformUnknown.
var platforms = map[string]Platform{
	useragent.IOS:      PlatformIOS,
	useragent.Android:  PlatformAndroid,
	useragent.MacOS:    PlatformDesktop,
	useragent.Windows:  PlatformDesktop,
	useragent.Linux:    PlatformDesktop,
	useragent.ChromeOS: PlatformDesktop,
	useragent.FreeBSD:  PlatformDesktop,
}

// ClassifyDevice reads a User-Agent header. It never fails: an agent it
// cannot read, or an empty one, is PlatformUnknown.
//
// iPadOS 13 and later sends desktop Safari's agent ("Macintosh; Intel Mac
// OS X") unless the user asks for the mobile site, and nothing in the request
// tells it from a Mac, so such an iPad is PlatformDesktop and gets the
// destination_url, like a Mac. An agent that says "iPad" anywhere (the iPad's
// mobile agent, or an app's web view that adds "FBDV/iPad13,4") is
// PlatformIOS with Model "iPad".
//
// ClassifyDevice runs on every redirect and keeps no cache. It parses the
// agent once with github.com/mileusna/useragent, and finds the bot and in-app
// lists in one pass over one lower-cased copy of the agent, which for agents
// of up to 1 KiB lives on the stack. The library was chosen over
// github.com/ua-parser/uap-go (the Go port of the uap-core regexes, which it
// embeds as YAML) for speed without a cache:
//
//   - mileusna/useragent is a single-pass tokenizer with no dependencies and
//     no start-up cost: a few microseconds and 9 to 40 small allocations for
//     a current phone or desktop agent.
//   - uap-go tries hundreds of regular expressions per agent, 0.5 to 2.5 ms
//     for each agent it has not seen, which it hides behind a mandatory LRU
//     cache (a cache size of 0 panics); it also spends about 80 ms compiling
//     its regexes when a parser is made, and pulls in a YAML decoder and an
//     LRU package.
//
// Neither needs the network at run time. uap-go's data is updated more
// often, but what routing needs (iOS, Android or neither, and the model where
// the agent names one) is stable, while what changes quickly, in-app browsers
// and preview fetchers, is in Hoplink's own tested lists (InAppBrowserNames,
// BotNames), which can be fixed without waiting for a library release.
func ClassifyDevice(userAgent string) Device {
	d := Device{Platform: PlatformUnknown}
	if strings.TrimSpace(userAgent) == "" {
		return d
	}
	var buf [lowerBufSize]byte
	lower := appendLowerASCII(buf[:0], userAgent)
	found := agentIndex.scan(lower, 1<<groupBot|1<<groupInApp)
	d.BotName = matchBot(lower, found[groupBot])
	d.IsBot = d.BotName != ""

	ua := parseAgent(userAgent)
	if p, ok := platforms[ua.OS]; ok {
		d.Platform = p
		d.OS = ua.OS
		d.OSVersion = ua.OSVersion
	}
	if d.OSVersion != "" && (d.OSVersion[0] < '0' || d.OSVersion[0] > '9') {
		d.OSVersion = "" // Linux and ChromeOS report the CPU ("x86_64") here.
	}
	switch d.Platform {
	case PlatformIOS, PlatformAndroid:
		d.Model = cleanModel(ua.Device)
	case PlatformDesktop:
		if ua.OS == useragent.MacOS && strings.Contains(userAgent, "iPad") {
			d.Platform, d.OS, d.OSVersion, d.Model = PlatformIOS, useragent.IOS, "", "iPad"
		}
	}
	if name, ok := browserNames[ua.Name]; ok {
		d.Browser, d.BrowserVersion = name, ua.Version
	}
	if d.IsBot {
		return d
	}
	if i := found[groupInApp]; i >= 0 {
		a := &inAppBrowsers[i]
		d.InAppBrowser, d.App = true, a.name
		d.Browser, d.BrowserVersion = a.name, versionAfter(lower, userAgent, a.versionAfter)
		return d
	}
	switch d.Platform {
	case PlatformIOS:
		// Safari and the other iOS browsers all carry "Safari"; an app's
		// WKWebView does not.
		d.InAppBrowser = !bytes.Contains(lower, safariToken)
	case PlatformAndroid:
		d.InAppBrowser = bytes.Contains(lower, webViewToken)
	}
	return d
}

// safariToken is in the agent of every iOS browser and of no app's web view
// (matched lower-cased); webViewToken marks an Android web view.
var (
	safariToken  = []byte("safari")
	webViewToken = []byte("; wv)")
)

// parseAgent is useragent.Parse, made total: should the library ever panic on
// a malformed agent, the visitor is classified as unknown (and so sent to the
// destination) rather than answered with an error.
func parseAgent(userAgent string) (ua useragent.UserAgent) {
	defer func() {
		if recover() != nil {
			ua = useragent.UserAgent{}
		}
	}()
	return useragent.Parse(userAgent)
}

// cleanModel cleans the model the library found: Chrome's reduced agent says
// "K", an Android web view may leave "wv", and Samsung Internet prefixes
// "SAMSUNG ".
func cleanModel(model string) string {
	model = strings.TrimSpace(model)
	if len(model) > len("SAMSUNG ") && strings.EqualFold(model[:len("SAMSUNG ")], "SAMSUNG ") {
		model = model[len("SAMSUNG "):]
	}
	if model == "K" || model == "wv" {
		return ""
	}
	return model
}

// versionAfter returns the digits and dots in userAgent right after the first
// of markers found in lower (userAgent with ASCII letters lowered, so offsets
// agree), without a trailing dot; or "".
func versionAfter(lower []byte, userAgent string, markers [][]byte) string {
	for _, m := range markers {
		i := bytes.Index(lower, m)
		if i < 0 {
			continue
		}
		start := i + len(m)
		end := start
		for end < len(userAgent) && (userAgent[end] == '.' || '0' <= userAgent[end] && userAgent[end] <= '9') {
			end++
		}
		if v := strings.TrimRight(userAgent[start:end], "."); v != "" {
			return v
		}
	}
	return ""
}
