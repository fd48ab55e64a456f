package params

import (
	"strings"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// Validate checks c against SPEC.md's LinkParamConfig rules and Hoplink's
// size limits. A non-nil error is an *errcode.Error:
//
//   - PARAM_CONFIG_TOO_LARGE when c has more than MaxInjected injected
//     parameters or its serialized form is longer than MaxConfigBytes. These
//     are checked first, and win over any field error.
//   - VALIDATION_ERROR with details.fields named below "parameters": a key
//     that is blank or longer than MaxKeyLength, a value longer than
//     MaxValueLength, a key used twice, a mode or defaultMode other than
//     "always", "default" or null, and a blank entry in forwarding.allowlist
//     or suppressedOrgKeys.
//
// A blank value is valid: it adds nothing when applied.
func (c *LinkConfig) Validate() error {
	if err := checkSize(len(c.Injected), c); err != nil {
		return err
	}
	var v validator
	v.config(LinkField, c.Injected, c.Forwarding, c.DefaultMode)
	v.keys(join(LinkField, "suppressedOrgKeys"), c.SuppressedOrgKeys)
	return v.err()
}

// Validate checks c with the rules of LinkConfig.Validate; field errors are
// named from the top ("injected[0].key").
func (c *OrgConfig) Validate() error {
	if err := checkSize(len(c.Injected), c); err != nil {
		return err
	}
	var v validator
	v.config("", c.Injected, c.Forwarding, c.DefaultMode)
	return v.err()
}

// Size returns the length in bytes of c's compact JSON encoding without HTML
// escaping, the figure compared with MaxConfigBytes.
func (c *LinkConfig) Size() int { return encodedSize(c) }

// Size returns the length in bytes of c's compact JSON encoding without HTML
// escaping, the figure compared with MaxConfigBytes.
func (c *OrgConfig) Size() int { return encodedSize(c) }

func encodedSize(v any) int {
	b, err := marshal(v)
	if err != nil {
		// Every field is a string, a bool or a slice of them: encoding
		// cannot fail. Should it, the config is refused as too large.
		return MaxConfigBytes + 1
	}
	return len(b)
}

func checkSize(injected int, v any) error {
	if injected > MaxInjected {
		return tooManyInjected(injected)
	}
	if n := encodedSize(v); n > MaxConfigBytes {
		return errcode.Newf(errcode.ParamConfigTooLarge,
			"the parameter configuration is %d bytes; at most %d bytes are allowed", n, MaxConfigBytes).
			WithDetail("max_bytes", MaxConfigBytes)
	}
	return nil
}

func tooManyInjected(n int) *errcode.Error {
	return errcode.Newf(errcode.ParamConfigTooLarge,
		"the parameter configuration has %d injected parameters; at most %d are allowed", n, MaxInjected).
		WithDetail("max_injected", MaxInjected)
}

type validator struct {
	fields []errcode.FieldError
}

func (v *validator) fail(path, msg string) {
	v.fields = append(v.fields, errcode.FieldError{Field: path, Message: msg})
}

func (v *validator) err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return errcode.Validation(v.fields...)
}

func (v *validator) config(path string, injected []InjectedParam, fwd *Forwarding, defaultMode Mode) {
	p := join(path, "injected")
	for i, param := range injected {
		item := index(p, i)
		switch n := utf8.RuneCountInString(param.Key); {
		case blank(param.Key):
			v.fail(join(item, "key"), "must not be blank")
		case n > MaxKeyLength:
			v.fail(join(item, "key"), "must be at most 64 characters")
		default:
			for j := range i {
				if injected[j].Key == param.Key {
					v.fail(join(item, "key"), "duplicates "+join(index("injected", j), "key"))
					break
				}
			}
		}
		if utf8.RuneCountInString(param.Value) > MaxValueLength {
			v.fail(join(item, "value"), "must be at most 512 characters")
		}
		if !param.Mode.Valid() {
			v.fail(join(item, "mode"), `must be "always", "default" or null`)
		}
	}
	if fwd != nil {
		v.keys(join(join(path, "forwarding"), "allowlist"), fwd.Allowlist)
	}
	if !defaultMode.Valid() {
		v.fail(join(path, "defaultMode"), `must be "always", "default" or null`)
	}
}

// keys reports each blank entry of a list of parameter keys.
func (v *validator) keys(path string, keys []string) {
	for i, k := range keys {
		if blank(k) {
			v.fail(index(path, i), "must not be blank")
		}
	}
}

// blank reports whether s is empty or only white space.
func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}
