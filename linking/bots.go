package linking

import "bytes"

// A botRule recognises one link-preview fetcher or search crawler. Its
// patterns are lower-case ASCII, matched against the user agent with ASCII
// letters lowered: contains anywhere, prefix at the start and suffix at the
// end (after surrounding spaces are trimmed). Any one pattern is enough.
type botRule struct {
	name     string
	contains [][]byte
	prefix   [][]byte
	suffix   [][]byte
}

// botRules is the list of fetchers that get the preview page instead of a
// redirect (SPEC.md, "Redirect behaviour on link domains": preview tags are
// served only to bots). The first rule that matches names the bot, so a
// fetcher whose agent also carries another fetcher's token (LINE's and
// iMessage's carry facebookexternalhit, Telegram's says "like TwitterBot")
// comes before that one.
//
// Every pattern is checked against real agents of the browsers and in-app
// browsers people use (testdata/useragents/visitors.txt and inapp.txt), and
// each rule against the agents it was written for (bots.txt). Patterns are
// deliberately narrow: a real visitor shown the preview page instead of the
// destination is worse than a crawler that is redirected. In particular:
//
//   - WhatsApp opens links in the system browser on iOS and Android, so a
//     person who taps a link in WhatsApp arrives with that browser's agent;
//     the agent that is WhatsApp's own, with no browser tokens before it
//     ("WhatsApp/2.23.20.0 A", "WhatsApp/2.2326.3 i"), is its preview
//     fetcher. WhatsApp and Viber do name themselves at the end of some
//     people's agents (an app web view appending "WhatsApp/23.20.79" or
//     "Viber/21.0.1.0"), so only an agent that starts with "WhatsApp/" or
//     "Viber/" ("Viber/18.0.1.286 CFNetwork/..."), or that ends with
//     " Viber" (Viber's desktop fetcher), is a bot. Signal fetches its
//     previews as "WhatsApp/2" too.
//   - Pinterest's app browser says "[Pinterest/iOS]", so Pinterest's fetcher
//     is recognised by "Pinterestbot" or an agent that starts with "Pinterest/".
//   - LINE's app browser says "Line/15.12.0"; its fetcher says "line-poker".
//   - Snapchat's app browser says "Snapchat/13.0"; its fetcher says "Snap URL
//     Preview Service".
//   - No generic "bot", "crawler" or "headless" pattern: "CUBOT_NOTE_20" is a
//     phone, and headless Chromium is how browser tests (and some people)
//     browse.
var botRules = []botRule{
	{name: "LINE", contains: patterns("line-poker")},
	{name: "iMessage", contains: patterns("facebot twitterbot")},
	{name: "facebookexternalhit", contains: patterns("facebookexternalhit")},
	{name: "facebookcatalog", contains: patterns("facebookcatalog")},
	{name: "meta-externalagent", contains: patterns("meta-externalagent")},
	{name: "Facebot", contains: patterns("facebot")},
	{name: "TelegramBot", contains: patterns("telegrambot")},
	{name: "Twitterbot", contains: patterns("twitterbot")},
	{name: "LinkedInBot", contains: patterns("linkedinbot")},
	{name: "Slackbot", contains: patterns("slackbot", "slack-imgproxy")},
	{name: "Discordbot", contains: patterns("discordbot")},
	{name: "WhatsApp", prefix: patterns("whatsapp/")},
	{name: "Applebot", contains: patterns("applebot")},
	{name: "Google-InspectionTool", contains: patterns("google-inspectiontool")},
	{name: "AdsBot-Google", contains: patterns("adsbot-google")},
	{name: "Googlebot", contains: patterns("googlebot")},
	{name: "bingbot", contains: patterns("bingbot")},
	{name: "Pinterestbot", contains: patterns("pinterestbot"), prefix: patterns("pinterest/")},
	{name: "redditbot", contains: patterns("redditbot")},
	{name: "SkypeUriPreview", contains: patterns("skypeuripreview")},
	{name: "MicrosoftPreview", contains: patterns("microsoftpreview")},
	{name: "Microsoft Office", contains: patterns("ms-office"), prefix: patterns("microsoft office/")},
	{name: "Embedly", contains: patterns("embedly")},
	{name: "Iframely", contains: patterns("iframely")},
	{name: "Mastodon", contains: patterns("mastodon/")},
	{name: "Bluesky", contains: patterns("cardyb")},
	{name: "DuckDuckBot", contains: patterns("duckduckbot")},
	{name: "YandexBot", contains: patterns("yandexbot", "yandex.com/bots")},
	{name: "Baiduspider", contains: patterns("baiduspider")},
	{name: "vkShare", contains: patterns("vkshare")},
	{name: "Snapchat", contains: patterns("snap url preview service")},
	{name: "Viber", prefix: patterns("viber/"), suffix: patterns(" viber")},
	{name: "KakaoTalk", contains: patterns("kakaotalk-scrap")},
	{name: "ZoomBot", contains: patterns("zoombot")},
}

// BotNames returns the names IsBot reports, in the order the rules are tried.
// The result is a new slice.
func BotNames() []string {
	names := make([]string, len(botRules))
	for i, r := range botRules {
		names[i] = r.name
	}
	return names
}

// IsBot reports whether userAgent is a link-preview fetcher or a search
// crawler on Hoplink's tested list, and if so its name (one of BotNames).
// Such a visitor gets the preview page and records no click; every other
// visitor, including one whose agent is empty or unknown, is redirected.
//
// Matching is on case-insensitive (ASCII) substrings; see the list in
// bots.go for the few fetchers matched by the start or end of the agent
// because their app's own browser carries the same name. IsBot reads the
// agent once, whatever the length of the list, and does not allocate for
// agents of up to 1 KiB.
func IsBot(userAgent string) (bool, string) {
	var buf [lowerBufSize]byte
	lower := appendLowerASCII(buf[:0], userAgent)
	name := matchBot(lower, agentIndex.scan(lower, 1<<groupBot)[groupBot])
	return name != "", name
}

// matchBot returns the name of the first rule that matches lower (an agent
// with ASCII letters lowered), or "". contains is the first rule whose
// contains pattern is in lower (agentIndex's answer for groupBot), or -1.
func matchBot(lower []byte, contains int) string {
	trimmed := bytes.TrimSpace(lower)
	for i := range botRules {
		if contains >= 0 && i >= contains {
			break
		}
		r := &botRules[i]
		for _, p := range r.prefix {
			if bytes.HasPrefix(trimmed, p) {
				return r.name
			}
		}
		for _, p := range r.suffix {
			if bytes.HasSuffix(trimmed, p) {
				return r.name
			}
		}
	}
	if contains < 0 {
		return ""
	}
	return botRules[contains].name
}

// The lists agentIndex holds.
const (
	groupBot   = iota // the contains patterns of botRules
	groupInApp        // the patterns of inAppBrowsers (device.go)
	numGroups
)

// agentIndex finds the patterns of both lists in one pass over an agent.
var agentIndex = newPatternIndex()

// A patternIndex finds which entries of several lists have a lower-case
// pattern in a text, reading the text once. Patterns are grouped by their
// first byte, and a bit set says which second bytes follow it, so at most
// positions of a text one lookup shows that no pattern starts there, and
// elsewhere only the few patterns that start with those two bytes are
// compared. In each list the lowest-numbered entry found wins, as if the list
// were tried in order.
type patternIndex struct {
	byFirst [256][]indexedPattern
	// pairs[c0] has bit c1 set when a pattern starts with c0, c1.
	pairs [256][4]uint64
}

// An indexedPattern is a pattern, at least two bytes long, of entry owner of
// list group.
type indexedPattern struct {
	pattern      []byte
	group, owner int
}

// newPatternIndex indexes botRules and inAppBrowsers.
func newPatternIndex() *patternIndex {
	x := new(patternIndex)
	add := func(group, owner int, ps [][]byte) {
		for _, p := range ps {
			if len(p) < 2 {
				panic("linking: a user-agent pattern must be at least two bytes long")
			}
			x.byFirst[p[0]] = append(x.byFirst[p[0]], indexedPattern{p, group, owner})
			x.pairs[p[0]][p[1]>>6] |= 1 << (p[1] & 63)
		}
	}
	for i, r := range botRules {
		add(groupBot, i, r.contains)
	}
	for i, a := range inAppBrowsers {
		add(groupInApp, i, a.patterns)
	}
	return x
}

// scan returns, for each list whose bit is set in groups, the lowest entry
// with a pattern in text, or -1; lists not asked for are -1.
func (x *patternIndex) scan(text []byte, groups int) [numGroups]int {
	best := [numGroups]int{-1, -1}
	for i := 0; i+1 < len(text); i++ {
		c0, c1 := text[i], text[i+1]
		if x.pairs[c0][c1>>6]&(1<<(c1&63)) == 0 {
			continue
		}
		for _, p := range x.byFirst[c0] {
			if groups&(1<<p.group) == 0 || best[p.group] >= 0 && p.owner >= best[p.group] {
				continue
			}
			if p.pattern[1] == c1 && bytes.HasPrefix(text[i:], p.pattern) {
				best[p.group] = p.owner
			}
		}
	}
	return best
}

// patterns returns its arguments as byte slices, for matching without
// conversions.
func patterns(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, p := range s {
		out[i] = []byte(p)
	}
	return out
}

// lowerBufSize is the longest agent matched without allocating; a user agent
// is rarely longer than 400 bytes.
const lowerBufSize = 1024

// appendLowerASCII appends s to dst with ASCII letters lowered and returns it; other
// bytes are copied as they are, so offsets in the result are offsets in s.
func appendLowerASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
