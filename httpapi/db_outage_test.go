package httpapi_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// stallingStore is a store whose request-path reads (links, apps, keys,
// ping) wait until their context ends while stalled, as a database that
// holds a lock or a connection that answers nothing: only a deadline gets
// the request out.
type stallingStore struct {
	*store.Store
	stalled atomic.Bool
}

func (s *stallingStore) wait(ctx context.Context) error {
	if !s.stalled.Load() {
		return nil
	}
	<-ctx.Done()
	return fmt.Errorf("store: %w", ctx.Err())
}

func (s *stallingStore) LinkByDomainSlug(ctx context.Context, domain, slug string) (*linking.Link, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.LinkByDomainSlug(ctx, domain, slug)
}

func (s *stallingStore) LinkByOldAddress(ctx context.Context, domain, slug string) (*linking.Link, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.LinkByOldAddress(ctx, domain, slug)
}

func (s *stallingStore) AppByLinkDomain(ctx context.Context, domain string) (*linking.App, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.AppByLinkDomain(ctx, domain)
}

func (s *stallingStore) KeyByHash(ctx context.Context, hash string) (*auth.Key, auth.Role, error) {
	if err := s.wait(ctx); err != nil {
		return nil, "", err
	}
	return s.Store.KeyByHash(ctx, hash)
}

func (s *stallingStore) Ping(ctx context.Context) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.Store.Ping(ctx)
}

// stallProxy forwards TCP connections to a target until it is stalled:
// then it keeps every connection open and accepts new ones but forwards
// nothing, as a database behind a broken network path or a frozen server.
type stallProxy struct {
	target  string
	ln      net.Listener
	mu      sync.Mutex
	stalled bool
	resume  chan struct{} // closed when a stall ends
}

func newStallProxy(t testing.TB, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &stallProxy{target: target, ln: ln, resume: make(chan struct{})}
	var wg sync.WaitGroup
	var conns sync.Map
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Store(c, true)
			wg.Add(1)
			go func() { defer wg.Done(); p.forward(c, &conns) }()
		}
	}()
	t.Cleanup(func() {
		p.setStalled(false)
		_ = ln.Close()
		conns.Range(func(c, _ any) bool { _ = c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	return p
}

func (p *stallProxy) addr() string { return p.ln.Addr().String() }

func (p *stallProxy) setStalled(stalled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled == stalled {
		return
	}
	p.stalled = stalled
	if !stalled {
		close(p.resume)
		p.resume = make(chan struct{})
	}
}

// gate returns nil when bytes may flow, else a channel closed when they may.
func (p *stallProxy) gate() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		return p.resume
	}
	return nil
}

func (p *stallProxy) forward(client net.Conn, conns *sync.Map) {
	if ch := p.gate(); ch != nil {
		<-ch // a connection made while stalled is accepted and left waiting
	}
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	conns.Store(upstream, true)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if ch := p.gate(); ch != nil {
					<-ch // read, then held: the peer waits for an answer
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go pipe(upstream, client)
	go pipe(client, upstream)
	<-done
	_ = client.Close()
	_ = upstream.Close()
	<-done
}

// outageRig is a link-domain server and an API server reading through one
// Resolver over rs, with /readyz pinging rs, both on short database
// deadlines; links are created through dh, the domain harness over the
// same database. The API's authenticator keeps keys for an hour, so that a
// key read before an outage still authenticates during it.
type outageRig struct {
	dh     *domainHarness
	api    *harness
	domain *httptest.Server
	org    *testOrg
	sdk    testKey
	host   string // the link domain of the link "sale"
	app    string // the link domain of the organization's app
}

// outageTimeout is the database deadline of the rigs' resolver and
// /readyz: short, so that a stalled request's wait is short too.
const outageTimeout = 200 * time.Millisecond

func newOutageRig(t *testing.T, s *store.Store, rs *stallingStore) *outageRig {
	t.Helper()
	dh := newDomainHarness(t, s)
	resolver := linking.NewResolver(rs, linking.ResolverOptions{
		DefaultLinkDomain: linkDomain, Clock: dh.clock.Now, StoreTimeout: outageTimeout,
	})
	r := &outageRig{dh: dh}
	r.api = newHarness(t, s, withClock(dh.clock), withCacheTTL(time.Hour), withKeyTimeout(outageTimeout),
		withKeyStore(func(*store.Store) auth.KeyStore { return rs }),
		withAPI(func(_ *harness, o *httpapi.Options) {
			o.Resolver = resolver
			o.DefaultLinkDomain = linkDomain
			o.Ready = rs.Ping
			o.ReadyTimeout = outageTimeout
		}))
	r.domain = httptest.NewServer(httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		Resolver:     resolver,
		Ready:        rs.Ping,
		ReadyTimeout: outageTimeout,
		Clock:        dh.clock.Now,
		Logger:       discardLogger(),
	}))
	t.Cleanup(r.domain.Close)
	r.org = dh.newOrg(t, "Acme")
	r.sdk = dh.sdkKey(t, r.org)
	return r
}

// visit sends a GET to path on the link domain of the link "sale".
func (r *outageRig) visit(t testing.TB, path, accept string) *response {
	t.Helper()
	return r.visitHost(t, r.host, path, accept)
}

// aasa asks the app's link domain for its apple-app-site-association.
func (r *outageRig) aasa(t testing.TB) *response {
	t.Helper()
	return r.visitHost(t, r.app, httpapi.AASAPath, "")
}

func (r *outageRig) visitHost(t testing.TB, host, path, accept string) *response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.domain.URL+path, nil)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("User-Agent", uaDesktop)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	return sendRaw(t, req)
}

// resolve calls the SDK resolve of slug through the validating client.
func (r *outageRig) resolve(t testing.TB, slug string) *response {
	t.Helper()
	return r.api.get(t, r.sdk.raw, "/v1/links/resolve/"+slug+"?domain="+r.host)
}

// warm creates the link "sale" and reads it and the unknown slug "unknown"
// through the rig, so that both are cached.
func (r *outageRig) warm(t *testing.T) {
	t.Helper()
	r.app = r.dh.fullApp(t, r.org, "null").LinkDomain
	r.host = r.dh.create(t, r.org.key.raw, `{"destination_url":"https://shop.example/sale","slug":"sale"}`).Domain
	require.Equal(t, http.StatusFound, r.visit(t, "/sale", "").status)
	require.Equal(t, http.StatusOK, r.resolve(t, "sale").status)
	require.Equal(t, http.StatusNotFound, r.visit(t, "/unknown", "").status)
	require.Equal(t, http.StatusNotFound, r.resolve(t, "unknown").status)
	require.Equal(t, http.StatusOK, r.aasa(t).status)
}

// assertUnavailablePage asserts the link-domain error page of a 503: HTML,
// Retry-After, no-store.
func assertUnavailablePage(t testing.TB, resp *response) {
	t.Helper()
	assert.Equal(t, http.StatusServiceUnavailable, resp.status, "body: %s", resp.body)
	assert.Equal(t, "5", resp.header.Get("Retry-After"))
	assert.Contains(t, resp.header.Get("Content-Type"), "text/html")
	assert.Equal(t, "no-store", resp.header.Get("Cache-Control"))
	assert.Contains(t, string(resp.body), "Temporarily unavailable")
}

// assertRedirectsToSale asserts the 302 of the link "sale".
func assertRedirectsToSale(t testing.TB, resp *response) {
	t.Helper()
	require.Equal(t, http.StatusFound, resp.status, "body: %s", resp.body)
	assert.Equal(t, "https://shop.example/sale", resp.header.Get("Location"))
}

// onEachDB runs fn on SQLite and, when HOPLINK_TEST_POSTGRES is set, on
// PostgreSQL reached through a connection that goes through proxy (a
// loopback TCP proxy the test controls, made by newProxy for the
// database's address).
func onEachDB[P any](t *testing.T, newProxy func(t testing.TB, target string) (P, string),
	fn func(t *testing.T, s *store.Store, proxy P)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		var none P
		fn(t, storetest.SQLite(t), none)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn, err := url.Parse(storetest.PostgresDSN(t))
		require.NoError(t, err)
		proxy, addr := newProxy(t, dsn.Host)
		dsn.Host = addr
		s, err := store.Open(context.Background(), dsn.String())
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		require.NoError(t, s.Migrate(context.Background()))
		fn(t, s, proxy)
	})
}

// TestKnownLinksRedirectWhileTheDatabaseIsUnreachable cuts the database
// (SQLite closed; PostgreSQL behind a loopback proxy that is stopped): a
// link read before keeps redirecting and resolving past its cache TTL, up
// to the stale-if-error bound (an hour by default); an unknown slug is 404
// only while the database's answer is fresh, then 503 with Retry-After.
func TestKnownLinksRedirectWhileTheDatabaseIsUnreachable(t *testing.T) {
	t.Parallel()
	newProxy := func(t testing.TB, target string) (*storetest.TCPProxy, string) {
		p := storetest.NewTCPProxy(t, target)
		return p, p.Addr()
	}
	onEachDB(t, newProxy, func(t *testing.T, s *store.Store, proxy *storetest.TCPProxy) {
		r := newOutageRig(t, s, &stallingStore{Store: s})
		r.warm(t)
		if proxy != nil {
			proxy.Stop()
		} else {
			require.NoError(t, s.Close())
		}

		r.dh.clock.Advance(time.Second)
		assert.Equal(t, http.StatusNotFound, r.visit(t, "/unknown", "").status, "within its TTL the database's 404 stands")
		assert.Equal(t, http.StatusNotFound, r.resolve(t, "unknown").status)

		r.dh.clock.Advance(linking.DefaultResolveTTL) // every entry has expired
		assertRedirectsToSale(t, r.visit(t, "/sale", ""))
		resp := r.resolve(t, "sale")
		require.Equal(t, http.StatusOK, resp.status, "body: %s", resp.body)
		assert.Equal(t, "https://shop.example/sale", resp.object(t)["destination_url"])
		assertUnavailablePage(t, r.visit(t, "/unknown", ""))
		assertUnavailable(t, r.visit(t, "/unknown", "application/json"))
		assertUnavailablePage(t, r.visit(t, "/never-seen", ""))
		assertUnavailable(t, r.resolve(t, "unknown"))
		assertUnavailable(t, r.resolve(t, "never-seen"))
		assert.Equal(t, http.StatusOK, r.aasa(t).status,
			"the app of a link domain is served stale too")

		// The bound counts from the entry's expiry.
		r.dh.clock.Advance(linking.DefaultStaleIfError - time.Second - time.Millisecond)
		assertRedirectsToSale(t, r.visit(t, "/sale", ""))
		r.dh.clock.Advance(time.Second)
		assertUnavailablePage(t, r.visit(t, "/sale", ""))
		assertUnavailable(t, r.resolve(t, "sale"))
		assertUnavailablePage(t, r.aasa(t))
	})
}

// TestStalledDatabaseAnswers503WithinTheDeadline stalls the database
// (SQLite: a store whose reads wait until their context ends; PostgreSQL:
// a loopback proxy that accepts and holds connections but forwards
// nothing): uncached lookups, key authentication and /readyz answer 503
// with Retry-After once the deadline passes, instead of hanging, and a
// known link still redirects.
func TestStalledDatabaseAnswers503WithinTheDeadline(t *testing.T) {
	t.Parallel()
	newProxy := func(t testing.TB, target string) (*stallProxy, string) {
		p := newStallProxy(t, target)
		return p, p.addr()
	}
	onEachDB(t, newProxy, func(t *testing.T, s *store.Store, proxy *stallProxy) {
		rs := &stallingStore{Store: s}
		r := newOutageRig(t, s, rs)
		r.warm(t)
		uncached := r.dh.scopedKey(t, r.org, auth.ScopeLinksRead)
		stall := func(on bool) {
			if proxy != nil {
				proxy.setStalled(on)
			} else {
				rs.stalled.Store(on)
			}
		}
		stall(true)
		t.Cleanup(func() { stall(false) })
		r.dh.clock.Advance(linking.DefaultResolveTTL)

		// Each request returns on its own; the bound asserted is loose on
		// purpose (the deadline is a fraction of it).
		timed := func(name string, send func() *response) *response {
			t.Helper()
			began := time.Now()
			resp := send()
			took := time.Since(began)
			assert.Less(t, took, 10*time.Second, "%s returned", name)
			t.Logf("%s: %d after %v", name, resp.status, took.Round(time.Millisecond))
			return resp
		}
		assertUnavailablePage(t, timed("an unknown slug", func() *response { return r.visit(t, "/unknown", "") }))
		assertUnavailable(t, timed("an unknown slug as JSON", func() *response { return r.visit(t, "/unknown", "application/json") }))
		assertRedirectsToSale(t, timed("a known link", func() *response { return r.visit(t, "/sale", "") }))
		assertUnavailable(t, timed("a resolve", func() *response { return r.resolve(t, "unknown") }))
		assertUnavailable(t, timed("an uncached key", func() *response { return r.api.get(t, uncached.raw, "/v1/links/resolve/sale?domain="+r.host) }))
		assertUnavailable(t, timed("the API's readyz", func() *response { return r.api.get(t, "", "/readyz") }))
		assertUnavailable(t, timed("the link domain's readyz", func() *response { return r.visit(t, "/readyz", "") }))

		stall(false)
		r.dh.clock.Advance(linking.DefaultResolveTTL)
		// A pooled connection that stalled may fail once more before the
		// pool drops it; the service is ready again within a few pings.
		require.Eventually(t, func() bool { return r.api.get(t, "", "/readyz").status == http.StatusOK },
			10*time.Second, 50*time.Millisecond, "ready again once the database answers")
		assert.Equal(t, http.StatusNotFound, r.visit(t, "/unknown", "").status, "the database answers again")
		assertRedirectsToSale(t, r.visit(t, "/sale", ""))
	})
}
