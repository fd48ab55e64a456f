package attrsim

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
)

// Metrics count the outcomes of first install requests.
type Metrics struct {
	// Attributable installs followed a click; Organic ones did not.
	Attributable, Organic int
	// Matches are installs matched to a click; Correct those matched to
	// their own click session; OrganicMatched the organic ones matched.
	Matches, Correct, OrganicMatched int
}

func (m *Metrics) add(attributable, matched, correct bool) {
	if attributable {
		m.Attributable++
	} else {
		m.Organic++
	}
	if matched {
		m.Matches++
		if correct {
			m.Correct++
		}
		if !attributable {
			m.OrganicMatched++
		}
	}
}

// Precision is Correct / Matches (1 when nothing matched).
func (m Metrics) Precision() float64 {
	if m.Matches == 0 {
		return 1
	}
	return float64(m.Correct) / float64(m.Matches)
}

// Recall is Correct / Attributable.
func (m Metrics) Recall() float64 {
	if m.Attributable == 0 {
		return 0
	}
	return float64(m.Correct) / float64(m.Attributable)
}

// OrganicWrong is the share of organic installs matched.
func (m Metrics) OrganicWrong() float64 {
	if m.Organic == 0 {
		return 0
	}
	return float64(m.OrganicMatched) / float64(m.Organic)
}

// Method is one matcher's results.
type Method struct {
	Name    string
	Overall Metrics
	// ByClass is keyed by the install network's IP class (truth).
	ByClass map[attribution.IPClass]*Metrics
	// ByDelay is keyed by DelayBuckets; organic installs are not in it.
	ByDelay map[string]*Metrics
	// Deterministic and Probabilistic split the matcher's matches by type
	// (only Hoplink's method).
	Deterministic, Probabilistic Metrics
}

// DelayBuckets name the click-to-install delays.
var DelayBuckets = []string{"< 1 h", "1 to 24 h", "> 24 h"}

func delayBucket(d time.Duration) string {
	switch {
	case d < time.Hour:
		return DelayBuckets[0]
	case d <= 24*time.Hour:
		return DelayBuckets[1]
	}
	return DelayBuckets[2]
}

func newMethod(name string) *Method {
	return &Method{Name: name, ByClass: map[attribution.IPClass]*Metrics{}, ByDelay: map[string]*Metrics{}}
}

func (m *Method) add(in *Install, matched, correct bool) {
	attributable := in.Session >= 0
	m.Overall.add(attributable, matched, correct)
	class := in.Net.Class()
	if m.ByClass[class] == nil {
		m.ByClass[class] = &Metrics{}
	}
	m.ByClass[class].add(attributable, matched, correct)
	if attributable {
		b := delayBucket(in.Delay)
		if m.ByDelay[b] == nil {
			m.ByDelay[b] = &Metrics{}
		}
		m.ByDelay[b].add(true, matched, correct)
	}
}

// Report is the outcome of Run.
type Report struct {
	Config   Config
	Devices  int
	Clicks   int
	Sessions int
	// Installs counts first requests; Retries the requests sent again.
	Installs, Retries int
	// RetryMismatches counts retries of matched requests answered
	// differently from their first request (replay makes it 0). A retry of
	// an unmatched request may match: a competing click may have been
	// claimed meanwhile.
	RetryMismatches int
	// Methods holds Hoplink's matcher first, then the baselines.
	Methods []*Method
	// FailReasons counts the matcher's unmatched first requests by reason.
	FailReasons map[attribution.FailReason]int
}

// Run generates the world of cfg and scores the matcher and the baselines
// on it. It is deterministic: one Config, one Report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	w := Generate(cfg)
	s := NewMemStore(w)
	clicks := make([]attribution.Click, len(w.Clicks))
	sessionOf := make(map[uuid.UUID]int, len(w.Clicks))
	for i, c := range w.Clicks {
		clicks[i] = c.Click
		sessionOf[c.ID] = c.Session
	}
	s.AddClicks(clicks)

	seq := uint64(0)
	m := attribution.NewMatcher(s, attribution.MatcherOptions{
		Clock: func() time.Time { return Start },
		NewID: func() uuid.UUID {
			seq++
			var id uuid.UUID
			for i := range 8 {
				id[15-i] = byte(seq >> (8 * i))
			}
			return id
		},
	})
	r := &Report{Config: w.Config, Devices: len(w.Devices), Clicks: len(w.Clicks), Sessions: len(w.Sessions),
		FailReasons: map[attribution.FailReason]int{}}
	ours := newMethod("Hoplink")
	answers := map[int]attribution.MatchResult{}
	for i := range w.Installs {
		in := &w.Installs[i]
		app := w.Apps[in.App]
		res, err := m.Match(ctx, attribution.MatchInput{
			OrgID: w.OrgID, AppHeader: app.IOSBundleID, Request: in.Request, ClientIP: in.IP, At: in.At,
		})
		if err != nil {
			return nil, fmt.Errorf("attrsim: match: %w", err)
		}
		if in.RetryOf >= 0 {
			r.Retries++
			if first, ok := answers[in.RetryOf]; ok && first.Matched && !sameAnswer(first, res) {
				r.RetryMismatches++
			}
			continue
		}
		r.Installs++
		answers[in.ID] = res
		correct := false
		if res.Matched {
			rec, ok := s.Install(res.InstallID)
			if !ok || rec.ClickID == nil {
				return nil, fmt.Errorf("attrsim: install %s not stored", res.InstallID)
			}
			correct = in.Session >= 0 && sessionOf[*rec.ClickID] == in.Session
			if res.MatchType == attribution.MatchDeterministic {
				ours.Deterministic.add(in.Session >= 0, true, correct)
			} else {
				ours.Probabilistic.add(in.Session >= 0, true, correct)
			}
		} else {
			atts := s.Attempts()
			if a := atts[len(atts)-1]; a.FailReason != nil {
				r.FailReasons[*a.FailReason]++
			}
		}
		ours.add(in, res.Matched, correct)
	}
	r.Methods = append(r.Methods, ours)

	x := newIndex(w)
	for _, b := range Baselines {
		bm := newMethod(b.Name)
		for i := range w.Installs {
			in := &w.Installs[i]
			if in.RetryOf >= 0 {
				continue
			}
			c, ok := b.Match(x, in)
			bm.add(in, ok, ok && in.Session >= 0 && w.Clicks[c].Session == in.Session)
		}
		r.Methods = append(r.Methods, bm)
	}
	return r, nil
}

func sameAnswer(a, b attribution.MatchResult) bool {
	if a.Matched != b.Matched {
		return false
	}
	return !a.Matched || a.InstallID == b.InstallID && a.LinkID == b.LinkID && a.MatchConfidence == b.MatchConfidence
}

// Markdown writes the report as the tables of BENCHMARKS.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Seed %d: %d households, %d devices, %d apps × %d links, %d days; %d clicks in %d sessions; %d installs (organic share %.0f%%), %d retried requests (%d retries of a matched request answered differently).\n\n",
		c.Seed, c.Households, r.Devices, c.Apps, c.LinksPerApp, c.Days, r.Clicks, r.Sessions, r.Installs, c.OrganicShare*100, r.Retries, r.RetryMismatches)
	b.WriteString("| method | precision | recall | organic wrongly matched | matches |\n|---|---|---|---|---|\n")
	for _, m := range r.Methods {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.2f%% | %d |\n", m.Name, m.Overall.Precision(), m.Overall.Recall(), 100*m.Overall.OrganicWrong(), m.Overall.Matches)
	}
	ours := r.Methods[0]
	fmt.Fprintf(&b, "| Hoplink, deterministic matches only | %.3f | | | %d |\n", ours.Deterministic.Precision(), ours.Deterministic.Matches)
	fmt.Fprintf(&b, "| Hoplink, probabilistic matches only | %.3f | | | %d |\n", ours.Probabilistic.Precision(), ours.Probabilistic.Matches)

	b.WriteString("\nPer IP class of the install's network (precision / recall / organic wrongly matched):\n\n| method | cgnat | ipv4 | ipv6 |\n|---|---|---|---|\n")
	for _, m := range r.Methods {
		fmt.Fprintf(&b, "| %s |", m.Name)
		for _, cl := range []attribution.IPClass{attribution.IPClassCGNAT, attribution.IPClassIPv4, attribution.IPClassIPv6} {
			x := m.ByClass[cl]
			if x == nil {
				x = &Metrics{}
			}
			fmt.Fprintf(&b, " %.3f / %.3f / %.2f%% |", x.Precision(), x.Recall(), 100*x.OrganicWrong())
		}
		b.WriteString("\n")
	}
	b.WriteString("\nPer click-to-install delay, installs that followed a click (precision / recall):\n\n| method |")
	for _, d := range DelayBuckets {
		fmt.Fprintf(&b, " %s |", d)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(DelayBuckets)) + "\n")
	for _, m := range r.Methods {
		fmt.Fprintf(&b, "| %s |", m.Name)
		for _, d := range DelayBuckets {
			x := m.ByDelay[d]
			if x == nil {
				x = &Metrics{}
			}
			fmt.Fprintf(&b, " %.3f / %.3f |", x.Precision(), x.Recall())
		}
		b.WriteString("\n")
	}
	var reasons []string
	for k, v := range r.FailReasons {
		reasons = append(reasons, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(reasons)
	fmt.Fprintf(&b, "\nHoplink's unmatched first requests by fail_reason: %s.\n", strings.Join(reasons, ", "))
	return b.String()
}
