package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

const (
	uaDesktop = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
	uaBot     = "Twitterbot/1.0"
)

// startServe runs the all-in-one server of cfg (listening on cfg.Addr, and
// on cfg.MetricsAddr when set) until the test ends, and returns its store
// and organizations.
func startServe(t *testing.T, cfg app.Config) (*store.Store, *org.Service) {
	t.Helper()
	var (
		s    *store.Store
		orgs *org.Service
	)
	a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.ServeAll(app.BootstrapOptions{})),
		fx.Populate(&s, &orgs), fx.NopLogger)
	require.NoError(t, a.Err())
	require.NoError(t, a.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
	return s, orgs
}

// call sends method path to addr with Host host, the key as a bearer
// token when set, body as JSON when set, and the user agent ua when set.
func call(t *testing.T, addr, host, method, path, key, body, ua string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, r)
	require.NoError(t, err)
	req.Host = host
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	client := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// scrape returns the samples of GET /metrics on addr, by series (name and
// labels as the text format writes them).
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	status, body := call(t, addr, "", http.MethodGet, "/metrics", "", "", "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		require.Positive(t, i, line)
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		out[line[:i]] = v
	}
	require.NoError(t, sc.Err())
	return out
}

func jsonField(t *testing.T, body []byte, name string) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(body, &v), "%s", body)
	s, _ := v[name].(string)
	require.NotEmpty(t, s, "%s in %s", name, body)
	return s
}

// TestMetricsMoveWithTraffic scrapes --metrics-addr after real traffic on
// the all-in-one server: redirects of each outcome the database can give,
// API calls, a rate-limited call, a click flush and an attribution match.
// (A 503 outcome and an issued OAuth token are proven where they are
// told: httpapi's and oauth's tests; here their series exist at zero.)
func TestMetricsMoveWithTraffic(t *testing.T) {
	cfg := validConfig(t)
	cfg.LogLevel = slog.LevelWarn
	cfg.Addr, cfg.MetricsAddr = testkit.FreeAddr(t), testkit.FreeAddr(t)
	s, orgs := startServe(t, cfg)
	ctx := context.Background()
	_, key, err := orgs.Create(ctx, "Acme", org.PlanFree)
	require.NoError(t, err)
	api := func(method, path, body, key string) (int, []byte) {
		return call(t, cfg.Addr, "localhost", method, path, key, body, "")
	}
	visit := func(slug, ua string) int {
		status, _ := call(t, cfg.Addr, "hop.localhost", http.MethodGet, "/"+slug, "", "", ua)
		return status
	}

	before := scrape(t, cfg.MetricsAddr)
	for _, series := range []string{
		`hoplink_redirects_total{outcome="unavailable"}`,
		`hoplink_oauth_tokens_issued_total{grant_type="authorization_code"}`,
		`hoplink_oauth_tokens_issued_total{grant_type="refresh_token"}`,
		`go_sql_max_open_connections{db_name="hoplink"}`,
		`go_goroutines`,
		`process_cpu_seconds_total`,
	} {
		assert.Contains(t, before, series, "exported before any traffic")
	}

	status, body := api(http.MethodPost, "/v1/apps", `{"name":"Shop"}`, key.RawKey)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	appID := jsonField(t, body, "id")
	for _, link := range []string{
		`{"destination_url":"https://shop.example/a","slug":"shoes"}`,
		`{"destination_url":"https://shop.example/s","slug":"secret","password":"correct horse battery"}`,
		`{"destination_url":"https://shop.example/o","slug":"old"}`,
	} {
		status, body = api(http.MethodPost, "/v1/links", link, key.RawKey)
		require.Equal(t, http.StatusCreated, status, "%s", body)
	}
	// Expired behind the service's back, before anything reads it.
	_, err = s.DB().NewUpdate().Table("links").Set("expires_at = ?", time.Now().Add(-time.Hour).UTC()).
		Where("slug = ?", "old").Exec(ctx)
	require.NoError(t, err)

	assert.Equal(t, http.StatusFound, visit("shoes", uaDesktop))
	assert.Equal(t, http.StatusFound, visit("shoes", uaDesktop))
	assert.Equal(t, http.StatusOK, visit("shoes", uaBot), "a preview")
	assert.Equal(t, http.StatusOK, visit("secret", uaDesktop), "the password form")
	assert.Equal(t, http.StatusNotFound, visit("nothing-here", uaDesktop))
	assert.Equal(t, http.StatusGone, visit("old", uaDesktop))

	status, body = api(http.MethodPost, "/v1/keys", `{"name":"sdk","type":"sdk","app_id":"`+appID+`"}`, key.RawKey)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	sdkKey := jsonField(t, body, "raw_key")
	status, body = api(http.MethodPost, "/v1/attribution/match",
		`{"platform":"ios","fingerprint_version":"enriched","sdk_version":"1.0.0"}`, sdkKey)
	require.Equal(t, http.StatusOK, status, "%s", body)

	limited := 0
	for range 70 {
		if status, _ := api(http.MethodGet, "/v1/links", "", ""); status == http.StatusTooManyRequests {
			limited++
		}
	}
	require.Positive(t, limited, "the anonymous limit refused some")

	// The click recorder writes its batch within a second or so; wait for
	// it, boundedly, rather than for a set time.
	var after map[string]float64
	require.Eventually(t, func() bool {
		after = scrape(t, cfg.MetricsAddr)
		return after["hoplink_clicks_written_total"] >= 2
	}, 30*time.Second, 50*time.Millisecond, "the two redirects' clicks are written")

	moved := func(series string, by float64) {
		t.Helper()
		require.Contains(t, after, series)
		assert.GreaterOrEqual(t, after[series]-before[series], by, series)
	}
	moved(`hoplink_redirects_total{outcome="redirect"}`, 2)
	moved(`hoplink_redirects_total{outcome="preview"}`, 1)
	moved(`hoplink_redirects_total{outcome="password"}`, 1)
	moved(`hoplink_redirects_total{outcome="not_found"}`, 1)
	moved(`hoplink_redirects_total{outcome="gone"}`, 1)
	moved(`hoplink_http_request_duration_seconds_count{code="3xx",route="/:slug"}`, 2)
	moved(`hoplink_http_request_duration_seconds_count{code="2xx",route="/v1/apps"}`, 1)
	moved(`hoplink_http_request_duration_seconds_count{code="2xx",route="/v1/links"}`, 3)
	moved(`hoplink_http_request_duration_seconds_count{code="4xx",route="/v1/links"}`, float64(limited))
	moved(`hoplink_http_request_duration_seconds_count{code="2xx",route="/v1/attribution/match"}`, 1)
	moved(`hoplink_link_cache_lookups_total{cache="link",result="miss"}`, 1)
	moved(`hoplink_link_cache_lookups_total{cache="link",result="hit"}`, 1)
	moved(`hoplink_clicks_accepted_total`, 2)
	moved(`hoplink_click_flush_batch_clicks_count`, 1)
	moved(`hoplink_click_flush_duration_seconds_count`, 1)
	moved(`hoplink_attribution_attempts_total{outcome="no_signals",source="none"}`, 1)
	moved(`hoplink_rate_limit_rejections_total{limit="ip"}`, float64(limited))
	moved(`go_sql_open_connections{db_name="hoplink"}`, 0)

	for series := range after {
		for _, leak := range []string{appID, "hop.localhost", "/shoes\"", "nothing-here"} {
			assert.NotContains(t, series, leak, "no ids, hosts or paths in labels")
		}
	}
}

// TestMetricsAreOffByDefaultAndNeverOnTheMainListener proves that without
// --metrics-addr nothing listens for metrics, and that /metrics is never
// served on the service host or a link domain of the main listener.
func TestMetricsAreOffByDefaultAndNeverOnTheMainListener(t *testing.T) {
	for _, withMetrics := range []bool{false, true} {
		t.Run("metrics "+map[bool]string{false: "off", true: "on"}[withMetrics], func(t *testing.T) {
			cfg := validConfig(t)
			cfg.LogLevel = slog.LevelWarn
			cfg.Addr = testkit.FreeAddr(t)
			if withMetrics {
				cfg.MetricsAddr = testkit.FreeAddr(t)
			}
			startServe(t, cfg)
			for _, host := range []string{"localhost", "hop.localhost"} {
				status, body := call(t, cfg.Addr, host, http.MethodGet, "/metrics", "", "", "")
				assert.Equal(t, http.StatusNotFound, status, "%s: %s", host, body)
				assert.NotContains(t, string(body), "go_goroutines", host)
			}
			if withMetrics {
				assert.Contains(t, scrape(t, cfg.MetricsAddr), "go_goroutines")
				status, _ := call(t, cfg.MetricsAddr, "", http.MethodGet, "/v1/links", "", "", "")
				assert.Equal(t, http.StatusNotFound, status, "the metrics listener serves /metrics alone")
			}
		})
	}
	assert.Nil(t, app.NewMetrics(validConfig(t)), "no --metrics-addr, no metrics")
}

// BenchmarkMetricsHooks measures what the metrics add to a redirect: the
// request's histogram (its route's series resolved once) and the
// outcome's counter.
func BenchmarkMetricsHooks(b *testing.B) {
	m := app.NewMetrics(app.Config{MetricsAddr: "127.0.0.1:0"})
	observe, outcome := m.ObserveRequest(), m.OnOutcome()
	b.ReportAllocs()
	for b.Loop() {
		outcome(httpapi.OutcomeRedirect)
		observe(httpapi.RouteShortLink, http.StatusFound, 200*time.Microsecond)
	}
}

// TestEveryServingBinaryServesMetrics starts each split binary with
// --metrics-addr and scrapes it: the series of what it runs are there.
func TestEveryServingBinaryServesMetrics(t *testing.T) {
	for _, tt := range []struct {
		name    string
		service fx.Option
		want    []string
	}{
		{"hoplink-api", app.APIService(), []string{"hoplink_clicks_accepted_total", `hoplink_redirects_total{outcome="redirect"}`}},
		{"hoplink-redirect", app.RedirectService(), []string{"hoplink_clicks_accepted_total", `hoplink_link_cache_lookups_total{cache="link",result="hit"}`}},
		{"hoplink-auth", app.AuthService(), []string{`hoplink_oauth_tokens_issued_total{grant_type="refresh_token"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(t)
			cfg.LogLevel = slog.LevelWarn
			cfg.Addr, cfg.MetricsAddr = testkit.FreeAddr(t), testkit.FreeAddr(t)
			a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, tt.service), fx.NopLogger)
			require.NoError(t, a.Err())
			require.NoError(t, a.Start(context.Background()))
			t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
			status, _ := call(t, cfg.Addr, "localhost", http.MethodGet, "/healthz", "", "", "")
			require.Equal(t, http.StatusOK, status)
			got := scrape(t, cfg.MetricsAddr)
			for _, series := range append(tt.want, `go_sql_max_open_connections{db_name="hoplink"}`, "process_cpu_seconds_total",
				`hoplink_http_request_duration_seconds_count{code="2xx",route="/healthz"}`) {
				assert.Contains(t, got, series)
			}
		})
	}
}
