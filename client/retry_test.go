package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
)

// answer is one scripted answer of a fake server.
type answer struct {
	status     int
	retryAfter string
}

// scripted is a server that gives its answers in order, then 200 with an
// organization, and records every request it got.
type scripted struct {
	mu      sync.Mutex
	answers []answer
	got     []*http.Request
	bodies  []string
	at      []time.Time
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.got = append(s.got, r)
	s.bodies = append(s.bodies, string(body))
	s.at = append(s.at, time.Now())
	var a *answer
	if len(s.answers) > 0 {
		a = &s.answers[0]
		s.answers = s.answers[1:]
	}
	s.mu.Unlock()
	w.Header().Set("X-Request-Id", "req-1")
	w.Header().Set("Content-Type", "application/json")
	if a == nil {
		_, _ = io.WriteString(w, `{"id":"o1","name":"Default","require_two_factor":true,"session_lifetime_hours":1,"idle_timeout_minutes":1}`)
		return
	}
	if a.retryAfter != "" {
		w.Header().Set("Retry-After", a.retryAfter)
	}
	w.WriteHeader(a.status)
	code := map[int]string{429: "RATE_LIMIT_EXCEEDED", 503: "SERVICE_UNAVAILABLE"}[a.status]
	_, _ = io.WriteString(w, `{"error":{"code":"`+code+`","message":"try later"}}`)
}

func (s *scripted) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func fake(t *testing.T, answers ...answer) (*scripted, string) {
	t.Helper()
	s := &scripted{answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func newClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, "svc_test_key", opts...)
	require.NoError(t, err)
	return c
}

func TestRetriesIdempotentRequestsOn429And503(t *testing.T) {
	ctx := context.Background()
	policy := client.SecurityPolicy{RequireTwoFactor: true, SessionLifetimeHours: 1, IdleTimeoutMinutes: 1}
	calls := map[string]func(c *client.Client) error{
		"GET": func(c *client.Client) error { _, err := c.GetOrganization(ctx, "o1"); return err },
		"PUT": func(c *client.Client) error { _, err := c.PutOrganizationSecurity(ctx, "o1", policy); return err },
		"DELETE": func(c *client.Client) error {
			_, err := c.DeleteOrganization(ctx, "o1", "Default")
			return err
		},
	}
	for method, call := range calls {
		t.Run(method, func(t *testing.T) {
			s, url := fake(t, answer{429, "0"}, answer{503, "0"})
			require.NoError(t, call(newClient(t, url)))
			require.Equal(t, 3, s.hits(), "two refusals, then the answer")
			for i, r := range s.got {
				assert.Equal(t, method, r.Method)
				assert.Equal(t, s.bodies[0], s.bodies[i], "every attempt sends the same body")
			}
		})
	}
}

// TestRetriesAMatchTheServerReplays proves that an attribution match with
// a device id, which the server answers from its first install when
// repeated, is retried, and one without is not.
func TestRetriesAMatchTheServerReplays(t *testing.T) {
	ctx := context.Background()
	req := client.MatchRequest{Platform: "ios", FingerprintVersion: "basic", SDKVersion: "1.0.0"}
	s, url := fake(t, answer{503, "0"})
	_, err := newClient(t, url).MatchAttribution(ctx, req)
	require.Error(t, err)
	assert.Equal(t, 1, s.hits(), "no device id or fingerprint: nothing to replay")

	withDevice := req
	withDevice.DeviceID = "0193a8f2-0000-7000-8000-000000000001"
	s, url = fake(t, answer{503, "0"})
	_, err = newClient(t, url).MatchAttribution(ctx, withDevice)
	require.NoError(t, err)
	assert.Equal(t, 2, s.hits())
	assert.Equal(t, s.bodies[0], s.bodies[1])
}

func TestRetryWaitsRetryAfter(t *testing.T) {
	s, url := fake(t, answer{429, "1"})
	_, err := newClient(t, url).GetOrganization(context.Background(), "o1")
	require.NoError(t, err)
	require.Equal(t, 2, s.hits())
	assert.GreaterOrEqual(t, s.at[1].Sub(s.at[0]), time.Second, "the second attempt waits the Retry-After")
}

func TestNoRetry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		answers []answer
		opts    []client.Option
		call    func(c *client.Client) error
		status  int
	}{
		{name: "POST is never retried: the API has no idempotency keys", answers: []answer{{503, "0"}},
			call: func(c *client.Client) error {
				_, err := c.CreateLink(ctx, client.CreateLinkRequest{DestinationURL: "https://x.example/"})
				return err
			}, status: 503},
		{name: "PATCH is never retried", answers: []answer{{429, "0"}},
			call: func(c *client.Client) error {
				_, err := c.UpdateLink(ctx, "l1", client.UpdateLinkRequest{Name: client.Null[string]()})
				return err
			}, status: 429},
		{name: "WithoutRetries sends once", answers: []answer{{429, "0"}}, opts: []client.Option{client.WithoutRetries()},
			call: func(c *client.Client) error { _, err := c.GetOrganization(ctx, "o1"); return err }, status: 429},
		{name: "a Retry-After beyond the total wait is returned at once", answers: []answer{{503, "3600"}},
			call: func(c *client.Client) error { _, err := c.GetOrganization(ctx, "o1"); return err }, status: 503},
		{name: "other statuses are not retried", answers: []answer{{500, ""}},
			call: func(c *client.Client) error { _, err := c.GetOrganization(ctx, "o1"); return err }, status: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, url := fake(t, tt.answers...)
			err := tt.call(newClient(t, url, tt.opts...))
			var e *client.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.StatusCode)
			assert.Equal(t, "req-1", e.RequestID)
			assert.Equal(t, 1, s.hits())
		})
	}
}

func TestRetriesAreBounded(t *testing.T) {
	s, url := fake(t, answer{503, "0"}, answer{503, "0"}, answer{503, "0"}, answer{503, "0"}, answer{503, "0"})
	_, err := newClient(t, url, client.WithRetries(4, time.Minute)).GetOrganization(context.Background(), "o1")
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, client.CodeServiceUnavailable, e.Code)
	assert.Equal(t, 4, s.hits(), "WithRetries(4) sends four times")

	s, url = fake(t, answer{503, "0"}, answer{503, "0"}, answer{503, "0"}, answer{503, "0"})
	_, err = newClient(t, url).GetOrganization(context.Background(), "o1")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, client.DefaultMaxAttempts, s.hits())
}

func TestRetryWaitEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, url := fake(t, answer{429, "30"})
	// The context ends as the answer arrives, during the wait.
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		cancel()
		return resp, err
	})}
	_, err := newClient(t, url, client.WithHTTPClient(hc)).GetOrganization(ctx, "o1")
	assert.ErrorIs(t, err, context.Canceled)
	var e *client.Error
	require.ErrorAs(t, err, &e, "the last answer comes with the context's error")
	assert.Equal(t, 30*time.Second, e.RetryAfter)
	assert.Equal(t, 1, s.hits())

	// A deadline that ends before the wait returns the answer at once.
	ctx, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	s, url = fake(t, answer{429, "7200"})
	_, err = newClient(t, url, client.WithRetries(3, 3*time.Hour)).GetOrganization(ctx, "o1")
	require.ErrorAs(t, err, &e)
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
	assert.Equal(t, 1, s.hits())
}

func TestErrorWithoutEnvelope(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>proxy error</html>")
	}))
	t.Cleanup(srv.Close)
	_, err := newClient(t, srv.URL).GetLink(context.Background(), "l1")
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadGateway, e.StatusCode)
	assert.Empty(t, e.Code)
	assert.Equal(t, "Bad Gateway", e.Message)
	assert.Equal(t, "hoplink: 502 Bad Gateway", e.Error())
}

func TestNew(t *testing.T) {
	s, url := fake(t)
	for _, base := range []string{url, url + "/", url + "/v1", url + "/v1/"} {
		_, err := newClient(t, base, client.WithUserAgent("acme-backend/2")).GetOrganization(context.Background(), "o 1")
		require.NoError(t, err, base)
	}
	for _, r := range s.got {
		assert.Equal(t, "/v1/organizations/o%201", r.URL.EscapedPath(), "one /v1, ids escaped")
		assert.Equal(t, "Bearer svc_test_key", r.Header.Get("Authorization"))
		assert.Equal(t, "acme-backend/2", r.Header.Get("User-Agent"))
	}
	s.got = nil
	c := newClient(t, url)
	_, err := c.GetLink(context.Background(), "..")
	require.NoError(t, err)
	assert.Equal(t, "/v1/links/%2E%2E", s.got[0].URL.EscapedPath(), "a dot segment stays an id")
	_, err = c.GetLink(context.Background(), "")
	assert.ErrorContains(t, err, "an id in the path is empty")
	err = c.ClearLinkMoveChoice(context.Background(), "")
	assert.ErrorContains(t, err, "an id in the path is empty")
	assert.Len(t, s.got, 1, "an empty id sends nothing")

	for _, bad := range []string{"", "api.example.com", "ftp://api.example.com", "http://%zz"} {
		_, err := client.New(bad, "k")
		assert.Error(t, err, bad)
	}

	var used bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used = true
		return http.DefaultTransport.RoundTrip(r)
	})}
	_, err = newClient(t, url, client.WithHTTPClient(hc)).GetOrganization(context.Background(), "o1")
	require.NoError(t, err)
	assert.True(t, used, "WithHTTPClient's client sends the requests")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNullable proves the three states of a PATCH field on the wire.
func TestNullable(t *testing.T) {
	s, url := fake(t)
	_, err := newClient(t, url).UpdateLink(context.Background(), "l1", client.UpdateLinkRequest{
		Name:    client.Null[string](),
		OGTitle: client.Value("Spring"),
		Tags:    client.Value([]string{}),
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":null,"og_title":"Spring","tags":[]}`, s.bodies[0], "unset fields are not sent")
	assert.True(t, strings.HasPrefix(s.got[0].Header.Get("Content-Type"), "application/json"))
}

// TestRateLimitOfTheServer proves that the server's 429 reaches a caller
// without retries as *Error with its Retry-After, and that a client with
// retries does not wait longer than it may.
func TestRateLimitOfTheServer(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, "free")
	var err error
	for range 61 {
		if _, err = tn.c.ListKeys(ctx); err != nil {
			break
		}
	}
	e := apiError(t, err, http.StatusTooManyRequests, client.CodeRateLimitExceeded)
	assert.Positive(t, e.RetryAfter)
	assert.LessOrEqual(t, e.RetryAfter, time.Minute)

	retrying := s.client(t, tn.raw, client.WithRetries(3, time.Millisecond))
	apiError(t, firstErr(retrying.ListKeys(ctx)), http.StatusTooManyRequests, client.CodeRateLimitExceeded)
}
