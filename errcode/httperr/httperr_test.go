package httperr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
)

func TestEveryCodeMapsToAStatus(t *testing.T) {
	for _, code := range errcode.Codes {
		status := httperr.StatusOf(code)
		if code == errcode.InternalError {
			assert.Equal(t, 500, status)
			continue
		}
		assert.NotEqual(t, 500, status, "code %s has no status", code)
		assert.GreaterOrEqual(t, status, 400, code)
	}
	assert.Equal(t, 500, httperr.StatusOf("NO_SUCH_CODE"))
}

func TestSpecStatuses(t *testing.T) {
	want := map[errcode.Code]int{
		errcode.ValidationError: 400, errcode.InvalidID: 400, errcode.CursorInvalid: 400,
		errcode.Unauthorized: 401, errcode.Forbidden: 403, errcode.SDKKeyRouteForbidden: 403,
		errcode.NotFound: 404, errcode.SlugTaken: 409, errcode.ExportNotComplete: 409, errcode.Gone: 410, errcode.InvalidDomain: 422,
		errcode.RetentionWindowUnavailable: 422, errcode.RateLimitExceeded: 429, errcode.ServiceUnavailable: 503,
	}
	for code, status := range want {
		assert.Equal(t, status, httperr.StatusOf(code), code)
	}
}

func TestWriteEnvelope(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		status  int
		code    string
		message string
		retry   string
	}{
		{"a coded error keeps its message", errcode.New(errcode.SlugTaken, "slug taken").WithDetail("slug", "abc"), 409, "SLUG_TAKEN", "slug taken", ""},
		{"an unknown error hides its text", errors.New("pq: secret table exploded"), 500, "INTERNAL_ERROR", "an unexpected error occurred", ""},
		{"an unreachable database is 503 with Retry-After", fmt.Errorf("store: %w", errcode.ErrUnavailable), 503, "SERVICE_UNAVAILABLE", "the service is temporarily unavailable; retry shortly", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			httperr.Write(rec, httptest.NewRequest("GET", "/", nil), nil, tt.err)
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.retry, rec.Header().Get("Retry-After"))
			var body struct {
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, tt.code, body.Error.Code)
			assert.Equal(t, tt.message, body.Error.Message)
			assert.NotContains(t, rec.Body.String(), "secret table")
		})
	}
}

func TestValidationDetailsListFields(t *testing.T) {
	rec := httptest.NewRecorder()
	httperr.Write(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil,
		errcode.Validation(errcode.FieldError{Field: "name", Message: "is required"}))
	assert.JSONEq(t, `{"error":{"code":"VALIDATION_ERROR","message":"name: is required","details":{"fields":[{"field":"name","message":"is required"}]}}}`, rec.Body.String())
}

// An unexpected error is logged with the caller's attrs between the method
// and the status; a client's own mistake is not logged at all.
func TestWriteLogsUnexpectedErrorsOnly(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	httperr.Write(httptest.NewRecorder(), r, log, errcode.New(errcode.NotFound, "no such link"), "route", "/links/:id")
	assert.Empty(t, logs.String())
	httperr.Write(httptest.NewRecorder(), r, log, errors.New("boom"), "route", "/links/:id")
	assert.Equal(t, "level=ERROR msg=\"request failed\" method=GET route=/links/:id status=500 err=boom\n", logs.String())
}

// A client that went away gets no answer.
func TestWriteSkipsCanceledRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	httperr.Write(rec, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx), nil, context.Canceled)
	assert.Zero(t, rec.Body.Len())
}

func TestWriteJSONFallsBackToInternalError(t *testing.T) {
	rec := httptest.NewRecorder()
	httperr.WriteJSON(rec, http.StatusOK, map[string]any{"bad": make(chan int)})
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	assert.Equal(t, `{"error":{"code":"INTERNAL_ERROR","message":"an unexpected error occurred"}}`+"\n", rec.Body.String())
}
