package httpapi

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hoplink/hoplink/attribution"
)

// The dashboard explains each attribution attempt in words, from what the
// attempt recorded: whether it matched, how (match_source, match_type),
// why not (fail_reason), the address class, the candidate counts, the
// confidences and the signals that decided. Every value the attribution
// package can record has its words in the tables below;
// dashboard_explain_internal_test.go reads the package's source and fails
// when one has none.

// failReasons say why an attempt with each fail reason did not match: a
// few words for the list, and the page's sentence.
var failReasons = map[attribution.FailReason]struct {
	summary string
	explain func(f *attemptFacts) string
}{
	attribution.FailNoSignals: {"nothing to match on", func(*attemptFacts) string {
		return "No match: the request carried nothing to match on but its network address. It had no install referrer naming a click, " +
			"and no device signal the matcher compares with clicks (operating system version, device model or language: send the " +
			"platform web view's user agent and Accept-Language), so any match would have been a guess."
	}},
	attribution.FailNoCandidates: {"no click from this address", func(f *attemptFacts) string {
		if f.a.IPClass == nil {
			return "No match: the request's network address was not known, so no click could be looked up for it."
		}
		return fmt.Sprintf("No match: no click on this app's links came from the same %s in the %s before the install.",
			ipClassText[*f.a.IPClass].noun, matchWindow(f.a))
	}},
	attribution.FailCandidatesFiltered: {"no click could have led to it", func(f *attemptFacts) string {
		return fmt.Sprintf("No match: %s on this app's links came from the same %s, but none could have led to this install: "+
			"each was on another platform, from a bot, older than its link's match window (or the %s), from a newer operating "+
			"system version than the installing device's, or before this device's previous install.",
			count(f.a.Candidates.Found, "click", "clicks"), ipNoun(f.a), matchWindow(f.a))
	}},
	attribution.FailCandidatesClaimed: {"its clicks were already claimed", func(f *attemptFacts) string {
		if f.a.Candidates.Eligible == 0 {
			return "No match: the click that could have led to this install was claimed by another install first."
		}
		return fmt.Sprintf("No match: %s from the same %s could have led to this install, but other installs had claimed "+
			"every one of them already.", count(f.a.Candidates.Eligible, "click", "clicks"), ipNoun(f.a))
	}},
	attribution.FailScoredZero: {"ruled out by the device", func(f *attemptFacts) string {
		return fmt.Sprintf("No match: %s from the same %s could have led to this install, but a decisive signal ruled each "+
			"out: every one came from another device model or screen size than the installing device's.",
			count(f.a.Candidates.Unclaimed, "unclaimed click", "unclaimed clicks"), ipNoun(f.a))
	}},
	attribution.FailNoMatch: {"could not tell which device", explainNoMatch},
	attribution.FailKeyAppMismatch: {"SDK key of another app", func(*attemptFacts) string {
		return "No match: the request was refused (403 KEY_APP_MISMATCH). Its SDK key is tied to another app, or the app it named " +
			"in the X-Service-App-Id header is not one of this organization's apps."
	}},
	attribution.FailAmbiguousApp: {"the app could not be told", func(*attemptFacts) string {
		return "No match: the request did not say which app installed. It had no X-Service-App-Id header, its SDK key is tied " +
			"to no app, the organization has several apps on this platform, and no install referrer named a click. Send the " +
			"app's id, bundle id or package name in the X-Service-App-Id header, or tie the SDK key to the app."
	}},
}

// ambiguousMatched is said of a matched attempt that carries fail_reason
// ambiguous_app (SPEC.md: a match that looked a device-wide signal up
// across several apps).
const ambiguousMatched = "The app was told across several of the organization's apps: from the link of the click that " +
	"the referrer named, or from this device's earlier installs of more than one app."

// matchSources say how a matched attempt was answered.
var matchSources = map[attribution.MatchSource]string{
	attribution.SourceClaim:  "created the install",
	attribution.SourceReplay: "answered from an earlier install",
}

// matchTypes name the match types.
var matchTypes = map[attribution.MatchType]string{
	attribution.MatchDeterministic: "deterministic",
	attribution.MatchProbabilistic: "probabilistic",
}

// ipClassText describes each address class: the noun the sentences use,
// and the value as a record's fact.
var ipClassText = map[attribution.IPClass]struct{ noun, fact string }{
	attribution.IPClassCGNAT: {"carrier-grade NAT address (which many phones share)", "Carrier-grade NAT (shared by many devices)"},
	attribution.IPClassIPv4:  {"IPv4 address", "IPv4"},
	attribution.IPClassIPv6:  {"IPv6 network (its /64 prefix)", "IPv6"},
}

// signalText says what each signal that decided (Attempt.Signals) is.
var signalText = map[string]string{
	"referrer":     "The Android install referrer named the click",
	"device_id":    "The device id of an earlier install of this device",
	"fingerprint":  "The fingerprint of an earlier install of this device",
	"ip":           "The network address the click and the install share",
	"time":         "The time from the click to the install",
	"os_version":   "The operating system version",
	"device_model": "The device model",
	"language":     "The language",
	"timezone":     "The time zone",
	"screen":       "The screen size",
}

// attemptFacts are an attempt and what the page knows around it.
type attemptFacts struct {
	a *attribution.Attempt
	// link names the install's link: its title, "" when it is not known.
	link string
	// linkGone says that the install's link was deleted.
	linkGone bool
	// delay is the time from the click to the install; nil when not known.
	delay *time.Duration
}

// attemptSummary is the few words of an attempt in the list.
func attemptSummary(a *attribution.Attempt) string {
	if a.Matched {
		switch {
		case a.MatchSource != nil && *a.MatchSource == attribution.SourceReplay:
			return "Answered from an earlier install"
		case a.MatchType != nil && *a.MatchType == attribution.MatchDeterministic:
			return "By the install referrer's click id"
		case a.MatchType != nil && *a.MatchType == attribution.MatchProbabilistic && a.TopConfidence != nil:
			return "Probabilistic, " + percent(*a.TopConfidence) + " confident"
		case a.MatchType != nil:
			return sentence(matchTypeName(*a.MatchType))
		}
		return "Matched"
	}
	if a.FailReason == nil {
		return "No reason recorded"
	}
	if r, ok := failReasons[*a.FailReason]; ok {
		return sentence(r.summary)
	}
	return "Reason " + string(*a.FailReason)
}

// explainAttempt says in sentences how f's attempt matched, or why not.
func explainAttempt(f *attemptFacts) []string {
	a := f.a
	if !a.Matched {
		if a.FailReason == nil {
			return []string{"No match, and no reason was recorded."}
		}
		r, ok := failReasons[*a.FailReason]
		if !ok {
			return []string{"No match: the attempt recorded the reason " + strconv.Quote(string(*a.FailReason)) + ", which this page does not know."}
		}
		return []string{r.explain(f)}
	}
	var out []string
	switch {
	case a.MatchSource != nil && *a.MatchSource == attribution.SourceReplay:
		out = append(out, explainReplay(f))
	case a.MatchType != nil && *a.MatchType == attribution.MatchDeterministic:
		out = append(out, "Matched by the Android install referrer's click id to "+f.clickPhrase()+".")
	case a.MatchType != nil && *a.MatchType == attribution.MatchProbabilistic:
		out = append(out, explainProbabilistic(f)...)
	default:
		out = append(out, "Matched to "+f.clickPhrase()+".")
	}
	if a.MatchSource == nil {
		out = append(out, "This attempt was recorded before attempts said whether they created the install or answered from an earlier one.")
	} else if _, ok := matchSources[*a.MatchSource]; !ok {
		out = append(out, "It recorded the match source "+strconv.Quote(string(*a.MatchSource))+", which this page does not know.")
	}
	if a.FailReason != nil && *a.FailReason == attribution.FailAmbiguousApp {
		out = append(out, ambiguousMatched)
	}
	return out
}

// explainReplay explains a replayed attempt.
func explainReplay(f *attemptFacts) string {
	by := "device id"
	if len(f.a.Signals) == 1 && f.a.Signals[0] == "fingerprint" {
		by = "fingerprint"
	}
	s := "Answered from an earlier install of the same device (the same " + by + ") made within the day before, " +
		"as when an app retries or is reinstalled: no new install was recorded."
	if f.a.MatchType != nil {
		s += " That install was matched " + matchTypeName(*f.a.MatchType) + "ally to " + f.clickPhrase() + "."
	}
	return s
}

// explainProbabilistic explains a probabilistic match.
func explainProbabilistic(f *attemptFacts) []string {
	a := f.a
	conf := ""
	if a.TopConfidence != nil {
		conf = " with " + percent(*a.TopConfidence) + " confidence"
	}
	out := []string{fmt.Sprintf("Matched probabilistically%s to %s.", conf, f.clickPhrase())}
	if a.Candidates.Scored > 0 {
		s := fmt.Sprintf("%s clicked this app's links from the same %s in the %s before, and this one fit best",
			count(a.Candidates.Scored, "device", "devices"), ipNoun(a), matchWindow(a))
		if a.RunnerUpConfidence != nil {
			s += "; the runner-up was " + percent(*a.RunnerUpConfidence) + " likely"
		}
		out = append(out, s+".")
	}
	return out
}

// explainNoMatch explains fail_reason no_match: candidates scored, none
// clear enough.
func explainNoMatch(f *attemptFacts) string {
	a := f.a
	rule := fmt.Sprintf("a match needs %s and %s the runner-up's odds", percent(attribution.MatchThreshold),
		times(attribution.RunnerUpFactor))
	top := "the best"
	if a.TopConfidence != nil {
		top = "the best was " + percent(*a.TopConfidence) + " likely"
		if a.RunnerUpConfidence != nil {
			top += " and the runner-up " + percent(*a.RunnerUpConfidence)
		}
	}
	if a.IPClass != nil && *a.IPClass == attribution.IPClassCGNAT && a.Candidates.Scored > 1 {
		return fmt.Sprintf("No match: %s share this carrier-grade NAT address, so it could not be told which one installed: %s (%s).",
			count(a.Candidates.Scored, "phone that clicked", "phones that clicked"), top, rule)
	}
	return fmt.Sprintf("No match: %s from the same %s could have led to this install, but none clearly enough: %s (%s).",
		count(a.Candidates.Scored, "device", "devices"), ipNoun(a), top, rule)
}

// clickPhrase names the install's click: "a click on link X 4 minutes
// before the install".
func (f *attemptFacts) clickPhrase() string {
	s := "a click"
	switch {
	case f.link != "":
		s += " on the link " + strconv.Quote(f.link)
	case f.linkGone:
		s += " on a link since deleted"
	}
	if f.delay != nil {
		s += " " + duration(*f.delay) + " before the install"
	}
	return s
}

// matchWindow is the probabilistic window of a's address class.
func matchWindow(a *attribution.Attempt) string {
	if a.IPClass != nil && *a.IPClass == attribution.IPClassCGNAT {
		return duration(attribution.CGNATWindow)
	}
	return duration(attribution.ProbabilisticWindow)
}

// ipNoun is the sentences' noun of a's address.
func ipNoun(a *attribution.Attempt) string {
	if a.IPClass != nil {
		if t, ok := ipClassText[*a.IPClass]; ok {
			return t.noun
		}
	}
	return "network address"
}

// ipClassFact is a's address class as a record's fact.
func ipClassFact(c *attribution.IPClass) string {
	if c == nil {
		return "Not known"
	}
	if t, ok := ipClassText[*c]; ok {
		return t.fact
	}
	return string(*c)
}

// matchTypeName names match type t.
func matchTypeName(t attribution.MatchType) string {
	if s, ok := matchTypes[t]; ok {
		return s
	}
	return string(t)
}

// signalWords are a's signals in words, in order.
func signalWords(signals []string) []string {
	out := make([]string, 0, len(signals))
	for _, s := range signals {
		if t, ok := signalText[s]; ok {
			out = append(out, t)
		} else {
			out = append(out, "The signal "+strconv.Quote(s))
		}
	}
	return out
}

// duration writes d as a person would: "4 minutes", "3 hours", "2 days";
// under a minute, "less than a minute".
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return count(int(d/time.Minute), "minute", "minutes")
	case d < 48*time.Hour:
		return count(int(d/time.Hour), "hour", "hours")
	}
	return count(int(d/(24*time.Hour)), "day", "days")
}

// count writes n with the singular or plural noun.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// percent writes a probability as a whole percentage, never rounding a
// value below one up to 100%.
func percent(p float64) string {
	n := math.Round(p * 100)
	if n >= 100 && p < 1 {
		n = 99
	}
	return strconv.Itoa(int(n)) + "%"
}

// times writes a factor: "4 times".
func times(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', -1, 64), ".0") + " times"
}
