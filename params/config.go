package params

import (
	"bytes"
	"encoding/json"
)

// Limits of a parameter configuration. The key and value limits are SPEC.md's
// (Limits: "Injected param: key max 64, value max 512"); SPEC.md does not show
// the maximum size of a configuration, so MaxInjected and MaxConfigBytes are
// Hoplink's. Exceeding either of those two is 400 PARAM_CONFIG_TOO_LARGE.
const (
	// MaxKeyLength is the longest injected key, in characters (Unicode code points).
	MaxKeyLength = 64
	// MaxValueLength is the longest injected value, in characters (Unicode code points).
	MaxValueLength = 512
	// MaxInjected is the largest number of injected parameters in one configuration.
	MaxInjected = 50
	// MaxConfigBytes is the largest serialized configuration: the length in
	// bytes of its compact JSON encoding without HTML escaping (16 KiB).
	MaxConfigBytes = 16 << 10
)

// LinkField is the name of the Link resource's field that holds a
// LinkConfig. Field errors of a LinkConfig are named below it
// ("parameters.injected[2].mode").
const LinkField = "parameters"

// Mode says when an injected parameter is set. The zero value ModeInherit is
// JSON null: the parameter takes the effective defaultMode (see Merge).
type Mode string

// The modes of an injected parameter (SPEC.md, LinkParamConfig).
const (
	// ModeInherit is JSON null: the mode is inherited from defaultMode.
	ModeInherit Mode = ""
	// ModeAlways sets the parameter even over a value the visitor or the
	// target already has (UTM rule 1).
	ModeAlways Mode = "always"
	// ModeDefault sets the parameter only when neither the forwarded visitor
	// query nor the target has a value for it (UTM rule 2c).
	ModeDefault Mode = "default"
)

// Valid reports whether m is ModeInherit, ModeAlways or ModeDefault.
func (m Mode) Valid() bool {
	return m == ModeInherit || m == ModeAlways || m == ModeDefault
}

// MarshalJSON writes ModeInherit as null and any other mode as a string.
func (m Mode) MarshalJSON() ([]byte, error) {
	if m == ModeInherit {
		return []byte("null"), nil
	}
	return marshal(string(m))
}

// InjectedParam is one query parameter that a configuration sets on the
// target URL. All three JSON keys are required; mode may be null.
type InjectedParam struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Mode  Mode   `json:"mode"`
}

// Forwarding says which of the visitor's query parameters are passed on to
// the target. Both JSON keys are required.
//
// When Enabled is false nothing is forwarded. When it is true, a nil
// Allowlist (JSON null) forwards every parameter and a non-nil one forwards
// only the keys it lists (exact, case-sensitive match); an empty, non-nil
// Allowlist therefore forwards nothing.
type Forwarding struct {
	Enabled   bool     `json:"enabled"`
	Allowlist []string `json:"allowlist"`
}

// defaultAllowlist is the allowlist of the default forwarding. It is shared
// by every Effective that uses the default and must not be modified.
var defaultAllowlist = []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

// DefaultForwarding returns the forwarding that applies when neither the
// link nor the organization sets one: enabled, passing exactly utm_source,
// utm_medium, utm_campaign, utm_term and utm_content (SPEC.md, UTM rule 2a;
// other keys such as utm_id are not forwarded). Each call returns a new
// allowlist that the caller may modify.
func DefaultForwarding() Forwarding {
	return Forwarding{Enabled: true, Allowlist: append([]string(nil), defaultAllowlist...)}
}

// LinkConfig is SPEC.md's LinkParamConfig: a link's query-parameter rules.
// A link whose config is nil (JSON null or absent) uses its organization's
// defaults.
//
// Decoding it from JSON (UnmarshalJSON) is strict: injected,
// inheritOrgInjected and suppressedOrgKeys are required, forwarding and
// defaultMode may be null or absent, each injected item needs key, value and
// mode, and an unknown key is an error. Decoding does not check the limits;
// call Validate, or use DecodeLinkConfig which does both.
type LinkConfig struct {
	// Injected are the link's own parameters, in order.
	Injected []InjectedParam `json:"injected"`
	// Forwarding, when nil (JSON null), inherits the organization's.
	Forwarding *Forwarding `json:"forwarding"`
	// DefaultMode resolves injected params whose mode is null; ModeInherit
	// (JSON null) inherits the organization's.
	DefaultMode Mode `json:"defaultMode"`
	// InheritOrgInjected says whether the organization's injected params apply.
	InheritOrgInjected bool `json:"inheritOrgInjected"`
	// SuppressedOrgKeys are organization injected keys dropped on this link.
	SuppressedOrgKeys []string `json:"suppressedOrgKeys"`
}

// MarshalJSON writes c with nil Injected and SuppressedOrgKeys as empty
// arrays, since both are required arrays.
func (c LinkConfig) MarshalJSON() ([]byte, error) {
	type plain LinkConfig
	p := plain(c)
	if p.Injected == nil {
		p.Injected = []InjectedParam{}
	}
	if p.SuppressedOrgKeys == nil {
		p.SuppressedOrgKeys = []string{}
	}
	return marshal(p)
}

// OrgConfig holds an organization's parameter defaults, which every link of
// the organization inherits (SPEC.md: "Org-level defaults are inherited and
// merged with link-level config").
//
// Its JSON form mirrors LinkConfig's first three fields: injected is
// required; forwarding and defaultMode may be null or absent (absent means
// null); unknown keys are errors.
type OrgConfig struct {
	// Injected are the organization's parameters, in order.
	Injected []InjectedParam `json:"injected"`
	// Forwarding, when nil, is DefaultForwarding().
	Forwarding *Forwarding `json:"forwarding"`
	// DefaultMode resolves injected params whose mode is null; ModeInherit
	// means ModeDefault.
	DefaultMode Mode `json:"defaultMode"`
}

// MarshalJSON writes c with a nil Injected as an empty array.
func (c OrgConfig) MarshalJSON() ([]byte, error) {
	type plain OrgConfig
	p := plain(c)
	if p.Injected == nil {
		p.Injected = []InjectedParam{}
	}
	return marshal(p)
}

// marshal encodes v without HTML escaping. json.Marshal escapes the result
// of a MarshalJSON method itself; an Encoder with SetEscapeHTML(false), as
// Size uses, leaves it as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
