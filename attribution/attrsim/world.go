package attrsim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand"
	"net/netip"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/linking"
)

// Config sizes a world. Zero fields take the defaults of DefaultConfig.
type Config struct {
	// Seed makes the world: one seed, one world.
	Seed int64
	// Households is how many households (one to four devices each) exist.
	Households int
	// Days is the span of the clicks.
	Days int
	// Apps is how many apps of the organization run campaigns at once;
	// LinksPerApp how many links (campaigns) each has.
	Apps, LinksPerApp int
	// SessionsPerHousehold is the mean number of click sessions a household
	// makes over the span.
	SessionsPerHousehold float64
	// InstallRate is the share of click sessions followed by an install.
	InstallRate float64
	// OrganicShare is the share of installs that follow no click.
	OrganicShare float64
	// ReferrerShare is the share of Android installs that follow a click
	// and carry the Play Store referrer with the click id.
	ReferrerShare float64
	// RetryShare is the share of install requests that the SDK sends again;
	// ReinstallShare the share of installs that are reinstalled later.
	RetryShare, ReinstallShare float64
}

// DefaultConfig is the full benchmark's world at a 50% organic share.
var DefaultConfig = Config{
	Seed: 1, Households: 20_000, Days: 3, Apps: 3, LinksPerApp: 4, SessionsPerHousehold: 1.5,
	InstallRate: 0.3, OrganicShare: 0.5, ReferrerShare: 0.6, RetryShare: 0.1, ReinstallShare: 0.03,
}

func (c Config) withDefaults() Config {
	d := DefaultConfig
	if c.Households == 0 {
		c.Households = d.Households
	}
	if c.Days == 0 {
		c.Days = d.Days
	}
	if c.Apps == 0 {
		c.Apps = d.Apps
	}
	if c.LinksPerApp == 0 {
		c.LinksPerApp = d.LinksPerApp
	}
	if c.SessionsPerHousehold == 0 {
		c.SessionsPerHousehold = d.SessionsPerHousehold
	}
	if c.InstallRate == 0 {
		c.InstallRate = d.InstallRate
	}
	if c.ReferrerShare == 0 {
		c.ReferrerShare = d.ReferrerShare
	}
	if c.RetryShare == 0 {
		c.RetryShare = d.RetryShare
	}
	if c.ReinstallShare == 0 {
		c.ReinstallShare = d.ReinstallShare
	}
	return c
}

// Start is when every world's clicks begin.
var Start = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// NetKind is the kind of network a device is on.
type NetKind int

// The network kinds.
const (
	// HomeV4 is a household's own public IPv4 address behind its router.
	HomeV4 NetKind = iota
	// HomeV6 is a household's IPv6 /64.
	HomeV6
	// HomeCGNAT is broadband behind carrier NAT: a public IPv4 address
	// shared with dozens of other households.
	HomeCGNAT
	// CellV4 is a cellular carrier's NAT pool.
	CellV4
	// CellV6 is a cellular carrier that gives each device a /64.
	CellV6
)

// Class is the IP class the network's address belongs to, as truth.
func (k NetKind) Class() attribution.IPClass {
	switch k {
	case HomeV6, CellV6:
		return attribution.IPClassIPv6
	case HomeCGNAT, CellV4:
		return attribution.IPClassCGNAT
	}
	return attribution.IPClassIPv4
}

// Device is one phone or tablet.
type Device struct {
	Index     int
	Household int
	Platform  attribution.Platform
	OSVersion string
	// Model is "iPhone" or "iPad" on iOS, a model name on Android.
	Model          string
	ScreenW        int
	ScreenH        int
	Language       string
	TimezoneOffset int
	// Carrier indexes the cellular carriers.
	Carrier int
	// ReducedAgent is an Android browser sending Chrome's reduced agent
	// ("Android 10; K"): no model, a frozen version.
	ReducedAgent bool
	// VendorID is the device id the SDK sends.
	VendorID uuid.UUID
}

// Click is one recorded click with its truth.
type Click struct {
	attribution.Click
	IP      string
	Session int
	Device  int
	App     int
}

// Install is one install request with its truth.
type Install struct {
	// ID identifies the request within the world.
	ID      int
	At      time.Time
	App     int
	Device  int
	IP      netip.Addr
	Net     NetKind
	Request attribution.MatchRequest
	// Session is the click session that led to the install, -1 for an
	// organic install.
	Session int
	// Delay is the time from the session's latest click, 0 when organic.
	Delay time.Duration
	// RetryOf is the ID of the install this request retries, -1 when it
	// is a first request.
	RetryOf int
	// Referrer is true when the request carries the Play Store referrer.
	Referrer bool
}

// World is a generated world.
type World struct {
	Config  Config
	OrgID   uuid.UUID
	Apps    []attribution.App
	Links   [][]attribution.Link
	Devices []Device
	Clicks  []Click
	// Sessions maps a session to its clicks (indexes into Clicks), latest
	// first.
	Sessions [][]int
	Installs []Install
}

type gen struct {
	agents   map[string]linking.Device
	cfg      Config
	r        *rand.Rand
	w        *World
	homes    []home
	cgnat    []netip.Addr
	carriers []carrier
	nextV4   uint32
}

type home struct {
	kind NetKind
	v4   netip.Addr
	v6   netip.Prefix
}

type carrier struct {
	v6   bool
	pool []netip.Addr
}

// Generate builds the world of cfg. It is deterministic.
func Generate(cfg Config) *World {
	cfg = cfg.withDefaults()
	g := &gen{cfg: cfg, r: rand.New(rand.NewSource(cfg.Seed)), w: &World{Config: cfg}, nextV4: 0x0b000001}
	g.w.OrgID = g.uuid()
	g.apps()
	g.networks()
	g.devices()
	g.clicks()
	g.installs()
	return g.w
}

func (g *gen) classify(ua string) linking.Device {
	if g.agents == nil {
		g.agents = map[string]linking.Device{}
	}
	d, ok := g.agents[ua]
	if !ok {
		d = linking.ClassifyDevice(ua)
		g.agents[ua] = d
	}
	return d
}

func (g *gen) uuid() uuid.UUID {
	id, err := uuid.NewRandomFromReader(g.r)
	if err != nil {
		panic(err)
	}
	return id
}

func (g *gen) apps() {
	for a := range g.cfg.Apps {
		app := attribution.App{ID: g.uuid(), IOSBundleID: fmt.Sprintf("com.example.app%d", a), AndroidPackageName: fmt.Sprintf("com.example.app%d", a)}
		g.w.Apps = append(g.w.Apps, app)
		var links []attribution.Link
		for l := range g.cfg.LinksPerApp {
			ios, android := fmt.Sprintf("app%d://campaign/%d", a, l), fmt.Sprintf("https://app%d.example/c/%d", a, l)
			links = append(links, attribution.Link{ID: g.uuid(), AppID: &app.ID,
				DestinationURL: fmt.Sprintf("https://app%d.example/c/%d?campaign=c%d", a, l, l), IOSURL: &ios, AndroidURL: &android})
		}
		g.w.Links = append(g.w.Links, links)
	}
}

func (g *gen) v4() netip.Addr {
	g.nextV4 += uint32(1 + g.r.Intn(7))
	b := [4]byte{byte(g.nextV4 >> 24), byte(g.nextV4 >> 16), byte(g.nextV4 >> 8), byte(g.nextV4)}
	return netip.AddrFrom4(b)
}

// networks makes the homes and carriers: 65% of homes IPv4, 25% IPv6, 10%
// broadband carrier NAT (about 30 households per address); three carriers,
// one IPv6 and two with NAT pools sized so that hundreds of devices share
// an address.
func (g *gen) networks() {
	nCGNAT := max(1, g.cfg.Households/10/30)
	for range nCGNAT {
		g.cgnat = append(g.cgnat, g.v4())
	}
	for h := range g.cfg.Households {
		x := g.r.Float64()
		switch {
		case x < 0.65:
			g.homes = append(g.homes, home{kind: HomeV4, v4: g.v4()})
		case x < 0.90:
			var b [16]byte
			b[0], b[1], b[2], b[3] = 0x20, 0x01, 0x0d, 0xb8
			b[4], b[5], b[6], b[7] = byte(h>>16), byte(h>>8), byte(h), 0x01
			g.homes = append(g.homes, home{kind: HomeV6, v6: netip.PrefixFrom(netip.AddrFrom16(b), 64)})
		default:
			g.homes = append(g.homes, home{kind: HomeCGNAT, v4: g.cgnat[g.r.Intn(len(g.cgnat))]})
		}
	}
	devices := float64(g.cfg.Households) * 2.5
	for c := range 3 {
		cr := carrier{v6: c == 0}
		if !cr.v6 {
			// About 300 devices of the carrier per address.
			n := max(1, int(devices/3/300))
			for range n {
				cr.pool = append(cr.pool, g.v4())
			}
		}
		g.carriers = append(g.carriers, cr)
	}
}

var androidModels = []string{
	"SM-S918B", "SM-S911B", "SM-A546B", "SM-A155F", "SM-G991B", "Pixel 8", "Pixel 7a", "Pixel 8 Pro", "Pixel 6",
	"M2101K6G", "23021RAAEG", "2201117TG", "CPH2449", "CPH2581", "moto g54 5G", "moto g84 5G", "XQ-DQ54", "RMX3741",
	"V2250", "SM-A346B", "SM-A256B", "SM-F946B", "SM-X710", "Nokia G42 5G", "motorola edge 40",
}

var iosVersions = []string{"18.6", "18.6", "18.6", "18.5", "18.3", "17.6", "17.5", "16.7"}
var androidVersions = []string{"15", "14", "14", "14", "13", "13", "12", "11"}

var languages = []struct {
	tag    string
	weight float64
	tz     []int
}{
	{"en-US", 0.55, []int{-300, -360, -420, -480}},
	{"es-US", 0.12, []int{-300, -360, -480}},
	{"en-GB", 0.08, []int{0}},
	{"fr-FR", 0.05, []int{60}},
	{"de-DE", 0.05, []int{60}},
	{"pt-BR", 0.04, []int{-180}},
	{"zh-CN", 0.03, []int{480}},
	{"vi-VN", 0.02, []int{420}},
	{"ko-KR", 0.02, []int{540}},
	{"ar-SA", 0.02, []int{180}},
	{"hi-IN", 0.02, []int{330}},
}

func (g *gen) language() (string, int) {
	x := g.r.Float64()
	for _, l := range languages {
		if x < l.weight {
			return l.tag, l.tz[g.r.Intn(len(l.tz))]
		}
		x -= l.weight
	}
	return "en-US", -300
}

// zipfIndex draws from n items with popularity falling as 1/(i+1).
func (g *gen) zipfIndex(n int) int {
	total := 0.0
	for i := range n {
		total += 1 / float64(i+1)
	}
	x := g.r.Float64() * total
	for i := range n {
		x -= 1 / float64(i+1)
		if x < 0 {
			return i
		}
	}
	return n - 1
}

func (g *gen) devices() {
	for h := range g.cfg.Households {
		lang, tz := g.language()
		n := 1 + g.r.Intn(4)
		for range n {
			d := Device{Index: len(g.w.Devices), Household: h, Language: lang, TimezoneOffset: tz, Carrier: g.r.Intn(3), VendorID: g.uuid()}
			if g.r.Float64() < 0.1 {
				d.Language, d.TimezoneOffset = g.language()
			}
			if g.r.Float64() < 0.55 {
				d.Platform = attribution.PlatformIOS
				d.OSVersion = iosVersions[g.r.Intn(len(iosVersions))]
				d.Model, d.ScreenW, d.ScreenH = "iPhone", 1179, 2556
				if g.r.Float64() < 0.12 {
					d.Model, d.ScreenW, d.ScreenH = "iPad", 1640, 2360
				} else if g.r.Float64() < 0.4 {
					d.ScreenW, d.ScreenH = 1290, 2796
				}
			} else {
				d.Platform = attribution.PlatformAndroid
				d.OSVersion = androidVersions[g.r.Intn(len(androidVersions))]
				d.Model = androidModels[g.zipfIndex(len(androidModels))]
				d.ScreenW, d.ScreenH = 1080, 2340+8*g.r.Intn(20)
				d.ReducedAgent = g.r.Float64() < 0.6
			}
			g.w.Devices = append(g.w.Devices, d)
		}
	}
}

// netAt returns the address of device d on network kind k at time t: a
// home's address (an IPv6 home gives each device its own address in the
// /64), or the carrier's: an IPv6 /64 per device and day, or a pool address
// kept for two hours.
func (g *gen) netAt(d *Device, cellular bool, t time.Time) (netip.Addr, NetKind) {
	if !cellular {
		h := g.homes[d.Household]
		if h.kind == HomeV6 {
			b := h.v6.Addr().As16()
			b[8], b[9], b[15] = 0xaa, byte(d.Index>>8), byte(d.Index)
			return netip.AddrFrom16(b), HomeV6
		}
		return h.v4, h.kind
	}
	c := g.carriers[d.Carrier]
	day := int(t.Sub(Start).Hours() / 24)
	if c.v6 {
		var b [16]byte
		b[0], b[1], b[2], b[3] = 0x20, 0x01, 0x0d, 0xb9
		b[4], b[5], b[6], b[7] = byte(d.Index>>16), byte(d.Index>>8), byte(d.Index), byte(day)
		b[15] = 1
		return netip.AddrFrom16(b), CellV6
	}
	block := int(t.Sub(Start).Hours() / 2)
	return c.pool[hash(d.Index, block, d.Carrier)%len(c.pool)], CellV4
}

func hash(xs ...int) int {
	h := uint64(1469598103934665603)
	for _, x := range xs {
		h ^= uint64(x)
		h *= 1099511628211
	}
	return int(h >> 1)
}

// browserAgent is the user agent of a device's browser on the click.
func browserAgent(d *Device) string {
	if d.Platform == attribution.PlatformIOS {
		v := underscore(d.OSVersion)
		if d.Model == "iPad" {
			return "Mozilla/5.0 (iPad; CPU OS " + v + " like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/" + d.OSVersion + " Mobile/15E148 Safari/604.1"
		}
		return "Mozilla/5.0 (iPhone; CPU iPhone OS " + v + " like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/" + d.OSVersion + " Mobile/15E148 Safari/604.1"
	}
	if d.ReducedAgent {
		return "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
	}
	return "Mozilla/5.0 (Linux; Android " + d.OSVersion + "; " + d.Model + ") AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"
}

// webViewAgent is the user agent the SDK sends: the platform web view's.
func webViewAgent(d *Device, osVersion string) string {
	if d.Platform == attribution.PlatformIOS {
		kind := "iPhone; CPU iPhone OS "
		if d.Model == "iPad" {
			kind = "iPad; CPU OS "
		}
		return "Mozilla/5.0 (" + kind + underscore(osVersion) + " like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
	}
	return "Mozilla/5.0 (Linux; Android " + osVersion + "; " + d.Model + " Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36"
}

func underscore(v string) string {
	out := []byte(v)
	for i := range out {
		if out[i] == '.' {
			out[i] = '_'
		}
	}
	return string(out)
}

func (g *gen) clicks() {
	span := time.Duration(g.cfg.Days) * 24 * time.Hour
	n := int(float64(g.cfg.Households) * g.cfg.SessionsPerHousehold)
	for range n {
		d := &g.w.Devices[g.r.Intn(len(g.w.Devices))]
		t := Start.Add(time.Duration(g.r.Int63n(int64(span))))
		app := g.zipfIndex(g.cfg.Apps)
		cellular := g.r.Float64() < 0.4
		k := 1
		if x := g.r.Float64(); x < 0.1 {
			k = 3
		} else if x < 0.3 {
			k = 2
		}
		session := len(g.w.Sessions)
		var idx []int
		for i := range k {
			at := t.Add(time.Duration(i) * time.Duration(1+g.r.Intn(8)) * time.Minute)
			ip, _ := g.netAt(d, cellular, at)
			link := g.w.Links[app][g.r.Intn(g.cfg.LinksPerApp)]
			c := Click{IP: ip.String(), Session: session, Device: d.Index, App: app}
			ua := browserAgent(d)
			dev := g.classify(ua)
			// As the redirect records it: platform, OS version and model
			// read from the agent.
			c.Click = attribution.Click{
				ID: g.uuid(), LinkID: link.ID, AppID: link.AppID, OccurredAt: at, Platform: string(dev.Platform),
				OSVersion: dev.OSVersion, DeviceModel: dev.Model,
				UserAgent: ua, AcceptLanguage: d.Language + "," + d.Language[:2] + ";q=0.9",
				IPKey: attribution.IPKey(ip),
			}
			idx = append(idx, len(g.w.Clicks))
			g.w.Clicks = append(g.w.Clicks, c)
		}
		// Latest first.
		for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
			idx[i], idx[j] = idx[j], idx[i]
		}
		g.w.Sessions = append(g.w.Sessions, idx)
	}
}

// delay draws a click-to-install delay: 75% log-normal around 8 minutes
// (almost all within the hour), 19% uniform over the rest of the day, 6%
// uniform over the next six days.
func (g *gen) delay() time.Duration {
	x := g.r.Float64()
	switch {
	case x < 0.75:
		m := math.Exp(math.Log(8) + g.r.NormFloat64())
		return time.Duration(math.Max(m, 0.5) * float64(time.Minute))
	case x < 0.94:
		return time.Hour + time.Duration(g.r.Int63n(int64(23*time.Hour)))
	default:
		return 24*time.Hour + time.Duration(g.r.Int63n(int64(6*24*time.Hour)))
	}
}

func (g *gen) request(d *Device, app int, osVersion string) attribution.MatchRequest {
	w, h, tz := d.ScreenW, d.ScreenH, d.TimezoneOffset
	lang := d.Language
	if g.r.Float64() < 0.1 {
		lang = d.Language[:2]
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d|%s|%s|%dx%d|%d", d.Index, d.Model, osVersion, w, h, tz)))
	return attribution.MatchRequest{
		Platform: d.Platform, FingerprintVersion: attribution.FingerprintBasic, SDKVersion: "1.0.0",
		Fingerprint: hex.EncodeToString(sum[:]), DeviceID: vendorID(d, app).String(), AcceptLanguage: lang,
		ScreenWidth: &w, ScreenHeight: &h, TimezoneOffset: &tz, UserAgent: webViewAgent(d, osVersion),
	}
}

// vendorID is the device's id for an app (the vendor identifier differs per
// vendor; every app here is one vendor's, so it is the device's).
func vendorID(d *Device, _ int) uuid.UUID { return d.VendorID }

func (g *gen) installs() {
	// Attributed installs.
	// A device installs an app once (reinstalls come later, on purpose):
	// sessions are taken in time order and a device that has the app
	// installs it no more.
	clickedApp := map[[2]int][]time.Time{}
	installed := map[[2]int]bool{}
	order := make([]int, len(g.w.Sessions))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		return g.w.Clicks[g.w.Sessions[order[i]][0]].OccurredAt.Before(g.w.Clicks[g.w.Sessions[order[j]][0]].OccurredAt)
	})
	for _, s := range order {
		idx := g.w.Sessions[s]
		c := g.w.Clicks[idx[0]]
		clickedApp[[2]int{c.Device, c.App}] = append(clickedApp[[2]int{c.Device, c.App}], c.OccurredAt)
		if installed[[2]int{c.Device, c.App}] || g.r.Float64() >= g.cfg.InstallRate {
			continue
		}
		installed[[2]int{c.Device, c.App}] = true
		d := &g.w.Devices[c.Device]
		delay := g.delay()
		at := c.OccurredAt.Add(delay)
		click := g.w.Clicks[idx[0]]
		clickCell := click.IPKey != "" && g.isCellular(d, click.IP)
		cellular := clickCell
		if g.r.Float64() < 0.35 {
			cellular = !cellular // switched between Wi-Fi and cellular
		}
		ip, kind := g.netAt(d, cellular, at)
		osv := d.OSVersion
		in := Install{At: at, App: c.App, Device: d.Index, IP: ip, Net: kind, Session: s, Delay: delay, RetryOf: -1}
		in.Request = g.request(d, c.App, osv)
		if d.Platform == attribution.PlatformAndroid && g.r.Float64() < g.cfg.ReferrerShare {
			in.Referrer = true
			in.Request.Referrer = "utm_source=google-play&utm_medium=organic&hop_click_id=" + click.ID.String()
		}
		in.ID = len(g.w.Installs)
		g.w.Installs = append(g.w.Installs, in)
	}
	attributed := len(g.w.Installs)

	// Organic installs from the same households and carriers, of devices
	// that did not click the app's links in the week before.
	organic := 0
	if g.cfg.OrganicShare > 0 && g.cfg.OrganicShare < 1 {
		organic = int(math.Round(float64(attributed) * g.cfg.OrganicShare / (1 - g.cfg.OrganicShare)))
	}
	span := time.Duration(g.cfg.Days+1) * 24 * time.Hour
	for range organic {
		var d *Device
		var app int
		var at time.Time
		for range 10 {
			d = &g.w.Devices[g.r.Intn(len(g.w.Devices))]
			app = g.zipfIndex(g.cfg.Apps)
			at = Start.Add(time.Duration(g.r.Int63n(int64(span))))
			if !installed[[2]int{d.Index, app}] && !clickedWithin(clickedApp[[2]int{d.Index, app}], at, 7*24*time.Hour) {
				break
			}
		}
		installed[[2]int{d.Index, app}] = true
		ip, kind := g.netAt(d, g.r.Float64() < 0.4, at)
		in := Install{At: at, App: app, Device: d.Index, IP: ip, Net: kind, Session: -1, RetryOf: -1}
		in.Request = g.request(d, app, d.OSVersion)
		in.ID = len(g.w.Installs)
		g.w.Installs = append(g.w.Installs, in)
	}

	// Reinstalls (organic: no new click) and retried requests.
	first := len(g.w.Installs)
	for i := 0; i < first; i++ {
		in := g.w.Installs[i]
		if g.r.Float64() < g.cfg.ReinstallShare {
			d := &g.w.Devices[in.Device]
			at := in.At.Add(24*time.Hour + time.Duration(g.r.Int63n(int64(3*24*time.Hour))))
			if !clickedWithin(clickedApp[[2]int{d.Index, in.App}], at, 7*24*time.Hour) {
				ip, kind := g.netAt(d, g.r.Float64() < 0.4, at)
				re := Install{At: at, App: in.App, Device: d.Index, IP: ip, Net: kind, Session: -1, RetryOf: -1}
				re.Request = g.request(d, in.App, d.OSVersion)
				re.Request.DeviceID = in.Request.DeviceID
				re.ID = len(g.w.Installs)
				g.w.Installs = append(g.w.Installs, re)
			}
		}
		if g.r.Float64() < g.cfg.RetryShare {
			retry := in
			retry.At = in.At.Add(time.Duration(1+g.r.Intn(20)) * time.Minute)
			retry.RetryOf = in.ID
			retry.ID = len(g.w.Installs)
			g.w.Installs = append(g.w.Installs, retry)
		}
	}
	sort.SliceStable(g.w.Installs, func(i, j int) bool { return g.w.Installs[i].At.Before(g.w.Installs[j].At) })
}

func (g *gen) isCellular(d *Device, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	h := g.homes[d.Household]
	switch h.kind {
	case HomeV6:
		return !h.v6.Contains(addr)
	default:
		return addr != h.v4
	}
}

func clickedWithin(times []time.Time, at time.Time, window time.Duration) bool {
	for _, t := range times {
		if !t.After(at) && at.Sub(t) <= window {
			return true
		}
	}
	return false
}
