package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/geo"
	"github.com/hoplink/hoplink/internal/app"
)

func validConfig(t *testing.T) app.Config {
	t.Helper()
	return app.Config{
		DB:                filepath.Join(t.TempDir(), "hoplink.db"),
		Addr:              "127.0.0.1:0",
		ServiceHosts:      []string{"localhost", "127.0.0.1"},
		PublicURL:         &url.URL{Scheme: "http", Host: "localhost:8080"},
		DefaultLinkDomain: "hop.localhost",
		ShortURLBase:      "http://{domain}:8080",
		CNAMETarget:       "cname.hop.localhost",
		LogFormat:         "text",
	}
}

// TestBinariesValidate proves that the dependency graph of every binary is
// complete, without opening a database or a listener.
func TestBinariesValidate(t *testing.T) {
	tests := []struct {
		name    string
		service fx.Option
	}{
		{name: "hoplink-api", service: app.APIService()},
		{name: "hoplink-redirect", service: app.RedirectService()},
		{name: "hoplink-auth", service: app.AuthService()},
		{name: "hoplink serve", service: app.ServeAll(app.BootstrapOptions{Enabled: true, Out: io.Discard})},
		{name: "hoplink serve --no-bootstrap", service: app.ServeAll(app.BootstrapOptions{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := app.Options(validConfig(t), app.StoreOptions{Migrate: true}, tt.service)
			assert.NoError(t, fx.ValidateApp(opts))
		})
	}

	t.Run("a server without a handler does not validate", func(t *testing.T) {
		opts := app.Options(validConfig(t), app.StoreOptions{}, app.Server)
		assert.Error(t, fx.ValidateApp(opts), "the check above must be able to fail")
	})
}

// TestServiceCLIRefusesInvalidConfig shows that the single-service binaries
// validate their flags before they open anything.
func TestServiceCLIRefusesInvalidConfig(t *testing.T) {
	clearOperatorEnv(t)
	for _, service := range []func() fx.Option{app.APIService, app.RedirectService, app.AuthService} {
		dir := t.TempDir()
		c := app.ServiceCLI("hoplink-x", "test", service)
		c.Writer, c.ErrWriter = io.Discard, io.Discard
		err := c.Run([]string{"hoplink-x", "--db", filepath.Join(dir, "x.db"), "--log-format", "xml"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "--log-format")
		assert.NoFileExists(t, filepath.Join(dir, "x.db"), "nothing is opened with an invalid config")
		assert.NoFileExists(t, filepath.Join(dir, "hoplink.secret"))
	}
}

func TestServiceCLIDefaultsToHTTPSShortURLs(t *testing.T) {
	c := app.ServiceCLI("hoplink-x", "test", app.APIService)
	var got string
	for _, f := range c.Flags {
		if f.Names()[0] == "short-url-base" {
			got = f.(interface{ GetDefaultText() string }).GetDefaultText()
		}
	}
	assert.Equal(t, `"https://{domain}"`, got)
}

// TestAppWritesReachTheMatcher proves that the apps service hears of the
// attribution matcher where the REST API runs, so that app writes empty
// the matcher's cache of apps, and builds no matcher where it does not.
func TestAppWritesReachTheMatcher(t *testing.T) {
	tests := []struct {
		name        string
		service     fx.Option
		wantMatcher bool
	}{
		{name: "hoplink-api", service: app.APIService(), wantMatcher: true},
		{name: "hoplink serve", service: app.ServeAll(app.BootstrapOptions{}), wantMatcher: true},
		{name: "hoplink-auth", service: app.AuthService(), wantMatcher: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deps app.AppServiceDeps
			cfg := validConfig(t)
			cfg.LogLevel = slog.LevelWarn
			a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, tt.service,
				fx.NopLogger, fx.Invoke(func(d app.AppServiceDeps) { deps = d })))
			require.NoError(t, a.Err())
			require.NoError(t, a.Start(t.Context()))
			t.Cleanup(func() { assert.NoError(t, a.Stop(context.Background())) })
			assert.Equal(t, tt.wantMatcher, deps.Matcher != nil)
		})
	}
}

// --geoip-db names the database that locates clicks: a file that is not a
// MaxMind-format database fails the start with the flag's name, and
// without it clicks are located by the built-in country table.
func TestGeoIPDatabase(t *testing.T) {
	t.Run("a file that does not open fails the start", func(t *testing.T) {
		cfg := validConfig(t)
		cfg.GeoIPDB = filepath.Join(t.TempDir(), "missing.mmdb")
		a := fx.New(app.Options(cfg, app.StoreOptions{Migrate: true}, app.RedirectService(), fx.NopLogger))
		require.Error(t, a.Err())
		assert.Contains(t, a.Err().Error(), "--geoip-db")
	})
	t.Run("none locates countries", func(t *testing.T) {
		var loc geo.Locator
		a := fx.New(app.Options(validConfig(t), app.StoreOptions{Migrate: true}, app.RedirectService(),
			fx.NopLogger, fx.Populate(&loc)))
		require.NoError(t, a.Err())
		got := loc.Locate(netip.MustParseAddr("8.8.8.8"))
		assert.Equal(t, geo.Location{Country: "US"}, got)
	})
}

// TestEveryBinarySweepsRenamePeriods proves that every binary's graph runs
// the rename sweeper exactly once, so that a period ends whichever
// services an operator runs (hoplink-redirect alone included), and that
// the graph with it validates.
func TestEveryBinarySweepsRenamePeriods(t *testing.T) {
	tests := []struct {
		name    string
		service fx.Option
	}{
		{name: "hoplink-api", service: app.APIService()},
		{name: "hoplink-redirect", service: app.RedirectService()},
		{name: "hoplink-auth", service: app.AuthService()},
		{name: "hoplink serve", service: app.ServeAll(app.BootstrapOptions{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, 1, strings.Count(tt.service.String(), "RunRenameSweeper("), "the sweeper's invoke, once: %s", tt.service)
			assert.NoError(t, fx.ValidateApp(app.Options(validConfig(t), app.StoreOptions{Migrate: true}, tt.service)))
		})
	}
}
