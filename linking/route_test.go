package linking_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
)

const (
	routeClickID   = "01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f"
	routeOtherID   = "01936f4e-0000-7000-8000-000000000000"
	routePlayStore = "https://play.google.com/store/apps/details?id=com.example.shop"
	routeAppStore  = "https://apps.apple.com/app/id1234567890"
)

// Devices as RouteVisitor sees them: only the platform matters.
var (
	routeIOS     = linking.Device{Platform: linking.PlatformIOS}
	routeAndroid = linking.Device{Platform: linking.PlatformAndroid}
	routeDesktop = linking.Device{Platform: linking.PlatformDesktop}
	routeUnknown = linking.Device{Platform: linking.PlatformUnknown}
)

// routeLinkAll has every URL set; tests blank the ones their step needs absent.
func routeLinkAll() linking.RouteLink {
	return linking.RouteLink{
		DestinationURL:     "https://example.com/product/42",
		IOSURL:             "https://ios.example.com/product/42",
		IOSFallbackURL:     "https://example.com/ios",
		AndroidURL:         "https://android.example.com/product/42",
		AndroidFallbackURL: "https://example.com/android",
	}
}

// routeAppAll has every store field set.
func routeAppAll() *linking.RouteApp {
	return &linking.RouteApp{
		IOSAppStoreURL:      routeAppStore,
		AndroidPlayStoreURL: routePlayStore,
		AndroidPackageName:  "com.example.shop",
	}
}

// routeLinkWith returns routeLinkAll changed by edit.
func routeLinkWith(edit func(*linking.RouteLink)) linking.RouteLink {
	l := routeLinkAll()
	edit(&l)
	return l
}

// routeAppWith returns routeAppAll changed by edit.
func routeAppWith(edit func(*linking.RouteApp)) *linking.RouteApp {
	a := routeAppAll()
	edit(a)
	return a
}

// routePlayWithClick is routePlayStore carrying routeClickID in its install referrer.
const routePlayWithClick = routePlayStore + "&referrer=hop_click_id%3D" + routeClickID

func TestRouteVisitor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		link   linking.RouteLink
		app    *linking.RouteApp
		device linking.Device
		want   linking.Route
	}{
		// Desktop and unknown.
		{"desktop gets destination_url even with every platform URL set", routeLinkAll(), routeAppAll(), routeDesktop,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"unknown device gets destination_url", routeLinkAll(), routeAppAll(), routeUnknown,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"an empty platform is treated as unknown", routeLinkAll(), routeAppAll(), linking.Device{},
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"a bot's platform does not matter to routing", routeLinkAll(), nil, linking.Device{Platform: linking.PlatformDesktop, IsBot: true},
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},

		// iOS, step by step.
		{"ios 1: an https ios_url", routeLinkAll(), routeAppAll(), routeIOS,
			linking.Route{URL: "https://ios.example.com/product/42", Kind: linking.RouteIOSURL}},
		{"ios 1: an http ios_url", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL = "http://ios.example.com/" }), routeAppAll(), routeIOS,
			linking.Route{URL: "http://ios.example.com/", Kind: linking.RouteIOSURL}},
		{"ios 1: scheme case does not matter", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL = "HTTPS://ios.example.com/" }), routeAppAll(), routeIOS,
			linking.Route{URL: "HTTPS://ios.example.com/", Kind: linking.RouteIOSURL}},
		{"ios 2: a custom-scheme ios_url is skipped for ios_fallback_url", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL = "myapp://product/42" }), routeAppAll(), routeIOS,
			linking.Route{URL: "https://example.com/ios", Kind: linking.RouteIOSFallback}},
		{"ios 2: no ios_url, ios_fallback_url", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL = "" }), routeAppAll(), routeIOS,
			linking.Route{URL: "https://example.com/ios", Kind: linking.RouteIOSFallback}},
		{"ios 3: the app's App Store URL", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL, l.IOSFallbackURL = "myapp://x", "" }), routeAppAll(), routeIOS,
			linking.Route{URL: routeAppStore, Kind: linking.RouteAppStore}},
		{"ios 4: no app, destination_url", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL, l.IOSFallbackURL = "myapp://x", "" }), nil, routeIOS,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"ios 4: an app without an App Store URL, destination_url", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL, l.IOSFallbackURL = "", "" }),
			routeAppWith(func(a *linking.RouteApp) { a.IOSAppStoreURL = "" }), routeIOS,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"ios never gets an Android URL", linking.RouteLink{DestinationURL: "https://example.com/", AndroidURL: "https://android.example.com/", AndroidFallbackURL: "https://example.com/android"}, routeAppAll(), routeIOS,
			linking.Route{URL: routeAppStore, Kind: linking.RouteAppStore}},

		// Android, step by step.
		{"android 1: an https android_url", routeLinkAll(), routeAppAll(), routeAndroid,
			linking.Route{URL: "https://android.example.com/product/42", Kind: linking.RouteAndroidURL}},
		{"android 2: a custom-scheme android_url becomes an intent with the fallback", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "myapp://product/42?ref=x" }), routeAppAll(), routeAndroid,
			linking.Route{URL: "intent://product/42?ref=x#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end", Kind: linking.RouteAndroidIntent}},
		{"android 3: no android_url, android_fallback_url", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "" }), routeAppAll(), routeAndroid,
			linking.Route{URL: "https://example.com/android", Kind: linking.RouteAndroidFallback}},
		{"android 4: the app's Play Store URL with the click id", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "", "" }), routeAppAll(), routeAndroid,
			linking.Route{URL: routePlayWithClick, Kind: linking.RoutePlayStore}},
		{"android 5: no app, destination_url", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "", "" }), nil, routeAndroid,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"android 5: an app without a Play Store URL, destination_url", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "", "" }),
			routeAppWith(func(a *linking.RouteApp) { a.AndroidPlayStoreURL = "" }), routeAndroid,
			linking.Route{URL: "https://example.com/product/42", Kind: linking.RouteDestination}},
		{"android never gets an iOS URL", linking.RouteLink{DestinationURL: "https://example.com/", IOSURL: "https://ios.example.com/", IOSFallbackURL: "https://example.com/ios"}, nil, routeAndroid,
			linking.Route{URL: "https://example.com/", Kind: linking.RouteDestination}},
		{"android: an unparseable android_url is skipped", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "://nothing" }), routeAppAll(), routeAndroid,
			linking.Route{URL: "https://example.com/android", Kind: linking.RouteAndroidFallback}},

		// Intents.
		{"intent fallback is the Play Store URL, carrying the click id", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "myapp://product/42", "" }), routeAppAll(), routeAndroid,
			linking.Route{URL: "intent://product/42#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=" + url.QueryEscape(routePlayWithClick) + ";end", Kind: linking.RouteAndroidIntent}},
		{"intent fallback is destination_url when there is nothing else", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "myapp://product/42", "" }),
			routeAppWith(func(a *linking.RouteApp) { a.AndroidPlayStoreURL = "" }), routeAndroid,
			linking.Route{URL: "intent://product/42#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fproduct%2F42;end", Kind: linking.RouteAndroidIntent}},
		{"intent without an app has no package", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "myapp://product/42", "" }), nil, routeAndroid,
			linking.Route{URL: "intent://product/42#Intent;scheme=myapp;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fproduct%2F42;end", Kind: linking.RouteAndroidIntent}},
		{"intent of an app without a package name has no package", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "myapp://product/42" }),
			routeAppWith(func(a *linking.RouteApp) { a.AndroidPackageName = "" }), routeAndroid,
			linking.Route{URL: "intent://product/42#Intent;scheme=myapp;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end", Kind: linking.RouteAndroidIntent}},
		{"intent with no fallback at all has no browser_fallback_url", linking.RouteLink{AndroidURL: "myapp://product/42"}, nil, routeAndroid,
			linking.Route{URL: "intent://product/42#Intent;scheme=myapp;end", Kind: linking.RouteAndroidIntent}},
		{"intent keeps the app URL's fragment and escapes the fallback's", routeLinkWith(func(l *linking.RouteLink) {
			l.AndroidURL, l.AndroidFallbackURL = "myapp://p?q=1&r=a%20b#top", "https://example.com/a b?x=1;y=2#frag"
		}), routeAppAll(), routeAndroid,
			linking.Route{URL: "intent://p?q=1&r=a%20b#top#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%3By%3D2%23frag;end", Kind: linking.RouteAndroidIntent}},
		{"intent of a scheme without slashes keeps it without", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "myapp:open?id=7" }), nil, routeAndroid,
			linking.Route{URL: "intent:open?id=7#Intent;scheme=myapp;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end", Kind: linking.RouteAndroidIntent}},
		{"intent scheme is lowered", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "MyApp+v2://x" }), nil, routeAndroid,
			linking.Route{URL: "intent://x#Intent;scheme=myapp%2Bv2;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end", Kind: linking.RouteAndroidIntent}},
		{"an android_url that is already an intent is used as written", routeLinkWith(func(l *linking.RouteLink) {
			l.AndroidURL = "intent://scan/#Intent;scheme=zxing;package=com.google.zxing.client.android;end"
		}), routeAppAll(), routeAndroid,
			linking.Route{URL: "intent://scan/#Intent;scheme=zxing;package=com.google.zxing.client.android;end", Kind: linking.RouteAndroidIntent}},
		{"a market:// android_url is redirected to, with the click id", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = "market://details?id=com.example.shop" }), routeAppAll(), routeAndroid,
			linking.Route{URL: "market://details?id=com.example.shop&referrer=hop_click_id%3D" + routeClickID, Kind: linking.RouteAndroidURL}},

		// Play Store targets at other steps.
		{"an android_fallback_url on the Play Store carries the click id", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "", routePlayStore }), nil, routeAndroid,
			linking.Route{URL: routePlayWithClick, Kind: linking.RouteAndroidFallback}},
		{"an http android_url on the Play Store carries the click id", routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL = routePlayStore }), nil, routeAndroid,
			linking.Route{URL: routePlayWithClick, Kind: linking.RouteAndroidURL}},
		{"a desktop destination on the Play Store carries the click id", linking.RouteLink{DestinationURL: routePlayStore}, nil, routeDesktop,
			linking.Route{URL: routePlayWithClick, Kind: linking.RouteDestination}},
		{"the App Store gets no referrer", routeLinkWith(func(l *linking.RouteLink) { l.IOSURL, l.IOSFallbackURL = "", "" }), routeAppAll(), routeIOS,
			linking.Route{URL: routeAppStore, Kind: linking.RouteAppStore}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, linking.RouteVisitor(tc.link, tc.app, tc.device, routeClickID))
		})
	}
}

func TestRouteVisitorWithoutClickIDLeavesThePlayStoreURL(t *testing.T) {
	link := linking.RouteLink{DestinationURL: "https://example.com/"}
	got := linking.RouteVisitor(link, routeAppAll(), routeAndroid, "")
	assert.Equal(t, linking.Route{URL: routePlayStore, Kind: linking.RoutePlayStore}, got)
}

func TestPlayStoreReferrerMerging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store string
		want  string
	}{
		{"no query at all", "https://play.google.com/store/apps/details",
			"https://play.google.com/store/apps/details?referrer=hop_click_id%3D" + routeClickID},
		{"no referrer yet", routePlayStore, routePlayWithClick},
		{"an existing referrer is kept, the click id joined with &",
			routePlayStore + "&referrer=utm_source%3Dads%26utm_medium%3Dcpc",
			routePlayStore + "&referrer=utm_source%3Dads%26utm_medium%3Dcpc%26hop_click_id%3D" + routeClickID},
		{"an existing referrer in the middle stays in its place",
			"https://play.google.com/store/apps/details?referrer=utm_source%3Dads&id=com.example.shop&hl=en",
			"https://play.google.com/store/apps/details?referrer=utm_source%3Dads%26hop_click_id%3D" + routeClickID + "&id=com.example.shop&hl=en"},
		{"an existing hop_click_id is replaced, never repeated",
			routePlayStore + "&referrer=hop_click_id%3D" + routeOtherID + "%26utm_source%3Dads",
			routePlayStore + "&referrer=utm_source%3Dads%26hop_click_id%3D" + routeClickID},
		{"an existing hop_click_id written with escapes is replaced too",
			routePlayStore + "&referrer=hop%255Fclick%255Fid%3D" + routeOtherID,
			routePlayStore + "&referrer=hop_click_id%3D" + routeClickID},
		{"a referrer that is the click id alone is replaced",
			routePlayStore + "&referrer=hop_click_id%3D" + routeOtherID,
			routePlayWithClick},
		{"several referrers become one",
			"https://play.google.com/store/apps/details?referrer=a%3D1&id=com.example.shop&referrer=b%3D2",
			"https://play.google.com/store/apps/details?referrer=a%3D1%26b%3D2%26hop_click_id%3D" + routeClickID + "&id=com.example.shop"},
		{"an empty referrer", routePlayStore + "&referrer=",
			routePlayWithClick},
		{"a referrer with a malformed escape is kept as written",
			routePlayStore + "&referrer=utm_source%3Dx%zz",
			routePlayStore + "&referrer=utm_source%253Dx%25zz%26hop_click_id%3D" + routeClickID},
		{"other parameters and the fragment are kept byte for byte",
			"https://play.google.com/store/apps/details?id=com.example.shop&&hl=en&x=%7e#reviews",
			"https://play.google.com/store/apps/details?id=com.example.shop&&hl=en&x=%7e&referrer=hop_click_id%3D" + routeClickID + "#reviews"},
		{"a trailing slash on the path", "https://play.google.com/store/apps/details/?id=x",
			"https://play.google.com/store/apps/details/?id=x&referrer=hop_click_id%3D" + routeClickID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := linking.RouteVisitor(linking.RouteLink{DestinationURL: "https://example.com/"}, &linking.RouteApp{AndroidPlayStoreURL: tc.store}, routeAndroid, routeClickID)
			assert.Equal(t, linking.Route{URL: tc.want, Kind: linking.RoutePlayStore}, got)
			u, err := url.Parse(got.URL)
			require.NoError(t, err)
			require.Len(t, u.Query()["referrer"], 1, "one referrer parameter")
			id, ok := linking.ClickIDFromReferrer(u.Query().Get("referrer"))
			assert.True(t, ok)
			assert.Equal(t, routeClickID, id)
		})
	}
}

func TestIsPlayStoreURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{routePlayStore, true},
		{"http://play.google.com/store/apps/details?id=x", true},
		{"https://PLAY.Google.com/store/apps/details?id=x", true},
		{"https://play.google.com:443/store/apps/details?id=x", true},
		{"https://play.google.com./store/apps/details?id=x", true},
		{"https://play.google.com/store/apps/details#x", true},
		{"market://details?id=com.example", true},
		{"MARKET://details?id=com.example", true},
		{"https://play.google.com/store/apps/dev?id=123", false},
		{"https://play.google.com/store/apps/details-more?id=x", false},
		{"https://play.google.com/", false},
		{"https://play.google.com", false},
		{"https://notplay.google.com/store/apps/details?id=x", false},
		{"https://play.google.com.evil.example/store/apps/details?id=x", false},
		{"https://example.com/?u=https://play.google.com/store/apps/details", false},
		{"market://search?q=x", false},
		{"intent://details?id=x#Intent;scheme=market;end", false},
		{"play.google.com/store/apps/details?id=x", false},
		{"", false},
	} {
		assert.Equal(t, tc.want, linking.IsPlayStoreURL(tc.url), tc.url)
	}
}

func TestClickIDFromReferrer(t *testing.T) {
	upper := strings.ToUpper(routeClickID)
	for _, tc := range []struct {
		name     string
		referrer string
		want     string // "" for none
	}{
		{"as Google Play hands it over", "hop_click_id=" + routeClickID, routeClickID},
		{"after other values", "utm_source=ads&utm_medium=cpc&hop_click_id=" + routeClickID, routeClickID},
		{"before other values", "hop_click_id=" + routeClickID + "&utm_source=ads", routeClickID},
		{"still encoded once", "utm_source%3Dads%26hop_click_id%3D" + routeClickID, routeClickID},
		{"encoded with lower-case hex", "hop_click_id%3d" + routeClickID, routeClickID},
		{"encoded twice", "hop_click_id%253D" + routeClickID, routeClickID},
		{"encoded three times", "hop_click_id%25253D" + routeClickID, routeClickID},
		{"encoded four times is too many", "hop_click_id%2525253D" + routeClickID, ""},
		{"upper case is lowered", "hop_click_id=" + upper, routeClickID},
		{"the first valid one wins", "hop_click_id=nope&hop_click_id=" + routeClickID + "&hop_click_id=" + routeOtherID, routeClickID},
		{"the least-encoded form wins", "x=hop_click_id%3D" + routeOtherID + "&hop_click_id=" + routeClickID, routeClickID},
		{"not a UUID", "hop_click_id=12345", ""},
		{"a UUID with a tail", "hop_click_id=" + routeClickID + "x", ""},
		{"a UUID without hyphens", "hop_click_id=" + strings.ReplaceAll(routeClickID, "-", ""), ""},
		{"inside another value", "x=hop_click_id=" + routeClickID, ""},
		{"as part of a longer key", "my_hop_click_id=" + routeClickID, ""},
		{"missing", "utm_source=ads", ""},
		{"empty", "", ""},
		{"a malformed escape", "%zzhop_click_id", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := linking.ClickIDFromReferrer(tc.referrer)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, id)
		})
	}
}

// FuzzClickIDFromReferrer checks that ClickIDFromReferrer never panics and
// only ever returns a UUID in lower case. The seeds run as a test.
func FuzzClickIDFromReferrer(f *testing.F) {
	for _, s := range []string{
		"", "hop_click_id=" + routeClickID, "utm_source%3Dads%26hop_click_id%3D" + routeClickID, "hop_click_id%253D" + routeClickID,
		"hop_click_id=", "&hop_click_id=&", "%", "%%", "%2", "hop_click_id=" + strings.ToUpper(routeClickID), "+hop_click_id=x",
		"hop_click_id=" + routeClickID + "&hop_click_id=" + routeOtherID,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, referrer string) {
		id, ok := linking.ClickIDFromReferrer(referrer)
		if ok != (id != "") {
			t.Fatalf("ClickIDFromReferrer(%q) = %q, %v", referrer, id, ok)
		}
		if ok && (len(id) != 36 || id != strings.ToLower(id) || strings.Count(id, "-") != 4) {
			t.Fatalf("ClickIDFromReferrer(%q) = %q, not a lower-case UUID", referrer, id)
		}
	})
}

// FuzzPlayStoreReferrer checks that whatever referrer a Play Store URL
// already carries, the routed URL parses, has one referrer, and that referrer
// gives back the click id. The seeds run as a test.
func FuzzPlayStoreReferrer(f *testing.F) {
	for _, s := range []string{
		"", "utm_source=ads", "hop_click_id=" + routeOtherID, "hop_click_id=" + routeOtherID + "&utm_source=ads",
		"x=hop_click_id=" + routeOtherID, "a&&b", "%zz", "hop%5Fclick%5Fid=" + routeOtherID, "x=hop_click_id%3D" + routeOtherID,
		"+&=", "referrer=x", "#",
	} {
		f.Add(s, []byte{0x01, 0x93, 0x6f, 0x4e, 0x7c, 0x1a, 0x7b, 0x2e, 0x9d, 0x3f, 0x4a, 0x5b, 0x6c, 0x7d, 0x8e, 0x9f})
	}
	f.Fuzz(func(t *testing.T, existing string, raw []byte) {
		if len(raw) < 16 {
			return
		}
		h := fmt.Sprintf("%x", raw[:16])
		id := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		store := routePlayStore + "&referrer=" + url.QueryEscape(existing) + "#details"
		got := linking.RouteVisitor(linking.RouteLink{}, &linking.RouteApp{AndroidPlayStoreURL: store}, routeAndroid, id)
		u, err := url.Parse(got.URL)
		if err != nil {
			t.Fatalf("routed URL %q does not parse: %v", got.URL, err)
		}
		q := u.Query()
		if len(q["referrer"]) != 1 || q.Get("id") != "com.example.shop" || u.Fragment != "details" {
			t.Fatalf("routed URL %q: query %v, fragment %q", got.URL, q, u.Fragment)
		}
		back, ok := linking.ClickIDFromReferrer(q.Get("referrer"))
		if !ok || back != id {
			t.Fatalf("referrer %q gives %q, %v; want %q", q.Get("referrer"), back, ok, id)
		}
	})
}

// BenchmarkRouteVisitor measures routing a visitor after classification: the
// common routeDesktop and iOS cases, an intent, and a Play Store URL whose
// referrer is merged.
func BenchmarkRouteVisitor(b *testing.B) {
	intentLink := routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "myapp://product/42?ref=x", "" })
	storeLink := routeLinkWith(func(l *linking.RouteLink) { l.AndroidURL, l.AndroidFallbackURL = "", "" })
	for _, bc := range []struct {
		name   string
		link   linking.RouteLink
		device linking.Device
	}{
		{"desktop", routeLinkAll(), routeDesktop},
		{"ios", routeLinkAll(), routeIOS},
		{"android-intent", intentLink, routeAndroid},
		{"android-play-store", storeLink, routeAndroid},
	} {
		b.Run(bc.name, func(b *testing.B) {
			app := routeAppAll()
			b.ReportAllocs()
			for b.Loop() {
				_ = linking.RouteVisitor(bc.link, app, bc.device, routeClickID)
			}
		})
	}
}

func ExampleRouteVisitor() {
	link := linking.RouteLink{
		DestinationURL: "https://example.com/product/42",
		IOSURL:         "myapp://product/42",
		AndroidURL:     "myapp://product/42",
	}
	app := &linking.RouteApp{
		IOSAppStoreURL:      "https://apps.apple.com/app/id1234567890",
		AndroidPlayStoreURL: "https://play.google.com/store/apps/details?id=com.example.shop",
		AndroidPackageName:  "com.example.shop",
	}
	const click = "01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f"
	for _, agent := range []string{uaIPhoneSafari, uaAndroidChrome, uaDesktopChrome} {
		r := linking.RouteVisitor(link, app, linking.ClassifyDevice(agent), click)
		fmt.Println(r.Kind, r.URL)
	}
	// Output:
	// app_store https://apps.apple.com/app/id1234567890
	// android_intent intent://product/42#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.shop%26referrer%3Dhop_click_id%253D01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f;end
	// destination https://example.com/product/42
}

func ExampleClickIDFromReferrer() {
	id, ok := linking.ClickIDFromReferrer("utm_source=ads&hop_click_id=01936F4E-7C1A-7B2E-9D3F-4A5B6C7D8E9F")
	fmt.Println(id, ok)
	id, ok = linking.ClickIDFromReferrer("utm_source%3Dads%26hop_click_id%3D01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f")
	fmt.Println(id, ok)
	_, ok = linking.ClickIDFromReferrer("utm_source=ads")
	fmt.Println(ok)
	// Output:
	// 01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f true
	// 01936f4e-7c1a-7b2e-9d3f-4a5b6c7d8e9f true
	// false
}
