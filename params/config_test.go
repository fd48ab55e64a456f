package params_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
)

// fieldsOf returns the field errors of err, which must be a VALIDATION_ERROR.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	require.Error(t, err)
	e, ok := errcode.As(err)
	require.True(t, ok, "not an *errcode.Error: %v", err)
	require.Equal(t, errcode.ValidationError, e.Code, e.Error())
	out := map[string]string{}
	for _, f := range e.Fields {
		out[f.Field] = f.Message
	}
	return out
}

// valid is a minimal valid LinkConfig document with injected items in between.
func doc(injected string, rest string) string {
	return `{"injected":[` + injected + `],"inheritOrgInjected":true,"suppressedOrgKeys":[]` + rest + `}`
}

func TestDecodeLinkConfigStructure(t *testing.T) {
	tests := []struct {
		name string
		json string
		want map[string]string // field -> message
	}{
		{"injected is required", `{"inheritOrgInjected":true,"suppressedOrgKeys":[]}`,
			map[string]string{"parameters.injected": "is required"}},
		{"inheritOrgInjected is required", `{"injected":[],"suppressedOrgKeys":[]}`,
			map[string]string{"parameters.inheritOrgInjected": "is required"}},
		{"suppressedOrgKeys is required", `{"injected":[],"inheritOrgInjected":false}`,
			map[string]string{"parameters.suppressedOrgKeys": "is required"}},
		{"an injected item needs its mode: missing is not null",
			doc(`{"key":"a","value":"1","mode":null},{"key":"b","value":"2","mode":"always"},{"key":"c","value":"3"}`, ""),
			map[string]string{"parameters.injected[2].mode": "is required"}},
		{"an injected item needs its key", doc(`{"value":"1","mode":null}`, ""),
			map[string]string{"parameters.injected[0].key": "is required"}},
		{"an injected item needs its value", doc(`{"key":"a","mode":null}`, ""),
			map[string]string{"parameters.injected[0].value": "is required"}},
		{"a null key is not a string", doc(`{"key":null,"value":"1","mode":null}`, ""),
			map[string]string{"parameters.injected[0].key": "must be a string"}},
		{"a null value is not a string", doc(`{"key":"a","value":null,"mode":null}`, ""),
			map[string]string{"parameters.injected[0].value": "must be a string"}},
		{"a numeric value is not a string", doc(`{"key":"a","value":5,"mode":null}`, ""),
			map[string]string{"parameters.injected[0].value": "must be a string"}},
		{"an injected item must be an object", doc(`"a=1"`, ""),
			map[string]string{"parameters.injected[0]": "must be an object"}},
		{"an unknown key in an injected item", doc(`{"key":"a","value":"1","mode":null,"extra":1}`, ""),
			map[string]string{"parameters.injected[0].extra": "is not a known field"}},
		{"an unknown key at the top", doc("", `,"Injected":[]`),
			map[string]string{"parameters.Injected": "is not a known field"}},
		{"injected must be an array", `{"injected":{},"inheritOrgInjected":true,"suppressedOrgKeys":[]}`,
			map[string]string{"parameters.injected": "must be an array"}},
		{"injected must not be null", `{"injected":null,"inheritOrgInjected":true,"suppressedOrgKeys":[]}`,
			map[string]string{"parameters.injected": "must be an array"}},
		{"inheritOrgInjected must be a boolean", `{"injected":[],"inheritOrgInjected":"yes","suppressedOrgKeys":[]}`,
			map[string]string{"parameters.inheritOrgInjected": "must be a boolean"}},
		{"inheritOrgInjected must not be null", `{"injected":[],"inheritOrgInjected":null,"suppressedOrgKeys":[]}`,
			map[string]string{"parameters.inheritOrgInjected": "must be a boolean"}},
		{"suppressedOrgKeys must not be null", `{"injected":[],"inheritOrgInjected":true,"suppressedOrgKeys":null}`,
			map[string]string{"parameters.suppressedOrgKeys": "must be an array of strings"}},
		{"suppressedOrgKeys items must be strings", `{"injected":[],"inheritOrgInjected":true,"suppressedOrgKeys":["a",null,3]}`,
			map[string]string{"parameters.suppressedOrgKeys[1]": "must be a string", "parameters.suppressedOrgKeys[2]": "must be a string"}},
		{"forwarding must be an object or null", doc("", `,"forwarding":[]`),
			map[string]string{"parameters.forwarding": "must be an object or null"}},
		{"forwarding.enabled is required", doc("", `,"forwarding":{"allowlist":null}`),
			map[string]string{"parameters.forwarding.enabled": "is required"}},
		{"forwarding.allowlist is required", doc("", `,"forwarding":{"enabled":true}`),
			map[string]string{"parameters.forwarding.allowlist": "is required"}},
		{"forwarding.allowlist must be an array of strings or null", doc("", `,"forwarding":{"enabled":true,"allowlist":"utm_source"}`),
			map[string]string{"parameters.forwarding.allowlist": "must be an array of strings or null"}},
		{"an unknown key in forwarding", doc("", `,"forwarding":{"enabled":true,"allowlist":null,"all":true}`),
			map[string]string{"parameters.forwarding.all": "is not a known field"}},
		{"a bad mode", doc(`{"key":"a","value":"1","mode":"sometimes"}`, ""),
			map[string]string{"parameters.injected[0].mode": `must be "always", "default" or null`}},
		{"an empty mode is not null", doc(`{"key":"a","value":"1","mode":""}`, ""),
			map[string]string{"parameters.injected[0].mode": `must be "always", "default" or null`}},
		{"a bad defaultMode", doc("", `,"defaultMode":"ALWAYS"`),
			map[string]string{"parameters.defaultMode": `must be "always", "default" or null`}},
		{"parameters must be an object: an array", `[]`, map[string]string{"parameters": "must be an object or null"}},
		{"parameters must be an object: a string", `"x"`, map[string]string{"parameters": "must be an object or null"}},
		{"parameters must be valid JSON", `{"injected":`, map[string]string{"parameters": "must be an object or null"}},
		{"every problem is listed",
			`{"injected":[{"key":1}],"forwarding":{},"defaultMode":3,"extra":true}`,
			map[string]string{
				"parameters.extra":                "is not a known field",
				"parameters.injected[0].key":      "must be a string",
				"parameters.injected[0].value":    "is required",
				"parameters.injected[0].mode":     "is required",
				"parameters.forwarding.enabled":   "is required",
				"parameters.forwarding.allowlist": "is required",
				"parameters.defaultMode":          `must be "always", "default" or null`,
				"parameters.inheritOrgInjected":   "is required",
				"parameters.suppressedOrgKeys":    "is required",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := params.DecodeLinkConfig([]byte(tt.json))
			assert.Nil(t, c)
			assert.Equal(t, tt.want, fieldsOf(t, err))
		})
	}
}

func TestDecodeLinkConfigAccepts(t *testing.T) {
	tests := []struct {
		name string
		json string
		want params.LinkConfig
	}{
		{"the smallest config", `{"injected":[],"inheritOrgInjected":false,"suppressedOrgKeys":[]}`,
			params.LinkConfig{Injected: []params.InjectedParam{}, SuppressedOrgKeys: []string{}}},
		{"an explicit null mode, forwarding and defaultMode",
			doc(`{"key":"ref","value":"x","mode":null}`, `,"forwarding":null,"defaultMode":null`),
			params.LinkConfig{Injected: []params.InjectedParam{inj("ref", "x", null)}, InheritOrgInjected: true, SuppressedOrgKeys: []string{}}},
		{"a null allowlist forwards all",
			doc("", `,"forwarding":{"enabled":true,"allowlist":null},"defaultMode":"always"`),
			params.LinkConfig{Injected: []params.InjectedParam{}, Forwarding: &params.Forwarding{Enabled: true}, DefaultMode: always, InheritOrgInjected: true, SuppressedOrgKeys: []string{}}},
		{"an empty allowlist stays empty, not null",
			doc("", `,"forwarding":{"enabled":true,"allowlist":[]}`),
			params.LinkConfig{Injected: []params.InjectedParam{}, Forwarding: &params.Forwarding{Enabled: true, Allowlist: []string{}}, InheritOrgInjected: true, SuppressedOrgKeys: []string{}}},
		{"every field", `{
			"injected": [{"key":"utm_term","value":"shoes","mode":"default"},{"key":"ref","value":"","mode":"always"}],
			"forwarding": {"enabled": false, "allowlist": ["gclid"]},
			"defaultMode": "default",
			"inheritOrgInjected": false,
			"suppressedOrgKeys": ["src"]
		}`, params.LinkConfig{
			Injected:           []params.InjectedParam{inj("utm_term", "shoes", dflt), inj("ref", "", always)},
			Forwarding:         &params.Forwarding{Allowlist: []string{"gclid"}},
			DefaultMode:        dflt,
			SuppressedOrgKeys:  []string{"src"},
			InheritOrgInjected: false,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := params.DecodeLinkConfig([]byte(tt.json))
			require.NoError(t, err)
			require.NotNil(t, c)
			assert.Equal(t, tt.want, *c)
		})
	}
}

func TestDecodeLinkConfigNullOrAbsentIsNoConfig(t *testing.T) {
	for _, in := range []string{"null", " null ", "", "  "} {
		c, err := params.DecodeLinkConfig([]byte(in))
		assert.NoError(t, err, in)
		assert.Nil(t, c, in)
	}
}

// A Link body decoded with encoding/json keeps the field errors, so an
// adapter can report them as they are.
func TestLinkConfigInsideALinkBody(t *testing.T) {
	var body struct {
		Parameters *params.LinkConfig `json:"parameters"`
	}
	err := json.Unmarshal([]byte(`{"parameters":{"injected":[{"key":"a","value":"1"}],"inheritOrgInjected":true,"suppressedOrgKeys":[]}}`), &body)
	assert.Equal(t, map[string]string{"parameters.injected[0].mode": "is required"}, fieldsOf(t, err))

	body.Parameters = &params.LinkConfig{}
	require.NoError(t, json.Unmarshal([]byte(`{"parameters":null}`), &body))
	assert.Nil(t, body.Parameters, "null clears the link config")
}

func TestValidateLinkConfig(t *testing.T) {
	long := func(n int) string { return strings.Repeat("k", n) }
	tests := []struct {
		name string
		cfg  params.LinkConfig
		want map[string]string // nil: valid
	}{
		{"a key of 64 characters is valid", params.LinkConfig{Injected: []params.InjectedParam{inj(long(64), "v", null)}}, nil},
		{"a key of 64 multi-byte characters is valid", params.LinkConfig{Injected: []params.InjectedParam{inj(strings.Repeat("é", 64), "v", null)}}, nil},
		{"a value of 512 characters is valid", params.LinkConfig{Injected: []params.InjectedParam{inj("k", strings.Repeat("é", 512), null)}}, nil},
		{"an empty value is valid", params.LinkConfig{Injected: []params.InjectedParam{inj("k", "", always)}}, nil},
		{"an empty key", params.LinkConfig{Injected: []params.InjectedParam{inj("", "v", null)}},
			map[string]string{"parameters.injected[0].key": "must not be blank"}},
		{"a blank key", params.LinkConfig{Injected: []params.InjectedParam{inj(" \t", "v", null)}},
			map[string]string{"parameters.injected[0].key": "must not be blank"}},
		{"a key over 64 characters", params.LinkConfig{Injected: []params.InjectedParam{inj("a", "v", null), inj(long(65), "v", null)}},
			map[string]string{"parameters.injected[1].key": "must be at most 64 characters"}},
		{"a value over 512 characters", params.LinkConfig{Injected: []params.InjectedParam{inj("k", long(513), null)}},
			map[string]string{"parameters.injected[0].value": "must be at most 512 characters"}},
		{"a bad mode", params.LinkConfig{Injected: []params.InjectedParam{inj("k", "v", "Always")}},
			map[string]string{"parameters.injected[0].mode": `must be "always", "default" or null`}},
		{"a bad defaultMode", params.LinkConfig{DefaultMode: "never"},
			map[string]string{"parameters.defaultMode": `must be "always", "default" or null`}},
		{"an empty allowlist entry", params.LinkConfig{Forwarding: &params.Forwarding{Enabled: true, Allowlist: []string{"gclid", ""}}},
			map[string]string{"parameters.forwarding.allowlist[1]": "must not be blank"}},
		{"a blank suppressedOrgKeys entry", params.LinkConfig{SuppressedOrgKeys: []string{" "}},
			map[string]string{"parameters.suppressedOrgKeys[0]": "must not be blank"}},
		{"duplicate injected keys", params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null), inj("b", "2", null), inj("a", "3", always)}},
			map[string]string{"parameters.injected[2].key": "duplicates injected[0].key"}},
		{"keys differing in case are not duplicates", params.LinkConfig{Injected: []params.InjectedParam{inj("a", "1", null), inj("A", "2", null)}}, nil},
		{"several problems at once", params.LinkConfig{
			Injected:    []params.InjectedParam{inj("", long(600), "x")},
			DefaultMode: "x",
		}, map[string]string{
			"parameters.injected[0].key":   "must not be blank",
			"parameters.injected[0].value": "must be at most 512 characters",
			"parameters.injected[0].mode":  `must be "always", "default" or null`,
			"parameters.defaultMode":       `must be "always", "default" or null`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.want, fieldsOf(t, err))
		})
	}
}

func TestDecodeLinkConfigValidates(t *testing.T) {
	_, err := params.DecodeLinkConfig([]byte(doc(`{"key":"a","value":"1","mode":null},{"key":"a","value":"2","mode":null}`, "")))
	assert.Equal(t, map[string]string{"parameters.injected[1].key": "duplicates injected[0].key"}, fieldsOf(t, err))
}

func tooLarge(t *testing.T, err error) *errcode.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := errcode.As(err)
	require.True(t, ok, err.Error())
	require.Equal(t, errcode.ParamConfigTooLarge, e.Code, e.Error())
	return e
}

func manyParams(n, valueLen int) []params.InjectedParam {
	out := make([]params.InjectedParam, n)
	for i := range out {
		out[i] = inj(fmt.Sprintf("key%d", i), strings.Repeat("v", valueLen), null)
	}
	return out
}

func TestParamConfigTooLarge(t *testing.T) {
	t.Run("PARAM_CONFIG_TOO_LARGE: more than 50 injected parameters", func(t *testing.T) {
		c := params.LinkConfig{Injected: manyParams(params.MaxInjected+1, 1)}
		e := tooLarge(t, c.Validate())
		assert.Equal(t, params.MaxInjected, e.Details["max_injected"])
	})
	t.Run("50 injected parameters are allowed", func(t *testing.T) {
		c := params.LinkConfig{Injected: manyParams(params.MaxInjected, 1)}
		assert.NoError(t, c.Validate())
	})
	t.Run("PARAM_CONFIG_TOO_LARGE: more than 50 injected parameters when decoding, before any item is read", func(t *testing.T) {
		items := strings.TrimSuffix(strings.Repeat(`{"bad":1},`, params.MaxInjected+1), ",")
		_, err := params.DecodeLinkConfig([]byte(doc(items, "")))
		tooLarge(t, err)
	})
	t.Run("PARAM_CONFIG_TOO_LARGE: a serialized config over 16 KiB", func(t *testing.T) {
		c := params.LinkConfig{Injected: manyParams(30, params.MaxValueLength)}
		require.Greater(t, c.Size(), params.MaxConfigBytes)
		e := tooLarge(t, c.Validate())
		assert.Equal(t, params.MaxConfigBytes, e.Details["max_bytes"])

		body, err := json.Marshal(c)
		require.NoError(t, err)
		_, err = params.DecodeLinkConfig(body)
		tooLarge(t, err)
	})
	t.Run("PARAM_CONFIG_TOO_LARGE wins over field errors", func(t *testing.T) {
		c := params.LinkConfig{Injected: manyParams(params.MaxInjected+1, 1), DefaultMode: "bad"}
		tooLarge(t, c.Validate())
	})
	t.Run("exactly 16 KiB is allowed, one byte more is not", func(t *testing.T) {
		c := params.LinkConfig{Injected: manyParams(20, 500), SuppressedOrgKeys: []string{"x"}}
		pad := params.MaxConfigBytes - c.Size()
		require.Positive(t, pad)
		c.SuppressedOrgKeys[0] = strings.Repeat("x", 1+pad)
		require.Equal(t, params.MaxConfigBytes, c.Size())
		assert.NoError(t, c.Validate())
		c.SuppressedOrgKeys[0] += "x"
		tooLarge(t, c.Validate())
	})
	t.Run("the size counts characters as written, without HTML escaping", func(t *testing.T) {
		c := params.LinkConfig{Injected: []params.InjectedParam{inj("k", "<&>", null)}}
		body, err := json.Marshal(c)
		require.NoError(t, err)
		assert.Less(t, c.Size(), len(body), "json.Marshal escapes <&>; Size does not")
	})
	t.Run("an organization config has the same limits", func(t *testing.T) {
		o := params.OrgConfig{Injected: manyParams(params.MaxInjected+1, 1)}
		tooLarge(t, o.Validate())
		o = params.OrgConfig{Injected: manyParams(30, params.MaxValueLength)}
		tooLarge(t, o.Validate())
	})
}

func TestDecodeOrgConfig(t *testing.T) {
	c, err := params.DecodeOrgConfig([]byte(`{"injected":[{"key":"ref","value":"hoplink","mode":null}],"forwarding":{"enabled":true,"allowlist":null},"defaultMode":"always"}`))
	require.NoError(t, err)
	assert.Equal(t, params.OrgConfig{
		Injected:    []params.InjectedParam{inj("ref", "hoplink", null)},
		Forwarding:  &params.Forwarding{Enabled: true},
		DefaultMode: always,
	}, *c)

	c, err = params.DecodeOrgConfig([]byte(`{"injected":[]}`))
	require.NoError(t, err, "forwarding and defaultMode may be absent")
	assert.Equal(t, params.OrgConfig{Injected: []params.InjectedParam{}}, *c)

	tests := []struct {
		name, json string
		want       map[string]string
	}{
		{"the body must be an object", `[]`, map[string]string{"body": "must be a JSON object"}},
		{"the body must not be null", `null`, map[string]string{"body": "must be a JSON object"}},
		{"the body must not be empty", ``, map[string]string{"body": "must be a JSON object"}},
		{"injected is required", `{"defaultMode":null}`, map[string]string{"injected": "is required"}},
		{"link-only fields are unknown", `{"injected":[],"inheritOrgInjected":true}`, map[string]string{"inheritOrgInjected": "is not a known field"}},
		{"item errors are named from the top", `{"injected":[{"key":"","value":"v","mode":null}]}`, map[string]string{"injected[0].key": "must not be blank"}},
		{"a missing mode", `{"injected":[{"key":"a","value":"v"}]}`, map[string]string{"injected[0].mode": "is required"}},
		{"forwarding errors", `{"injected":[],"forwarding":{"enabled":1,"allowlist":[""]}}`,
			map[string]string{"forwarding.enabled": "must be a boolean"}},
		{"a blank allowlist entry", `{"injected":[],"forwarding":{"enabled":true,"allowlist":[""]}}`,
			map[string]string{"forwarding.allowlist[0]": "must not be blank"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := params.DecodeOrgConfig([]byte(tt.json))
			assert.Equal(t, tt.want, fieldsOf(t, err))
		})
	}
}

func TestInjectedParamAndForwardingDecodeStrictly(t *testing.T) {
	var p params.InjectedParam
	assert.Equal(t, map[string]string{"mode": "is required"}, fieldsOf(t, json.Unmarshal([]byte(`{"key":"a","value":"b"}`), &p)))
	require.NoError(t, json.Unmarshal([]byte(`{"key":"a","value":"b","mode":"always"}`), &p))
	assert.Equal(t, inj("a", "b", always), p)

	var f params.Forwarding
	assert.Equal(t, map[string]string{"allowlist": "is required"}, fieldsOf(t, json.Unmarshal([]byte(`{"enabled":true}`), &f)))
	assert.Equal(t, map[string]string{"body": "must be a JSON object"}, fieldsOf(t, json.Unmarshal([]byte(`[]`), &f)))
	require.NoError(t, json.Unmarshal([]byte(`{"enabled":true,"allowlist":["a"]}`), &f))
	assert.Equal(t, params.Forwarding{Enabled: true, Allowlist: []string{"a"}}, f)
}

func TestJSONRoundTrip(t *testing.T) {
	t.Run("a full link config", func(t *testing.T) {
		in := params.LinkConfig{
			Injected:           []params.InjectedParam{inj("utm_term", "shoes & socks", dflt), inj("ref", "x", null), inj("é", "<b>", always)},
			Forwarding:         &params.Forwarding{Enabled: true, Allowlist: nil},
			DefaultMode:        null,
			InheritOrgInjected: true,
			SuppressedOrgKeys:  []string{"src"},
		}
		body, err := json.Marshal(in)
		require.NoError(t, err)
		assert.JSONEq(t, `{
			"injected": [
				{"key":"utm_term","value":"shoes & socks","mode":"default"},
				{"key":"ref","value":"x","mode":null},
				{"key":"é","value":"<b>","mode":"always"}
			],
			"forwarding": {"enabled": true, "allowlist": null},
			"defaultMode": null,
			"inheritOrgInjected": true,
			"suppressedOrgKeys": ["src"]
		}`, string(body))
		out, err := params.DecodeLinkConfig(body)
		require.NoError(t, err)
		assert.Equal(t, in, *out)
	})
	t.Run("a zero link config writes its required arrays", func(t *testing.T) {
		body, err := json.Marshal(params.LinkConfig{})
		require.NoError(t, err)
		assert.Equal(t, `{"injected":[],"forwarding":null,"defaultMode":null,"inheritOrgInjected":false,"suppressedOrgKeys":[]}`, string(body))
		out, err := params.DecodeLinkConfig(body)
		require.NoError(t, err)
		assert.Equal(t, params.LinkConfig{Injected: []params.InjectedParam{}, SuppressedOrgKeys: []string{}}, *out)
	})
	t.Run("an empty allowlist is not null", func(t *testing.T) {
		in := params.LinkConfig{Injected: []params.InjectedParam{}, Forwarding: &params.Forwarding{Allowlist: []string{}}, SuppressedOrgKeys: []string{}}
		body, err := json.Marshal(in)
		require.NoError(t, err)
		assert.Contains(t, string(body), `"allowlist":[]`)
		out, err := params.DecodeLinkConfig(body)
		require.NoError(t, err)
		assert.Equal(t, in, *out)
	})
	t.Run("a pointer inside a Link body", func(t *testing.T) {
		type linkBody struct {
			Parameters *params.LinkConfig `json:"parameters"`
		}
		for _, in := range []linkBody{{}, {Parameters: link(inj("a", "1", always))}} {
			body, err := json.Marshal(in)
			require.NoError(t, err)
			var out linkBody
			require.NoError(t, json.Unmarshal(body, &out))
			assert.Equal(t, in, out)
		}
	})
	t.Run("an organization config", func(t *testing.T) {
		in := params.OrgConfig{
			Injected:    []params.InjectedParam{inj("ref", "hoplink", null)},
			Forwarding:  &params.Forwarding{Enabled: true, Allowlist: []string{"gclid"}},
			DefaultMode: always,
		}
		body, err := json.Marshal(in)
		require.NoError(t, err)
		assert.JSONEq(t, `{"injected":[{"key":"ref","value":"hoplink","mode":null}],"forwarding":{"enabled":true,"allowlist":["gclid"]},"defaultMode":"always"}`, string(body))
		out, err := params.DecodeOrgConfig(body)
		require.NoError(t, err)
		assert.Equal(t, in, *out)

		body, err = json.Marshal(params.OrgConfig{})
		require.NoError(t, err)
		assert.Equal(t, `{"injected":[],"forwarding":null,"defaultMode":null}`, string(body))
	})
}

func TestModeValid(t *testing.T) {
	assert.True(t, params.ModeInherit.Valid())
	assert.True(t, params.ModeAlways.Valid())
	assert.True(t, params.ModeDefault.Valid())
	assert.False(t, params.Mode("Always").Valid())
}
