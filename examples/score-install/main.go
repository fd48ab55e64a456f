// Command score-install shows how a team that keeps its own click store
// scores an install against a few clicks with attribution's pure scorer
// alone: no database, no server, no clock. It prints each candidate session's
// probability and the signals that decided, then the decision.
//
// Run it with: go run ./examples/score-install
package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
)

// A click as your store keeps it: time, address and the browser's headers.
type myClick struct {
	name, ip, userAgent, acceptLanguage string
	ago                                 time.Duration
}

func main() {
	run(os.Stdout)
}

// run scores the example's install against its clicks and writes the
// result to w.
func run(w io.Writer) {
	installedAt := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	installIP := netip.MustParseAddr("203.0.113.7")

	// The SDK's request, as POST /v1/attribution/match would carry it.
	install := attribution.MatchRequest{
		Platform: attribution.PlatformAndroid, FingerprintVersion: attribution.FingerprintBasic, SDKVersion: "1.0.0",
		UserAgent:      "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36",
		AcceptLanguage: "pt-BR",
	}
	if err := install.Validate(); err != nil {
		panic(err)
	}

	mine := []myClick{
		{"Pixel 8, pt-BR, 6 min ago", "203.0.113.7", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "pt-BR,pt;q=0.9", 6 * time.Minute},
		{"Pixel 8, same device, 9 min ago", "203.0.113.7", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "pt-BR,pt;q=0.9", 9 * time.Minute},
		{"Chrome reduced agent, en-US, 20 min ago", "203.0.113.7", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", "en-US,en;q=0.9", 20 * time.Minute},
		{"Galaxy S23, pt-BR, 3 min ago", "203.0.113.7", "Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "pt-BR,pt;q=0.9", 3 * time.Minute},
	}

	// Turn your clicks into attribution.Clicks: the platform, OS version and
	// model come from the user agent, the IP key from the address.
	var clicks []attribution.Click
	names := map[uuid.UUID]string{}
	for i, c := range mine {
		d := linking.ClassifyDevice(c.userAgent)
		id := uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}) // your click id
		names[id] = c.name
		clicks = append(clicks, attribution.Click{
			ID: id, OccurredAt: installedAt.Add(-c.ago), Platform: string(d.Platform), OSVersion: d.OSVersion,
			DeviceModel: d.Model, UserAgent: c.userAgent, AcceptLanguage: c.acceptLanguage,
			IPKey: attribution.IPKey(netip.MustParseAddr(c.ip)),
		})
	}

	// Candidates are the clicks on the install's IP key; every click on the
	// key (all platforms) is the background. Group them into device sessions.
	key := attribution.IPKey(installIP)
	var onKey []attribution.Click
	for _, c := range clicks {
		if c.IPKey == key && c.Platform == string(install.Platform) {
			onKey = append(onKey, c)
		}
	}
	sessions := attribution.SessionsOf(onKey, attribution.ClaimSessionWindow)
	model := attribution.DefaultModel
	scored := model.Score(attribution.RequestSignals(&install), installedAt, sessions, attribution.NewBackground(sessions))

	for _, s := range scored {
		latest := sessions[s.Session].Latest()
		fmt.Fprintf(w, "%-42s clicks %d  probability %.4f  decided by %v\n", names[latest.ID], len(sessions[s.Session].Clicks), s.Probability, s.Decisive())
	}
	d := attribution.Decide(scored)
	if d.Matched {
		fmt.Fprintf(w, "match: %s (at least %.2f and %.0f times the runner-up's odds)\n",
			names[sessions[scored[d.Best].Session].Latest().ID], attribution.MatchThreshold, attribution.RunnerUpFactor)
	} else {
		fmt.Fprintln(w, "no match")
	}
}
