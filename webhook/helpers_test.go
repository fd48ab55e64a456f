package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

var serverSecret = bytes.Repeat([]byte{0x5a}, 32)

// clock is a movable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// request is one request a receiver got.
type request struct {
	header http.Header
	body   []byte
}

// receiver is a real HTTPS server on loopback that answers each request with
// the next of its answers (the last one repeating) and records it.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []request
	answers  []func(w http.ResponseWriter, r *http.Request)
	released chan struct{}
}

func status(code int) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

func newReceiver(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	return newReceiverTB(t, answers...)
}

func newReceiverTB(t testing.TB, answers ...func(w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	if len(answers) == 0 {
		answers = append(answers, status(http.StatusOK))
	}
	rc := &receiver{answers: answers, released: make(chan struct{})}
	rc.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, request{header: r.Header.Clone(), body: body})
		answer := rc.answers[min(n, len(rc.answers)-1)]
		rc.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(func() {
		close(rc.released)
		rc.Close()
	})
	return rc
}

// hang never answers until the test ends.
func (rc *receiver) hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-rc.released:
	case <-r.Context().Done():
	}
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.got...)
}

func (rc *receiver) tls() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(rc.Certificate())
	return &tls.Config{RootCAs: pool}
}

// fixture is a store with one organization, a service, a worker and a
// clock, with private addresses allowed (the receiver is on loopback).
type fixture struct {
	store  *store.Store
	org    *org.Organization
	owner  *auth.Principal
	clock  *clock
	svc    *webhook.Service
	worker *webhook.Worker
	audit  *audit.Service
}

type fixtureOptions struct {
	allowPrivate bool
	client       *http.Client
	resolver     webhook.Resolver
	store        *store.Store
	org          *org.Organization
}

func newFixture(t testing.TB, rc *receiver, o fixtureOptions) *fixture {
	t.Helper()
	c := &clock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	s := o.store
	if s == nil {
		s = storetest.SQLite(t)
	}
	f := &fixture{store: s, clock: c, org: o.org}
	if f.org == nil {
		f.org = &org.Organization{ID: uuid.Must(uuid.NewV7()), Name: "Acme", Slug: "acme-" + uuid.NewString()[:8], Plan: org.PlanFree,
			MonthlyClickLimit: 1000, BillingPeriodStart: c.Now(), CreatedAt: c.Now(), UpdatedAt: c.Now()}
		require.NoError(t, s.CreateOrganization(t.Context(), f.org, nil))
	}
	f.owner = &auth.Principal{OrgID: f.org.ID, Type: auth.KeyTypeAPI, Scopes: auth.NewScopeSet(auth.AllScopes)}
	var err error
	f.svc, err = webhook.NewService(s, serverSecret, webhook.ServiceOptions{AllowPrivate: o.allowPrivate, Resolver: o.resolver, Clock: c.Now})
	require.NoError(t, err)
	f.audit, err = audit.NewService(s, serverSecret, audit.ServiceOptions{Clock: c.Now})
	require.NoError(t, err)
	client := o.client
	if client == nil && rc != nil {
		client = webhook.NewClient(webhook.ClientOptions{AllowPrivate: o.allowPrivate, TLS: rc.tls(), Timeout: 2 * time.Second})
	}
	f.worker, err = webhook.NewWorker(s, serverSecret, webhook.WorkerOptions{Client: client, Clock: c.Now,
		Jitter: func() float64 { return 0.5 }})
	require.NoError(t, err)
	return f
}

// create adds an endpoint for events at url and returns it with its secret.
func (f *fixture) create(t testing.TB, url string, events ...webhook.Type) *webhook.WithSecret {
	t.Helper()
	w, err := f.svc.Create(t.Context(), f.owner, webhook.CreateInput{URL: apitype.Some(url), Events: apitype.Some(events)})
	require.NoError(t, err)
	return w
}

// emit writes an event of the organization to the outbox now.
func (f *fixture) emit(t *testing.T, typ webhook.Type, data any) webhook.Event {
	t.Helper()
	ev, err := webhook.NewEvent(f.org.ID, typ, f.clock.Now(), nil, nil, data)
	require.NoError(t, err)
	require.NoError(t, f.store.EnqueueEvents(t.Context(), []webhook.Event{ev}))
	return ev
}

func (f *fixture) run(t *testing.T) int {
	t.Helper()
	n, err := f.worker.RunOnce(t.Context())
	require.NoError(t, err)
	return n
}

func (f *fixture) deliveries(t *testing.T, id uuid.UUID) []webhook.Delivery {
	t.Helper()
	page, err := f.svc.Deliveries(t.Context(), f.owner, id, webhook.DeliveryQuery{})
	require.NoError(t, err)
	return page.Data
}

// loopbackResolver resolves names through the DNS server at addr.
func loopbackResolver(addr string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func someBool(v bool) apitype.Optional[bool] { return apitype.Some(v) }

func splitHostPort(rawURL string) (string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", err
	}
	return net.SplitHostPort(u.Host)
}
