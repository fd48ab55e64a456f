package params_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
)

var fuzzModes = [...]params.Mode{params.ModeInherit, params.ModeAlways, params.ModeDefault}

// queryOf returns the raw query of rawURL as url.Parse splits it.
func queryOf(rawURL string) string {
	rest, _, _ := strings.Cut(rawURL, "#")
	_, q, _ := strings.Cut(rest, "?")
	return q
}

// FuzzApply proves that Apply never panics, sets every key it sets exactly
// once, never repeats a key the target did not repeat, keeps the fragment
// and everything before the query, that applying twice equals applying
// once, and that ApplyForClick's UTM values are ClickUTM's of the address
// the visitor is sent to. Its seed corpus runs with every `go test`.
func FuzzApply(f *testing.F) {
	type seed struct {
		target, visitor, k1, v1 string
		m1                      uint8
		k2, v2                  string
		m2                      uint8
		source, medium          string
		fwd                     uint8
	}
	for _, s := range []seed{
		{"https://shop.example/p?id=42&utm_medium=web&lang=fr#reviews", "utm_source=twitter&utm_content=mine&utm_id=7", "utm_content", "banner", 1, "lang", "en", 0, "newsletter", "email", 0},
		{"https://shop.example/p?utm_source=a&utm_source=b", "utm_source=c", "utm_source", "d", 1, "utm_source", "e", 2, "f", "", 1},
		{"https://shop.example/?", "?a=1&a=2&b=", "a", "x", 2, "b", " ", 1, " ", "m", 1},
		{"https://apps.apple.com/app/id1?utm_source=x", "utm_source=y&ref=z", "utm_term", "t", 1, "ref", "r", 2, "s", "m", 1},
		{"https://play.google.com/store/apps/details?id=x", "", "ref", "hop", 2, "", "", 0, "s", "", 0},
		{"myapp://product/42?ref=app#frag", "ref=v&promo=1", "ref", "hop", 2, "UTM_X", "1", 1, "s", "m", 1},
		{"https://shop.example/s?q=%7e&&x;y&utm_source=%zz#f?x=1", "utm_source=%zz&utm_medium=a;b", "a b", "x&y=z é", 1, "", "", 0, "s", "m", 1},
		{"https://shop.example/p?a+b=1&a%20b=2", "a+b=3", "a b", "4", 2, "c", "5", 0, "", "", 1},
		{"intent://x#Intent;scheme=a;end", "", "k", "v", 0, "", "", 0, "", "", 2},
		{"mailto:hi@shop.example", "k=v", "k", "w", 2, "", "", 0, "", "", 1},
		{"http://[::1", "", "", "", 0, "", "", 0, "", "", 0},
		{"", "", "", "", 0, "", "", 0, "", "", 0},
	} {
		f.Add(s.target, s.visitor, s.k1, s.v1, s.m1, s.k2, s.v2, s.m2, s.source, s.medium, s.fwd)
	}
	f.Fuzz(func(t *testing.T, target, visitor, k1, v1 string, m1 uint8, k2, v2 string, m2 uint8, source, medium string, fwd uint8) {
		cfg := &params.LinkConfig{
			Injected:           []params.InjectedParam{inj(k1, v1, fuzzModes[m1%3]), inj(k2, v2, fuzzModes[m2%3])},
			InheritOrgInjected: true,
		}
		switch fwd % 4 {
		case 1:
			cfg.Forwarding = &params.Forwarding{Enabled: true} // every key
		case 2:
			cfg.Forwarding = &params.Forwarding{Enabled: false}
		case 3:
			cfg.Forwarding = &params.Forwarding{Enabled: true, Allowlist: []string{k1, "ref"}}
		}
		eff := params.Merge(nil, cfg)
		utm := params.UTMFields{Source: source, Medium: medium}
		opts := params.Options{StoreHosts: []string{"store.hop.example"}}

		got, err := params.Apply(target, visitor, eff, utm, opts)

		// ApplyForClick sends the visitor where Apply does (to target when
		// it fails) and records what ClickUTM reads from that address.
		clickTo, clickUTM, clickErr := params.ApplyForClick(target, visitor, eff, utm, opts)
		require.Equal(t, err, clickErr)
		sent := got
		if err != nil {
			sent = target
		} else {
			require.Equal(t, got, clickTo)
		}
		require.Equal(t, params.ClickUTM(sent, visitor, opts), clickUTM, "the click's UTM values for %q", sent)

		if err != nil {
			require.True(t, errors.Is(err, params.ErrInvalidTarget), err.Error())
			return
		}
		_, err = url.Parse(got)
		require.NoError(t, err, "the result parses: %q", got)

		again, err := params.Apply(got, visitor, eff, utm, opts)
		require.NoError(t, err)
		require.Equal(t, got, again, "applying twice equals applying once")

		// Everything outside the query is kept byte for byte.
		rest, frag, hasFrag := strings.Cut(target, "#")
		base, _, _ := strings.Cut(rest, "?")
		require.True(t, strings.HasPrefix(got, base), "prefix kept: %q -> %q", target, got)
		gotRest, gotFrag, gotHasFrag := strings.Cut(got, "#")
		require.Equal(t, hasFrag, gotHasFrag)
		require.Equal(t, frag, gotFrag, "fragment kept")
		require.Equal(t, base, strings.SplitN(gotRest, "?", 2)[0])

		before, _ := url.ParseQuery(queryOf(target))
		after, _ := url.ParseQuery(queryOf(got))
		if len(before) > 1000 || len(after) > 1000 {
			return
		}
		// No key appears more often than in the target, unless it is one
		// Apply sets, which appears exactly once.
		set := keysSet(target, visitor, eff, utm, opts)
		for k, vs := range after {
			if set[k] {
				require.Len(t, vs, 1, "key %q set once in %q", k, got)
			} else {
				require.LessOrEqual(t, len(vs), len(before[k]), "key %q not repeated in %q", k, got)
			}
		}
		for k := range set {
			require.Len(t, after[k], 1, "key %q is set in %q", k, got)
		}
		// A non-blank always-mode value is the one the result carries; a
		// blank one adds nothing and hides nothing (UTM rule 3).
		for _, p := range eff.Injected {
			if set[p.Key] && p.Mode == params.ModeAlways && strings.TrimSpace(p.Value) != "" {
				require.Equal(t, []string{p.Value}, after[p.Key])
			}
		}
	})
}

// keysSet recomputes, independently of Apply, which keys Apply sets: those
// with a non-blank value from an injected param, a link field or the
// forwarded visitor query, minus UTM keys where UTM does not apply.
func keysSet(target, visitor string, eff params.Effective, utm params.UTMFields, opts params.Options) map[string]bool {
	tagUTM := params.UTMApplies(target, opts)
	set := map[string]bool{}
	add := func(k, v string) {
		if k != "" && strings.TrimSpace(v) != "" && (tagUTM || !params.IsUTMKey(k)) {
			set[k] = true
		}
	}
	for _, p := range eff.Injected {
		add(p.Key, p.Value)
	}
	add("utm_source", utm.Source)
	add("utm_medium", utm.Medium)
	add("utm_campaign", utm.Campaign)
	if eff.Forwarding.Enabled {
		pairs := strings.Split(strings.TrimPrefix(visitor, "?"), "&")
		if len(pairs) > params.MaxVisitorParams {
			pairs = pairs[:params.MaxVisitorParams]
		}
		for _, pair := range pairs {
			q, _ := url.ParseQuery(pair)
			for k, vs := range q {
				if eff.Forwarding.Allowlist != nil && !contains(eff.Forwarding.Allowlist, k) {
					continue
				}
				add(k, vs[0])
			}
		}
	}
	return set
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// FuzzDecodeLinkConfig proves that decoding never panics, fails only with
// VALIDATION_ERROR or PARAM_CONFIG_TOO_LARGE, and that a config it accepts
// encodes and decodes back to itself.
func FuzzDecodeLinkConfig(f *testing.F) {
	for _, s := range []string{
		`null`,
		``,
		`{"injected":[],"inheritOrgInjected":false,"suppressedOrgKeys":[]}`,
		`{"injected":[{"key":"ref","value":"x","mode":null}],"forwarding":{"enabled":true,"allowlist":null},"defaultMode":"always","inheritOrgInjected":true,"suppressedOrgKeys":["a"]}`,
		`{"injected":[{"key":"a","value":"1"}],"inheritOrgInjected":true,"suppressedOrgKeys":[]}`,
		`{"injected":[{"key":"a","value":"1","mode":""}],"inheritOrgInjected":true,"suppressedOrgKeys":[null]}`,
		`{"injected":{},"forwarding":[],"defaultMode":3,"x":1}`,
		`{"injected":[{"key":"<&>","value":"\u2028","mode":"default"}],"inheritOrgInjected":true,"suppressedOrgKeys":[],"forwarding":{"enabled":false,"allowlist":[]}}`,
		`[]`, `"x"`, `{`, `{"injected":[1,2,3]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := params.DecodeLinkConfig(data)
		if err != nil {
			e, ok := errcode.As(err)
			require.True(t, ok, "not an *errcode.Error: %v", err)
			require.Contains(t, []errcode.Code{errcode.ValidationError, errcode.ParamConfigTooLarge}, e.Code)
			if e.Code == errcode.ValidationError {
				require.NotEmpty(t, e.Fields)
				for _, fe := range e.Fields {
					require.True(t, strings.HasPrefix(fe.Field, "parameters"), fe.Field)
				}
			}
			return
		}
		if c == nil {
			return
		}
		require.NoError(t, c.Validate())
		body, err := json.Marshal(c)
		require.NoError(t, err)
		back, err := params.DecodeLinkConfig(body)
		require.NoError(t, err, "%s", body)
		assert.Equal(t, c, back)
		_ = params.Merge(nil, c)
	})
}
