package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxAttempts is how many times a retryable request is sent at most,
// unless WithRetries says otherwise.
const DefaultMaxAttempts = 3

// DefaultMaxRetryWait bounds the total time one call spends waiting between
// attempts, unless WithRetries says otherwise. An answer whose Retry-After
// would exceed what is left of it is returned at once.
const DefaultMaxRetryWait = 30 * time.Second

// defaultUserAgent is the User-Agent when WithUserAgent is not used.
const defaultUserAgent = "hoplink-go-client"

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// Client calls one Hoplink server with one key. It is safe for concurrent
// use.
type Client struct {
	base        *url.URL
	key         string
	http        *http.Client
	userAgent   string
	maxAttempts int
	maxWait     time.Duration
	// fallbackWait is the wait before a retry whose answer has no usable
	// Retry-After; it doubles with every attempt.
	fallbackWait time.Duration
}

// Option changes a Client made by New.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetries sets how many times a retryable request is sent at most
// (maxAttempts, 1 or less sends it once) and how long one call may wait
// between attempts in all (maxWait; zero or less keeps DefaultMaxRetryWait).
func WithRetries(maxAttempts int, maxWait time.Duration) Option {
	return func(c *Client) {
		c.maxAttempts = max(maxAttempts, 1)
		if maxWait > 0 {
			c.maxWait = maxWait
		}
	}
}

// WithoutRetries sends every request once: a 429 or 503 is returned as
// *Error at once, with its RetryAfter.
func WithoutRetries() Option { return func(c *Client) { c.maxAttempts = 1 } }

// New returns a client of the server at baseURL that authenticates with key
// (an API key, or an SDK key for the SDK routes). baseURL is the service
// host's URL, with or without the /v1 version segment:
// "https://api.example.com" and "https://api.example.com/v1" are the same.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: must be an absolute http or https URL", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	c := &Client{
		base:         u,
		key:          key,
		http:         http.DefaultClient,
		userAgent:    defaultUserAgent,
		maxAttempts:  DefaultMaxAttempts,
		maxWait:      DefaultMaxRetryWait,
		fallbackWait: time.Second,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// request is one API call.
type request struct {
	method string
	// path is below /v1, its segments already escaped (see pathf).
	path   string
	query  url.Values
	header http.Header
	// body is marshalled as JSON when not nil.
	body any
	// replayable marks a POST that the API answers the same when repeated,
	// so that it is retried as GET is.
	replayable bool
}

// pathf builds a path from format and args, escaping every arg as one path
// segment: "." and ".." too, which would otherwise name another path.
func pathf(format string, args ...string) string {
	escaped := make([]any, len(args))
	for i, a := range args {
		if a == "." || a == ".." {
			escaped[i] = strings.ReplaceAll(a, ".", "%2E")
		} else {
			escaped[i] = url.PathEscape(a)
		}
	}
	return fmt.Sprintf(format, escaped...)
}

// call sends req and decodes a successful answer into out (when not nil).
func (c *Client) call(ctx context.Context, req request, out any) error {
	resp, err := c.send(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: %s %s: decoding the answer: %w", req.method, req.path, err)
	}
	return nil
}

// send sends req, retrying as the package doc says, and returns the first
// answer with a 2xx status, whose body the caller closes. Any other answer
// is returned as *Error.
func (c *Client) send(ctx context.Context, req request) (*http.Response, error) {
	var body []byte
	if req.body != nil {
		var err error
		if body, err = json.Marshal(req.body); err != nil {
			return nil, fmt.Errorf("client: %s %s: encoding the body: %w", req.method, req.path, err)
		}
	}
	// An empty id would make another path: /links/ is not /links/{id}.
	if strings.HasSuffix(req.path, "/") || strings.Contains(req.path, "//") {
		return nil, fmt.Errorf("client: %s %s: an id in the path is empty", req.method, req.path)
	}
	u := *c.base
	escaped := c.base.EscapedPath() + req.path
	unescaped, err := url.PathUnescape(escaped)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	u.Path, u.RawPath = unescaped, escaped
	u.RawQuery = req.query.Encode()
	retryable := req.method == http.MethodGet || req.method == http.MethodHead ||
		req.method == http.MethodPut || req.method == http.MethodDelete || req.replayable
	waited := time.Duration(0)
	for attempt := 1; ; attempt++ {
		resp, err := c.sendOnce(ctx, req, u.String(), body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		apiErr := readError(resp)
		if !retryable || attempt >= c.maxAttempts ||
			(apiErr.StatusCode != http.StatusTooManyRequests && apiErr.StatusCode != http.StatusServiceUnavailable) {
			return nil, apiErr
		}
		wait, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		if !ok {
			wait = c.fallbackWait << (attempt - 1)
		}
		if waited+wait > c.maxWait {
			return nil, apiErr
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return nil, apiErr
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errors.Join(ctx.Err(), apiErr)
		case <-t.C:
		}
		waited += wait
	}
}

func (c *Client) sendOnce(ctx context.Context, req request, u string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	for k, v := range req.header {
		hr.Header[k] = v
	}
	if c.key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if hr.Header.Get("Accept") == "" {
		hr.Header.Set("Accept", "application/json")
	}
	hr.Header.Set("User-Agent", c.userAgent)
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	return resp, nil
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date
// (RFC 9110, section 10.2.3). It reports false when v is neither; a date in
// the past is no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Ptr returns a pointer to v, for the optional fields of requests.
func Ptr[T any](v T) *T { return &v }

// formatTime writes t as the API reads times.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// setInt sets name to n when n is not zero.
func setInt(q url.Values, name string, n int) {
	if n != 0 {
		q.Set(name, strconv.Itoa(n))
	}
}

// setString sets name to s when s is not empty.
func setString(q url.Values, name, s string) {
	if s != "" {
		q.Set(name, s)
	}
}

// setTime sets name to t when t is not the zero time.
func setTime(q url.Values, name string, t time.Time) {
	if !t.IsZero() {
		q.Set(name, formatTime(t))
	}
}

// setBool sets name to *b when b is not nil.
func setBool(q url.Values, name string, b *bool) {
	if b != nil {
		q.Set(name, strconv.FormatBool(*b))
	}
}

// do sends req and returns its answer decoded as T, or nil and the error.
func do[T any](ctx context.Context, c *Client, req request) (*T, error) {
	var out T
	if err := c.call(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
