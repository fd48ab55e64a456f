package strictjson_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
)

type decodeTarget struct {
	Name   string     `json:"name"`
	Count  int        `json:"count"`
	Tags   []string   `json:"tags"`
	When   *time.Time `json:"when"`
	ID     *uuid.UUID `json:"id"`
	Nested *struct {
		On bool `json:"on"`
	} `json:"nested"`
	Ignored string `json:"-"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"a valid body", `{"name":"a","count":2,"tags":["x"],"when":"2026-01-02T03:04:05Z","id":"0190e0b4-7a5b-7c3e-8f00-000000000001","nested":{"on":true}}`, nil},
		{"an unknown field", `{"name":"a","color":"red"}`, []string{"color"}},
		{"a field hidden from JSON is unknown", `{"Ignored":"x"}`, []string{"Ignored"}},
		{"a wrong type names the field", `{"count":"two"}`, []string{"count"}},
		{"several errors are all named", `{"count":"two","tags":"x","extra":1}`, []string{"count", "extra", "tags"}},
		{"a bad date-time", `{"when":"yesterday"}`, []string{"when"}},
		{"a bad UUID", `{"id":"123"}`, []string{"id"}},
		{"an unknown nested field", `{"nested":{"off":true}}`, []string{"nested.off"}},
		{"a wrong nested type", `{"nested":{"on":"yes"}}`, []string{"nested.on"}},
		{"an empty body", ``, []string{"body"}},
		{"not an object", `[1,2]`, []string{"body"}},
		{"null", `null`, []string{"body"}},
		{"broken JSON", `{"name":`, []string{"body"}},
		{"two objects", `{} {}`, []string{"body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst decodeTarget
			err := strictjson.DecodeObject([]byte(tt.body), &dst)
			if tt.fields == nil {
				require.NoError(t, err)
				assert.Equal(t, "a", dst.Name)
				assert.True(t, dst.Nested.On)
				return
			}
			e, ok := errcode.As(err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
				assert.NotEmpty(t, f.Message)
			}
			assert.Equal(t, tt.fields, got)
		})
	}
}

func TestDecodeRefusesLargeBodies(t *testing.T) {
	body := `{"name":"` + strings.Repeat("a", strictjson.MaxBodyBytes) + `"}`
	r := httptest.NewRequest(http.MethodPost, "/v1/keys", strings.NewReader(body))
	var dst decodeTarget
	assert.Equal(t, errcode.PayloadTooLarge, errcode.CodeOf(strictjson.Decode(r, &dst)))
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"name":"a","count":1}`)
	f.Add(`{"nested":{"on":true}}`)
	f.Add(`[]`)
	f.Add(`{"when":"x"}`)
	f.Add("{\"name\":\"a\xffb\",\"tags\":[\"\xc3\"]}")
	f.Add("{\"nested\":{\"o\xfen\":true}}")
	f.Add(`{"name":"\ud800","tags":["\ud83d\ude00","\udc00"]}`)
	f.Add(`{"name":"a","name":"b"}`)
	f.Add(`{"nested":{"on":true,"on":false},"tags":[]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var dst decodeTarget
		err := strictjson.DecodeObject([]byte(body), &dst)
		if err == nil {
			// Nothing was replaced on the way: the body is valid UTF-8,
			// and a U+FFFD decoded was written in it.
			if !utf8.ValidString(body) {
				t.Fatalf("accepted invalid UTF-8 %q", body)
			}
			written := strings.Contains(body, "\uFFFD") || strings.Contains(strings.ToLower(body), `\ufffd`)
			for _, s := range append([]string{dst.Name}, dst.Tags...) {
				if strings.ContainsRune(s, utf8.RuneError) && !written {
					t.Fatalf("accepted %q, decoded with a replacement", body)
				}
			}
			if hasDuplicateKey(body) {
				t.Fatalf("accepted a duplicate key in %q", body)
			}
			return
		}
		e, ok := errcode.As(err)
		if !ok || e.Code != errcode.ValidationError {
			t.Fatalf("unexpected error %v", err)
		}
		for _, f := range e.Fields {
			if f.Message == "appears more than once" && !hasDuplicateKey(body) {
				t.Fatalf("%s named twice in %q, which has no duplicate key", f.Field, body)
			}
		}
	})
}

// hasDuplicateKey reports whether body, read token by token, is JSON with
// a key twice in one object.
func hasDuplicateKey(body string) bool {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	type object struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*object // nil for an array
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.wantKey {
			if top.keys[s] {
				return true
			}
			top.keys[s], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].wantKey = true
		}
	}
}

// TestDecodeSaysWhyABodyIsNotAnObject proves that a body that is no JSON
// object says which it is: not JSON (with the offset of the syntax error),
// or JSON of another kind.
func TestDecodeSaysWhyABodyIsNotAnObject(t *testing.T) {
	tests := []struct {
		name, body, message string
	}{
		{"truncated JSON ends early at its length", `{"name":"a","count":`, "is not valid JSON: syntax error at offset 20 (the body ends before the JSON does)"},
		{"a stray character names its offset", `{"name":"a",}`, "is not valid JSON: syntax error at offset 13 (invalid character '}' looking for beginning of object key string)"},
		{"a form-encoded body sent as JSON", `name=a&count=2`, "is not valid JSON: syntax error at offset 2 (invalid character 'a' in literal null (expecting 'u'))"},
		{"an array is JSON, but no object", `[{"name":"a"}]`, "must be a JSON object"},
		{"a string is JSON, but no object", `"a"`, "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst decodeTarget
			err := strictjson.DecodeObject([]byte(tt.body), &dst)
			assert.Equal(t, errcode.Field("body", tt.message), err)
		})
	}
}

// TestDecodeChecksTheContentType proves that a body sent with another
// media type than JSON is refused as such, and that JSON types and a
// missing Content-Type are read.
func TestDecodeChecksTheContentType(t *testing.T) {
	tests := []struct {
		contentType string
		ok          bool
	}{
		{"", true},
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"Application/JSON", true},
		{"application/merge-patch+json", true},
		{"application/x-www-form-urlencoded", false},
		{"text/plain", false},
		{"multipart/form-data; boundary=x", false},
		{"json", false},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/apps", strings.NewReader(`{"name":"a"}`))
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			var dst decodeTarget
			err := strictjson.Decode(r, &dst)
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, "a", dst.Name)
				return
			}
			assert.Equal(t, errcode.Field("body", "Content-Type must be application/json, not "+strconv.Quote(tt.contentType)), err)
			r = httptest.NewRequest(http.MethodPut, "/v1/organizations/x/parameters", strings.NewReader(`{}`))
			r.Header.Set("Content-Type", tt.contentType)
			_, err = strictjson.ReadBody(r)
			assert.Equal(t, errcode.ValidationError, errcode.CodeOf(err), "ReadBody checks it too")
		})
	}
}
