package cors

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// MaxAge is how long a browser may cache a preflight's answer.
const MaxAge = 600

// Rule is the CORS policy of some paths.
type Rule struct {
	// Paths are the exact request paths the rule covers.
	Paths []string
	// Origins are the origins (scheme://host[:port], lowercase, no trailing
	// slash) allowed to call; "*" allows every origin. If empty, no origin
	// is allowed, and a preflight is answered without CORS headers, which a
	// browser takes as a refusal.
	Origins []string
	// Methods are the methods the paths serve, besides OPTIONS.
	Methods []string
	// Headers are the request headers a cross-origin request may send.
	Headers []string
	// Expose are the response headers a cross-origin caller may read.
	Expose []string
}

// anyOrigin reports whether r allows every origin.
func (r *Rule) anyOrigin() bool { return slices.Contains(r.Origins, "*") }

// allows reports whether r allows origin.
func (r *Rule) allows(origin string) bool {
	return origin != "" && (r.anyOrigin() || slices.Contains(r.Origins, strings.ToLower(origin)))
}

// Handler applies rules in front of a handler.
type Handler struct {
	next  http.Handler
	rules map[string]*Rule
}

// New returns next behind rules. A path named by two rules takes the later.
func New(next http.Handler, rules ...Rule) *Handler {
	h := &Handler{next: next, rules: map[string]*Rule{}}
	for i := range rules {
		r := &rules[i]
		for _, p := range r.Paths {
			h.rules[p] = r
		}
	}
	return h
}

// ServeHTTP implements http.Handler. On a covered path, OPTIONS is answered
// 204 with Allow and, for an allowed Origin, the preflight headers; any
// other method goes to the wrapped handler, with Access-Control-Allow-Origin
// and Access-Control-Expose-Headers for an allowed Origin.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rule, ok := h.rules[r.URL.Path]
	if !ok {
		h.next.ServeHTTP(w, r)
		return
	}
	origin := r.Header.Get("Origin")
	hd := w.Header()
	if !rule.anyOrigin() {
		hd.Add("Vary", "Origin")
	}
	allowed := rule.allows(origin)
	if allowed {
		if rule.anyOrigin() {
			hd.Set("Access-Control-Allow-Origin", "*")
		} else {
			hd.Set("Access-Control-Allow-Origin", origin)
		}
	}
	if r.Method != http.MethodOptions {
		if allowed && len(rule.Expose) > 0 {
			hd.Set("Access-Control-Expose-Headers", strings.Join(rule.Expose, ", "))
		}
		h.next.ServeHTTP(w, r)
		return
	}
	methods := append(slices.Clone(rule.Methods), http.MethodOptions)
	hd.Set("Allow", strings.Join(methods, ", "))
	if allowed && r.Header.Get("Access-Control-Request-Method") != "" {
		hd.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
		if len(rule.Headers) > 0 {
			hd.Set("Access-Control-Allow-Headers", strings.Join(rule.Headers, ", "))
		}
		hd.Set("Access-Control-Max-Age", strconv.Itoa(MaxAge))
	}
	w.WriteHeader(http.StatusNoContent)
}
