package attribution

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"time"
)

// The decision rule of probabilistic matching (issue 5, item 3).
const (
	// MatchThreshold is the least probability of the best candidate session
	// that matches.
	MatchThreshold = 0.85
	// RunnerUpFactor is how many times the runner-up's odds the best
	// candidate's odds must be at least.
	RunnerUpFactor = 4.0
)

// Model holds every constant of the likelihood-ratio scorer. DefaultModel
// is what the Matcher uses; the benchmark (attrsim) runs it unchanged.
//
// For an install and a candidate session of clicks (one device's clicks
// within ClaimSessionWindow of its latest), the odds that the session led
// to the install, against the install being organic or caused elsewhere,
// are
//
//	PriorOdds × time × ip × Π signal
//
// where time = f(Δt) × BackgroundWindow in hours (the background's own
// window when it was read over a shorter one, Background.Over), the
// click-to-install delay density (per hour) against a click arriving
// uniformly in the window; ip =
// 1 / max(sessions on the IP key, MinBackgroundSessions), the rate at which
// devices click from that key (the candidate's own session counted, since
// under "not this install's click" it is one more background click), so a
// carrier NAT address shared by hundreds of clicking devices counts for
// little and a home /64 for a lot; and each signal known on both sides gives
// SameProb / share when it agrees and (1 - SameProb) / (1 - share) when it
// differs, share being the signal value's frequency among the sessions on
// the key of other devices plus the candidate's own, blended with its
// default share (PriorWeight sessions' worth). A different device model
// or screen is decisive (ratio 0). The probability of session i is
// odds_i / (1 + Σ odds_j): the sessions compete with each other and with
// "none of them".
type Model struct {
	// PriorOdds are the odds that an install has a causal click on its IP
	// key before any evidence: 0.35, about one install in four. Most
	// installs are organic or arrive on another network than their click.
	PriorOdds float64
	// The delay density f is a mixture: FastShare of installs follow
	// exponentially with mean FastMean, SlowShare with mean SlowMean, and
	// the rest uniformly over TailSpan. The defaults put 73% within an hour
	// and 94% within a day.
	FastShare, SlowShare float64
	FastMean, SlowMean   time.Duration
	TailSpan             time.Duration
	// BackgroundWindow is the span over which other sessions on the IP key
	// are counted (the candidate fetch window).
	BackgroundWindow time.Duration
	// MinBackgroundSessions floors the count of sessions on the key.
	MinBackgroundSessions float64
	// PriorWeight is how many sessions' worth the default shares weigh
	// against the frequencies observed on the key.
	PriorWeight float64
	OSVersion   SignalModel
	// Model is the device model; GenericShare replaces DefaultShare for
	// generic models ("iPhone").
	Model        SignalModel
	GenericShare float64
	Language     SignalModel
	Timezone     SignalModel
	Screen       SignalModel
}

// SignalModel are the constants of one signal.
type SignalModel struct {
	// SameProb is the probability that the installing device shows the
	// same value as its own click.
	SameProb float64
	// DefaultShare is the share of devices assumed to show any one value
	// before the key's own clicks are counted.
	DefaultShare float64
}

// DefaultModel is the scorer's constants, chosen from published install
// delay shapes and checked with attrsim (BENCHMARKS.md).
var DefaultModel = Model{
	PriorOdds:             0.35,
	FastShare:             0.70,
	FastMean:              12 * time.Minute,
	SlowShare:             0.24,
	SlowMean:              6 * time.Hour,
	TailSpan:              7 * 24 * time.Hour,
	BackgroundWindow:      ProbabilisticWindow,
	MinBackgroundSessions: 1,
	PriorWeight:           5,
	OSVersion:             SignalModel{SameProb: 0.85, DefaultShare: 0.3},
	Model:                 SignalModel{SameProb: 0.98, DefaultShare: 0.05},
	GenericShare:          0.8,
	Language:              SignalModel{SameProb: 0.92, DefaultShare: 0.5},
	Timezone:              SignalModel{SameProb: 0.95, DefaultShare: 0.3},
	Screen:                SignalModel{SameProb: 0.95, DefaultShare: 0.1},
}

// DelayDensity returns f(d), the density per hour of an install following
// its click by d; 0 for a negative d.
func (m *Model) DelayDensity(d time.Duration) float64 {
	if d < 0 {
		return 0
	}
	h := d.Hours()
	f := 0.0
	if m.FastMean > 0 {
		mean := m.FastMean.Hours()
		f += m.FastShare / mean * math.Exp(-h/mean)
	}
	if m.SlowMean > 0 {
		mean := m.SlowMean.Hours()
		f += m.SlowShare / mean * math.Exp(-h/mean)
	}
	if tail := m.TailSpan.Hours(); tail > 0 && h <= tail {
		f += (1 - m.FastShare - m.SlowShare) / tail
	}
	return f
}

// Session is one device's clicks on an IP key: clicks with one DeviceKey,
// newest first, each within ClaimSessionWindow of the first. Clicks[0] is
// the latest, whose link is delivered.
type Session struct {
	Key    string
	Clicks []Click
}

// Latest returns the session's latest click.
func (s *Session) Latest() *Click { return &s.Clicks[0] }

// SessionsOf groups clicks into sessions: by DeviceKey, newest first, a new
// session starting at the first click more than window before its session's
// latest. Sessions come newest first (by latest click, then key).
func SessionsOf(clicks []Click, window time.Duration) []Session {
	byKey := map[string][]Click{}
	var keys []string
	for i := range clicks {
		k := DeviceKey(&clicks[i])
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], clicks[i])
	}
	var out []Session
	for _, k := range keys {
		cs := byKey[k]
		SortNewestFirst(cs)
		start := 0
		for i := 1; i <= len(cs); i++ {
			if i == len(cs) || cs[start].OccurredAt.Sub(cs[i].OccurredAt) > window {
				out = append(out, Session{Key: k, Clicks: cs[start:i:i]})
				start = i
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Latest(), out[j].Latest()
		if !a.OccurredAt.Equal(b.OccurredAt) {
			return a.OccurredAt.After(b.OccurredAt)
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// SortNewestFirst orders clicks newest first by (OccurredAt, ID), the
// order in which a Store returns them (ORDER BY occurred_at DESC, id DESC).
func SortNewestFirst(clicks []Click) {
	slices.SortFunc(clicks, func(a, b Click) int {
		if c := b.OccurredAt.Compare(a.OccurredAt); c != 0 {
			return c
		}
		return bytes.Compare(b.ID[:], a.ID[:])
	})
}

// Background is what the clicks on an IP key say about the devices behind
// it: how many sessions each device key has, and each device's signals.
type Background struct {
	sessions map[string]int
	signals  map[string]Signals
	total    int
	// window is the span the sessions were read from; 0 means the model's
	// BackgroundWindow.
	window time.Duration
}

// NewBackground summarises the sessions on an IP key (every platform).
func NewBackground(sessions []Session) Background {
	b := Background{sessions: map[string]int{}, signals: map[string]Signals{}}
	for i := range sessions {
		s := &sessions[i]
		b.sessions[s.Key]++
		if _, ok := b.signals[s.Key]; !ok {
			b.signals[s.Key] = ClickSignals(s.Latest())
		}
		b.total++
	}
	return b
}

// Over returns b as the sessions of the last window only, rather than of
// the model's BackgroundWindow: the time factor then weighs the
// click-to-install delay density against a click arriving uniformly in
// window, so that the odds stay the density over the key's click rate
// however long a span was read.
func (b Background) Over(window time.Duration) Background {
	b.window = window
	return b
}

// Devices returns how many distinct device keys the background holds.
func (b *Background) Devices() int { return len(b.sessions) }

// others returns the sessions of other device keys than key, and how many
// of them show the value that get reads, when the value is not "".
func (b *Background) others(key string, get func(Signals) string, value string) (n, same int) {
	n = b.total - b.sessions[key]
	if value == "" {
		return n, 0
	}
	for k, c := range b.sessions {
		if k != key && get(b.signals[k]) == value {
			same += c
		}
	}
	return n, same
}

// Factor is one likelihood ratio of a score.
type Factor struct {
	// Signal is "time", "ip", "os_version", "device_model", "language",
	// "timezone" or "screen".
	Signal string
	Ratio  float64
}

// Scored is a candidate session with its score.
type Scored struct {
	// Session indexes the sessions given to Score.
	Session int
	// Odds are the posterior odds against "none"; 0 when a decisive signal
	// contradicts.
	Odds float64
	// Probability is Odds / (1 + sum of every session's Odds).
	Probability float64
	Factors     []Factor
}

// Decisive reports which signals of the score decided it, in order: "ip"
// always (the IP key found the candidate), and every other factor that at
// least doubled or at most halved the odds.
func (s *Scored) Decisive() []string {
	names := []string{}
	for _, f := range s.Factors {
		if f.Signal == "ip" || f.Ratio >= 2 || f.Ratio <= 0.5 {
			names = append(names, f.Signal)
		}
	}
	return names
}

// Score scores each candidate session against the install's signals at
// installedAt, with bg the sessions on the key. It is pure and
// deterministic. The result is sorted by odds, highest first (ties by
// session index).
func (m *Model) Score(install Signals, installedAt time.Time, sessions []Session, bg Background) []Scored {
	out := make([]Scored, len(sessions))
	sum := 0.0
	for i := range sessions {
		out[i] = m.scoreOne(install, installedAt, &sessions[i], &bg)
		out[i].Session = i
		sum += out[i].Odds
	}
	for i := range out {
		out[i].Probability = out[i].Odds / (1 + sum)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Odds > out[j].Odds })
	return out
}

func (m *Model) scoreOne(install Signals, at time.Time, s *Session, bg *Background) Scored {
	c := ClickSignals(s.Latest())
	others, _ := bg.others(s.Key, nil, "")
	var f []Factor
	window := m.BackgroundWindow
	if bg.window > 0 {
		window = bg.window
	}
	f = append(f, Factor{"time", m.DelayDensity(at.Sub(s.Latest().OccurredAt)) * window.Hours()})
	f = append(f, Factor{"ip", 1 / math.Max(float64(others+1), m.MinBackgroundSessions)})

	if cmp, ok := CompareOSVersions(install.OSVersion, c.OSVersion); ok {
		key := func(x Signals) string { return osKey(x.OSVersion) }
		f = append(f, Factor{"os_version", m.ratio(m.OSVersion, m.OSVersion.DefaultShare, bg, s.Key, key, key(c), cmp == 0)})
	}
	if install.Model != "" && c.Model != "" {
		if !equalFold(install.Model, c.Model) {
			f = append(f, Factor{"device_model", 0})
		} else {
			share := m.Model.DefaultShare
			if IsGenericModel(c.Model) {
				share = m.GenericShare
			}
			key := func(x Signals) string { return lower(x.Model) }
			f = append(f, Factor{"device_model", m.ratio(m.Model, share, bg, s.Key, key, key(c), true)})
		}
	}
	if install.Language != "" && c.Language != "" {
		key := func(x Signals) string { return x.Language }
		same := install.Language == c.Language
		r := m.ratio(m.Language, m.Language.DefaultShare, bg, s.Key, key, key(c), same)
		if !same && languageBase(install.Language) == languageBase(c.Language) {
			r = 1
		}
		f = append(f, Factor{"language", r})
	}
	if install.TimezoneOffset != nil && c.TimezoneOffset != nil {
		same := *install.TimezoneOffset == *c.TimezoneOffset
		f = append(f, Factor{"timezone", m.fixedRatio(m.Timezone, same)})
	}
	if install.ScreenWidth != nil && install.ScreenHeight != nil && c.ScreenWidth != nil && c.ScreenHeight != nil {
		iw, ih := *install.ScreenWidth, *install.ScreenHeight
		cw, ch := *c.ScreenWidth, *c.ScreenHeight
		if (iw == cw && ih == ch) || (iw == ch && ih == cw) {
			f = append(f, Factor{"screen", m.fixedRatio(m.Screen, true)})
		} else {
			f = append(f, Factor{"screen", 0})
		}
	}
	odds := m.PriorOdds
	for _, x := range f {
		odds *= x.Ratio
	}
	return Scored{Odds: odds, Factors: f}
}

// ratio is a signal's likelihood ratio: SameProb over the value's share
// among other sessions when it agrees, the complements when it differs.
func (m *Model) ratio(sm SignalModel, defShare float64, bg *Background, key string, get func(Signals) string, value string, same bool) float64 {
	n, k := bg.others(key, get, value)
	// The candidate's own session counts too: under "not this install's
	// click" it is one more draw from the devices behind the key.
	share := (float64(k) + 1 + m.PriorWeight*defShare) / (float64(n) + 1 + m.PriorWeight)
	if same {
		return sm.SameProb / share
	}
	return (1 - sm.SameProb) / (1 - math.Min(share, 0.99))
}

func (m *Model) fixedRatio(sm SignalModel, same bool) float64 {
	if same {
		return sm.SameProb / sm.DefaultShare
	}
	return (1 - sm.SameProb) / (1 - sm.DefaultShare)
}

// Decision is the outcome of Decide.
type Decision struct {
	// Matched is true when the best session passes both thresholds.
	Matched bool
	// Best and RunnerUp index the scored slice; -1 when absent. A session
	// with zero odds is never Best or RunnerUp.
	Best, RunnerUp int
}

// Decide applies the decision rule to scores sorted by Score: the best
// session matches when its probability is at least MatchThreshold and its
// odds at least RunnerUpFactor times the runner-up's.
func Decide(scored []Scored) Decision {
	d := Decision{Best: -1, RunnerUp: -1}
	if len(scored) > 0 && scored[0].Odds > 0 {
		d.Best = 0
	}
	if len(scored) > 1 && scored[1].Odds > 0 {
		d.RunnerUp = 1
	}
	if d.Best < 0 {
		return d
	}
	best := scored[d.Best]
	d.Matched = best.Probability >= MatchThreshold &&
		(d.RunnerUp < 0 || best.Odds >= RunnerUpFactor*scored[d.RunnerUp].Odds)
	return d
}

func osKey(v string) string {
	major, minor, ok := majorMinor(v)
	if !ok {
		return ""
	}
	return itoa(major) + "." + itoa(minor)
}
