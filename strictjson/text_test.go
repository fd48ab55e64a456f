package strictjson_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
)

// textTarget takes any JSON, so that only the checks of the text refuse.
type textTarget struct {
	Name   string         `json:"name"`
	Tags   []string       `json:"tags"`
	IOS    map[string]any `json:"ios"`
	Items  []any          `json:"items"`
	Nested map[string]any `json:"nested"`
}

// Every string must be valid UTF-8 and no object may hold a key twice:
// encoding/json would replace bad bytes with U+FFFD and keep the last of
// two keys, so a client's mistake would be stored silently.
func TestDecodeRefusesBadText(t *testing.T) {
	const (
		utf8Msg = "must be valid UTF-8"
		keyMsg  = "is a field name that is not valid UTF-8"
		dupMsg  = "appears more than once"
	)
	tests := []struct {
		name   string
		body   string
		fields []errcode.FieldError // nil: the body is accepted
	}{
		{"invalid UTF-8 in a top-level value is refused", "{\"name\":\"a\xffb\"}",
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"invalid UTF-8 in a nested value is refused", "{\"ios\":{\"fallback_url\":\"https://x/\xc3\"}}",
			[]errcode.FieldError{{Field: "ios.fallback_url", Message: utf8Msg}}},
		{"invalid UTF-8 in an array element is refused", "{\"tags\":[\"a\",\"b\",\"\xed\xa0\x80\"]}",
			[]errcode.FieldError{{Field: "tags[2]", Message: utf8Msg}}},
		{"invalid UTF-8 in an object inside an array is refused", "{\"items\":[1,{\"k\":[\"\x80\"]}]}",
			[]errcode.FieldError{{Field: "items[1].k[0]", Message: utf8Msg}}},
		{"invalid UTF-8 in a key is refused", "{\"nested\":{\"a\xfeb\":1}}",
			[]errcode.FieldError{{Field: "nested.a\uFFFDb", Message: keyMsg}}},
		{"a lone high surrogate escape is refused", `{"name":"a\ud800b"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"a lone low surrogate escape is refused", `{"tags":["\udc00"]}`,
			[]errcode.FieldError{{Field: "tags[0]", Message: utf8Msg}}},
		{"a high surrogate escape at the end is refused", `{"name":"\uD83D"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"two high surrogate escapes are refused", `{"name":"\ud83d\ud83d"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"a high surrogate escape before a letter escape is refused", `{"name":"\ud83d\u0041"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"a high surrogate escape before one above the low surrogates is refused", `{"name":"\ud83d\ue000"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"a high surrogate escape before another escape is refused", `{"name":"\ud83d\n"}`,
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"a lone surrogate escape in a key is refused", `{"nested":{"\udfff":1}}`,
			[]errcode.FieldError{{Field: "nested.\uFFFD", Message: keyMsg}}},
		{"valid multi-byte UTF-8 passes", `{"name":"héllo wörld 日本 😀","tags":["€"],"nested":{"ключ":"значение"}}`, nil},
		{"valid surrogate pair escapes pass", `{"name":"\ud83d\ude00 \uD83D\uDE00","tags":["\ud800\udc00"]}`, nil},
		{"escapes that are not surrogates pass", `{"name":"\u0041\ufffd\" \\ \/ \b\f\n\r\t"}`, nil},
		{"a U+FFFD written out passes", "{\"name\":\"\xef\xbf\xbd\"}", nil},
		{"a duplicate top-level key is refused", `{"name":"a","tags":[],"name":"b"}`,
			[]errcode.FieldError{{Field: "name", Message: dupMsg}}},
		{"a duplicate nested key is refused", `{"ios":{"url":"a","fallback_url":"b","fallback_url":"c"}}`,
			[]errcode.FieldError{{Field: "ios.fallback_url", Message: dupMsg}}},
		{"a duplicate key in an object inside an array is refused", `{"items":[{"a":1},{"b":1,"b":2}]}`,
			[]errcode.FieldError{{Field: "items[1].b", Message: dupMsg}}},
		{"a duplicate key spelled with an escape is refused", `{"name":"a","n\u0061me":"b"}`,
			[]errcode.FieldError{{Field: "name", Message: dupMsg}}},
		{"a key three times is named once", `{"nested":{"a":1,"a":2,"a":3}}`,
			[]errcode.FieldError{{Field: "nested.a", Message: dupMsg}}},
		{"the same key in two objects passes", `{"name":"a","nested":{"name":"b","x":{"name":"c"}},"items":[{"name":1},{"name":2}]}`, nil},
		{"keys differing in case are not duplicates", `{"nested":{"a":1,"A":2}}`, nil},
		{"every bad string and key is named in the order of the body",
			"{\"tags\":[\"\xff\"],\"name\":\"a\",\"name\":\"\xff\",\"ios\":{\"\xff\":1}}",
			[]errcode.FieldError{
				{Field: "tags[0]", Message: utf8Msg},
				{Field: "name", Message: dupMsg},
				{Field: "name", Message: utf8Msg},
				{Field: "ios.\uFFFD", Message: keyMsg},
			}},
		{"bad text wins over the errors of the decode", "{\"color\":\"red\",\"name\":\"\xff\"}",
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
		{"trailing data keeps its own error", "{\"name\":\"\xff\"} {}",
			[]errcode.FieldError{{Field: "body", Message: "must hold one JSON object only"}}},
		{"a body that is not an object keeps its own error", "[\"\xff\"]",
			[]errcode.FieldError{{Field: "body", Message: "must be a JSON object"}}},
		{"broken JSON keeps its own error", "{\"name\":\"a\",\"name\":\"b\"",
			[]errcode.FieldError{{Field: "body", Message: "is not valid JSON: syntax error at offset 22 (the body ends before the JSON does)"}}},
		{"invalid UTF-8 outside a string keeps the syntax error", "{\"name\":\"a\"\xff}",
			[]errcode.FieldError{{Field: "body", Message: "is not valid JSON: syntax error at offset 12 (invalid character 'ÿ' after object key:value pair)"}}},
		{"a number too large for a float is still read past", "{\"items\":[1e400],\"name\":\"\xff\"}",
			[]errcode.FieldError{{Field: "name", Message: utf8Msg}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst textTarget
			err := strictjson.DecodeObject([]byte(tt.body), &dst)
			if tt.fields == nil {
				require.NoError(t, err)
				return
			}
			e, ok := errcode.As(err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			assert.Equal(t, tt.fields, e.Fields)

			// A request body is refused alike, whether decoded here or
			// read for the caller's own decoder.
			r := httptest.NewRequest(http.MethodPost, "/v1/links", strings.NewReader(tt.body))
			assert.Equal(t, err, strictjson.Decode(r, &textTarget{}))
		})
	}
}

// ReadBody refuses bad text in a JSON object and leaves any other body to
// the caller's decoder.
func TestReadBodyChecksText(t *testing.T) {
	read := func(body string) ([]byte, error) {
		return strictjson.ReadBody(httptest.NewRequest(http.MethodPut, "/v1/orgs/x/parameters", strings.NewReader(body)))
	}
	_, err := read(`{"injected":[{"key":"a","key":"b"}]}`)
	e, ok := errcode.As(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, []errcode.FieldError{{Field: "injected[0].key", Message: "appears more than once"}}, e.Fields)
	assert.Equal(t, "injected[0].key: appears more than once", e.Message)

	for _, body := range []string{`{"a":"é"}`, "not json \xff", `["\ud800"]`, ``} {
		got, err := read(body)
		require.NoError(t, err, body)
		assert.Equal(t, body, string(got))
	}
}

// Nesting as deep as encoding/json allows is read; deeper nesting is left
// to the decode's own error.
func TestDecodeTextDepth(t *testing.T) {
	deep := func(n int, inner string) string {
		return `{"items":` + strings.Repeat("[", n-1) + inner + strings.Repeat("]", n-1) + `}`
	}
	var dst textTarget
	err := strictjson.DecodeObject([]byte(deep(10000, `"\ud800"`)), &dst)
	e, ok := errcode.As(err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Fields, 1)
	assert.Equal(t, "must be valid UTF-8", e.Fields[0].Message)
	assert.True(t, strings.HasPrefix(e.Fields[0].Field, "items[0][0]"))

	err = strictjson.DecodeObject([]byte(deep(10001, `"\ud800"`)), &dst)
	assert.Equal(t, errcode.Field("body", "is not valid JSON: syntax error at offset 10009 (invalid character '[' exceeded max depth)"), err)
}
