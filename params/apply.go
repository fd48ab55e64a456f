package params

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidTarget is returned, wrapped, by Apply for a target that
// url.Parse refuses or that has no scheme.
var ErrInvalidTarget = errors.New("params: target is not an absolute URL")

// UTMFields holds a link's utm_source, utm_medium and utm_campaign fields;
// a null field is "". A blank field adds nothing (UTM rule 3).
type UTMFields struct {
	Source, Medium, Campaign string
}

// MaxVisitorParams is the number of '&'-separated pairs of the visitor's
// query that Apply reads; later pairs are ignored. It bounds the work a
// visitor can cause with a long query when forwarding passes every key.
const MaxVisitorParams = 100

// Options configures Apply. The zero value is ready to use.
type Options struct {
	// StoreHosts lists the service's own app-store hosts. On them, as on the
	// built-in store hosts apps.apple.com, itunes.apple.com and
	// play.google.com, Apply adds or changes no UTM key. Each entry is a bare
	// host name; it matches that host and its subdomains, ignoring case and a
	// trailing dot. If empty, only the built-in hosts are store hosts.
	StoreHosts []string
}

// builtinStoreHosts are the app-store hosts of SPEC.md's UTM rules ("pages
// on the iOS, Android ... app-store hosts").
var builtinStoreHosts = [...]string{"apps.apple.com", "itunes.apple.com", "play.google.com"}

// Apply returns target with the effective parameters, the link's UTM fields
// and the forwarded part of the visitor's query applied, by the precedence
// that package params documents (SPEC.md, UTM rules 1 to 3, for every key).
// The redirect and the SDK resolve both call it, for the destination and
// for every platform URL.
//
// visitorQuery is the raw query of the tapped short URL, with or without its
// leading "?". It is read leniently, as url.ParseQuery reads: pairs with a
// bad percent-escape or a semicolon are dropped, never an error, and of a
// repeated key the first non-blank value counts; only the first
// MaxVisitorParams pairs are read. A blank visitor value counts as no
// value: it neither adds a key nor hides the target's value.
//
// Parts of target that Apply does not change keep their exact bytes: the
// scheme, host and path, the fragment, and every query pair whose key it
// does not set. A pair that url.ParseQuery would drop (bad escape,
// semicolon) is kept verbatim and never counts as a key. Every key Apply
// sets occurs once in the result: its first occurrence in target takes the
// value and later ones are removed; keys that are new are appended in the
// order of Effective.Injected, then utm_source, utm_medium, utm_campaign
// from the link's fields, then forwarded keys in the visitor's order.
//
// UTM keys (IsUTMKey) are added or changed only when UTMApplies(target):
// never on app-store pages or custom-scheme URLs; other keys apply there
// too. Applying the result again with the same arguments returns it
// unchanged. When nothing changes, target itself is returned.
//
// The error, for a target url.Parse refuses or that has no scheme, wraps
// ErrInvalidTarget.
func Apply(target, visitorQuery string, eff Effective, utm UTMFields, opts Options) (string, error) {
	a, err := apply(target, visitorQuery, eff, utm, opts)
	return a.out, err
}

// ApplyForClick is Apply that also returns the UTM values a click sent to
// its result records: what ClickUTM returns for that result, found without
// parsing the result again. When Apply fails, the visitor is sent to
// target as it is, and the values are those ClickUTM gives target (the
// visitor's, as target does not parse).
func ApplyForClick(target, visitorQuery string, eff Effective, utm UTMFields, opts Options) (string, UTMValues, error) {
	a, err := apply(target, visitorQuery, eff, utm, opts)
	if err != nil || !a.tagUTM {
		return a.out, UTMFromQuery(visitorQuery), err
	}
	if !a.utmRead {
		a.utm = UTMFromURL(a.out)
	}
	return a.out, a.utm, nil
}

// applied is what apply found: the result; whether UTM keys apply to
// target (UTMApplies), which is as true of the result, as Apply keeps
// target's scheme and host; and, when apply wrote a new URL (utmRead),
// the UTM values of its query, as UTMFromURL would read them, noted as
// each pair was written.
type applied struct {
	out     string
	tagUTM  bool
	utm     UTMValues
	utmRead bool
}

// apply is Apply, reporting what applied holds.
func apply(target, visitorQuery string, eff Effective, utm UTMFields, opts Options) (applied, error) {
	u, err := url.Parse(target)
	if err != nil {
		return applied{}, fmt.Errorf("%w: %w", ErrInvalidTarget, err)
	}
	if u.Scheme == "" {
		return applied{}, ErrInvalidTarget
	}
	tagUTM := utmApplies(u, opts.StoreHosts)
	unchanged := applied{out: target, tagUTM: tagUTM}

	// Gather every key to set and its candidate values.
	var stack [8]entry
	set := entrySet{list: stack[:0]}
	for _, p := range eff.Injected {
		if p.Key == "" || blank(p.Value) || (!tagUTM && IsUTMKey(p.Key)) {
			continue
		}
		var i int
		set, i = set.add(p.Key)
		e := &set.list[i]
		if p.Mode == ModeAlways {
			if e.always == "" {
				e.always = p.Value
			}
		} else if e.fill == "" {
			e.fill = p.Value
		}
	}
	if tagUTM {
		set = set.link("utm_source", utm.Source)
		set = set.link("utm_medium", utm.Medium)
		set = set.link("utm_campaign", utm.Campaign)
	}
	if fwd := eff.Forwarding; fwd.Enabled {
		s := newSegments(strings.TrimPrefix(visitorQuery, "?"))
		for range MaxVisitorParams {
			seg, more := s.next()
			if !more {
				break
			}
			k, v, ok := decodePair(seg)
			if !ok || k == "" || blank(v) || (!tagUTM && IsUTMKey(k)) {
				continue
			}
			if fwd.Allowlist != nil && !contains(fwd.Allowlist, k) {
				continue
			}
			var i int
			set, i = set.add(k)
			if e := &set.list[i]; e.visitor == "" {
				e.visitor = v
			}
		}
	}
	if len(set.list) == 0 {
		return unchanged, nil
	}

	// Split target as url.Parse does: the fragment at the first '#', then
	// the query at the first '?'.
	rest, fragment, hasFragment := strings.Cut(target, "#")
	base, query, _ := strings.Cut(rest, "?")

	// Read the target's values of those keys.
	for s := newSegments(query); ; {
		seg, more := s.next()
		if !more {
			break
		}
		k, v, ok := decodePair(seg)
		if !ok {
			continue
		}
		if i := set.find(k); i >= 0 {
			e := &set.list[i]
			if e.count == 0 {
				e.first = v
			}
			e.count++
			if e.target == "" && !blank(v) {
				e.target = v
			}
		}
	}
	changed := false
	extra := 0
	for i := range set.list {
		e := &set.list[i]
		w := e.winner()
		if e.count != 1 || w != e.first {
			changed = true
		}
		extra += 3 * len(w)
		if e.count == 0 {
			extra += 3*len(e.key) + 2
		}
	}
	if !changed {
		return unchanged, nil
	}

	var b strings.Builder
	b.Grow(len(target) + extra + 1)
	b.WriteString(base)
	b.WriteByte('?')
	n := 0
	sep := func() {
		if n > 0 {
			b.WriteByte('&')
		}
		n++
	}
	a := applied{tagUTM: tagUTM, utmRead: true}
	for s := newSegments(query); ; {
		seg, more := s.next()
		if !more {
			break
		}
		if k, v, ok := decodePair(seg); ok {
			if i := set.find(k); i >= 0 {
				e := &set.list[i]
				if e.written {
					continue // a later occurrence: the key is never present twice
				}
				e.written = true
				sep()
				w := e.winner()
				if w == v {
					b.WriteString(seg)
				} else {
					rawKey, _, _ := strings.Cut(seg, "=")
					b.WriteString(rawKey)
					b.WriteByte('=')
					writeQueryEscaped(&b, w)
				}
				a.utm.note(k, w)
				continue
			}
			a.utm.note(k, v)
		}
		sep()
		b.WriteString(seg)
	}
	for i := range set.list {
		if e := &set.list[i]; e.count == 0 {
			sep()
			writeQueryEscaped(&b, e.key)
			b.WriteByte('=')
			writeQueryEscaped(&b, e.winner())
			a.utm.note(e.key, e.winner())
		}
	}
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(fragment)
	}
	a.out = b.String()
	return a, nil
}

// UTMApplies reports whether Apply may add or change UTM keys on target: it
// must be an http or https URL with a host that is neither a built-in store
// host nor one of opts.StoreHosts. A target that cannot be parsed gives
// false.
func UTMApplies(target string, opts Options) bool {
	u, err := url.Parse(target)
	return err == nil && utmApplies(u, opts.StoreHosts)
}

// IsUTMKey reports whether key is a UTM key: it starts with "utm_", in any
// case. Such keys are never added or changed on app-store pages or
// custom-scheme URLs.
func IsUTMKey(key string) bool {
	return len(key) >= 4 && strings.EqualFold(key[:4], "utm_")
}

func utmApplies(u *url.URL, storeHosts []string) bool {
	if u.Scheme != "http" && u.Scheme != "https" { // url.Parse lowercases the scheme
		return false
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "" {
		return false
	}
	for _, h := range builtinStoreHosts {
		if hostMatches(host, h) {
			return false
		}
	}
	for _, h := range storeHosts {
		if hostMatches(host, h) {
			return false
		}
	}
	return true
}

// hostMatches reports whether host is pattern or a subdomain of it, ignoring
// case and a trailing dot on pattern.
func hostMatches(host, pattern string) bool {
	pattern = strings.TrimSuffix(pattern, ".")
	if pattern == "" || len(host) < len(pattern) {
		return false
	}
	if len(host) == len(pattern) {
		return strings.EqualFold(host, pattern)
	}
	cut := len(host) - len(pattern)
	return host[cut-1] == '.' && strings.EqualFold(host[cut:], pattern)
}

// entry is one key that Apply sets, with its candidate values; "" is no
// value, since blank values never become candidates.
type entry struct {
	key     string
	always  string // an injected param in always mode (rule 1)
	visitor string // the forwarded visitor value (rule 2a)
	target  string // the first non-blank value in the target (rule 2b)
	fill    string // an injected param in default mode (rule 2c)
	field   string // the link's UTM field (rule 2d)
	first   string // the value of the key's first occurrence in the target
	count   int    // occurrences of the key in the target
	written bool
}

// winner is the value the key takes: UTM rule 1, then rule 2's order.
func (e *entry) winner() string {
	switch {
	case e.always != "":
		return e.always
	case e.visitor != "":
		return e.visitor
	case e.target != "":
		return e.target
	case e.fill != "":
		return e.fill
	}
	return e.field
}

// indexAbove is the number of keys past which entrySet builds a map
// instead of scanning its list.
const indexAbove = 16

// entrySet holds the keys Apply sets, in the order they were first met.
type entrySet struct {
	list  []entry
	index map[string]int
}

func (s *entrySet) find(key string) int {
	if s.index != nil {
		if i, ok := s.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range s.list {
		if s.list[i].key == key {
			return i
		}
	}
	return -1
}

// add returns s with key added, unless it is there, and key's index. It
// takes and returns s by value so that a list on the caller's stack stays
// there.
func (s entrySet) add(key string) (entrySet, int) {
	if i := s.find(key); i >= 0 {
		return s, i
	}
	s.list = append(s.list, entry{key: key})
	i := len(s.list) - 1
	switch {
	case s.index != nil:
		s.index[key] = i
	case len(s.list) > indexAbove:
		s.index = make(map[string]int, 2*len(s.list))
		for j := range s.list {
			s.index[s.list[j].key] = j
		}
	}
	return s, i
}

// link returns s with a link UTM field recorded, unless it is blank.
func (s entrySet) link(key, value string) entrySet {
	if blank(value) {
		return s
	}
	s, i := s.add(key)
	if e := &s.list[i]; e.field == "" {
		e.field = value
	}
	return s
}
