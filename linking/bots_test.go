package linking_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
)

// userAgentLine is one line of a testdata/useragents file: a label (the bot's
// or app's name, or a description) and a real User-Agent.
type userAgentLine struct {
	label, agent string
}

// readUserAgents reads testdata/useragents/<file>: LABEL<TAB>USER-AGENT lines,
// skipping blank lines and lines that start with #.
func readUserAgents(tb testing.TB, file string) []userAgentLine {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "useragents", file))
	require.NoError(tb, err)
	defer f.Close()
	var out []userAgentLine
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		label, agent, ok := strings.Cut(text, "\t")
		require.True(tb, ok && label != "" && agent != "", "%s:%d is not LABEL<TAB>USER-AGENT", file, line)
		out = append(out, userAgentLine{label, agent})
	}
	require.NoError(tb, sc.Err())
	require.NotEmpty(tb, out, file)
	return out
}

// asciiUpper and asciiLower change the case of ASCII letters only, as
// IsBot's matching does.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r - 'A' + 'a'
		}
		return r
	}, s)
}

func TestIsBotRecognisesEveryListedFetcherByItsRealAgent(t *testing.T) {
	for _, a := range readUserAgents(t, "bots.txt") {
		t.Run(a.label, func(t *testing.T) {
			for _, agent := range []string{a.agent, asciiUpper(a.agent), asciiLower(a.agent)} {
				ok, name := linking.IsBot(agent)
				assert.True(t, ok, agent)
				assert.Equal(t, a.label, name, agent)
			}
			d := linking.ClassifyDevice(a.agent)
			assert.True(t, d.IsBot)
			assert.Equal(t, a.label, d.BotName)
			assert.False(t, d.InAppBrowser, "a bot is never an in-app browser")
			assert.Empty(t, d.App)
		})
	}
}

func TestEveryBotRuleHasARealAgentInTestdata(t *testing.T) {
	var tested []string
	for _, a := range readUserAgents(t, "bots.txt") {
		tested = append(tested, a.label)
	}
	names := linking.BotNames()
	for _, name := range names {
		assert.Contains(t, tested, name, "no agent of %s in testdata/useragents/bots.txt", name)
	}
	for _, name := range tested {
		assert.Contains(t, names, name, "bots.txt names %s, which is not in BotNames", name)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(names))), len(names), "BotNames has duplicates")
}

func TestIsBotNeverFlagsARealVisitor(t *testing.T) {
	for _, file := range []string{"visitors.txt", "inapp.txt"} {
		for _, a := range readUserAgents(t, file) {
			ok, name := linking.IsBot(a.agent)
			assert.False(t, ok, "%s: %s (%s) is a real visitor: %s", file, a.label, name, a.agent)
			assert.Empty(t, name)
			assert.False(t, linking.ClassifyDevice(a.agent).IsBot, a.agent)
		}
	}
}

func TestIsBotRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent string
		want  string // "" for not a bot
	}{
		{"an empty agent is not a bot", "", ""},
		{"a blank agent is not a bot", "   ", ""},
		{"the word bot alone is not on the list", "bot", ""},
		{"an unknown crawler is not on the list", "Mozilla/5.0 (compatible; SomeBot/1.0; +https://example.com/bot)", ""},
		{"a Cubot phone is a person", "Mozilla/5.0 (Linux; Android 11; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", ""},
		{"a command-line client is not on the list", "curl/8.5.0", ""},
		{"WhatsApp's fetcher starts with WhatsApp/", "WhatsApp/2 A", "WhatsApp"},
		{"WhatsApp's fetcher after leading spaces", "  WhatsApp/2.23.20.0 A", "WhatsApp"},
		{"Signal's preview fetcher poses as WhatsApp", "WhatsApp/2", "WhatsApp"},
		{"WhatsApp inside a browser agent is a person", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 WhatsApp/23.20.79", ""},
		{"Viber inside a browser agent is a person", "Mozilla/5.0 (Linux; Android 12) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0 Mobile Safari/537.36 Viber/21.0.1.0", ""},
		{"Viber's desktop fetcher ends with Viber, trailing spaces aside", "Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/45.0 Safari/537.36 Viber ", "Viber"},
		{"Pinterest's app browser is a person", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]", ""},
		{"Pinterest's fetcher starts with Pinterest/", "Pinterest/0.2 (+https://www.pinterest.com/bot.html)", "Pinterestbot"},
		{"LINE's preview carries facebookexternalhit but is named LINE", "facebookexternalhit/1.1;line-poker/1.0", "LINE"},
		{"iMessage's preview is named iMessage", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0", "iMessage"},
		{"case does not matter", "SLACKBOT-LINKEXPANDING 1.0", "Slackbot"},
		{"a token anywhere matches", "Mozilla/5.0 (X11) something Googlebot-Video/1.0", "Googlebot"},
		{"headless Chromium is not a bot", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/139.0.0.0 Safari/537.36", ""},
		{"an agent longer than the stack buffer still matches", strings.Repeat("x", 5000) + " Twitterbot/1.0", "Twitterbot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, name := linking.IsBot(tc.agent)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, name)
		})
	}
}

func TestIsBotDoesNotAllocate(t *testing.T) {
	for _, agent := range []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
	} {
		allocs := testing.AllocsPerRun(100, func() { _, _ = linking.IsBot(agent) })
		assert.Zero(t, allocs, agent)
	}
}

// FuzzIsBot checks that IsBot never panics, that the case of ASCII letters
// never changes its answer, that a name is always one of BotNames, and that
// ClassifyDevice agrees. The seeds (every agent in testdata) run as a test.
func FuzzIsBot(f *testing.F) {
	for _, file := range []string{"bots.txt", "visitors.txt", "inapp.txt"} {
		for _, a := range readUserAgents(f, file) {
			f.Add(a.agent)
		}
	}
	for _, s := range []string{"", " ", "\x00", "\xff\xfe", "WhatsApp/", " viber", "VIBER/", "bot", "é Twitterbot"} {
		f.Add(s)
	}
	names := linking.BotNames()
	f.Fuzz(func(t *testing.T, agent string) {
		ok, name := linking.IsBot(agent)
		if ok != (name != "") {
			t.Fatalf("IsBot(%q) = %v, %q", agent, ok, name)
		}
		if ok && !slices.Contains(names, name) {
			t.Fatalf("IsBot(%q) names %q, not in BotNames", agent, name)
		}
		for _, other := range []string{asciiUpper(agent), asciiLower(agent)} {
			if ok2, name2 := linking.IsBot(other); ok2 != ok || name2 != name {
				t.Fatalf("IsBot(%q) = %v, %q but IsBot(%q) = %v, %q", agent, ok, name, other, ok2, name2)
			}
		}
		if d := linking.ClassifyDevice(agent); d.IsBot != ok || d.BotName != name {
			t.Fatalf("ClassifyDevice(%q) says bot %v %q, IsBot says %v %q", agent, d.IsBot, d.BotName, ok, name)
		}
	})
}

// BenchmarkIsBot measures bot detection alone: a person (every rule is tried)
// and a bot found by the first rules.
func BenchmarkIsBot(b *testing.B) {
	for _, bc := range []struct{ name, agent string }{
		{"iphone", uaIPhoneSafari},
		{"bot", uaFacebookBot},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = linking.IsBot(bc.agent)
			}
		})
	}
}
