package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/org"
)

// TestRun runs the walk-through twice against the all-in-one server: the
// first run makes the app, the second reuses it.
func TestRun(t *testing.T) {
	cfg := app.Config{
		DB:                filepath.Join(t.TempDir(), "hoplink.db"),
		Addr:              "127.0.0.1:0",
		ServiceHosts:      []string{"127.0.0.1"},
		PublicURL:         &url.URL{Scheme: "http", Host: "localhost:8080"},
		DefaultLinkDomain: "hop.localhost",
		ShortURLBase:      "http://{domain}:8080",
		CNAMETarget:       "cname.hop.localhost",
		LogFormat:         "text",
		LogLevel:          slog.LevelError + 4,
	}
	var h app.Handler
	var orgs *org.Service
	a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.ServeAll(app.BootstrapOptions{})),
		fx.Populate(&h, &orgs), fx.NopLogger)
	require.NoError(t, a.Err())
	require.NoError(t, a.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, key, err := orgs.Create(context.Background(), "Example", org.PlanFree)
	require.NoError(t, err)

	for i, want := range []string{"1 example links", "2 example links"} {
		var out strings.Builder
		require.NoError(t, run(context.Background(), &out, srv.URL, key.RawKey))
		lines := strings.Split(out.String(), "\n")
		assert.Equal(t, "app Example Shop on example-shop.hop.localhost", lines[0], "run %d", i+1)
		assert.True(t, strings.HasPrefix(lines[1], "created http://example-shop.hop.localhost:8080/"), lines[1])
		assert.True(t, strings.HasPrefix(lines[2], "listed "), lines[2])
		assert.Equal(t, want, lines[3])
		assert.Contains(t, out.String(), "\ntotal: ")
	}
}
