package client_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/org"
)

// defaultLinkDomain is the test server's {default_link_domain}.
const defaultLinkDomain = "hop.localhost"

// server is the all-in-one server (hoplink serve's handler stack) on a
// SQLite database of its own, reached over HTTP, with the services a test
// needs to set up what the API cannot: organizations, users and members.
type server struct {
	URL     string
	orgs    *org.Service
	keys    *auth.Keys
	exports *analytics.Exports
	clicks  *analytics.Recorder
	dns     *dnstest.Server
}

// startServer starts a server that is stopped when t ends.
func startServer(t *testing.T) *server {
	t.Helper()
	dns := dnstest.Start(t)
	dir := t.TempDir()
	cfg := app.Config{
		DB:                  filepath.Join(dir, "hoplink.db"),
		Addr:                "127.0.0.1:0",
		ServiceHosts:        []string{"localhost", "127.0.0.1"},
		PublicURL:           &url.URL{Scheme: "http", Host: "localhost:8080"},
		DefaultLinkDomain:   defaultLinkDomain,
		ShortURLBase:        "http://{domain}:8080",
		CNAMETarget:         "cname." + defaultLinkDomain,
		DNSServer:           dns.Addr,
		LogFormat:           "text",
		LogLevel:            slog.LevelError + 4,
		WebhookAllowPrivate: true,
	}
	s := &server{dns: dns}
	var h app.Handler
	a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.ServeAll(app.BootstrapOptions{})),
		fx.Populate(&h, &s.orgs, &s.keys, &s.exports, &s.clicks), fx.NopLogger)
	require.NoError(t, a.Err())
	require.NoError(t, a.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// tenant is an organization with a client on its bootstrap key (every
// requestable scope, no creator).
type tenant struct {
	org *org.Organization
	c   *client.Client
	raw string
}

// newTenant creates an organization on plan with its bootstrap key.
func (s *server) newTenant(t *testing.T, plan org.Plan) *tenant {
	t.Helper()
	ctx := context.Background()
	o, key, err := s.orgs.Create(ctx, "Org "+uuid.NewString()[:8], org.PlanFree)
	require.NoError(t, err)
	if plan != org.PlanFree {
		o, err = s.orgs.SetPlan(ctx, o.ID, plan)
		require.NoError(t, err)
	}
	return &tenant{org: o, c: s.client(t, key.RawKey), raw: key.RawKey}
}

// client returns a client of s with key, retries off so that a test sees
// every answer, whose successful calls TestMain counts.
func (s *server) client(t *testing.T, key string, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append([]client.Option{client.WithoutRetries(), client.WithHTTPClient(&http.Client{Transport: recording{}})}, opts...)
	c, err := client.New(s.URL, key, opts...)
	require.NoError(t, err)
	return c
}

// member adds a user with role to tn's organization and returns a client on
// a key that user created (every scope the role grants), as a dashboard
// key is.
func (s *server) member(t *testing.T, tn *tenant, role auth.Role) (*client.Client, uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	email := "user-" + uuid.NewString()[:8] + "@example.com"
	u, err := s.orgs.CreateUser(ctx, email, "correct horse battery staple")
	require.NoError(t, err)
	_, err = s.orgs.AddMember(ctx, tn.org.ID, email, role)
	require.NoError(t, err)
	var scopes []auth.Scope
	for _, sc := range auth.RequestableScopes {
		if auth.RoleGrants(role, sc) {
			scopes = append(scopes, sc)
		}
	}
	key, err := s.keys.CreateFor(ctx, tn.org.ID, &u.ID, role, auth.CreateKeyInput{Name: "dashboard", Scopes: scopes})
	require.NoError(t, err)
	return s.client(t, key.RawKey), u.ID
}

// apiError asserts that err is *client.Error with status and code and
// returns it.
func apiError(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, status, e.StatusCode, e.Error())
	assert.Equal(t, code, e.Code, e.Error())
	assert.NotEmpty(t, e.Message)
	assert.NotEmpty(t, e.RequestID, "every answer has a request id")
	return e
}

// waitForClicks waits until the click recorder has written n clicks.
func (s *server) waitForClicks(t *testing.T, n uint64) {
	t.Helper()
	require.Eventually(t, func() bool { return s.clicks.Stats().Written >= n }, 30*time.Second, 10*time.Millisecond,
		"the recorder writes the clicks")
}
