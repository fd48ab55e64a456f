package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
)

// errorResolver answers each slug with the error of errs, and every other
// slug with 404.
type errorResolver struct{ errs map[string]error }

func (r errorResolver) Resolve(_ context.Context, _, slug string) (*linking.Resolved, error) {
	if err, ok := r.errs[slug]; ok {
		return nil, err
	}
	return nil, errcode.New(errcode.NotFound, "link not found")
}

func (r errorResolver) ResolveAddress(ctx context.Context, domain, slug string) (*linking.Resolved, bool, error) {
	res, err := r.Resolve(ctx, domain, slug)
	return res, false, err
}

func (errorResolver) AppForDomain(context.Context, string) (*linking.App, error) {
	return nil, errcode.New(errcode.NotFound, "no app")
}

// observed is one request as Instrument's observer saw it.
type observed struct {
	route  string
	status int
}

func TestLinkDomainTellsOutcomesAndRoutes(t *testing.T) {
	t.Parallel()
	var outcomes []httpapi.Outcome
	var requests []observed
	h := httpapi.Instrument(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: errorResolver{errs: map[string]error{
			"down":    fmt.Errorf("store: link: connection refused: %w", errcode.ErrUnavailable),
			"expired": errcode.New(errcode.Gone, "link has expired"),
			"broken":  fmt.Errorf("store: no such column"),
		}},
		Logger:    discardLogger(),
		OnOutcome: func(o httpapi.Outcome) { outcomes = append(outcomes, o) },
	}), func(route string, status int, took time.Duration) {
		assert.GreaterOrEqual(t, took, time.Duration(0))
		requests = append(requests, observed{route, status})
	})
	for _, tt := range []struct {
		method, path string
		status       int
		outcome      httpapi.Outcome
		route        string
	}{
		{http.MethodGet, "/down", http.StatusServiceUnavailable, httpapi.OutcomeUnavailable, httpapi.RouteShortLink},
		{http.MethodGet, "/expired", http.StatusGone, httpapi.OutcomeGone, httpapi.RouteShortLink},
		{http.MethodGet, "/missing", http.StatusNotFound, httpapi.OutcomeNotFound, httpapi.RouteShortLink},
		{http.MethodGet, "/broken", http.StatusInternalServerError, httpapi.OutcomeError, httpapi.RouteShortLink},
	} {
		outcomes, requests = nil, nil
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, "http://"+linkDomain+tt.path, nil))
		require.Equal(t, tt.status, rec.Code, tt.path)
		assert.Equal(t, []httpapi.Outcome{tt.outcome}, outcomes, tt.path)
		assert.Equal(t, []observed{{tt.route, tt.status}}, requests, tt.path)
	}

	// Requests that are not for a short link tell no outcome; a path no
	// slug could match has no route.
	for _, tt := range []struct {
		path   string
		status int
		route  string
	}{
		{"/", http.StatusNotFound, ""},
		{"/a/b/c", http.StatusNotFound, ""},
		{"/healthz", http.StatusOK, "/healthz"},
		{httpapi.AASAPath, http.StatusNotFound, httpapi.AASAPath},
	} {
		outcomes, requests = nil, nil
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://"+linkDomain+tt.path, nil))
		require.Equal(t, tt.status, rec.Code, tt.path)
		assert.Empty(t, outcomes, tt.path)
		assert.Equal(t, []observed{{tt.route, tt.status}}, requests, tt.path)
	}
}

func TestOutcomeNames(t *testing.T) {
	t.Parallel()
	var names []string
	for o := range httpapi.NumOutcomes + 1 {
		names = append(names, o.String())
	}
	assert.Equal(t, []string{"redirect", "moved", "preview", "password", "not_found", "gone", "unavailable", "error", "error"}, names)
}

func TestSetRouteReachesInstrumentThroughWrappers(t *testing.T) {
	t.Parallel()
	var got observed
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		httpapi.SetRoute(w, "/v1/links/:id")
		w.WriteHeader(http.StatusTeapot)
	})
	// The access log wraps the writer Instrument gives, and unwraps to it.
	h := httpapi.Instrument(httpapi.AccessLog(inner, discardLogger()), func(route string, status int, _ time.Duration) {
		got = observed{route, status}
	})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/links/x", nil))
	assert.Equal(t, observed{"/v1/links/:id", http.StatusTeapot}, got)

	// Without Instrument, SetRoute does nothing.
	rec := httptest.NewRecorder()
	httpapi.SetRoute(rec, "/x")
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestAPINamesItsRoutePatterns(t *testing.T) {
	t.Parallel()
	var got []observed
	h := httpapi.Instrument(httpapi.New(httpapi.Options{Logger: discardLogger()}), func(route string, status int, _ time.Duration) {
		got = append(got, observed{route, status})
	})
	for _, path := range []string{"/healthz", "/nowhere", "/healthz/"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	assert.Equal(t, []observed{{"/healthz", http.StatusOK}, {"", http.StatusNotFound}, {"", http.StatusNotFound}}, got,
		"the pattern that matched, none for an unknown or non-canonical path")
}

// TestAccessLogAndInstrumentShareOneWriter: serve wraps its handler in
// both; whichever wraps the other, the handler gets one writer over the
// server's, and the log line and the observer are told the same status,
// bytes and duration (one pair of clock reads).
func TestAccessLogAndInstrumentShareOneWriter(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"access log outside", "instrument outside"} {
		t.Run(order, func(t *testing.T) {
			var under http.ResponseWriter
			inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				httpapi.SetRoute(w, "/v1/links/:id")
				under = w.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
				w.WriteHeader(http.StatusTeapot)
				_, _ = w.Write([]byte("short and stout"))
			})
			var got observed
			var took time.Duration
			observe := func(route string, status int, d time.Duration) { got, took = observed{route, status}, d }
			var buf bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&buf, nil))
			var h http.Handler
			if order == "access log outside" {
				h = httpapi.AccessLog(httpapi.Instrument(inner, observe), log)
			} else {
				h = httpapi.Instrument(httpapi.AccessLog(inner, log), observe)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/links/x", nil))

			assert.Same(t, rec, under, "one writer between the handler and the server's")
			assert.Equal(t, observed{"/v1/links/:id", http.StatusTeapot}, got)
			var line struct {
				Status    int
				Bytes     int
				Duration  int64
				RequestID string `json:"request_id"`
			}
			require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
			assert.Equal(t, http.StatusTeapot, line.Status)
			assert.Equal(t, len("short and stout"), line.Bytes)
			assert.Equal(t, took.Nanoseconds(), line.Duration, "one duration for the log and the metrics")
			assert.Equal(t, rec.Header().Get("X-Request-Id"), line.RequestID)
			assert.NotEmpty(t, line.RequestID)
		})
	}
}

func TestInstrumentWithoutObserverIsTheHandler(t *testing.T) {
	t.Parallel()
	inner := http.NotFoundHandler()
	assert.Equal(t, fmt.Sprintf("%p", inner), fmt.Sprintf("%p", httpapi.Instrument(inner, nil)))
}
