package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

// Metrics is the Prometheus registry of one process and the collectors
// that the packages' hooks feed (docs/operating.md, Metrics, lists the
// series). This is the only package that imports the Prometheus client:
// the packages it wires expose counters (linking.Resolver's cache stats,
// analytics.Recorder.Stats) and hooks (OnOutcome, OnFlush, OnAttempt,
// OnTokenIssued, ratelimit.Observe, httpapi.Instrument), and know nothing
// of it.
//
// A nil *Metrics (no --metrics-addr) gives nil hooks and registers
// nothing, so that a process without metrics pays for none.
//
// Every label has a bounded set of values: route patterns, status
// classes, outcomes, limit names, grant types; never a link or
// organization id, a host or a path.
type Metrics struct {
	reg *prometheus.Registry

	requests *prometheus.HistogramVec
	// routes maps a route pattern to its histograms by status class,
	// resolved once: the map is replaced, never changed, when a route is
	// first seen, so that a request reads it without a lock.
	routes   atomic.Pointer[map[string]*routeSeries]
	routesMu sync.Mutex
	// shortLink are the histograms of httpapi.RouteShortLink, the route
	// of every redirect, once it is first seen: a redirect's observation
	// compares one short string instead of hashing it for the map.
	shortLink atomic.Pointer[routeSeries]

	outcomes      [httpapi.NumOutcomes]prometheus.Counter
	rejections    *prometheus.CounterVec
	attempts      *prometheus.CounterVec
	tokens        *prometheus.CounterVec
	flushClicks   prometheus.Histogram
	flushDuration prometheus.Histogram
}

// routeSeries are one route's request histograms by status class: 1xx to
// 5xx, and anything else.
type routeSeries [6]prometheus.Observer

// statusClasses are the values of the code label, by status / 100.
var statusClasses = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// routeUnmatched is the route label of a request no route served.
const routeUnmatched = "unmatched"

// requestBuckets are the request-duration buckets, in seconds: a redirect
// takes well under a millisecond, an API call a few.
var requestBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewMetrics returns the metrics of a process that serves them on
// cfg.MetricsAddr, with the Go runtime and process collectors; nil when
// cfg.MetricsAddr is empty.
func NewMetrics(cfg Config) *Metrics {
	if cfg.MetricsAddr == "" {
		return nil
	}
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hoplink_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern (unmatched when no route served it) and status class.",
		Buckets: requestBuckets,
	}, []string{"route", "code"})
	redirects := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hoplink_redirects_total",
		Help: "Requests for a short link on a link domain, by how they were answered.",
	}, []string{"outcome"})
	for o := range httpapi.NumOutcomes {
		m.outcomes[o] = redirects.WithLabelValues(o.String())
	}
	m.rejections = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hoplink_rate_limit_rejections_total",
		Help: "Requests refused by a rate limit (429), by limit: key, sdk, ip, oauth, oauth-register, linkpw.",
	}, []string{"limit"})
	m.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hoplink_attribution_attempts_total",
		Help: "Attribution attempts recorded, by source (claim, replay, none when unmatched) and outcome " +
			"(the match type, or the fail reason).",
	}, []string{"source", "outcome"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hoplink_oauth_tokens_issued_total",
		Help: "OAuth token responses of /oauth/token, by grant type.",
	}, []string{"grant_type"})
	m.flushClicks = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "hoplink_click_flush_batch_clicks",
		Help:    "Clicks in one batch the click writer inserted (or tried to).",
		Buckets: []float64{1, 10, 50, 100, 250, 500, 1000, 2000, 5000, 10000},
	})
	m.flushDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "hoplink_click_flush_duration_seconds",
		Help:    "Time to insert one batch of clicks.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	// Both grant types are exported from the start, at zero.
	for _, gt := range []string{"authorization_code", "refresh_token"} {
		m.tokens.WithLabelValues(gt)
	}
	m.reg.MustRegister(m.requests, redirects, m.rejections, m.attempts, m.tokens, m.flushClicks, m.flushDuration)
	empty := map[string]*routeSeries{}
	m.routes.Store(&empty)
	return m
}

// Handler returns the /metrics handler of the registry.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Registry: m.reg,
	})
}

// ObserveRequest returns the observer of httpapi.Instrument; nil without
// metrics.
func (m *Metrics) ObserveRequest() httpapi.RequestObserver {
	if m == nil {
		return nil
	}
	return func(route string, status int, took time.Duration) {
		class := status / 100
		if class < 1 || class > 5 {
			class = 0
		}
		var s *routeSeries
		if route == httpapi.RouteShortLink {
			if s = m.shortLink.Load(); s == nil {
				s = m.series(route)
				m.shortLink.Store(s)
			}
		} else {
			s = m.series(route)
		}
		s[class].Observe(took.Seconds())
	}
}

// series returns the histograms of route, resolving them the first time
// route is seen.
func (m *Metrics) series(route string) *routeSeries {
	if s, ok := (*m.routes.Load())[route]; ok {
		return s
	}
	m.routesMu.Lock()
	defer m.routesMu.Unlock()
	old := *m.routes.Load()
	if s, ok := old[route]; ok {
		return s
	}
	label := route
	if label == "" {
		label = routeUnmatched
	}
	s := new(routeSeries)
	for i, class := range statusClasses {
		s[i] = m.requests.WithLabelValues(label, class)
	}
	next := make(map[string]*routeSeries, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[route] = s
	m.routes.Store(&next)
	return s
}

// OnOutcome returns httpapi.LinkDomainOptions.OnOutcome; nil without
// metrics.
func (m *Metrics) OnOutcome() func(httpapi.Outcome) {
	if m == nil {
		return nil
	}
	return func(o httpapi.Outcome) {
		if o < httpapi.NumOutcomes {
			m.outcomes[o].Inc()
		}
	}
}

// OnFlush returns analytics.RecorderOptions.OnFlush; nil without metrics.
func (m *Metrics) OnFlush() func(int, time.Duration, error) {
	if m == nil {
		return nil
	}
	return func(clicks int, took time.Duration, _ error) {
		m.flushClicks.Observe(float64(clicks))
		m.flushDuration.Observe(took.Seconds())
	}
}

// OnAttempt returns attribution.MatcherOptions.OnAttempt; nil without
// metrics.
func (m *Metrics) OnAttempt() func(*attribution.Attempt) {
	if m == nil {
		return nil
	}
	return func(a *attribution.Attempt) {
		source, outcome := "none", "unknown"
		switch {
		case a.Matched && a.MatchSource != nil && a.MatchType != nil:
			source, outcome = string(*a.MatchSource), string(*a.MatchType)
		case !a.Matched && a.FailReason != nil:
			outcome = string(*a.FailReason)
		}
		m.attempts.WithLabelValues(source, outcome).Inc()
	}
}

// OnTokenIssued returns oauth.Options.OnTokenIssued; nil without metrics.
func (m *Metrics) OnTokenIssued() func(string) {
	if m == nil {
		return nil
	}
	return func(grantType string) { m.tokens.WithLabelValues(grantType).Inc() }
}

// limitNames are the limits the rejections are counted by; a bucket of
// another name is counted as "other".
var limitNames = map[string]bool{"key": true, "sdk": true, "ip": true, "oauth": true, "oauth-register": true, "linkpw": true}

// Limiter returns l counting its refusals; l itself without metrics.
func (m *Metrics) Limiter(l ratelimit.Limiter) ratelimit.Limiter {
	if m == nil {
		return l
	}
	return ratelimit.Observe(l, func(limit string) {
		if !limitNames[limit] {
			limit = "other"
		}
		m.rejections.WithLabelValues(limit).Inc()
	})
}

// WatchResolver registers the lookups of r's link and app caches.
func (m *Metrics) WatchResolver(r *linking.Resolver) {
	if m == nil {
		return
	}
	desc := prometheus.NewDesc("hoplink_link_cache_lookups_total",
		"Lookups of the in-process link cache (cache=link) and link-domain app cache (cache=app), by result: "+
			"hit, miss (read from the database), stale (served past its lifetime while the database could not be reached).",
		[]string{"cache", "result"}, nil)
	m.reg.MustRegister(collectorFunc{descs: []*prometheus.Desc{desc}, collect: func(ch chan<- prometheus.Metric) {
		for _, c := range []struct {
			name string
			st   linking.CacheStats
		}{{"link", r.LinkCacheStats()}, {"app", r.AppCacheStats()}} {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(c.st.Hits), c.name, "hit")
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(c.st.Misses), c.name, "miss")
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(c.st.Stale), c.name, "stale")
		}
	}})
}

// WatchRecorder registers the counters of the click recorder rec.
func (m *Metrics) WatchRecorder(rec *analytics.Recorder) {
	if m == nil {
		return
	}
	counter := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	accepted := counter("hoplink_clicks_accepted_total", "Clicks the recorder took from redirects and SDK resolves, into its spool or memory buffer.")
	written := counter("hoplink_clicks_written_total", "Click rows written to the database.")
	unstored := counter("hoplink_clicks_unstored_total",
		"Clicks counted but not stored, by reason: over_allowance (the organization is past its monthly clicks), "+
			"buffer_full (the spool or memory buffer was full).", "reason")
	duplicates := counter("hoplink_clicks_duplicate_total", "Clicks the database already had, or whose link was deleted first.")
	failed := counter("hoplink_clicks_failed_total", "Clicks given up on: their batch failed every retry, or the shutdown timeout passed.")
	dropped := counter("hoplink_clicks_dropped_total", "Clicks refused because the recorder had shut down.")
	failedFlushes := counter("hoplink_click_flush_failures_total", "Batch inserts that returned an error, retried or not.")
	buffered := counter("hoplink_clicks_buffered", "Clicks waiting in the memory buffer (0 with a spool).")
	spoolBytes := counter("hoplink_click_spool_bytes", "Size of the click spool's chunk files waiting to be written.")
	spoolFull := counter("hoplink_click_spool_full", "1 while the click spool is full (clicks are counted, not stored).")
	m.reg.MustRegister(collectorFunc{
		descs: []*prometheus.Desc{accepted, written, unstored, duplicates, failed, dropped, failedFlushes, buffered, spoolBytes, spoolFull},
		collect: func(ch chan<- prometheus.Metric) {
			st := rec.Stats()
			c := func(d *prometheus.Desc, v uint64, labels ...string) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
			}
			g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
			c(accepted, st.Accepted)
			c(written, st.Written)
			c(unstored, st.OverAllowance, "over_allowance")
			c(unstored, st.Overflowed, "buffer_full")
			c(duplicates, st.Duplicates)
			c(failed, st.Failed)
			c(dropped, st.Dropped)
			c(failedFlushes, st.FailedFlushes)
			g(buffered, float64(st.Buffered))
			g(spoolBytes, float64(st.SpoolBytes))
			full := 0.0
			if st.SpoolFull {
				full = 1
			}
			g(spoolFull, full)
		},
	})
}

// WatchStore registers the connection pool statistics of s's database
// (sql.DBStats) as the go_sql_* series, db_name="hoplink".
func (m *Metrics) WatchStore(s *store.Store) {
	if m == nil {
		return
	}
	m.reg.MustRegister(collectors.NewDBStatsCollector(s.DB().DB, "hoplink"))
}

// collectorFunc is a prometheus.Collector over a function that reads a
// package's counters at each scrape.
type collectorFunc struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// MetricsListener serves /metrics on --metrics-addr, a listener of its
// own, when the metrics are on: it listens on start (a listen error fails
// the start) and shuts down on stop. Every binary that serves includes it
// through Core; the store's pool statistics are registered here.
var MetricsListener = fx.Invoke(RunMetrics)

// RunMetrics registers the store's pool statistics and serves the
// registry on cfg.MetricsAddr; nothing without metrics.
func RunMetrics(lc fx.Lifecycle, cfg Config, m *Metrics, s *store.Store, log *slog.Logger) {
	if m == nil {
		return
	}
	m.WatchStore(s)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler(log))
	srv := newHTTPServer(cfg.MetricsAddr, mux, log)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", cfg.MetricsAddr)
			if err != nil {
				return metricsListenError(cfg.MetricsAddr, err)
			}
			log.Info("serving metrics", "addr", ln.Addr().String(), "path", "/metrics")
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("metrics server stopped", "err", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error { return srv.Shutdown(ctx) },
	})
}

// metricsListenError says that the metrics listener cannot listen on addr,
// naming --metrics-addr.
func metricsListenError(addr string, err error) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		err = opErr.Err
	}
	return errors.New("cannot listen on " + addr + " (--metrics-addr): " + err.Error())
}
