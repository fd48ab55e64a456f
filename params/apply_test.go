package params_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/params"
)

// inj builds an injected param.
func inj(key, value string, mode params.Mode) params.InjectedParam {
	return params.InjectedParam{Key: key, Value: value, Mode: mode}
}

// link builds a link config that inherits the organization's params.
func link(injected ...params.InjectedParam) *params.LinkConfig {
	return &params.LinkConfig{Injected: injected, InheritOrgInjected: true, SuppressedOrgKeys: []string{}}
}

// org builds an organization config.
func org(injected ...params.InjectedParam) *params.OrgConfig {
	return &params.OrgConfig{Injected: injected}
}

// forward returns a link config that forwards with allowlist.
func forward(enabled bool, allowlist []string) *params.LinkConfig {
	l := link()
	l.Forwarding = &params.Forwarding{Enabled: enabled, Allowlist: allowlist}
	return l
}

const (
	always = params.ModeAlways
	dflt   = params.ModeDefault
	null   = params.ModeInherit
)

type applyCase struct {
	name    string
	target  string
	visitor string
	org     *params.OrgConfig
	link    *params.LinkConfig
	utm     params.UTMFields
	opts    params.Options
	want    string
}

func runApply(t *testing.T, tests []applyCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eff := params.Merge(tt.org, tt.link)
			got, err := params.Apply(tt.target, tt.visitor, eff, tt.utm, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := params.Apply(got, tt.visitor, eff, tt.utm, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, got, again, "applying twice must change nothing")
		})
	}
}

func TestApplyPrecedence(t *testing.T) {
	news := params.UTMFields{Source: "newsletter", Medium: "email", Campaign: "spring"}
	runApply(t, []applyCase{
		{
			name:    "UTM rule 1: always-mode injection beats the visitor's value",
			target:  "https://shop.example/p",
			visitor: "utm_source=twitter",
			link:    link(inj("utm_source", "ours", always)),
			want:    "https://shop.example/p?utm_source=ours",
		},
		{
			name:   "UTM rule 1: always-mode injection beats the destination's value",
			target: "https://shop.example/p?utm_source=dest&id=1",
			link:   link(inj("utm_source", "ours", always)),
			want:   "https://shop.example/p?utm_source=ours&id=1",
		},
		{
			name:   "UTM rule 1: always-mode injection beats the link field",
			target: "https://shop.example/p",
			link:   link(inj("utm_campaign", "ours", always)),
			utm:    news,
			want:   "https://shop.example/p?utm_campaign=ours&utm_source=newsletter&utm_medium=email",
		},
		{
			name:    "UTM rule 1: an organization's always-mode injection wins too",
			target:  "https://shop.example/p?utm_medium=dest",
			visitor: "utm_medium=visitor",
			org:     org(inj("utm_medium", "org", always)),
			want:    "https://shop.example/p?utm_medium=org",
		},
		{
			name:    "UTM rule 1: always mode wins for a non-UTM key too",
			target:  "https://shop.example/p?ref=dest",
			visitor: "ref=visitor",
			link:    forward(true, nil),
			org:     org(inj("ref", "hoplink", always)),
			want:    "https://shop.example/p?ref=hoplink",
		},
		{
			name:    "UTM rule 2a: the forwarded visitor value beats the destination's value",
			target:  "https://shop.example/p?utm_source=dest",
			visitor: "utm_source=twitter",
			want:    "https://shop.example/p?utm_source=twitter",
		},
		{
			name:    "UTM rule 2a: the forwarded visitor value beats default-mode injection",
			target:  "https://shop.example/p",
			visitor: "utm_content=visitor",
			link:    link(inj("utm_content", "ours", dflt)),
			want:    "https://shop.example/p?utm_content=visitor",
		},
		{
			name:    "UTM rule 2a: the forwarded visitor value beats the link field",
			target:  "https://shop.example/p",
			visitor: "utm_source=twitter",
			utm:     params.UTMFields{Source: "newsletter"},
			want:    "https://shop.example/p?utm_source=twitter",
		},
		{
			name:    "UTM rule 2a: default forwarding passes utm_term and utm_content",
			target:  "https://shop.example/p",
			visitor: "utm_term=shoes&utm_content=banner",
			want:    "https://shop.example/p?utm_term=shoes&utm_content=banner",
		},
		{
			name:    "UTM rule 2a: default forwarding passes utm_term but not utm_id",
			target:  "https://shop.example/p",
			visitor: "utm_id=7&utm_term=shoes",
			want:    "https://shop.example/p?utm_term=shoes",
		},
		{
			name:    "UTM rule 2a: default forwarding passes no other key",
			target:  "https://shop.example/p",
			visitor: "fbclid=abc&ref=x&utm_source=tw",
			want:    "https://shop.example/p?utm_source=tw",
		},
		{
			name:    "UTM rule 2a: disabled forwarding passes nothing",
			target:  "https://shop.example/p?utm_source=dest",
			visitor: "utm_source=twitter&utm_term=x",
			link:    forward(false, nil),
			want:    "https://shop.example/p?utm_source=dest",
		},
		{
			name:    "UTM rule 2a: a null allowlist forwards every key",
			target:  "https://shop.example/p",
			visitor: "utm_id=7&fbclid=abc",
			link:    forward(true, nil),
			want:    "https://shop.example/p?utm_id=7&fbclid=abc",
		},
		{
			name:    "UTM rule 2a: an allowlist forwards only its keys",
			target:  "https://shop.example/p",
			visitor: "utm_source=tw&gclid=g&fbclid=f",
			link:    forward(true, []string{"gclid"}),
			want:    "https://shop.example/p?gclid=g",
		},
		{
			name:    "UTM rule 2a: an empty allowlist forwards nothing",
			target:  "https://shop.example/p",
			visitor: "utm_source=tw",
			link:    forward(true, []string{}),
			want:    "https://shop.example/p",
		},
		{
			name:    "UTM rule 2a: a forwarded key is matched exactly",
			target:  "https://shop.example/p",
			visitor: "UTM_SOURCE=tw",
			want:    "https://shop.example/p",
		},
		{
			name:   "UTM rule 2b: the destination's value beats default-mode injection",
			target: "https://shop.example/p?utm_content=dest",
			link:   link(inj("utm_content", "ours", dflt)),
			want:   "https://shop.example/p?utm_content=dest",
		},
		{
			name:   "UTM rule 2b: the destination's value beats the link field",
			target: "https://shop.example/p?utm_medium=web",
			utm:    news,
			want:   "https://shop.example/p?utm_medium=web&utm_source=newsletter&utm_campaign=spring",
		},
		{
			name:    "UTM rule 2b: a visitor key that is not forwarded leaves the destination's value",
			target:  "https://shop.example/p?utm_id=dest",
			visitor: "utm_id=visitor",
			want:    "https://shop.example/p?utm_id=dest",
		},
		{
			name:   "UTM rule 2c: default-mode injection beats the link field",
			target: "https://shop.example/p",
			link:   link(inj("utm_source", "injected", dflt)),
			utm:    params.UTMFields{Source: "field"},
			want:   "https://shop.example/p?utm_source=injected",
		},
		{
			name:   "UTM rule 2c: default-mode injection fills an absent key",
			target: "https://shop.example/p?id=1",
			org:    org(inj("ref", "hoplink", dflt)),
			want:   "https://shop.example/p?id=1&ref=hoplink",
		},
		{
			name:   "UTM rule 2d: the link fields are added when nothing else has a value",
			target: "https://shop.example/p",
			utm:    news,
			want:   "https://shop.example/p?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
		},
		{
			name:   "UTM rule 2d: a null link field adds nothing",
			target: "https://shop.example/p",
			utm:    params.UTMFields{Campaign: "spring"},
			want:   "https://shop.example/p?utm_campaign=spring",
		},
		{
			name:   "UTM rule 3: never a key twice: a repeated destination key keeps its first position",
			target: "https://shop.example/p?utm_source=a&id=1&utm_source=b",
			link:   link(inj("utm_source", "ours", always)),
			want:   "https://shop.example/p?utm_source=ours&id=1",
		},
		{
			name:   "UTM rule 3: never a key twice: the first non-blank destination value wins",
			target: "https://shop.example/p?utm_source=&utm_source=b",
			utm:    params.UTMFields{Source: "field"},
			want:   "https://shop.example/p?utm_source=b",
		},
		{
			name:    "UTM rule 3: never a key twice: an injected key equal to a forwarded key",
			target:  "https://shop.example/p",
			visitor: "utm_content=visitor&utm_content=again",
			link:    link(inj("utm_content", "ours", dflt)),
			utm:     news,
			want:    "https://shop.example/p?utm_content=visitor&utm_source=newsletter&utm_medium=email&utm_campaign=spring",
		},
		{
			name:   "UTM rule 3: a blank link field adds nothing",
			target: "https://shop.example/p",
			utm:    params.UTMFields{Source: "  ", Medium: "", Campaign: "\t"},
			want:   "https://shop.example/p",
		},
		{
			name:   "UTM rule 3: a blank injected value adds nothing and hides nothing",
			target: "https://shop.example/p",
			link:   link(inj("utm_source", " ", always), inj("ref", "", dflt)),
			utm:    params.UTMFields{Source: "field"},
			want:   "https://shop.example/p?utm_source=field",
		},
		{
			name:    "UTM rule 3: a blank visitor value adds nothing and hides nothing",
			target:  "https://shop.example/p?utm_source=dest",
			visitor: "utm_source=+&utm_medium=&utm_term=%20",
			utm:     params.UTMFields{Medium: "email"},
			want:    "https://shop.example/p?utm_source=dest&utm_medium=email",
		},
		{
			name:    "UTM rule 3: the visitor's first non-blank value of a repeated key counts",
			target:  "https://shop.example/p",
			visitor: "utm_source=&utm_source=tw&utm_source=fb",
			want:    "https://shop.example/p?utm_source=tw",
		},
		{
			name:   "UTM rule 3: a blank destination value is filled in place",
			target: "https://shop.example/p?utm_source=&id=1",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/p?utm_source=newsletter&id=1",
		},
		{
			name:   "UTM rules apply to http as well as https",
			target: "http://shop.example:8080/p",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "http://shop.example:8080/p?utm_source=newsletter",
		},
		{
			name:   "UTM rules apply to an upper-case scheme",
			target: "HTTPS://shop.example/p",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "HTTPS://shop.example/p?utm_source=newsletter",
		},
	})
}

func TestApplyTargets(t *testing.T) {
	news := params.UTMFields{Source: "newsletter", Medium: "email", Campaign: "spring"}
	withUTM := link(inj("utm_content", "banner", always), inj("ref", "hoplink", dflt))
	runApply(t, []applyCase{
		{
			name:    "no UTM on the App Store",
			target:  "https://apps.apple.com/app/id123?pt=1",
			visitor: "utm_source=tw",
			link:    withUTM,
			utm:     news,
			want:    "https://apps.apple.com/app/id123?pt=1&ref=hoplink",
		},
		{
			name:   "no UTM on the App Store: an existing UTM value is not changed",
			target: "https://apps.apple.com/app/id123?utm_content=store",
			link:   withUTM,
			want:   "https://apps.apple.com/app/id123?utm_content=store&ref=hoplink",
		},
		{
			name:   "no UTM on the legacy App Store host",
			target: "https://itunes.apple.com/us/app/id123",
			link:   withUTM,
			utm:    news,
			want:   "https://itunes.apple.com/us/app/id123?ref=hoplink",
		},
		{
			name:   "no UTM on the Play Store",
			target: "https://play.google.com/store/apps/details?id=com.example",
			link:   withUTM,
			utm:    news,
			want:   "https://play.google.com/store/apps/details?id=com.example&ref=hoplink",
		},
		{
			name:   "no UTM on the Play Store: host case, port and trailing dot do not matter",
			target: "https://PLAY.Google.com.:443/store",
			utm:    news,
			want:   "https://PLAY.Google.com.:443/store",
		},
		{
			name:   "no UTM on our own store host from Options",
			target: "https://store.hop.example/app/1",
			link:   withUTM,
			utm:    news,
			opts:   params.Options{StoreHosts: []string{"store.hop.example"}},
			want:   "https://store.hop.example/app/1?ref=hoplink",
		},
		{
			name:   "no UTM on a subdomain of a store host from Options",
			target: "https://eu.store.hop.example/app/1",
			utm:    news,
			opts:   params.Options{StoreHosts: []string{"Store.Hop.Example."}},
			want:   "https://eu.store.hop.example/app/1",
		},
		{
			name:   "a host that merely ends like a store host is not one",
			target: "https://notplay.google.com/x",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://notplay.google.com/x?utm_source=newsletter",
		},
		{
			name:    "no UTM on a custom scheme",
			target:  "myapp://product/42",
			visitor: "utm_source=tw",
			link:    withUTM,
			utm:     news,
			want:    "myapp://product/42?ref=hoplink",
		},
		{
			name:   "no UTM on a custom scheme: an UTM key in any case counts",
			target: "myapp://product/42",
			link:   link(inj("UTM_Source", "x", always)),
			want:   "myapp://product/42",
		},
		{
			name:    "a custom scheme gets forwarded non-UTM keys by the same precedence",
			target:  "myapp://product/42?ref=app",
			visitor: "ref=visitor&promo=spring",
			link: func() *params.LinkConfig {
				l := forward(true, nil)
				l.Injected = []params.InjectedParam{inj("ref", "hoplink", dflt)}
				return l
			}(),
			want: "myapp://product/42?ref=visitor&promo=spring",
		},
		{
			name:   "no UTM on an app-store scheme",
			target: "itms-apps://apps.apple.com/app/id123",
			utm:    news,
			want:   "itms-apps://apps.apple.com/app/id123",
		},
		{
			name:   "an opaque URL gets non-UTM keys",
			target: "mailto:hi@shop.example",
			link:   withUTM,
			want:   "mailto:hi@shop.example?ref=hoplink",
		},
		{
			name:   "fragment kept",
			target: "https://shop.example/p?id=1#reviews?x=1",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/p?id=1&utm_source=newsletter#reviews?x=1",
		},
		{
			name:   "fragment kept when the query is new",
			target: "https://shop.example/p#top",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/p?utm_source=newsletter#top",
		},
		{
			name:   "an empty fragment kept",
			target: "myapp://x#",
			link:   withUTM,
			want:   "myapp://x?ref=hoplink#",
		},
		{
			name:   "an Android intent URL keeps its fragment",
			target: "intent://product/42#Intent;scheme=myapp;package=com.example;end",
			link:   withUTM,
			want:   "intent://product/42?ref=hoplink#Intent;scheme=myapp;package=com.example;end",
		},
		{
			name:   "untouched params keep their raw encoding",
			target: "https://shop.example/s?q=red%20shoes&tag=a+b&x=%7e&path=/a/b",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/s?q=red%20shoes&tag=a+b&x=%7e&path=/a/b&utm_source=newsletter",
		},
		{
			name:   "a rewritten key keeps its raw spelling",
			target: "https://shop.example/p?utm%5Fsource=old",
			link:   link(inj("utm_source", "new", always)),
			want:   "https://shop.example/p?utm%5Fsource=new",
		},
		{
			name:   "a destination value equal to the winner keeps its raw encoding",
			target: "https://shop.example/p?utm_campaign=spring%20sale",
			link:   link(inj("utm_campaign", "spring sale", always)),
			want:   "https://shop.example/p?utm_campaign=spring%20sale",
		},
		{
			name:   "new values and keys are query-escaped",
			target: "https://shop.example/p",
			link:   link(inj("a key", "x&y=z é/?#", always)),
			want:   "https://shop.example/p?a+key=x%26y%3Dz+%C3%A9%2F%3F%23",
		},
		{
			name:    "new keys are appended in order: injected, link fields, then the visitor's",
			target:  "https://shop.example/p?id=1",
			visitor: "utm_term=t&utm_content=c",
			org:     org(inj("z_org", "1", dflt)),
			link:    link(inj("b_link", "2", dflt), inj("a_link", "3", always)),
			utm:     news,
			want:    "https://shop.example/p?id=1&z_org=1&b_link=2&a_link=3&utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_term=t&utm_content=c",
		},
		{
			name:   "an untouched repeated key is kept",
			target: "https://shop.example/s?tag=a&tag=b",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/s?tag=a&tag=b&utm_source=newsletter",
		},
		{
			name:   "empty segments are kept",
			target: "https://shop.example/s?a=1&&b=2&",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/s?a=1&&b=2&&utm_source=newsletter",
		},
		{
			name:   "a bare question mark gets the new keys",
			target: "https://shop.example/?",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/?utm_source=newsletter",
		},
		{
			name:   "malformed destination pairs are kept verbatim and are not a value",
			target: "https://shop.example/p?utm_source=%zz&a=1;2",
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/p?utm_source=%zz&a=1;2&utm_source=newsletter",
		},
		{
			name:    "malformed visitor pairs are dropped",
			target:  "https://shop.example/p",
			visitor: "utm_source=%zz&utm_medium=a;b&utm_term=ok&=x&utm_content",
			want:    "https://shop.example/p?utm_term=ok",
		},
		{
			name:    "the visitor query may start with a question mark",
			target:  "https://shop.example/p",
			visitor: "?utm_source=tw",
			want:    "https://shop.example/p?utm_source=tw",
		},
		{
			name:    "a visitor value is decoded and re-escaped",
			target:  "https://shop.example/p",
			visitor: "utm_campaign=spring+sale%21",
			want:    "https://shop.example/p?utm_campaign=spring+sale%21",
		},
		{
			name:   "nothing to set: the target is returned byte for byte",
			target: "https://shop.example/p?q=%7e&&x;y#f",
			want:   "https://shop.example/p?q=%7e&&x;y#f",
		},
		{
			name:   "every value already right: the target is returned byte for byte",
			target: "https://shop.example/p?utm_source=newsletter&ref=hoplink",
			org:    org(inj("ref", "hoplink", always)),
			utm:    params.UTMFields{Source: "newsletter"},
			want:   "https://shop.example/p?utm_source=newsletter&ref=hoplink",
		},
		{
			name:   "link over org on key conflict",
			target: "https://shop.example/p",
			org:    org(inj("ref", "org", always)),
			link:   link(inj("ref", "link", dflt)),
			want:   "https://shop.example/p?ref=link",
		},
		{
			name:   "inheritOrgInjected false drops org params",
			target: "https://shop.example/p",
			org:    org(inj("ref", "org", always)),
			link:   &params.LinkConfig{InheritOrgInjected: false},
			want:   "https://shop.example/p",
		},
		{
			name:   "a null link config applies the organization's defaults",
			target: "https://shop.example/p",
			org:    org(inj("ref", "org", null)),
			want:   "https://shop.example/p?ref=org",
		},
	})
}

func TestApplyRefusesATargetThatCannotBeParsed(t *testing.T) {
	for _, target := range []string{"http://[::1", "/relative/path", "shop.example/p", " https://shop.example/", "https://shop.example/\x7f", "%zz", ""} {
		t.Run(target, func(t *testing.T) {
			_, err := params.Apply(target, "utm_source=x", params.Merge(nil, nil), params.UTMFields{Source: "s"}, params.Options{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, params.ErrInvalidTarget), err.Error())
		})
	}
}

func TestApplyReadsAtMostMaxVisitorParams(t *testing.T) {
	var q []string
	for range params.MaxVisitorParams {
		q = append(q, "pad=1")
	}
	q = append(q, "late=1")
	got, err := params.Apply("https://shop.example/", strings.Join(q, "&"), params.Merge(nil, forward(true, nil)), params.UTMFields{}, params.Options{})
	require.NoError(t, err)
	assert.Equal(t, "https://shop.example/?pad=1", got)
}

func TestApplyManyForwardedKeys(t *testing.T) {
	// More keys than Apply keeps in its small list: its map takes over.
	var q []string
	for i := range 40 {
		q = append(q, "k"+strings.Repeat("x", i)+"=v")
	}
	target := "https://shop.example/?kxxx=old"
	got, err := params.Apply(target, strings.Join(q, "&"), params.Merge(nil, forward(true, nil)), params.UTMFields{}, params.Options{})
	require.NoError(t, err)
	vals, err := url.ParseQuery(got[strings.IndexByte(got, '?')+1:])
	require.NoError(t, err)
	assert.Len(t, vals, 40)
	for k, v := range vals {
		assert.Equal(t, []string{"v"}, v, k)
	}
	assert.True(t, strings.HasPrefix(got, "https://shop.example/?kxxx=v&k=v&kx=v&kxx=v&kxxxx=v"), got)
}

func TestUTMApplies(t *testing.T) {
	opts := params.Options{StoreHosts: []string{"store.hop.example"}}
	tests := []struct {
		name, target string
		want         bool
	}{
		{"an https web page", "https://shop.example/p", true},
		{"an http web page", "http://shop.example/p", true},
		{"the App Store", "https://apps.apple.com/app/id1", false},
		{"the legacy App Store host", "https://itunes.apple.com/app/id1", false},
		{"the Play Store", "https://play.google.com/store/apps/details?id=x", false},
		{"our store host", "https://store.hop.example/x", false},
		{"a custom scheme", "myapp://x", false},
		{"an http URL without a host", "http:///x", false},
		{"a target that cannot be parsed", "http://[::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, params.UTMApplies(tt.target, opts))
		})
	}
}

func TestIsUTMKey(t *testing.T) {
	assert.True(t, params.IsUTMKey("utm_source"))
	assert.True(t, params.IsUTMKey("utm_id"))
	assert.True(t, params.IsUTMKey("UTM_Source"))
	assert.True(t, params.IsUTMKey("utm_"))
	assert.False(t, params.IsUTMKey("utm"))
	assert.False(t, params.IsUTMKey("xutm_source"))
	assert.False(t, params.IsUTMKey(""))
}
