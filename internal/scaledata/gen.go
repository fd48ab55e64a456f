package scaledata

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/linking"
)

// agents are the visitors' user agents: iPhone, Android and desktop a
// third each, a few browsers and in-app browsers within each.
var agents = [3][]string{
	{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 350.0.0.0.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
	},
	{
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.210 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/450.0.0.0;]",
	},
	{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	},
}

// countries are 40 countries, most clicks first: the i-th is weighed
// 1/(i+1)^1.3, so the first has about a third of the clicks and the last
// ten about 3% together.
var countries = []string{"US", "DE", "GB", "IN", "FR", "BR", "CA", "ES", "IT", "NL",
	"JP", "MX", "AU", "PL", "TR", "SE", "ID", "KR", "CH", "AT",
	"BE", "AR", "PH", "NG", "ZA", "PT", "DK", "NO", "IE", "FI",
	"CZ", "RO", "VN", "TH", "EG", "CO", "CL", "NZ", "GR", "HU"}

var (
	utmSources = []string{"", "google", "facebook", "instagram", "newsletter", "twitter"}
	utmMedium  = []string{"", "cpc", "social", "social", "email", "social"}
	campaigns  = []string{"", "spring_sale", "black_friday", "launch", "retargeting"}
	referers   = []string{"", "https://www.google.com/", "https://t.co/abc", "https://www.facebook.com/",
		"https://l.instagram.com/", "https://news.example.org/issue/42"}
)

// weighted picks indexes by fixed weights.
type weighted []float64 // cumulative, the last 1

func newWeighted(w []float64) weighted {
	var sum float64
	for _, v := range w {
		sum += v
	}
	out := make(weighted, len(w))
	var acc float64
	for i, v := range w {
		acc += v
		out[i] = acc / sum
	}
	out[len(out)-1] = 1
	return out
}

func (w weighted) pick(r *rand.Rand) int {
	return min(sort.SearchFloat64s(w, r.Float64()), len(w)-1)
}

// generator draws the clicks of an organization's links. Its draws are
// seeded, so that every load of one Config is the same data.
type generator struct {
	r         *rand.Rand
	links     []*linking.Link
	linkZipf  *rand.Zipf
	devices   [3][]linking.Device
	countries weighted
	minutes   weighted // minute of the UTC day
	sources   weighted
	campaigns weighted
	referers  weighted
}

// newGenerator draws over links: a Zipf draw (s = 1.1) that gives the most
// clicks to the first.
func newGenerator(links []*linking.Link) *generator {
	r := rand.New(rand.NewSource(1))
	g := &generator{r: r, links: links, linkZipf: rand.NewZipf(r, 1.1, 1, uint64(len(links)-1))}
	for p, uas := range agents {
		for _, ua := range uas {
			g.devices[p] = append(g.devices[p], linking.ClassifyDevice(ua))
		}
	}
	cw := make([]float64, len(countries)+1)
	for i := range countries {
		cw[i] = 1 / math.Pow(float64(i+1), 1.3)
	}
	cw[len(countries)] = 0.03 // unknown: a private or unlisted address
	g.countries = newWeighted(cw)
	mw := make([]float64, 24*60)
	for m := range mw {
		// One daily cycle: busiest at 19:00 UTC, quietest at 07:00, a
		// fifth of the peak.
		mw[m] = 1 + 0.67*math.Cos(2*math.Pi*(float64(m)/60-19)/24)
	}
	g.minutes = newWeighted(mw)
	g.sources = newWeighted([]float64{50, 20, 12, 8, 6, 4})
	g.campaigns = newWeighted([]float64{40, 25, 15, 12, 8})
	g.referers = newWeighted([]float64{45, 20, 10, 10, 10, 5})
	return g
}

// day returns n clicks of the UTC day that starts at start, in time order,
// none at or after end.
func (g *generator) day(orgID uuid.UUID, start, end time.Time, n int) []analytics.Click {
	at := make([]time.Time, 0, n)
	for len(at) < n {
		t := start.Add(time.Duration(g.minutes.pick(g.r))*time.Minute + time.Duration(g.r.Int63n(int64(time.Minute))))
		if t.Before(end) {
			at = append(at, t)
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]analytics.Click, n)
	for i, t := range at {
		l := g.links[g.linkZipf.Uint64()]
		p := g.r.Intn(3)
		k := g.r.Intn(len(agents[p]))
		d := g.devices[p][k]
		ip := fmt.Sprintf("%d.%d.%d.%d", 11+g.r.Intn(180), g.r.Intn(256), g.r.Intn(256), 1+g.r.Intn(254))
		c := analytics.Click{
			ID: uuid.Must(uuid.NewV7()), OrgID: orgID, LinkID: l.ID, AppID: l.AppID, Domain: l.Domain, Slug: l.Slug,
			OccurredAt: t, Source: analytics.SourceRedirect, Platform: string(d.Platform), OS: d.OS,
			OSVersion: d.OSVersion, DeviceModel: d.Model, Browser: d.Browser, InAppBrowser: d.App,
			IP: ip, IPKey: ip, UserAgent: agents[p][k], AcceptLanguage: "en-US,en;q=0.9",
			Referer: referers[g.referers.pick(g.r)],
		}
		if ci := g.countries.pick(g.r); ci < len(countries) {
			c.Country = countries[ci]
		}
		if si := g.sources.pick(g.r); si > 0 {
			c.UTMSource, c.UTMMedium = utmSources[si], utmMedium[si]
			c.UTMCampaign = campaigns[g.campaigns.pick(g.r)]
		}
		c.Normalize()
		out[i] = c
	}
	return out
}

// dayWithin returns n clicks between from and to, drawn with the daily
// cycle of the UTC day that starts at dayStart.
func (g *generator) dayWithin(orgID uuid.UUID, dayStart, from, to time.Time, n int) []analytics.Click {
	if n <= 0 {
		return nil
	}
	clicks := g.day(orgID, dayStart, to, n)
	// Draws before from are redrawn: the partial first day keeps the
	// cycle's shape over its remaining hours.
	for i := range clicks {
		for clicks[i].OccurredAt.Before(from) {
			t := dayStart.Add(time.Duration(g.minutes.pick(g.r))*time.Minute + time.Duration(g.r.Int63n(int64(time.Minute))))
			if !t.Before(from) && t.Before(to) {
				clicks[i].OccurredAt = t
			}
		}
	}
	slices.SortFunc(clicks, func(a, b analytics.Click) int { return a.OccurredAt.Compare(b.OccurredAt) })
	return clicks
}
