package attrsim

import (
	"net/netip"
	"strings"
	"time"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
)

// A Baseline picks the click an install is attributed to, or none. It sees
// the same clicks as the matcher, and the click device's timezone and screen
// that a JavaScript landing page would collect (the matcher never has
// them). Baselines claim nothing: a click may be given to several installs.
type Baseline struct {
	Name  string
	Match func(x *index, in *Install) (click int, ok bool)
}

// Baselines are the three peers of issue 5, item 6.
var Baselines = []Baseline{
	{"fixed points (/24 40, UA family 30, tz 10, lang 10, screen 10; ≥ 70; 7 days)", fixedPoints},
	{"exact IP, 24 h, last click", exactIP},
	{"exact IP + user agent, 24 h, last click", exactIPAgent},
}

// index finds a world's clicks by app and address.
type index struct {
	w        *World
	byPrefix map[prefixKey][]int
	byIP     map[prefixKey][]int
	family   map[string]string
}

type prefixKey struct {
	app int
	key string
}

func newIndex(w *World) *index {
	x := &index{w: w, byPrefix: map[prefixKey][]int{}, byIP: map[prefixKey][]int{}, family: map[string]string{}}
	for i, c := range w.Clicks {
		ip := netip.MustParseAddr(c.IP)
		x.byPrefix[prefixKey{c.App, prefix24(ip)}] = append(x.byPrefix[prefixKey{c.App, prefix24(ip)}], i)
		x.byIP[prefixKey{c.App, c.IP}] = append(x.byIP[prefixKey{c.App, c.IP}], i)
	}
	return x
}

// prefix24 is the IPv4 /24, or the IPv6 /64, of ip.
func prefix24(ip netip.Addr) string {
	bits := 24
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p.String()
}

// uaFamily is the agent's system and major version ("iOS 17", "Android 14").
func (x *index) uaFamily(ua string) string {
	if f, ok := x.family[ua]; ok {
		return f
	}
	d := linking.ClassifyDevice(ua)
	major := d.OSVersion
	if i := strings.IndexByte(major, '.'); i >= 0 {
		major = major[:i]
	}
	f := d.OS + " " + major
	x.family[ua] = f
	return f
}

// agentDevice is the part of an agent in its first parentheses, which names
// the device and system.
func agentDevice(ua string) string {
	i := strings.IndexByte(ua, '(')
	j := strings.IndexByte(ua, ')')
	if i < 0 || j < i {
		return ua
	}
	return ua[i+1 : j]
}

// latest returns the latest click of idx within window before in.At
// passing keep.
func (x *index) latest(idx []int, in *Install, window time.Duration, keep func(c *Click) bool) (int, bool) {
	best, ok := -1, false
	for _, i := range idx {
		c := &x.w.Clicks[i]
		if c.OccurredAt.After(in.At) || in.At.Sub(c.OccurredAt) > window || !keep(c) {
			continue
		}
		if !ok || c.OccurredAt.After(x.w.Clicks[best].OccurredAt) {
			best, ok = i, true
		}
	}
	return best, ok
}

func exactIP(x *index, in *Install) (int, bool) {
	return x.latest(x.byIP[prefixKey{in.App, in.IP.String()}], in, 24*time.Hour, func(*Click) bool { return true })
}

func exactIPAgent(x *index, in *Install) (int, bool) {
	dev := agentDevice(in.Request.UserAgent)
	return x.latest(x.byIP[prefixKey{in.App, in.IP.String()}], in, 24*time.Hour, func(c *Click) bool {
		return agentDevice(c.UserAgent) == dev
	})
}

func fixedPoints(x *index, in *Install) (int, bool) {
	best, bestScore := -1, -1
	family := x.uaFamily(in.Request.UserAgent)
	lang := attribution.PrimaryLanguage(in.Request.AcceptLanguage)
	for _, i := range x.byPrefix[prefixKey{in.App, prefix24(in.IP)}] {
		c := &x.w.Clicks[i]
		if c.OccurredAt.After(in.At) || in.At.Sub(c.OccurredAt) > 7*24*time.Hour {
			continue
		}
		d := &x.w.Devices[c.Device]
		score := 40
		if x.uaFamily(c.UserAgent) == family {
			score += 30
		}
		if in.Request.TimezoneOffset != nil && *in.Request.TimezoneOffset == d.TimezoneOffset {
			score += 10
		}
		if attribution.PrimaryLanguage(c.AcceptLanguage) == lang {
			score += 10
		}
		if in.Request.ScreenWidth != nil && *in.Request.ScreenWidth == d.ScreenW && *in.Request.ScreenHeight == d.ScreenH {
			score += 10
		}
		if score > bestScore || score == bestScore && c.OccurredAt.After(x.w.Clicks[best].OccurredAt) {
			best, bestScore = i, score
		}
	}
	return best, bestScore >= 70
}
