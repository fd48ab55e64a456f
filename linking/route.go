package linking

import (
	"net/url"
	"strings"
)

// RouteKind names the row of the routing table that chose a target.
type RouteKind string

// The rows of the routing table in RouteVisitor's doc.
const (
	RouteDestination     RouteKind = "destination"
	RouteIOSURL          RouteKind = "ios_url"
	RouteIOSFallback     RouteKind = "ios_fallback"
	RouteAppStore        RouteKind = "app_store"
	RouteAndroidURL      RouteKind = "android_url"
	RouteAndroidIntent   RouteKind = "android_intent"
	RouteAndroidFallback RouteKind = "android_fallback"
	RoutePlayStore       RouteKind = "play_store"
)

// RouteLink holds the URLs of a link that routing reads, as stored
// (normalized by NormalizeLinkURL). "" stands for null.
type RouteLink struct {
	DestinationURL     string
	IOSURL             string
	IOSFallbackURL     string
	AndroidURL         string
	AndroidFallbackURL string
}

// RouteApp holds the fields of a link's app that routing reads. "" stands
// for null; a link without an app is routed with a nil *RouteApp.
type RouteApp struct {
	IOSAppStoreURL      string
	AndroidPlayStoreURL string
	AndroidPackageName  string
}

// Route is where RouteVisitor sends a visitor: the URL before params applies
// the query and UTM rules, and the row of the routing table that chose it.
type Route struct {
	URL  string
	Kind RouteKind
}

// ClickIDReferrerKey is the key that carries the click id inside Google Play's
// install referrer.
const ClickIDReferrerKey = "hop_click_id"

// RouteVisitor picks the URL a real visitor is redirected to from the link's
// URLs, its app's store URLs and the visitor's platform (ClassifyDevice; only
// device.Platform is read). Bots are not routed: they get the preview page.
// The first row of the routing table whose condition holds wins:
//
//	platform          step  condition                                   target                     RouteKind
//	desktop, unknown  1     always                                      destination_url            destination
//	ios               1     ios_url is http or https                    ios_url                    ios_url
//	ios               2     ios_fallback_url is set                     ios_fallback_url           ios_fallback
//	ios               3     the app has ios_app_store_url               ios_app_store_url          app_store
//	ios               4     always                                      destination_url            destination
//	android           1     android_url is http, https or market:       android_url                android_url
//	android           2     android_url has an app's scheme             intent:// URL (below)      android_intent
//	android           3     android_fallback_url is set                 android_fallback_url       android_fallback
//	android           4     the app has android_play_store_url          android_play_store_url     play_store
//	android           5     always                                      destination_url            destination
//
// iOS skips an ios_url with an app's own scheme (myapp://...): an installed
// app opens its universal links before the request reaches the service, so a
// visitor who gets here has no app to open it, and Safari would show an
// error instead of going on to the fallback.
//
// On Android an app's scheme becomes an intent URL, so that Chrome opens the
// app when it is installed and the fallback when it is not:
//
//	myapp://product/42?ref=x
//	intent://product/42?ref=x#Intent;scheme=myapp;package=com.example.shop;S.browser_fallback_url=https%3A%2F%2Fexample.com%2F;end
//
// The intent's browser_fallback_url is the rest of the Android chain
// (android_fallback_url, else the Play Store URL, else destination_url). An
// intent has no package when the link has no app or the app no
// android_package_name: Chrome then opens whatever installed app handles the
// scheme, and the fallback when none does. An android_url that is already an
// intent URL (intent://...#Intent;...;end) is used as written, its own package
// and fallback included; a market:// URL (market://details?id=...) is
// redirected to as it is, since Chrome hands it to the Play Store app.
//
// Every target that is a Play Store page (https://play.google.com/store/apps/details
// or market://details), on any platform and at any step including an intent's
// fallback, carries the click id in Google Play's install referrer so that
// the attribution SDK can match the install deterministically:
// referrer=hop_click_id%3D<click id>. A referrer already in the URL is kept
// and the click id joined to it with "&" inside the decoded value, which is
// then encoded once (referrer=utm_source%3Dads%26hop_click_id%3D<click id>);
// a hop_click_id already there is replaced, never repeated.
// ClickIDFromReferrer reads it back. clickID is the id of the click being
// recorded (a UUID); when it is "", Play Store URLs are left as they are.
//
// RouteVisitor does no I/O and never fails: a link with no usable URL for the
// platform is routed to its destination_url, even if that is "". Its result
// then goes through params (the visitor's query string, UTM fields and
// parameter rules), which leaves app schemes and store pages as SPEC.md's UTM
// rules say.
func RouteVisitor(link RouteLink, app *RouteApp, device Device, clickID string) Route {
	var a RouteApp
	if app != nil {
		a = *app
	}
	switch device.Platform {
	case PlatformIOS:
		switch {
		case isHTTPURL(link.IOSURL):
			return target(link.IOSURL, RouteIOSURL, clickID)
		case link.IOSFallbackURL != "":
			return target(link.IOSFallbackURL, RouteIOSFallback, clickID)
		case a.IOSAppStoreURL != "":
			return target(a.IOSAppStoreURL, RouteAppStore, clickID)
		}
	case PlatformAndroid:
		scheme, rest, ok := splitScheme(link.AndroidURL)
		switch {
		case !ok:
			return androidFallback(link, a, clickID)
		case scheme == "http" || scheme == "https" || scheme == "market":
			return target(link.AndroidURL, RouteAndroidURL, clickID)
		case scheme == "intent":
			return Route{URL: link.AndroidURL, Kind: RouteAndroidIntent}
		default:
			fallback := androidFallback(link, a, clickID)
			return Route{URL: intentURL(scheme, rest, a.AndroidPackageName, fallback.URL), Kind: RouteAndroidIntent}
		}
	}
	return target(link.DestinationURL, RouteDestination, clickID)
}

// androidFallback is the Android chain after android_url: steps 3 to 5.
func androidFallback(link RouteLink, a RouteApp, clickID string) Route {
	switch {
	case link.AndroidFallbackURL != "":
		return target(link.AndroidFallbackURL, RouteAndroidFallback, clickID)
	case a.AndroidPlayStoreURL != "":
		return target(a.AndroidPlayStoreURL, RoutePlayStore, clickID)
	}
	return target(link.DestinationURL, RouteDestination, clickID)
}

// target is a Route to rawURL, with the click id in the install referrer when
// rawURL is a Play Store page.
func target(rawURL string, kind RouteKind, clickID string) Route {
	if clickID != "" && IsPlayStoreURL(rawURL) {
		rawURL = withClickIDReferrer(rawURL, clickID)
	}
	return Route{URL: rawURL, Kind: kind}
}

// splitScheme returns the lower-cased scheme of rawURL and what follows its
// colon. ok is false when rawURL has no valid scheme (RFC 3986, section 3.1).
func splitScheme(rawURL string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(rawURL, ':')
	if i <= 0 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := rawURL[j]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return strings.ToLower(rawURL[:i]), rawURL[i+1:], true
}

// isHTTPURL reports whether rawURL is an http or https URL.
func isHTTPURL(rawURL string) bool {
	scheme, _, ok := splitScheme(rawURL)
	return ok && (scheme == "http" || scheme == "https")
}

// intentURL builds Chrome's intent URL for an app-scheme URL scheme:rest
// (https://developer.chrome.com/docs/android/intents). Android rebuilds the
// app URL as scheme + ":" + what follows "intent:", so rest is kept byte for
// byte, fragment included; the values after #Intent; are percent-encoded,
// which Android decodes. package and S.browser_fallback_url are left out when
// empty.
func intentURL(scheme, rest, pkg, fallback string) string {
	var b strings.Builder
	b.Grow(len("intent:#Intent;scheme=;package=;S.browser_fallback_url=;end") + len(rest) + len(scheme) + len(pkg) + 3*len(fallback))
	b.WriteString("intent:")
	b.WriteString(rest)
	b.WriteString("#Intent;scheme=")
	b.WriteString(escapeIntentValue(scheme))
	if pkg != "" {
		b.WriteString(";package=")
		b.WriteString(escapeIntentValue(pkg))
	}
	if fallback != "" {
		b.WriteString(";S.browser_fallback_url=")
		b.WriteString(escapeIntentValue(fallback))
	}
	b.WriteString(";end")
	return b.String()
}

// escapeIntentValue percent-encodes every byte of s but the unreserved ones
// (RFC 3986, section 2.3), so that no "#", ";" or "=" ends the value early.
func escapeIntentValue(s string) string {
	e := url.QueryEscape(s)
	if strings.IndexByte(e, '+') >= 0 {
		// QueryEscape writes a space as "+", which Android's Uri.decode keeps.
		e = strings.ReplaceAll(e, "+", "%20")
	}
	return e
}

// IsPlayStoreURL reports whether rawURL is a Google Play app page:
// http(s)://play.google.com/store/apps/details (host in any case, with or
// without a port or a trailing dot) or market://details. Such a target
// carries the click id in its install referrer.
func IsPlayStoreURL(rawURL string) bool {
	scheme, rest, ok := splitScheme(rawURL)
	if !ok {
		return false
	}
	if scheme == "market" {
		return rest == "//details" || strings.HasPrefix(rest, "//details?") || strings.HasPrefix(rest, "//details#")
	}
	if scheme != "http" && scheme != "https" || !strings.HasPrefix(rest, "//") {
		return false
	}
	rest = rest[2:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		return false
	}
	host, path := rest[:end], rest[end:]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if colon := strings.LastIndexByte(host, ':'); colon >= 0 {
		host = host[:colon]
	}
	host = strings.TrimSuffix(host, ".")
	if !strings.EqualFold(host, "play.google.com") {
		return false
	}
	if q := strings.IndexAny(path, "?#"); q >= 0 {
		path = path[:q]
	}
	return path == "/store/apps/details" || path == "/store/apps/details/"
}

// withClickIDReferrer returns rawURL with hop_click_id=<clickID> merged into
// its referrer query parameter, as the routing table's doc says. Every other
// query parameter (empty ones included) and the fragment are kept byte for
// byte; several referrer parameters become one, at the place of the first.
func withClickIDReferrer(rawURL, clickID string) string {
	base, fragment := rawURL, ""
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		base, fragment = rawURL[:i], rawURL[i:]
	}
	base, query, _ := strings.Cut(base, "?")

	// The decoded referrer: the pieces of every referrer parameter but a
	// hop_click_id, in order, then the click id.
	var inner strings.Builder
	for rest := query; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "&")
		key, value, _ := strings.Cut(seg, "=")
		if unescapeOrRaw(key) != "referrer" {
			continue
		}
		for pieces := unescapeOrRaw(value); pieces != ""; {
			var piece string
			piece, pieces, _ = strings.Cut(pieces, "&")
			k, _, _ := strings.Cut(piece, "=")
			if piece != "" && k != ClickIDReferrerKey && unescapeOrRaw(k) != ClickIDReferrerKey {
				inner.WriteString(piece)
				inner.WriteByte('&')
			}
		}
	}
	inner.WriteString(ClickIDReferrerKey + "=")
	inner.WriteString(url.QueryEscape(clickID))
	referrer := "referrer=" + url.QueryEscape(inner.String())

	var b strings.Builder
	b.Grow(len(rawURL) + len(referrer) + 1)
	b.WriteString(base)
	b.WriteByte('?')
	placed, first := false, true
	if query != "" {
		for seg := range strings.SplitSeq(query, "&") {
			key, _, _ := strings.Cut(seg, "=")
			if unescapeOrRaw(key) == "referrer" {
				if placed {
					continue
				}
				seg, placed = referrer, true
			}
			if !first {
				b.WriteByte('&')
			}
			b.WriteString(seg)
			first = false
		}
	}
	if !placed {
		if !first {
			b.WriteByte('&')
		}
		b.WriteString(referrer)
	}
	b.WriteString(fragment)
	return b.String()
}

// unescapeOrRaw decodes a query component, or returns it as it is when it
// holds a malformed escape.
func unescapeOrRaw(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// maxReferrerDecodes bounds how many times ClickIDFromReferrer decodes a
// referrer that was encoded more than once.
const maxReferrerDecodes = 3

// ClickIDFromReferrer returns the click id in an Android install referrer:
// the UUID after "hop_click_id=" at the start of the referrer or after an
// "&", in lower case. The referrer may arrive
// as Google Play hands it over (decoded once: "utm_source=ads&hop_click_id=<uuid>")
// or still percent-encoded, up to three times ("hop_click_id%3D<uuid>");
// the least-encoded form that holds a valid click id wins, and within it the
// first. ok is false when there is none or its value is not a UUID
// (8-4-4-4-12 hexadecimal digits).
func ClickIDFromReferrer(referrer string) (clickID string, ok bool) {
	s := referrer
	for range maxReferrerDecodes + 1 {
		if id, ok := findClickID(s); ok {
			return id, true
		}
		if strings.IndexByte(s, '%') < 0 {
			break
		}
		d, err := url.QueryUnescape(s)
		if err != nil || d == s {
			break
		}
		s = d
	}
	return "", false
}

// findClickID scans one form of a referrer for hop_click_id=<uuid>.
func findClickID(s string) (string, bool) {
	const marker = ClickIDReferrerKey + "="
	for from := 0; ; {
		i := strings.Index(s[from:], marker)
		if i < 0 {
			return "", false
		}
		i += from
		from = i + len(marker)
		if i > 0 && s[i-1] != '&' {
			continue
		}
		value := s[from:]
		if amp := strings.IndexByte(value, '&'); amp >= 0 {
			value = value[:amp]
		}
		if isUUID(value) {
			return strings.ToLower(value), true
		}
	}
}

// isUUID reports whether s is a UUID in its 36-character text form
// (RFC 9562, section 4), in either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
