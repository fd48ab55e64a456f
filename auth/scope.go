package auth

import (
	"slices"
	"strings"
)

// Scope is a permission carried by a key (SPEC.md, Authentication rule 7).
type Scope string

// Every scope of SPEC.md's scope table, and webhooks:read and
// webhooks:write, which the scope table does not list yet (webhooks).
const (
	ScopeLinksRead        Scope = "links:read"
	ScopeLinksWrite       Scope = "links:write"
	ScopeAppsRead         Scope = "apps:read"
	ScopeAppsWrite        Scope = "apps:write"
	ScopeAnalyticsRead    Scope = "analytics:read"
	ScopeAttributionWrite Scope = "attribution:write"
	ScopeKeysRead         Scope = "keys:read"
	ScopeKeysWrite        Scope = "keys:write"
	ScopeDomainsRead      Scope = "domains:read"
	ScopeDomainsWrite     Scope = "domains:write"
	ScopeOrgRead          Scope = "org:read"
	ScopeOrgDelete        Scope = "org:delete"
	ScopeTeamRead         Scope = "team:read"
	ScopeTeamWrite        Scope = "team:write"
	ScopeWebhooksRead     Scope = "webhooks:read"
	ScopeWebhooksWrite    Scope = "webhooks:write"
)

// AllScopes lists every scope in SPEC.md's order.
var AllScopes = []Scope{
	ScopeLinksRead, ScopeLinksWrite, ScopeAppsRead, ScopeAppsWrite, ScopeAnalyticsRead,
	ScopeAttributionWrite, ScopeKeysRead, ScopeKeysWrite, ScopeDomainsRead, ScopeDomainsWrite,
	ScopeOrgRead, ScopeOrgDelete, ScopeTeamRead, ScopeTeamWrite, ScopeWebhooksRead, ScopeWebhooksWrite,
}

// RequestableScopes lists the scopes an API key may be created with: every
// scope but attribution:write, which only SDK keys carry (Authentication rule 6).
var RequestableScopes = slices.DeleteFunc(slices.Clone(AllScopes), func(s Scope) bool {
	return s == ScopeAttributionWrite
})

// SDKScopes are the fixed scopes of every SDK key.
var SDKScopes = []Scope{ScopeLinksRead, ScopeAttributionWrite}

// Valid reports whether s is a scope of SPEC.md's table.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

// Requestable reports whether an API key may be created with s.
func (s Scope) Requestable() bool { return slices.Contains(RequestableScopes, s) }

// NormalizeScopes returns scopes without duplicates, in SPEC.md's order, with
// the scopes each one implies added: links:write includes links:read.
func NormalizeScopes(scopes []Scope) []Scope {
	set := make(map[Scope]bool, len(scopes)+1)
	for _, s := range scopes {
		set[s] = true
		if s == ScopeLinksWrite {
			set[ScopeLinksRead] = true
		}
	}
	out := make([]Scope, 0, len(set))
	for _, s := range AllScopes {
		if set[s] {
			out = append(out, s)
		}
	}
	return out
}

// ScopeSet is a set of scopes, checked on every request.
type ScopeSet uint32

// NewScopeSet returns the set holding scopes; unknown scopes are ignored.
func NewScopeSet(scopes []Scope) ScopeSet {
	var set ScopeSet
	for _, s := range scopes {
		if i := slices.Index(AllScopes, s); i >= 0 {
			set |= 1 << i
		}
	}
	return set
}

// Has reports whether the set holds s.
func (set ScopeSet) Has(s Scope) bool {
	i := slices.Index(AllScopes, s)
	return i >= 0 && set&(1<<i) != 0
}

// Scopes returns the members of the set in SPEC.md's order.
func (set ScopeSet) Scopes() []Scope {
	var out []Scope
	for i, s := range AllScopes {
		if set&(1<<i) != 0 {
			out = append(out, s)
		}
	}
	return out
}

// String joins the set's scopes with spaces, as OAuth writes them.
func (set ScopeSet) String() string {
	parts := make([]string, 0, len(AllScopes))
	for _, s := range set.Scopes() {
		parts = append(parts, string(s))
	}
	return strings.Join(parts, " ")
}
