package strictjson_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	f.Fuzz(func(t *testing.T, body string) {
		var dst decodeTarget
		err := strictjson.DecodeObject([]byte(body), &dst)
		if err == nil {
			return
		}
		if errcode.CodeOf(err) != errcode.ValidationError {
			t.Fatalf("unexpected error %v", err)
		}
	})
}
