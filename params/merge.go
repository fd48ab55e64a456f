package params

// Effective is the configuration that applies to one link: its
// organization's defaults merged with the link's own config by Merge. Apply
// takes it. Build it with Merge: the zero Effective injects and forwards
// nothing, whereas Merge(nil, nil) forwards by DefaultForwarding().
type Effective struct {
	// Injected holds the parameters to inject, one per key: the
	// organization's inherited ones first, in the organization's order, then
	// the link's, in the link's order. Every Mode is ModeAlways or ModeDefault.
	Injected []InjectedParam
	// Forwarding is the link's, else the organization's, else
	// DefaultForwarding(). Its Allowlist may be shared with the inputs of
	// Merge and must not be modified.
	Forwarding Forwarding
	// DefaultMode is the link's defaultMode, else the organization's, else
	// ModeDefault. It has already been applied to Injected.
	DefaultMode Mode
}

// Merge merges an organization's defaults with a link's config (SPEC.md,
// LinkParamConfig). Either may be nil: a nil org has no defaults; a nil
// link (its `parameters` is null or absent) inherits the organization's
// defaults unchanged.
//
//   - Injected: the organization's params apply only when the link's
//     inheritOrgInjected is true (or the link config is nil), minus the keys
//     in suppressedOrgKeys; on a key that both define, the link's param wins
//     (precedence link over org).
//   - Mode: a null mode takes the effective defaultMode: the link's
//     defaultMode, else the organization's, else "default". The final
//     fallback is Hoplink's choice (SPEC.md does not show one): a param
//     nobody gave a mode only fills a gap and never overrides a value the
//     visitor or the destination already carries. The same effective
//     defaultMode resolves the organization's inherited params, since
//     SPEC.md's defaultMode is the fallback "for injected params whose mode
//     is null".
//   - Forwarding: the link's unless null, else the organization's unless
//     null, else DefaultForwarding().
//
// Merge expects validated configs; on unvalidated ones a repeated key keeps
// its first occurrence and an unknown mode counts as null. It allocates at
// most once, for Effective.Injected.
func Merge(org *OrgConfig, link *LinkConfig) Effective {
	e := Effective{
		Forwarding:  Forwarding{Enabled: true, Allowlist: defaultAllowlist},
		DefaultMode: ModeDefault,
	}
	var orgInjected, linkInjected []InjectedParam
	var suppressed []string
	inherit := true
	if org != nil {
		orgInjected = org.Injected
		if org.Forwarding != nil {
			e.Forwarding = *org.Forwarding
		}
		if org.DefaultMode == ModeAlways || org.DefaultMode == ModeDefault {
			e.DefaultMode = org.DefaultMode
		}
	}
	if link != nil {
		linkInjected = link.Injected
		suppressed = link.SuppressedOrgKeys
		inherit = link.InheritOrgInjected
		if link.Forwarding != nil {
			e.Forwarding = *link.Forwarding
		}
		if link.DefaultMode == ModeAlways || link.DefaultMode == ModeDefault {
			e.DefaultMode = link.DefaultMode
		}
	}
	if !inherit {
		orgInjected = nil
	}
	if n := len(orgInjected) + len(linkInjected); n > 0 {
		e.Injected = make([]InjectedParam, 0, n)
	}
	for _, p := range orgInjected {
		if hasKey(linkInjected, p.Key) || hasKey(e.Injected, p.Key) || contains(suppressed, p.Key) {
			continue
		}
		e.Injected = append(e.Injected, e.resolve(p))
	}
	for _, p := range linkInjected {
		// The org params kept above never share a key with the link's, so
		// this only skips a repeated link key.
		if hasKey(e.Injected, p.Key) {
			continue
		}
		e.Injected = append(e.Injected, e.resolve(p))
	}
	return e
}

func (e *Effective) resolve(p InjectedParam) InjectedParam {
	if p.Mode != ModeAlways && p.Mode != ModeDefault {
		p.Mode = e.DefaultMode
	}
	return p
}

func hasKey(ps []InjectedParam, key string) bool {
	for i := range ps {
		if ps[i].Key == key {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
