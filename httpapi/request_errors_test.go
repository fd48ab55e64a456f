package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestBodyErrorsSayWhy proves, over HTTP, that a truncated JSON body names
// the offset of its syntax error and that a form-encoded body names the
// Content-Type, both as 400 VALIDATION_ERROR on the field body.
func TestBodyErrorsSayWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	tests := []struct {
		name, body, contentType, message string
	}{
		{"truncated JSON", `{"name":"ci","scopes":["links:read"]`, "", "body: is not valid JSON: syntax error at offset 36 (the body ends before the JSON does)"},
		{"a form-encoded body", `name=ci&scopes=links:read`, "application/x-www-form-urlencoded",
			`body: Content-Type must be application/json, not "application/x-www-form-urlencoded"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request{method: http.MethodPost, path: "/v1/keys", key: o.key.raw, body: tt.body, off: true} // bodies the document refuses
			if tt.contentType != "" {
				req.headers = map[string]string{"Content-Type": tt.contentType}
			}
			resp := h.do(t, req)
			assertError(t, resp, http.StatusBadRequest, errcode.ValidationError)
			var env struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			resp.decode(t, &env)
			assert.Equal(t, tt.message, env.Error.Message)
		})
	}
}
