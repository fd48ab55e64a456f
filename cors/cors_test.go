package cors_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/cors"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})
	h := cors.New(next,
		cors.Rule{Paths: []string{"/mcp"}, Origins: []string{"https://agent.example"}, Methods: []string{"POST"},
			Headers: []string{"Authorization", "Content-Type"}, Expose: []string{"WWW-Authenticate"}},
		cors.Rule{Paths: []string{"/.well-known/doc"}, Origins: []string{"*"}, Methods: []string{"GET"}},
		cors.Rule{Paths: []string{"/closed"}, Methods: []string{"POST"}},
	)
	tests := []struct {
		name          string
		method, path  string
		headers       map[string]string
		status        int
		allowOrigin   string
		allowMethods  string
		allowHeaders  string
		expose        string
		allow         string
		vary          string
		reachesTarget bool
	}{
		{name: "a preflight of an allowed origin is answered with the policy", method: "OPTIONS", path: "/mcp",
			headers: map[string]string{"Origin": "https://agent.example", "Access-Control-Request-Method": "POST"},
			status:  http.StatusNoContent, allowOrigin: "https://agent.example", allowMethods: "POST, OPTIONS",
			allowHeaders: "Authorization, Content-Type", allow: "POST, OPTIONS", vary: "Origin"},
		{name: "origins compare without case", method: "OPTIONS", path: "/mcp",
			headers: map[string]string{"Origin": "https://Agent.example", "Access-Control-Request-Method": "POST"},
			status:  http.StatusNoContent, allowOrigin: "https://Agent.example", allowMethods: "POST, OPTIONS",
			allowHeaders: "Authorization, Content-Type", allow: "POST, OPTIONS", vary: "Origin"},
		{name: "a preflight of another origin gets no CORS headers", method: "OPTIONS", path: "/mcp",
			headers: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
			status:  http.StatusNoContent, allow: "POST, OPTIONS", vary: "Origin"},
		{name: "a plain OPTIONS is 204 with Allow, not 405", method: "OPTIONS", path: "/mcp",
			status: http.StatusNoContent, allow: "POST, OPTIONS", vary: "Origin"},
		{name: "a request of an allowed origin is marked and served", method: "POST", path: "/mcp",
			headers: map[string]string{"Origin": "https://agent.example"}, status: http.StatusTeapot,
			allowOrigin: "https://agent.example", expose: "WWW-Authenticate", vary: "Origin", reachesTarget: true},
		{name: "a request of another origin is served unmarked", method: "POST", path: "/mcp",
			headers: map[string]string{"Origin": "https://evil.example"}, status: http.StatusTeapot, vary: "Origin",
			reachesTarget: true},
		{name: "a public document allows any origin with *", method: "OPTIONS", path: "/.well-known/doc",
			headers: map[string]string{"Origin": "https://any.example", "Access-Control-Request-Method": "GET"},
			status:  http.StatusNoContent, allowOrigin: "*", allowMethods: "GET, OPTIONS", allow: "GET, OPTIONS"},
		{name: "a public document's answer allows any origin", method: "GET", path: "/.well-known/doc",
			headers: map[string]string{"Origin": "https://any.example"}, status: http.StatusTeapot, allowOrigin: "*",
			reachesTarget: true},
		{name: "a rule without origins allows none", method: "OPTIONS", path: "/closed",
			headers: map[string]string{"Origin": "https://agent.example", "Access-Control-Request-Method": "POST"},
			status:  http.StatusNoContent, allow: "POST, OPTIONS", vary: "Origin"},
		{name: "a path no rule covers is left alone, OPTIONS too", method: "OPTIONS", path: "/v1/links",
			headers: map[string]string{"Origin": "https://agent.example", "Access-Control-Request-Method": "GET"},
			status:  http.StatusTeapot, reachesTarget: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code)
			hd := rec.Header()
			assert.Equal(t, tt.allowOrigin, hd.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, tt.allowMethods, hd.Get("Access-Control-Allow-Methods"))
			assert.Equal(t, tt.allowHeaders, hd.Get("Access-Control-Allow-Headers"))
			assert.Equal(t, tt.expose, hd.Get("Access-Control-Expose-Headers"))
			assert.Equal(t, tt.allow, hd.Get("Allow"))
			assert.Equal(t, tt.vary, hd.Get("Vary"))
			assert.Equal(t, tt.reachesTarget, rec.Code == http.StatusTeapot)
			if tt.allowMethods != "" {
				assert.Equal(t, "600", hd.Get("Access-Control-Max-Age"))
			}
		})
	}
}
