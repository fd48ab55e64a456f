package params_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/params"
)

var utmFive = []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

func TestMerge(t *testing.T) {
	defaultFwd := params.DefaultForwarding()
	orgFwd := &params.Forwarding{Enabled: true, Allowlist: []string{"gclid"}}
	linkFwd := &params.Forwarding{Enabled: false, Allowlist: nil}
	tests := []struct {
		name string
		org  *params.OrgConfig
		link *params.LinkConfig
		want params.Effective
	}{
		{
			name: "no org and no link config: default forwarding, default mode, nothing injected",
			want: params.Effective{Forwarding: defaultFwd, DefaultMode: dflt},
		},
		{
			name: "a null link config means the org defaults",
			org:  &params.OrgConfig{Injected: []params.InjectedParam{inj("ref", "org", null)}, Forwarding: orgFwd, DefaultMode: always},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("ref", "org", always)},
				Forwarding:  *orgFwd,
				DefaultMode: always,
			},
		},
		{
			name: "link over org on key conflict",
			org:  org(inj("ref", "org", always), inj("src", "org", dflt)),
			link: link(inj("ref", "link", dflt)),
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("src", "org", dflt), inj("ref", "link", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "inheritOrgInjected false drops org params",
			org:  org(inj("ref", "org", always)),
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", dflt)}, InheritOrgInjected: false},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "inheritOrgInjected false keeps the org's forwarding and defaultMode",
			org:  &params.OrgConfig{Injected: []params.InjectedParam{inj("ref", "org", always)}, Forwarding: orgFwd, DefaultMode: always},
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null)}},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", always)},
				Forwarding:  *orgFwd,
				DefaultMode: always,
			},
		},
		{
			name: "suppressedOrgKeys drops those org keys",
			org:  org(inj("ref", "org", dflt), inj("src", "org", dflt), inj("cmp", "org", dflt)),
			link: &params.LinkConfig{InheritOrgInjected: true, SuppressedOrgKeys: []string{"ref", "cmp"}},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("src", "org", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "suppressedOrgKeys never drops the link's own param",
			org:  org(inj("ref", "org", dflt)),
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("ref", "link", dflt)}, InheritOrgInjected: true, SuppressedOrgKeys: []string{"ref"}},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("ref", "link", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "defaultMode inheritance: a null mode takes the link's defaultMode",
			org:  &params.OrgConfig{DefaultMode: dflt},
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null)}, DefaultMode: always},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", always)},
				Forwarding:  defaultFwd,
				DefaultMode: always,
			},
		},
		{
			name: "defaultMode inheritance: a null link defaultMode takes the org's",
			org:  &params.OrgConfig{DefaultMode: always},
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null)}},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", always)},
				Forwarding:  defaultFwd,
				DefaultMode: always,
			},
		},
		{
			name: "defaultMode inheritance: null everywhere means default",
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null)}},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "defaultMode inheritance: the link's defaultMode resolves inherited org params",
			org:  org(inj("ref", "org", null), inj("src", "org", dflt)),
			link: &params.LinkConfig{InheritOrgInjected: true, DefaultMode: always},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("ref", "org", always), inj("src", "org", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: always,
			},
		},
		{
			name: "an explicit mode is never replaced by defaultMode",
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", dflt)}, DefaultMode: always},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("a", "1", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: always,
			},
		},
		{
			name: "forwarding null inherits org",
			org:  &params.OrgConfig{Forwarding: orgFwd},
			link: link(),
			want: params.Effective{Forwarding: *orgFwd, DefaultMode: dflt},
		},
		{
			name: "the link's forwarding beats the org's",
			org:  &params.OrgConfig{Forwarding: orgFwd},
			link: &params.LinkConfig{Forwarding: linkFwd},
			want: params.Effective{Forwarding: *linkFwd, DefaultMode: dflt},
		},
		{
			name: "forwarding null everywhere is the default forwarding",
			org:  &params.OrgConfig{},
			link: link(),
			want: params.Effective{Forwarding: defaultFwd, DefaultMode: dflt},
		},
		{
			name: "org params come first in the org's order, then the link's in the link's order",
			org:  org(inj("o2", "x", dflt), inj("o1", "x", dflt)),
			link: link(inj("l2", "x", dflt), inj("l1", "x", dflt)),
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("o2", "x", dflt), inj("o1", "x", dflt), inj("l2", "x", dflt), inj("l1", "x", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
		{
			name: "unvalidated input: a repeated key keeps its first occurrence, an unknown mode counts as null",
			org:  org(inj("ref", "1", dflt), inj("ref", "2", dflt)),
			link: &params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", "sometimes"), inj("a", "2", always)}, InheritOrgInjected: true, DefaultMode: "bogus"},
			want: params.Effective{
				Injected:    []params.InjectedParam{inj("ref", "1", dflt), inj("a", "1", dflt)},
				Forwarding:  defaultFwd,
				DefaultMode: dflt,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, params.Merge(tt.org, tt.link))
		})
	}
}

func TestDefaultForwardingPassesExactlyTheFiveUTMKeys(t *testing.T) {
	f := params.DefaultForwarding()
	assert.True(t, f.Enabled)
	assert.Equal(t, utmFive, f.Allowlist)
	assert.NotContains(t, f.Allowlist, "utm_id")

	// Each call is a fresh copy: changing one does not change the default.
	f.Allowlist[0] = "changed"
	assert.Equal(t, utmFive, params.DefaultForwarding().Allowlist)
	assert.Equal(t, utmFive, params.Merge(nil, nil).Forwarding.Allowlist)
}
