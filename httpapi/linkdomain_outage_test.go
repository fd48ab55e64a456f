package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// logBuffer is a text log that tests read back.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns the lines written since the last take.
func (b *logBuffer) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.TrimSpace(b.buf.String())
	b.buf.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// flakyStore is a store whose link and app reads fail while down, as a
// database that cannot be reached does.
type flakyStore struct {
	*store.Store
	down atomic.Bool
}

func (s *flakyStore) unreachable() error {
	if s.down.Load() {
		return fmt.Errorf("dial tcp 127.0.0.1:5432: connection refused: %w", errcode.ErrUnavailable)
	}
	return nil
}

func (s *flakyStore) LinkByDomainSlug(ctx context.Context, domain, slug string) (*linking.Link, error) {
	if err := s.unreachable(); err != nil {
		return nil, err
	}
	return s.Store.LinkByDomainSlug(ctx, domain, slug)
}

func (s *flakyStore) AppByLinkDomain(ctx context.Context, domain string) (*linking.App, error) {
	if err := s.unreachable(); err != nil {
		return nil, err
	}
	return s.Store.AppByLinkDomain(ctx, domain)
}

// TestLinkDomainOutageLogsByStateChange makes the store fail n times under
// the link-domain handler: one ERROR, a WARN summary after 10 s, one INFO
// when it answers again, and no line per failed request.
func TestLinkDomainOutageLogsByStateChange(t *testing.T) {
	t.Parallel()
	h := newDomainHarness(t, storetest.SQLite(t))
	o := h.newOrg(t, "Acme")
	app := h.fullApp(t, o, "null")
	web := h.create(t, o.key.raw, `{"destination_url":"https://shop.example/","slug":"web"}`)
	fs := &flakyStore{Store: h.store}
	var logs logBuffer
	srv := httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: linking.NewResolver(fs, linking.ResolverOptions{DefaultLinkDomain: linkDomain, Clock: h.clock.Now}),
		Clock:    h.clock.Now,
		Logger:   logs.logger(),
	}))
	t.Cleanup(srv.Close)
	get := func(host, path, accept string) *response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("User-Agent", uaDesktop)
		req.Header.Set("Accept", accept)
		return sendRaw(t, req)
	}
	require.Equal(t, http.StatusFound, get(web.Domain, "/web", "").status)
	require.Empty(t, logs.take(), "a healthy store writes nothing")

	fs.down.Store(true)
	const n = 200
	for i := range n {
		accept := ""
		if i%2 == 1 {
			accept = "application/json" // the envelope path logs nothing either
		}
		resp := get(linkDomain, fmt.Sprintf("/missing-%d", i), accept)
		require.Equal(t, http.StatusServiceUnavailable, resp.status, "request %d: %s", i, resp.body)
	}
	assert.Equal(t, http.StatusServiceUnavailable, get(app.LinkDomain, httpapi.AASAPath, "").status,
		"an association file's lookup fails the same way")
	require.Equal(t, http.StatusFound, get(web.Domain, "/web", "").status, "a cached link still redirects")
	lines := logs.take()
	require.Len(t, lines, 2, "one ERROR and one INFO for the cached link's success, not %d lines:\n%s", n+1, strings.Join(lines, "\n"))
	assert.Equal(t, `level=ERROR msg="link lookups are failing" err="dial tcp 127.0.0.1:5432: connection refused: database unavailable"`, lines[0])
	assert.Equal(t, `level=INFO msg="link lookups are succeeding again" failed=201 for=0s`, lines[1])

	// Cached answers keep succeeding while the rest fails: the same outage.
	for i := range n {
		require.Equal(t, http.StatusServiceUnavailable, get(linkDomain, fmt.Sprintf("/other-%d", i), "").status)
		require.Equal(t, http.StatusFound, get(web.Domain, "/web", "").status)
	}
	require.Equal(t, http.StatusServiceUnavailable, get(linkDomain, "/last", "").status)
	assert.Empty(t, logs.take(), "alternating failures and cached answers write nothing within 10 s")

	h.clock.Advance(10 * time.Second)
	require.Equal(t, http.StatusServiceUnavailable, get(linkDomain, "/later", "").status)
	assert.Equal(t, []string{`level=WARN msg="link lookups are still failing" failed=403 for=10s err="dial tcp 127.0.0.1:5432: connection refused: database unavailable"`},
		logs.take())

	fs.down.Store(false)
	h.clock.Advance(10 * time.Second)
	assert.Equal(t, http.StatusNotFound, get(linkDomain, "/missing-1", "").status, "a 404 is the store answering")
	assert.Equal(t, []string{`level=INFO msg="link lookups are succeeding again" failed=403 for=20s`}, logs.take())
	assert.Equal(t, http.StatusOK, get(app.LinkDomain, httpapi.AASAPath, "").status)
	assert.Empty(t, logs.take())
}

// TestLinkDomainClosedDatabaseLogsOnce closes the database under the
// handler: n failed redirects write one ERROR line, not n.
func TestLinkDomainClosedDatabaseLogsOnce(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	var logs logBuffer
	srv := httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver: linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDomain}),
		Logger:   logs.logger(),
	}))
	t.Cleanup(srv.Close)
	require.NoError(t, s.Close())

	const n = 100
	for i := range n {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/link-%d", srv.URL, i), nil)
		require.NoError(t, err)
		req.Host = linkDomain
		if i%2 == 1 {
			req.Header.Set("Accept", "application/json")
			assertUnavailable(t, sendRaw(t, req))
		} else {
			assert.Equal(t, http.StatusServiceUnavailable, sendRaw(t, req).status)
		}
	}
	lines := logs.take()
	require.Len(t, lines, 1, "%s", strings.Join(lines, "\n"))
	assert.True(t, strings.HasPrefix(lines[0], `level=ERROR msg="link lookups are failing" err=`), lines[0])
}
