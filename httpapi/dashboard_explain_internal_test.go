package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/audit"
)

// recorded is what a package's source can record: the string constants
// of each named type, and the signal names the attribution package writes
// (Factor{"name", ...} and Signals = []string{"name"}).
type recorded struct {
	consts  map[string][]string // type name -> values
	signals []string
}

// readRecorded parses the non-test Go files of dir.
func readRecorded(t *testing.T, dir string) recorded {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	out := recorded{consts: map[string][]string{}}
	str := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				typ, ok := n.Type.(*ast.Ident)
				if !ok {
					return true
				}
				for _, v := range n.Values {
					if s, ok := str(v); ok {
						out.consts[typ.Name] = append(out.consts[typ.Name], s)
					}
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Factor" && len(n.Elts) > 0 {
					if s, ok := str(n.Elts[0]); ok {
						out.signals = append(out.signals, s)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					sel, ok := lhs.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Signals" || i >= len(n.Rhs) {
						continue
					}
					if lit, ok := n.Rhs[i].(*ast.CompositeLit); ok {
						for _, e := range lit.Elts {
							if s, ok := str(e); ok {
								out.signals = append(out.signals, s)
							}
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// TestEveryRecordedValueHasItsWords reads the attribution package's source
// and fails when a fail reason, match source, match type, address class
// or signal it can record has no words on the dashboard, and the audit
// package's when an action has none.
func TestEveryRecordedValueHasItsWords(t *testing.T) {
	rec := readRecorded(t, "../attribution")
	reasons := rec.consts["FailReason"]
	require.GreaterOrEqual(t, len(reasons), 8, "the fail reasons are read from the source: %v", rec.consts)
	for _, r := range reasons {
		words, ok := failReasons[attribution.FailReason(r)]
		if assert.True(t, ok, "fail reason %q has no sentence", r) {
			assert.NotEmpty(t, words.summary, r)
			a := &attribution.Attempt{FailReason: ptrTo(attribution.FailReason(r)), IPClass: ptrTo(attribution.IPClassIPv4),
				Candidates: attribution.CandidateCounts{Found: 3, Eligible: 2, Unclaimed: 2, Scored: 2}}
			got := explainAttempt(&attemptFacts{a: a})
			require.Len(t, got, 1, r)
			assert.True(t, strings.HasPrefix(got[0], "No match: "), "%s: %s", r, got[0])
			assert.NotContains(t, got[0], "does not know", r)
		}
	}
	for _, s := range rec.consts["MatchSource"] {
		assert.Contains(t, matchSources, attribution.MatchSource(s), "match source %q has no words", s)
	}
	for _, s := range rec.consts["MatchType"] {
		assert.Contains(t, matchTypes, attribution.MatchType(s), "match type %q has no words", s)
	}
	require.NotEmpty(t, rec.consts["IPClass"])
	for _, s := range rec.consts["IPClass"] {
		assert.Contains(t, ipClassText, attribution.IPClass(s), "address class %q has no words", s)
	}
	require.GreaterOrEqual(t, len(rec.signals), 9, "the signals are read from the source")
	for _, s := range rec.signals {
		assert.Contains(t, signalText, s, "signal %q has no words", s)
	}

	actions := readRecorded(t, "../audit").consts["Action"]
	require.Len(t, actions, len(audit.Actions()), "the audit actions are read from the source")
	for _, a := range actions {
		assert.NotEmpty(t, auditActions[audit.Action(a)], "audit action %q has no words", a)
	}
}

// TestAttemptExplanations proves the sentences of the attempts a person
// most often asks about.
func TestAttemptExplanations(t *testing.T) {
	claim, replay := attribution.SourceClaim, attribution.SourceReplay
	det, prob := attribution.MatchDeterministic, attribution.MatchProbabilistic
	cgnat := attribution.IPClassCGNAT
	four := 4 * time.Minute
	tests := []struct {
		name  string
		facts attemptFacts
		want  []string
	}{
		{"the referrer's click id", attemptFacts{a: &attribution.Attempt{Matched: true, MatchSource: &claim, MatchType: &det},
			link: "Winter sale", delay: &four},
			[]string{`Matched by the Android install referrer's click id to a click on the link "Winter sale" 4 minutes before the install.`}},
		{"probabilistic", attemptFacts{a: &attribution.Attempt{Matched: true, MatchSource: &claim, MatchType: &prob, IPClass: &cgnat,
			TopConfidence: ptrTo(0.9213), RunnerUpConfidence: ptrTo(0.031), Candidates: attribution.CandidateCounts{Scored: 3}},
			linkGone: true, delay: ptrTo(3 * time.Hour)},
			[]string{"Matched probabilistically with 92% confidence to a click on a link since deleted 3 hours before the install.",
				"3 devices clicked this app's links from the same carrier-grade NAT address (which many phones share) in the 6 hours before, and this one fit best; the runner-up was 3% likely."}},
		{"carrier-grade NAT, no clear winner", attemptFacts{a: &attribution.Attempt{FailReason: ptrTo(attribution.FailNoMatch), IPClass: &cgnat,
			TopConfidence: ptrTo(0.4), RunnerUpConfidence: ptrTo(0.38), Candidates: attribution.CandidateCounts{Scored: 3}}},
			[]string{"No match: 3 phones that clicked share this carrier-grade NAT address, so it could not be told which one installed: " +
				"the best was 40% likely and the runner-up 38% (a match needs 85% and 4 times the runner-up's odds)."}},
		{"a replay", attemptFacts{a: &attribution.Attempt{Matched: true, MatchSource: &replay, MatchType: &det, Signals: []string{"device_id"}},
			link: "spring", delay: ptrTo(30 * time.Second)},
			[]string{"Answered from an earlier install of the same device (the same device id) made within the day before, as when an app " +
				"retries or is reinstalled: no new install was recorded. That install was matched deterministically to a click on the link " +
				`"spring" less than a minute before the install.`}},
		{"an attempt from before match sources", attemptFacts{a: &attribution.Attempt{Matched: true, MatchType: &det}},
			[]string{"Matched by the Android install referrer's click id to a click.",
				"This attempt was recorded before attempts said whether they created the install or answered from an earlier one."}},
		{"a match across apps", attemptFacts{a: &attribution.Attempt{Matched: true, MatchSource: &claim, MatchType: &det,
			FailReason: ptrTo(attribution.FailAmbiguousApp)}},
			[]string{"Matched by the Android install referrer's click id to a click.", ambiguousMatched}},
		{"no address", attemptFacts{a: &attribution.Attempt{FailReason: ptrTo(attribution.FailNoCandidates)}},
			[]string{"No match: the request's network address was not known, so no click could be looked up for it."}},
		{"a reason this page does not know", attemptFacts{a: &attribution.Attempt{FailReason: ptrTo(attribution.FailReason("new_reason"))}},
			[]string{`No match: the attempt recorded the reason "new_reason", which this page does not know.`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, explainAttempt(&tt.facts))
		})
	}
	assert.Equal(t, "99%", percent(0.9999), "never 100% short of certain")
	assert.Equal(t, "Reason new_reason", attemptSummary(&attribution.Attempt{FailReason: ptrTo(attribution.FailReason("new_reason"))}))
}

// TestRecordPagerKeepsTheCursorsBefore proves Previous and Next through
// the cursors an address keeps: each Next adds the page's own cursor,
// Previous takes the last one back, and past maxBackCursors the oldest
// are dropped.
func TestRecordPagerKeepsTheCursorsBefore(t *testing.T) {
	const path = "/l"
	f := &recordFilter{app: "none"}
	prev, next, first := f.pager(path, "c1")
	assert.Equal(t, "", prev, "the first page has none before it")
	assert.Equal(t, "", first)
	assert.Equal(t, "/l?app=none&cursor=c1", next)

	f = &recordFilter{app: "none", cursor: "c1"}
	prev, next, first = f.pager(path, "c2")
	assert.Equal(t, "/l?app=none", prev, "the second page goes back to the first")
	assert.Equal(t, "", first, "which Previous is already")
	assert.Equal(t, "/l?app=none&back=c1&cursor=c2", next)

	f = &recordFilter{cursor: "c3", back: []string{"c1", "c2"}}
	prev, next, first = f.pager(path, "")
	assert.Equal(t, "/l?back=c1&cursor=c2", prev)
	assert.Equal(t, "/l", first)
	assert.Equal(t, "", next, "the last page")

	var back []string
	for i := range maxBackCursors {
		back = append(back, "c"+strconv.Itoa(i))
	}
	f = &recordFilter{cursor: "last", back: back}
	_, next, _ = f.pager(path, "after")
	q := strings.Split(strings.TrimPrefix(next, "/l?back="), "&")[0]
	kept := strings.Split(q, backSeparator)
	assert.Len(t, kept, maxBackCursors, "bounded")
	assert.Equal(t, "last", kept[len(kept)-1])
	assert.Equal(t, "c1", kept[0], "the oldest dropped")
}
