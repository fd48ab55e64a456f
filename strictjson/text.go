package strictjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// Messages of the field errors checkText reports.
const (
	msgInvalidUTF8    = "must be valid UTF-8"
	msgInvalidKey     = "is a field name that is not valid UTF-8"
	msgDuplicateField = "appears more than once"
)

// maxDepth is the nesting encoding/json refuses beyond. checkText leaves a
// deeper body to the decode, which refuses it in its own words, and so
// holds at most maxDepth frames however deep the body.
const maxDepth = 10000

// frame is one open object or array on checkText's path.
type frame struct {
	object bool
	// wantKey is true in an object whose next string is a key.
	wantKey bool
	// key is the current key of an object; index the current element of
	// an array.
	key   []byte
	index int
	// keys holds an object's first keys, many the rest: most objects are
	// small, and a slice costs them less than a map.
	keys [][]byte
	many map[string]struct{}
}

// push returns stack with a new object or array on top. A frame's room
// for keys is kept for the next frame at its depth, so that an array of
// many objects does not allocate for each.
func push(stack []frame, object bool) []frame {
	if len(stack) == cap(stack) {
		return append(stack, frame{object: object, wantKey: object})
	}
	stack = stack[:len(stack)+1]
	f := &stack[len(stack)-1]
	keys, many := f.keys[:0], f.many
	clear(many)
	*f = frame{object: object, wantKey: object, keys: keys, many: many}
	return stack
}

// smallObject is how many keys of an object frame.keys holds.
const smallObject = 16

// add adds key to the keys of f and reports whether it was there already.
func (f *frame) add(key []byte) bool {
	for _, k := range f.keys {
		if bytes.Equal(k, key) {
			return true
		}
	}
	if _, ok := f.many[string(key)]; ok {
		return true
	}
	if len(f.keys) < smallObject {
		f.keys = append(f.keys, key)
		return false
	}
	if f.many == nil {
		f.many = map[string]struct{}{}
	}
	f.many[string(key)] = struct{}{}
	return false
}

// checkText reads body in one pass over its bytes, before it is decoded,
// and refuses what encoding/json would accept silently: a string, key or
// value, that is not valid UTF-8 (the decoder replaces each bad byte with
// U+FFFD), and a key that appears twice in one object (the decoder keeps
// the last). A \u escape of a lone UTF-16 surrogate, such as "\ud800" not
// followed by a low surrogate, decodes to U+FFFD as well, so it counts as
// invalid UTF-8. The answer is VALIDATION_ERROR listing, in the order of
// the body, each such value or key by its path ("name", "ios.fallback_url",
// "tags[2]"; a key not in valid UTF-8 is shown as the decoder reads it,
// with U+FFFD in place of its bad bytes). It is nil when there is none,
// and also when body is not one well-formed JSON object: the decode that
// follows refuses that body with the errors it always gave.
func checkText(body []byte) error {
	var (
		stack    []frame
		errs     []errcode.FieldError
		reported map[errcode.FieldError]bool
	)
	report := func(field, message string) {
		fe := errcode.FieldError{Field: field, Message: message}
		if reported[fe] {
			return
		}
		if reported == nil {
			reported = map[errcode.FieldError]bool{}
		}
		reported[fe] = true
		errs = append(errs, fe)
	}
	// The scan trusts the syntax only as far as it needs to walk it: on
	// input that is not JSON it stops or reports nonsense, and the check
	// of the syntax below, made only when there is something to report,
	// leaves such a body to the decode.
scan:
	for i := 0; i < len(body); {
		switch c := body[i]; c {
		case '{', '[':
			if len(stack) == maxDepth {
				return nil
			}
			stack = push(stack, c == '{')
			i++
		case '}', ']':
			if len(stack) == 0 {
				break scan
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if len(stack) > 0 {
				if top := &stack[len(stack)-1]; top.object {
					top.wantKey = true
				} else {
					top.index++
				}
			}
			i++
		case '"':
			n, valid := scanString(body[i:])
			if n < 0 {
				break scan
			}
			lit := body[i : i+n]
			i += n
			if len(stack) == 0 || !stack[len(stack)-1].wantKey {
				if !valid {
					report(path(stack), msgInvalidUTF8)
				}
				continue
			}
			top := &stack[len(stack)-1]
			key := keyText(lit)
			top.key, top.wantKey = key, false
			if !valid {
				report(path(stack), msgInvalidKey)
			} else if top.add(key) {
				// A third time is the same error again, reported once.
				report(path(stack), msgDuplicateField)
			}
		default:
			// White space, a colon, or a number or literal.
			i++
		}
	}
	if len(errs) == 0 {
		return nil
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(body) {
		return nil
	}
	return errcode.Validation(errs...)
}

// path names the value at the top of stack as field errors name fields:
// keys joined by dots, array elements by their index in brackets
// ("parameters.injected[0].mode").
func path(stack []frame) string {
	var b strings.Builder
	for _, f := range stack {
		if !f.object {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(f.key)
	}
	return b.String()
}

// keyText returns the text of the string literal lit as encoding/json
// decodes it, so that "a" and "\u0061" are one key.
func keyText(lit []byte) []byte {
	if bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		return lit[1 : len(lit)-1]
	}
	var s string
	_ = json.Unmarshal(lit, &s)
	return []byte(s)
}

// scanString returns the length of the string literal at the start of b,
// quotes included, or -1 when it does not end, and whether it decodes
// without a replacement: its bytes are valid UTF-8 and every \u escape of
// a UTF-16 surrogate is half of a pair. The literal's other syntax is left
// to the decoder.
func scanString(b []byte) (n int, valid bool) {
	valid = true
	for i := 1; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1, valid
		case c == '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				r, ok := hex4(b[i+2:])
				if !ok {
					i += 2
					continue
				}
				i += 6
				if !utf16.IsSurrogate(r) {
					continue
				}
				if r >= 0xdc00 || i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
					valid = false
					continue
				}
				if lo, ok := hex4(b[i+2:]); !ok || lo < 0xdc00 || lo > 0xdfff {
					valid = false
					continue
				}
				i += 6
				continue
			}
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				valid = false
			}
			i += size
		}
	}
	return -1, false
}

// hex4 returns the value of the four hexadecimal digits at the start of h.
func hex4(h []byte) (rune, bool) {
	if len(h) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
