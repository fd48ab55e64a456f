package linking_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/linking"
)

// Agents the benchmarks and examples share.
const (
	uaIPhoneSafari  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
	uaAndroidChrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.135 Mobile Safari/537.36"
	uaDesktopChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36"
	uaFacebookBot   = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
	uaInstagramIOS  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 337.0.3.23.54 (iPhone15,2; iOS 17_5; en_US; en; scale=3.00; 1179x2556; 614384453; IABMV/1)"
)

func TestClassifyDevice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent string
		want  linking.Device
	}{
		{
			name:  "iPhone Safari",
			agent: uaIPhoneSafari,
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "18.6", Model: "iPhone", Browser: "Safari", BrowserVersion: "18.6"},
		},
		{
			name:  "Safari 26 keeps saying iOS 18.6",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "18.6", Model: "iPhone", Browser: "Safari", BrowserVersion: "26.0"},
		},
		{
			name:  "Chrome on iPhone",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/139.0.7258.76 Mobile/15E148 Safari/604.1",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "18.6", Model: "iPhone", Browser: "Chrome", BrowserVersion: "139.0.7258.76"},
		},
		{
			name:  "iPad with the mobile agent",
			agent: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "17.5", Model: "iPad", Browser: "Safari", BrowserVersion: "17.5"},
		},
		{
			name:  "iPadOS 13+ with the desktop agent is desktop",
			agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Safari/605.1.15",
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "macOS", OSVersion: "10.15.7", Browser: "Safari", BrowserVersion: "18.6"},
		},
		{
			name:  "a desktop-class agent that says iPad elsewhere is an iPad",
			agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/471.0.0.35.107;FBBV/614384453;FBDV/iPad13,4;FBMD/iPad;FBSN/iPadOS;FBSV/17.5;FBSS/2;FBID/tablet;FBLC/en_US;FBOP/5]",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", Model: "iPad", Browser: "Facebook", BrowserVersion: "471.0.0.35.107", InAppBrowser: true, App: "Facebook"},
		},
		{
			name:  "an app's web view on iPhone is an unnamed in-app browser",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "18.0", Model: "iPhone", InAppBrowser: true},
		},
		{
			name:  "Android Chrome names the model",
			agent: uaAndroidChrome,
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "Pixel 8", Browser: "Chrome", BrowserVersion: "131.0.6778.135"},
		},
		{
			name:  "Chrome's reduced agent says K, which is no model",
			agent: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Mobile Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "10", Browser: "Chrome", BrowserVersion: "139.0.0.0"},
		},
		{
			name:  "Samsung Internet without its SAMSUNG prefix",
			agent: "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "SM-S918B", Browser: "Samsung Internet", BrowserVersion: "26.0"},
		},
		{
			name:  "Android tablet",
			agent: "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "SM-X710", Browser: "Chrome", BrowserVersion: "131.0.0.0"},
		},
		{
			name:  "Firefox on Android names no model",
			agent: "Mozilla/5.0 (Android 14; Mobile; rv:142.0) Gecko/142.0 Firefox/142.0",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Browser: "Firefox", BrowserVersion: "142.0"},
		},
		{
			name:  "an Android web view is an unnamed in-app browser",
			agent: "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240705.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.134 Mobile Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "Pixel 8", Browser: "Chrome", BrowserVersion: "126.0.6478.134", InAppBrowser: true},
		},
		{
			name:  "Instagram on iPhone",
			agent: uaInstagramIOS,
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "17.5", Model: "iPhone", Browser: "Instagram", BrowserVersion: "337.0.3.23.54", InAppBrowser: true, App: "Instagram"},
		},
		{
			name:  "Facebook on Android",
			agent: "Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.135 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/492.0.0.53.72;]",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "SM-S918B", Browser: "Facebook", BrowserVersion: "492.0.0.53.72", InAppBrowser: true, App: "Facebook"},
		},
		{
			name:  "Messenger is not Facebook",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/468.0.0.41.108;FBBV/612305484;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5]",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "17.5", Model: "iPhone", Browser: "Messenger", BrowserVersion: "468.0.0.41.108", InAppBrowser: true, App: "Messenger"},
		},
		{
			name:  "TikTok on iPhone",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_25.9.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/CA RevealType/Dialog isDarkMode/0 WKWebView/1 BytedanceWebview/d8a21c6",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "16.0", Model: "iPhone", Browser: "TikTok", BrowserVersion: "25.9.0", InAppBrowser: true, App: "TikTok"},
		},
		{
			name:  "LinkedIn on iPhone",
			agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.31.9671",
			want:  linking.Device{Platform: linking.PlatformIOS, OS: "iOS", OSVersion: "18.6.2", Model: "iPhone", Browser: "LinkedIn", BrowserVersion: "9.31.9671", InAppBrowser: true, App: "LinkedIn"},
		},
		{
			name:  "X on Android has no version",
			agent: "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 TwitterAndroid",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "14", Model: "Pixel 8", Browser: "X", InAppBrowser: true, App: "X"},
		},
		{
			name:  "Chrome on Windows",
			agent: uaDesktopChrome,
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "Windows", OSVersion: "10.0", Browser: "Chrome", BrowserVersion: "139.0.0.0"},
		},
		{
			name:  "Edge on Windows",
			agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36 Edg/139.0.0.0",
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "Windows", OSVersion: "10.0", Browser: "Edge", BrowserVersion: "139.0.0.0"},
		},
		{
			name:  "Firefox on Linux reports no OS version, not the CPU",
			agent: "Mozilla/5.0 (X11; Linux x86_64; rv:142.0) Gecko/20100101 Firefox/142.0",
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "Linux", Browser: "Firefox", BrowserVersion: "142.0"},
		},
		{
			name:  "ChromeOS is desktop",
			agent: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "ChromeOS", Browser: "Chrome", BrowserVersion: "139.0.0.0"},
		},
		{
			name:  "headless Chromium is a desktop browser, not a bot",
			agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/139.0.0.0 Safari/537.36",
			want:  linking.Device{Platform: linking.PlatformDesktop, OS: "Linux", Browser: "Headless Chrome", BrowserVersion: "139.0.0.0"},
		},
		{
			name:  "Googlebot smartphone is a bot on Android",
			agent: "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
			want:  linking.Device{Platform: linking.PlatformAndroid, OS: "Android", OSVersion: "6.0.1", Model: "Nexus 5X", IsBot: true, BotName: "Googlebot"},
		},
		{
			name:  "a preview fetcher names no system",
			agent: uaFacebookBot,
			want:  linking.Device{Platform: linking.PlatformUnknown, IsBot: true, BotName: "facebookexternalhit"},
		},
		{
			name:  "Windows Phone installs neither iOS nor Android apps",
			agent: "Mozilla/5.0 (compatible; MSIE 10.0; Windows Phone 8.0; Trident/6.0; IEMobile/10.0; ARM; Touch; NOKIA; Lumia 920)",
			want:  linking.Device{Platform: linking.PlatformUnknown, Browser: "Internet Explorer", BrowserVersion: "10.0"},
		},
		{
			name:  "a command-line client is unknown",
			agent: "curl/8.5.0",
			want:  linking.Device{Platform: linking.PlatformUnknown},
		},
		{
			name:  "an empty agent is unknown",
			agent: "",
			want:  linking.Device{Platform: linking.PlatformUnknown},
		},
		{
			name:  "a blank agent is unknown",
			agent: " \t ",
			want:  linking.Device{Platform: linking.PlatformUnknown},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, linking.ClassifyDevice(tc.agent))
		})
	}
}

func TestClassifyDeviceNamesEveryListedInAppBrowser(t *testing.T) {
	var tested []string
	for _, a := range readUserAgents(t, "inapp.txt") {
		tested = append(tested, a.label)
		d := linking.ClassifyDevice(a.agent)
		assert.Equal(t, a.label, d.App, a.agent)
		assert.True(t, d.InAppBrowser, a.agent)
		assert.Equal(t, a.label, d.Browser, a.agent)
		assert.Contains(t, []linking.Platform{linking.PlatformIOS, linking.PlatformAndroid}, d.Platform, a.agent)
		assert.False(t, d.IsBot, a.agent)
	}
	for _, name := range linking.InAppBrowserNames() {
		assert.Contains(t, tested, name, "no agent of %s in testdata/useragents/inapp.txt", name)
	}
}

func TestClassifyDeviceNamesNoAppForBrowsers(t *testing.T) {
	for _, a := range readUserAgents(t, "visitors.txt") {
		d := linking.ClassifyDevice(a.agent)
		assert.Empty(t, d.App, "%s: %s", a.label, a.agent)
		assert.NotEqual(t, linking.PlatformUnknown, d.Platform, "%s: %s", a.label, a.agent)
		if d.Platform == linking.PlatformDesktop {
			assert.False(t, d.InAppBrowser, "%s: %s", a.label, a.agent)
			assert.Empty(t, d.Model, "%s: %s", a.label, a.agent)
		}
	}
}

// FuzzClassifyDevice checks that ClassifyDevice never panics and that its
// answer is coherent. The seeds (every agent in testdata) run as a test.
func FuzzClassifyDevice(f *testing.F) {
	for _, file := range []string{"bots.txt", "visitors.txt", "inapp.txt"} {
		for _, a := range readUserAgents(f, file) {
			f.Add(a.agent)
		}
	}
	for _, s := range []string{
		"", "(", ")", "/", ";", "[", "]", ":", "http://", "Android", "Android 14;", "(Linux; Android", "iPhone",
		"CrOS x86_64", "Mozilla/5.0 (iPad", "Instagram", "FBAV/", "FBAV/.", " Line/..", "\x00\xff", strings.Repeat("(", 2000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, agent string) {
		d := linking.ClassifyDevice(agent)
		switch d.Platform {
		case linking.PlatformIOS, linking.PlatformAndroid, linking.PlatformDesktop:
		case linking.PlatformUnknown:
			if d.OS != "" || d.Model != "" {
				t.Fatalf("ClassifyDevice(%q) = %+v: unknown platform with an OS or model", agent, d)
			}
		default:
			t.Fatalf("ClassifyDevice(%q) has platform %q", agent, d.Platform)
		}
		if d.App != "" && (!d.InAppBrowser || d.Browser != d.App) {
			t.Fatalf("ClassifyDevice(%q) = %+v: app without in-app browser", agent, d)
		}
		if d.IsBot && d.InAppBrowser {
			t.Fatalf("ClassifyDevice(%q) = %+v: a bot in an in-app browser", agent, d)
		}
		if d.IsBot != (d.BotName != "") {
			t.Fatalf("ClassifyDevice(%q) = %+v", agent, d)
		}
		if d.Platform == linking.PlatformDesktop && d.Model != "" {
			t.Fatalf("ClassifyDevice(%q) = %+v: a desktop with a model", agent, d)
		}
	})
}

// BenchmarkClassifyDevice measures what every redirect pays to classify its
// visitor: a phone, a preview fetcher, a desktop and two agents with more to
// match (an Android phone and an in-app browser).
func BenchmarkClassifyDevice(b *testing.B) {
	for _, bc := range []struct{ name, agent string }{
		{"iphone", uaIPhoneSafari},
		{"bot", uaFacebookBot},
		{"desktop", uaDesktopChrome},
		{"android", uaAndroidChrome},
		{"in-app", uaInstagramIOS},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = linking.ClassifyDevice(bc.agent)
			}
		})
	}
}

func ExampleClassifyDevice() {
	d := linking.ClassifyDevice(uaInstagramIOS)
	fmt.Println(d.Platform, d.OS, d.OSVersion, d.Model, d.InAppBrowser, d.App, d.BrowserVersion)
	d = linking.ClassifyDevice(uaFacebookBot)
	fmt.Println(d.Platform, d.IsBot, d.BotName)
	// Output:
	// ios iOS 17.5 iPhone true Instagram 337.0.3.23.54
	// unknown true facebookexternalhit
}
