package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/httpapi"
)

// accessLines serves req through AccessLog(h) logging JSON at info level
// and returns the response and the lines logged.
func accessLines(t *testing.T, h http.Handler, req *http.Request) (*httptest.ResponseRecorder, []map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	rec := httptest.NewRecorder()
	httpapi.AccessLog(h, log).ServeHTTP(rec, req)
	var lines []map[string]any
	dec := json.NewDecoder(&buf)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		lines = append(lines, m)
	}
	return rec, lines
}

func TestAccessLog(t *testing.T) {
	t.Run("one line with method, host, path, status, bytes and request id; no query string", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "gone fishing")
		})
		req := httptest.NewRequest(http.MethodPost, "http://acme.hop.localhost:8080/spring?password=hunter2&token=abc", nil)
		rec, lines := accessLines(t, h, req)
		require.Len(t, lines, 1)
		l := lines[0]
		assert.Equal(t, "request", l["msg"])
		assert.Equal(t, "INFO", l["level"])
		assert.Equal(t, "POST", l["method"])
		assert.Equal(t, "acme.hop.localhost:8080", l["host"])
		assert.Equal(t, "/spring", l["path"])
		assert.EqualValues(t, 404, l["status"])
		assert.EqualValues(t, len("gone fishing"), l["bytes"])
		assert.Contains(t, l, "duration")
		id, _ := l["request_id"].(string)
		assert.Len(t, id, 24, "a new request id")
		assert.Equal(t, id, rec.Header().Get("X-Request-Id"), "echoed to the client")
		line, _ := json.Marshal(l)
		assert.NotContains(t, string(line), "hunter2")
		assert.NotContains(t, string(line), "token")
	})

	t.Run("a well-formed request id is kept and reaches the handler", func(t *testing.T) {
		var seen string
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Get("X-Request-Id") })
		req := httptest.NewRequest(http.MethodGet, "http://localhost/healthz", nil)
		req.Header.Set("X-Request-Id", "client-id-1")
		_, lines := accessLines(t, h, req)
		require.Len(t, lines, 1)
		assert.Equal(t, "client-id-1", lines[0]["request_id"])
		assert.Equal(t, "client-id-1", seen)
		assert.EqualValues(t, 200, lines[0]["status"], "nothing written is 200")
	})

	t.Run("the REST API echoes the id the access log made", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "http://localhost/v1/apps", nil)
		rec, lines := accessLines(t, httpapi.New(httpapi.Options{}), req)
		require.Len(t, lines, 1)
		assert.Equal(t, lines[0]["request_id"], rec.Header().Get("X-Request-Id"))
		assert.EqualValues(t, rec.Code, lines[0]["status"])
	})

	t.Run("flushes pass through", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			require.NoError(t, http.NewResponseController(w).Flush())
			_, ok := w.(http.Flusher)
			assert.True(t, ok)
		})
		rec, lines := accessLines(t, h, httptest.NewRequest(http.MethodGet, "http://localhost/", nil))
		assert.True(t, rec.Flushed)
		require.Len(t, lines, 1)
	})

	t.Run("off below info: the handler is returned as it is", func(t *testing.T) {
		h := http.FileServer(http.Dir("."))
		log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
		assert.Same(t, h, httpapi.AccessLog(h, log))
		assert.Same(t, h, httpapi.AccessLog(h, nil))
	})
}

func TestAccessLogOmitsTheQueryOfEveryRequest(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for _, target := range []string{"/oauth/authorize?code=secret", "/x?state=secret#frag", "/?secret"} {
		_, lines := accessLines(t, h, httptest.NewRequest(http.MethodGet, "http://localhost"+target, nil))
		require.Len(t, lines, 1)
		b, _ := json.Marshal(lines[0])
		assert.False(t, strings.Contains(string(b), "secret"), "%s: %s", target, b)
	}
}

func TestAccessLogHidesInvitationTokens(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for target, want := range map[string]string{
		"/invitations/s3cr3t-t0ken":             "/invitations/:token",
		"/invitations/s3cr3t-t0ken/accept":      "/invitations/:token/accept",
		"/invitations/s3cr3t-t0ken/account?x=1": "/invitations/:token/account",
		"/v1/invitations/0190e0b4":              "/v1/invitations/0190e0b4",
		"/spring":                               "/spring",
	} {
		_, lines := accessLines(t, h, httptest.NewRequest(http.MethodPost, "http://localhost"+target, nil))
		require.Len(t, lines, 1)
		assert.Equal(t, want, lines[0]["path"], target)
		b, _ := json.Marshal(lines[0])
		assert.NotContains(t, string(b), "s3cr3t")
	}
}
