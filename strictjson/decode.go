package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hoplink/hoplink/errcode"
)

// MaxBodyBytes is the largest request body accepted (1 MiB).
const MaxBodyBytes = 1 << 20

// Decode reads r's JSON body into dst, a pointer to a struct, strictly: the
// body must be one JSON object of at most MaxBodyBytes, with every string
// in valid UTF-8, no key twice in one object, no field that dst lacks and
// every value of the right type, sent as JSON (CheckContentType). Failures
// are VALIDATION_ERROR with details.fields naming each field, or
// PAYLOAD_TOO_LARGE.
func Decode(r *http.Request, dst any) error {
	if err := CheckContentType(r); err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return DecodeObject(body, dst)
}

// ReadBody reads r's body, at most MaxBodyBytes, after CheckContentType:
// a larger body is
// PAYLOAD_TOO_LARGE, and one that cannot be read VALIDATION_ERROR naming
// the field "body". A body that is one JSON object is checked as
// DecodeObject checks it before decoding: a string not in valid UTF-8 or a
// key twice in one object is VALIDATION_ERROR naming each by its path. Any
// other body is returned as read, for the caller's decoder to judge.
func ReadBody(r *http.Request) ([]byte, error) {
	if err := CheckContentType(r); err != nil {
		return nil, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if err := checkText(body); err != nil {
		return nil, err
	}
	return body, nil
}

// CheckContentType refuses a request whose Content-Type names another
// media type than JSON (application/json, or a +json type such as
// application/merge-patch+json), with VALIDATION_ERROR naming the field
// "body": a form-encoded body, which curl -d sends by default, would
// otherwise be reported as a body that is not a JSON object. A request
// without Content-Type is read as JSON (SPEC.md: bodies are JSON).
func CheckContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return errcode.Field("body", "Content-Type must be application/json, not "+strconvQuote(ct))
}

// strconvQuote quotes s for a message, cut to 100 bytes.
func strconvQuote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}

// readBody is ReadBody without the check of the JSON text, which Decode
// leaves to DecodeObject.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errcode.New(errcode.PayloadTooLarge, "the request body is larger than 1 MiB")
		}
		return nil, errcode.Field("body", "could not be read")
	}
	return body, nil
}

// DecodeObject decodes body, one JSON object, into dst, a pointer to a
// struct, as strictly as Decode decodes request bodies. First, in one pass
// over its bytes, a string (key or value) not in valid UTF-8 or a key
// that appears twice in one object, at any depth, is VALIDATION_ERROR with
// details.fields naming each by its path in the order of the body; a \u
// escape of a lone UTF-16 surrogate ("\ud800") counts as invalid UTF-8, as
// encoding/json would replace it with U+FFFD. Then a field dst lacks or a
// value of the wrong type is VALIDATION_ERROR with details.fields naming
// the field, sorted by name. A field whose own UnmarshalJSON returns an
// errcode error keeps it: its field errors are listed as they are, and any
// other code is the answer. The MCP tools decode their arguments with it.
func DecodeObject(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errcode.Field("body", "a JSON object is required")
	}
	if err := checkText(body); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return errcode.Field("body", bodyError(body, err))
	}
	if dec.More() {
		return errcode.Field("body", "must hold one JSON object only")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errcode.Field("body", "must hold one JSON object only")
	}

	fields := jsonFields(reflect.TypeOf(dst).Elem())
	v := reflect.ValueOf(dst).Elem()
	var errs []errcode.FieldError
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		idx, ok := fields[name]
		if !ok {
			errs = append(errs, errcode.FieldError{Field: name, Message: "is not a known field"})
			continue
		}
		fv := v.FieldByIndex(idx)
		d := json.NewDecoder(bytes.NewReader(raw[name]))
		d.DisallowUnknownFields()
		if err := d.Decode(fv.Addr().Interface()); err != nil {
			// A field's own UnmarshalJSON (a parameter config) may return
			// our error type: its field errors name the fields themselves,
			// and any other code (PARAM_CONFIG_TOO_LARGE) is the answer.
			if e, ok := errcode.As(err); ok {
				if e.Code != errcode.ValidationError {
					return e
				}
				errs = append(errs, e.Fields...)
				continue
			}
			errs = append(errs, fieldError(name, err))
		}
	}
	if len(errs) > 0 {
		return errcode.Validation(errs...)
	}
	return nil
}

// bodyError says why body, which failed to decode into an object with
// err, is not one: not JSON at all (with the byte offset of the syntax
// error, or where it ends early), or JSON of another kind.
func bodyError(body []byte, err error) string {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("is not valid JSON: syntax error at offset %d (%s)", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("is not valid JSON: syntax error at offset %d (the body ends before the JSON does)", len(body))
	}
	return "must be a JSON object"
}

func fieldError(name string, err error) errcode.FieldError {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := name
		if typeErr.Field != "" {
			field = name + "." + typeErr.Field
		}
		return errcode.FieldError{Field: field, Message: "must be " + describeType(typeErr.Type)}
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return errcode.FieldError{Field: name + "." + strings.Trim(rest, `"`), Message: "is not a known field"}
	}
	if strings.Contains(msg, "parsing time") {
		return errcode.FieldError{Field: name, Message: "must be an RFC 3339 date-time"}
	}
	if strings.Contains(msg, "invalid UUID") {
		return errcode.FieldError{Field: name, Message: "must be a UUID"}
	}
	return errcode.FieldError{Field: name, Message: "has an invalid value"}
}

func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

var fieldCache sync.Map // reflect.Type -> map[string][]int

// jsonFields maps the JSON names of struct type t's fields (embedded structs
// included) to their field indexes.
func jsonFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Index
	}
	fieldCache.Store(t, m)
	return m
}
