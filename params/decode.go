package params

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/hoplink/hoplink/errcode"
)

// DecodeLinkConfig decodes and validates a Link's `parameters` value. JSON
// null, or empty data (the field was absent), gives a nil config and no
// error: the link inherits its organization's defaults. Every failure is an
// *errcode.Error: VALIDATION_ERROR with details.fields named below
// "parameters", or PARAM_CONFIG_TOO_LARGE.
func DecodeLinkConfig(data []byte) (*LinkConfig, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || isNull(data) {
		return nil, nil
	}
	var c LinkConfig
	if err := c.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// DecodeOrgConfig decodes and validates an organization's parameter
// defaults, the whole body of a request. Empty data or JSON null is a
// VALIDATION_ERROR on "body"; field errors are named from the top
// ("injected[0].key").
func DecodeOrgConfig(data []byte) (*OrgConfig, error) {
	var c OrgConfig
	data = bytes.TrimSpace(data)
	if len(data) == 0 || isNull(data) {
		return nil, errcode.Field("body", "must be a JSON object")
	}
	if err := c.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// UnmarshalJSON decodes c strictly (see LinkConfig). JSON null leaves c
// unchanged. A failure is an *errcode.Error: VALIDATION_ERROR naming each
// field below "parameters" ("parameters.injected[2].mode": "is required"),
// or PARAM_CONFIG_TOO_LARGE when injected holds more than MaxInjected items.
func (c *LinkConfig) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var d decoder
	obj := d.object(data, LinkField, "must be an object or null")
	if obj == nil {
		return d.err()
	}
	d.known(obj, LinkField, "injected", "forwarding", "defaultMode", "inheritOrgInjected", "suppressedOrgKeys")
	var out LinkConfig
	out.Injected = d.injected(obj, LinkField)
	if d.tooLarge != nil {
		return d.tooLarge
	}
	out.Forwarding = d.forwarding(obj, LinkField)
	out.DefaultMode = d.mode(obj, LinkField, "defaultMode", false)
	out.InheritOrgInjected = d.boolean(obj, LinkField, "inheritOrgInjected")
	out.SuppressedOrgKeys = d.strings(obj, LinkField, "suppressedOrgKeys", false)
	if err := d.err(); err != nil {
		return err
	}
	*c = out
	return nil
}

// UnmarshalJSON decodes c strictly (see OrgConfig). JSON null leaves c
// unchanged. Failures are as for LinkConfig, with field names from the top.
func (c *OrgConfig) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var d decoder
	obj := d.object(data, "", "must be a JSON object")
	if obj == nil {
		return d.err()
	}
	d.known(obj, "", "injected", "forwarding", "defaultMode")
	var out OrgConfig
	out.Injected = d.injected(obj, "")
	if d.tooLarge != nil {
		return d.tooLarge
	}
	out.Forwarding = d.forwarding(obj, "")
	out.DefaultMode = d.mode(obj, "", "defaultMode", false)
	if err := d.err(); err != nil {
		return err
	}
	*c = out
	return nil
}

// UnmarshalJSON decodes p strictly: key, value and mode are required, mode
// is "always", "default" or null, and unknown keys are errors. Field errors
// are named "key", "value" and "mode".
func (p *InjectedParam) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var d decoder
	v, _ := d.injectedParam(data, "")
	if err := d.err(); err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalJSON decodes f strictly: enabled and allowlist are required,
// allowlist is an array of strings or null, and unknown keys are errors.
func (f *Forwarding) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var d decoder
	v := d.forwardingObject(data, "")
	if err := d.err(); err != nil {
		return err
	}
	*f = *v
	return nil
}

// decoder collects field errors while it walks a raw JSON value.
type decoder struct {
	fields   []errcode.FieldError
	tooLarge *errcode.Error
}

func (d *decoder) fail(path, msg string) {
	if path == "" {
		path = "body"
	}
	d.fields = append(d.fields, errcode.FieldError{Field: path, Message: msg})
}

func (d *decoder) err() error {
	if d.tooLarge != nil {
		return d.tooLarge
	}
	if len(d.fields) > 0 {
		return errcode.Validation(d.fields...)
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isNull(raw []byte) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// object decodes raw as a JSON object; when it is not one it reports msg at
// path and returns nil.
func (d *decoder) object(raw []byte, path, msg string) map[string]json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		d.fail(path, msg)
		return nil
	}
	return obj
}

// known reports every key of obj that is not one of names, in sorted order.
func (d *decoder) known(obj map[string]json.RawMessage, path string, names ...string) {
	var unknown []string
	for k := range obj {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		d.fail(join(path, k), "is not a known field")
	}
}

// required returns obj[name] or reports it missing.
func (d *decoder) required(obj map[string]json.RawMessage, path, name string) (json.RawMessage, bool) {
	raw, ok := obj[name]
	if !ok {
		d.fail(join(path, name), "is required")
	}
	return raw, ok
}

func (d *decoder) str(raw json.RawMessage, path string) string {
	var s string
	if isNull(raw) || json.Unmarshal(raw, &s) != nil {
		d.fail(path, "must be a string")
	}
	return s
}

func (d *decoder) boolean(obj map[string]json.RawMessage, path, name string) bool {
	raw, ok := d.required(obj, path, name)
	if !ok {
		return false
	}
	var b bool
	if isNull(raw) || json.Unmarshal(raw, &b) != nil {
		d.fail(join(path, name), "must be a boolean")
	}
	return b
}

// mode decodes obj[name] as a Mode; absent is null unless required.
func (d *decoder) mode(obj map[string]json.RawMessage, path, name string, required bool) Mode {
	var raw json.RawMessage
	var ok bool
	if required {
		raw, ok = d.required(obj, path, name)
	} else {
		raw, ok = obj[name]
	}
	if !ok || isNull(raw) {
		return ModeInherit
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || (s != string(ModeAlways) && s != string(ModeDefault)) {
		d.fail(join(path, name), `must be "always", "default" or null`)
		return ModeInherit
	}
	return Mode(s)
}

// strings decodes obj[name], a required array of strings, null only when
// nullable (then nil).
func (d *decoder) strings(obj map[string]json.RawMessage, path, name string, nullable bool) []string {
	raw, ok := d.required(obj, path, name)
	if !ok {
		return nil
	}
	p := join(path, name)
	if isNull(raw) {
		if !nullable {
			d.fail(p, "must be an array of strings")
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		if nullable {
			d.fail(p, "must be an array of strings or null")
		} else {
			d.fail(p, "must be an array of strings")
		}
		return nil
	}
	out := make([]string, len(items))
	for i, item := range items {
		out[i] = d.str(item, index(p, i))
	}
	return out
}

// injected decodes obj["injected"], a required array of InjectedParam. More
// than MaxInjected items is PARAM_CONFIG_TOO_LARGE before any item is read.
func (d *decoder) injected(obj map[string]json.RawMessage, path string) []InjectedParam {
	raw, ok := d.required(obj, path, "injected")
	if !ok {
		return nil
	}
	p := join(path, "injected")
	var items []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &items) != nil {
		d.fail(p, "must be an array")
		return nil
	}
	if len(items) > MaxInjected {
		d.tooLarge = tooManyInjected(len(items))
		return nil
	}
	out := make([]InjectedParam, 0, len(items))
	for i, item := range items {
		if v, ok := d.injectedParam(item, index(p, i)); ok {
			out = append(out, v)
		}
	}
	return out
}

func (d *decoder) injectedParam(raw json.RawMessage, path string) (InjectedParam, bool) {
	var p InjectedParam
	obj := d.object(raw, path, "must be an object")
	if obj == nil {
		return p, false
	}
	d.known(obj, path, "key", "value", "mode")
	if raw, ok := d.required(obj, path, "key"); ok {
		p.Key = d.str(raw, join(path, "key"))
	}
	if raw, ok := d.required(obj, path, "value"); ok {
		p.Value = d.str(raw, join(path, "value"))
	}
	p.Mode = d.mode(obj, path, "mode", true)
	return p, true
}

// forwarding decodes obj["forwarding"]: absent or null is nil.
func (d *decoder) forwarding(obj map[string]json.RawMessage, path string) *Forwarding {
	raw, ok := obj["forwarding"]
	if !ok || isNull(raw) {
		return nil
	}
	return d.forwardingObject(raw, join(path, "forwarding"))
}

func (d *decoder) forwardingObject(raw json.RawMessage, path string) *Forwarding {
	msg := "must be an object or null"
	if path == "" {
		msg = "must be a JSON object"
	}
	obj := d.object(raw, path, msg)
	if obj == nil {
		return nil
	}
	d.known(obj, path, "enabled", "allowlist")
	return &Forwarding{
		Enabled:   d.boolean(obj, path, "enabled"),
		Allowlist: d.strings(obj, path, "allowlist", true),
	}
}
