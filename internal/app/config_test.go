package app_test

import (
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/internal/app"
)

// operatorEnv lists the HOPLINK_ variable of every operator flag.
var operatorEnv = []string{
	"HOPLINK_DB", "HOPLINK_ADDR", "HOPLINK_SERVICE_HOST", "HOPLINK_PUBLIC_URL",
	"HOPLINK_DEFAULT_LINK_DOMAIN", "HOPLINK_SHORT_URL_BASE", "HOPLINK_TRUSTED_PROXIES",
	"HOPLINK_REDIS", "HOPLINK_DNS_SERVER", "HOPLINK_CNAME_TARGET", "HOPLINK_SECRET_FILE",
	"HOPLINK_LOG_LEVEL", "HOPLINK_LOG_FORMAT", "HOPLINK_DB_TIMEOUT", "HOPLINK_STALE_IF_ERROR",
	"HOPLINK_LOG_LEVEL", "HOPLINK_LOG_FORMAT", "HOPLINK_SPOOL_DIR", "HOPLINK_SPOOL_MAX_BYTES", "HOPLINK_NO_ACCESS_LOG",
	"HOPLINK_CORS_ORIGINS", "HOPLINK_METRICS_ADDR",
}

// clearOperatorEnv unsets every HOPLINK_ variable for the test, so that the
// defaults under test are not the developer's environment. (urfave/cli takes
// a variable set to "" as a value, so they must be unset, not emptied.)
func clearOperatorEnv(t *testing.T) {
	t.Helper()
	for _, k := range operatorEnv {
		t.Setenv(k, "") // restores the old value after the test
		require.NoError(t, os.Unsetenv(k))
	}
}

// configFrom runs a real cli.App with the operator flags (serve's defaults
// when serve) on args and returns what ConfigFromCLI made of them.
func configFrom(t *testing.T, serve bool, args ...string) (app.Config, error) {
	t.Helper()
	var (
		cfg    app.Config
		cfgErr error
		ran    bool
	)
	a := &cli.App{
		Name:      "hoplink-test",
		Flags:     app.Flags(serve),
		Writer:    io.Discard,
		ErrWriter: io.Discard,
		Action: func(c *cli.Context) error {
			ran = true
			cfg, cfgErr = app.ConfigFromCLI(c)
			return nil
		},
	}
	require.NoError(t, a.Run(append([]string{"hoplink-test"}, args...)))
	require.True(t, ran, "the action did not run")
	return cfg, cfgErr
}

func prefixes(t *testing.T, s ...string) []netip.Prefix {
	t.Helper()
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

func TestConfigFromCLIDefaults(t *testing.T) {
	clearOperatorEnv(t)

	tests := []struct {
		name          string
		serve         bool
		wantShortBase string
	}{
		{name: "single-service binaries build https short URLs", serve: false, wantShortBase: "https://{domain}"},
		{name: "serve builds short URLs on port 8080 of the link domain", serve: true, wantShortBase: "http://{domain}:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := configFrom(t, tt.serve)
			require.NoError(t, err)

			assert.Equal(t, "hoplink.db", cfg.DB)
			assert.False(t, cfg.IsPostgres())
			assert.Equal(t, "127.0.0.1:8080", cfg.Addr)
			assert.Equal(t, []string{"localhost", "127.0.0.1"}, cfg.ServiceHosts)
			require.NotNil(t, cfg.PublicURL)
			assert.Equal(t, "http://localhost:8080", cfg.PublicURL.String())
			assert.Equal(t, "hop.localhost", cfg.DefaultLinkDomain)
			assert.Equal(t, tt.wantShortBase, cfg.ShortURLBase)
			assert.Empty(t, cfg.TrustedProxies, "no proxy is trusted by default")
			assert.Empty(t, cfg.Redis, "rate limits stay in process by default")
			assert.Empty(t, cfg.DNSServer, "the system resolver by default")
			assert.Equal(t, "cname.hop.localhost", cfg.CNAMETarget)
			assert.Empty(t, cfg.SecretFile, "hoplink.secret beside the database by default")
			assert.Equal(t, slog.LevelInfo, cfg.LogLevel)
			assert.Equal(t, "text", cfg.LogFormat)
			assert.Equal(t, time.Second, cfg.DBTimeout, "a stalled database answers 503 within a second")
			assert.Equal(t, time.Hour, cfg.StaleIfError, "known links redirect for an hour of outage")
			assert.Empty(t, cfg.CORSOrigins, "no origin may call /mcp from another site by default")
			assert.False(t, cfg.WebhookAllowPrivate, "webhooks reach public addresses only by default")
			assert.Equal(t, 30*time.Second, cfg.WebhookFirstRetry, "a failed delivery is retried after 30 s")
			assert.Empty(t, cfg.MetricsAddr, "no metrics listener by default")
		})
	}
}

func TestConfigFromCLIFlagsAndEnv(t *testing.T) {
	tests := []struct {
		name  string
		serve bool
		args  []string
		env   map[string]string
		check func(t *testing.T, cfg app.Config)
	}{
		{
			name: "every flag is taken",
			args: []string{
				"--db", "/var/lib/hoplink/data.db",
				"--addr", ":9000",
				"--service-host", "api.example.com",
				"--public-url", "https://api.example.com",
				"--default-link-domain", "go.example.com",
				"--short-url-base", "https://{domain}/l",
				"--trusted-proxies", "10.0.0.0/8",
				"--redis", "redis://redis:6379/0",
				"--dns-server", "1.1.1.1:53",
				"--cname-target", "edge.example.net",
				"--secret-file", "/etc/hoplink/secret",
				"--geoip-db", "/var/lib/geoip/city.mmdb",
				"--log-level", "debug",
				"--log-format", "json",
				"--db-timeout", "250ms",
				"--stale-if-error", "6h",
				"--webhook-allow-private",
				"--webhook-first-retry", "2s",
				"--metrics-addr", "127.0.0.1:9090",
			},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "/var/lib/hoplink/data.db", cfg.DB)
				assert.Equal(t, ":9000", cfg.Addr)
				assert.Equal(t, []string{"api.example.com"}, cfg.ServiceHosts)
				assert.Equal(t, "https://api.example.com", cfg.PublicURL.String())
				assert.Equal(t, "go.example.com", cfg.DefaultLinkDomain)
				assert.Equal(t, "https://{domain}/l", cfg.ShortURLBase)
				assert.Equal(t, prefixes(t, "10.0.0.0/8"), cfg.TrustedProxies)
				assert.Equal(t, "redis://redis:6379/0", cfg.Redis)
				assert.Equal(t, "1.1.1.1:53", cfg.DNSServer)
				assert.Equal(t, "edge.example.net", cfg.CNAMETarget)
				assert.Equal(t, "/etc/hoplink/secret", cfg.SecretFile)
				assert.Equal(t, "/var/lib/geoip/city.mmdb", cfg.GeoIPDB)
				assert.Equal(t, slog.LevelDebug, cfg.LogLevel)
				assert.Equal(t, "json", cfg.LogFormat)
				assert.Equal(t, 250*time.Millisecond, cfg.DBTimeout)
				assert.Equal(t, 6*time.Hour, cfg.StaleIfError)
				assert.True(t, cfg.WebhookAllowPrivate)
				assert.Equal(t, 2*time.Second, cfg.WebhookFirstRetry)
				assert.Equal(t, "127.0.0.1:9090", cfg.MetricsAddr)
			},
		},
		{
			name: "cors origins are normalized, * kept",
			args: []string{"--cors-origins", " https://App.Example/ ,http://localhost:5173,*"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, []string{"https://app.example", "http://localhost:5173", "*"}, cfg.CORSOrigins)
			},
		},
		{
			name: "cors origins from the environment",
			env:  map[string]string{"HOPLINK_CORS_ORIGINS": "https://inspector.example"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, []string{"https://inspector.example"}, cfg.CORSOrigins)
			},
		},
		{
			name: "zero turns the database deadline and stale links off",
			args: []string{"--db-timeout", "0", "--stale-if-error", "0s"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Zero(t, cfg.DBTimeout)
				assert.Zero(t, cfg.StaleIfError)
			},
		},
		{
			name: "every HOPLINK_ variable is taken",
			env: map[string]string{
				"HOPLINK_DB":                    "/srv/env.db",
				"HOPLINK_ADDR":                  "0.0.0.0:8181",
				"HOPLINK_SERVICE_HOST":          "api.example.org,admin.example.org",
				"HOPLINK_PUBLIC_URL":            "https://api.example.org/",
				"HOPLINK_DEFAULT_LINK_DOMAIN":   "l.example.org",
				"HOPLINK_SHORT_URL_BASE":        "https://{domain}",
				"HOPLINK_TRUSTED_PROXIES":       "192.168.0.0/16,fd00::/8",
				"HOPLINK_REDIS":                 "rediss://cache:6380/1",
				"HOPLINK_DNS_SERVER":            "9.9.9.9:53",
				"HOPLINK_CNAME_TARGET":          "cname.example.net",
				"HOPLINK_SECRET_FILE":           "/run/secrets/hoplink",
				"HOPLINK_GEOIP_DB":              "/srv/geo.mmdb",
				"HOPLINK_LOG_LEVEL":             "warn",
				"HOPLINK_LOG_FORMAT":            "json",
				"HOPLINK_DB_TIMEOUT":            "2s",
				"HOPLINK_STALE_IF_ERROR":        "30m",
				"HOPLINK_WEBHOOK_ALLOW_PRIVATE": "true",
				"HOPLINK_METRICS_ADDR":          ":9464",
			},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "/srv/env.db", cfg.DB)
				assert.Equal(t, "0.0.0.0:8181", cfg.Addr)
				assert.Equal(t, []string{"api.example.org", "admin.example.org"}, cfg.ServiceHosts)
				assert.Equal(t, "https://api.example.org", cfg.PublicURL.String())
				assert.Equal(t, "l.example.org", cfg.DefaultLinkDomain)
				assert.Equal(t, "https://{domain}", cfg.ShortURLBase)
				assert.Equal(t, prefixes(t, "192.168.0.0/16", "fd00::/8"), cfg.TrustedProxies)
				assert.Equal(t, "rediss://cache:6380/1", cfg.Redis)
				assert.Equal(t, "9.9.9.9:53", cfg.DNSServer)
				assert.Equal(t, "cname.example.net", cfg.CNAMETarget)
				assert.Equal(t, "/run/secrets/hoplink", cfg.SecretFile)
				assert.Equal(t, "/srv/geo.mmdb", cfg.GeoIPDB)
				assert.Equal(t, slog.LevelWarn, cfg.LogLevel)
				assert.Equal(t, "json", cfg.LogFormat)
				assert.Equal(t, 2*time.Second, cfg.DBTimeout)
				assert.True(t, cfg.WebhookAllowPrivate)
				assert.Equal(t, 30*time.Minute, cfg.StaleIfError)
				assert.Equal(t, ":9464", cfg.MetricsAddr)
			},
		},
		{
			name: "a flag beats its variable",
			args: []string{"--db", "flag.db", "--short-url-base", "http://{domain}:9999"},
			env:  map[string]string{"HOPLINK_DB": "env.db", "HOPLINK_SHORT_URL_BASE": "https://{domain}"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "flag.db", cfg.DB)
				assert.Equal(t, "http://{domain}:9999", cfg.ShortURLBase)
			},
		},
		{
			name:  "serve takes HOPLINK_SHORT_URL_BASE over its own default",
			serve: true,
			env:   map[string]string{"HOPLINK_SHORT_URL_BASE": "https://{domain}"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "https://{domain}", cfg.ShortURLBase)
			},
		},
		{
			name: "cname target defaults to cname. plus the normalized default link domain",
			args: []string{"--default-link-domain", " Go.Example.COM "},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "go.example.com", cfg.DefaultLinkDomain)
				assert.Equal(t, "cname.go.example.com", cfg.CNAMETarget)
			},
		},
		{
			name: "cname target defaults from HOPLINK_DEFAULT_LINK_DOMAIN too",
			env:  map[string]string{"HOPLINK_DEFAULT_LINK_DOMAIN": "links.example.io"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "cname.links.example.io", cfg.CNAMETarget)
			},
		},
		{
			name: "service hosts are trimmed, lowercased and empty items dropped",
			args: []string{"--service-host", " API.Example.com, ,localhost "},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, []string{"api.example.com", "localhost"}, cfg.ServiceHosts)
			},
		},
		{
			name: "public url loses its trailing slash so {base_url} is public url plus /v1",
			args: []string{"--public-url", "https://example.com/hoplink/"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, "https://example.com/hoplink", cfg.PublicURL.String())
			},
		},
		{
			name: "trusted proxies take bare addresses as single-host prefixes",
			args: []string{"--trusted-proxies", "10.1.2.3, 2001:db8::1, 172.16.5.0/12"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, prefixes(t, "10.1.2.3/32", "2001:db8::1/128", "172.16.0.0/12"), cfg.TrustedProxies)
			},
		},
		{
			name: "in-memory SQLite is a valid database",
			args: []string{"--db", ":memory:"},
			check: func(t *testing.T, cfg app.Config) {
				assert.Equal(t, ":memory:", cfg.DB)
				assert.False(t, cfg.IsPostgres())
			},
		},
		{
			name: "a postgres DSN with a secret file selects PostgreSQL",
			args: []string{"--db", "postgres://u:p@db:5432/hoplink", "--secret-file", "/etc/hoplink/secret"},
			check: func(t *testing.T, cfg app.Config) {
				assert.True(t, cfg.IsPostgres())
			},
		},
		{
			name: "a postgresql DSN selects PostgreSQL through the environment",
			env:  map[string]string{"HOPLINK_DB": "postgresql://db/hoplink", "HOPLINK_SECRET_FILE": "/etc/hoplink/secret"},
			check: func(t *testing.T, cfg app.Config) {
				assert.True(t, cfg.IsPostgres())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearOperatorEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg, err := configFrom(t, tt.serve, tt.args...)
			require.NoError(t, err)
			tt.check(t, cfg)
		})
	}
}

func TestConfigFromCLIRefusesInvalidValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		// want are substrings the error must hold, so the operator can fix it.
		want []string
	}{
		{name: "public url without a scheme", args: []string{"--public-url", "localhost:8080"}, want: []string{"--public-url"}},
		{name: "public url of another scheme", args: []string{"--public-url", "ftp://example.com"}, want: []string{"--public-url"}},
		{name: "public url without a host", args: []string{"--public-url", "https://"}, want: []string{"--public-url"}},
		{name: "public url that does not parse", args: []string{"--public-url", "http://exa mple.com/%zz"}, want: []string{"--public-url"}},
		{name: "trusted proxy that is no CIDR", args: []string{"--trusted-proxies", "10.0.0.0/8,proxy.internal"}, want: []string{"--trusted-proxies"}},
		{name: "trusted proxy with a bad mask", args: []string{"--trusted-proxies", "10.0.0.0/33"}, want: []string{"--trusted-proxies"}},
		{name: "unknown log level", args: []string{"--log-level", "loud"}, want: []string{"--log-level"}},
		{name: "unknown log format", args: []string{"--log-format", "xml"}, want: []string{"--log-format"}},
		{name: "redis url of another scheme", args: []string{"--redis", "http://redis:6379"}, want: []string{"--redis"}},
		{name: "redis address without a scheme", args: []string{"--redis", "redis:6379"}, want: []string{"--redis"}},
		{name: "invalid value from the environment", env: map[string]string{"HOPLINK_LOG_FORMAT": "yaml"}, want: []string{"--log-format"}},
		{name: "short url base without {domain}", args: []string{"--short-url-base", "https://example.com"}, want: []string{"--short-url-base"}},
		{name: "no service host", args: []string{"--service-host", " , "}, want: []string{"--service-host"}},
		{name: "empty database", args: []string{"--db", ""}, want: []string{"--db"}},
		{name: "a cors origin with a path", args: []string{"--cors-origins", "https://app.example/mcp"}, want: []string{"--cors-origins", "https://app.example/mcp"}},
		{name: "a cors origin without a scheme", args: []string{"--cors-origins", "app.example"}, want: []string{"--cors-origins"}},
		{name: "a cors origin of another scheme", env: map[string]string{"HOPLINK_CORS_ORIGINS": "ftp://app.example"}, want: []string{"--cors-origins"}},
		{name: "negative database deadline", args: []string{"--db-timeout", "-1s"}, want: []string{"--db-timeout"}},
		{name: "webhook first retry under a second", args: []string{"--webhook-first-retry", "500ms"}, want: []string{"--webhook-first-retry"}},
		{name: "webhook first retry past six hours", env: map[string]string{"HOPLINK_WEBHOOK_FIRST_RETRY": "7h"}, want: []string{"--webhook-first-retry"}},
		{name: "negative stale bound", env: map[string]string{"HOPLINK_STALE_IF_ERROR": "-5m"}, want: []string{"--stale-if-error"}},
		{name: "metrics address without a port", args: []string{"--metrics-addr", "127.0.0.1"}, want: []string{"--metrics-addr", "host:port"}},
		{name: "metrics on the service's listener", env: map[string]string{"HOPLINK_METRICS_ADDR": "127.0.0.1:8080"},
			want: []string{"--metrics-addr must differ from --addr"}},
		{name: "empty default link domain", args: []string{"--default-link-domain", "  "}, want: []string{"--default-link-domain"}},
		{
			name: "postgres DSN without a secret file",
			args: []string{"--db", "postgres://u:p@db:5432/hoplink"},
			want: []string{"--secret-file", "HOPLINK_SECRET_FILE", "PostgreSQL"},
		},
		{
			name: "postgresql DSN without a secret file",
			env:  map[string]string{"HOPLINK_DB": "postgresql://db/hoplink"},
			want: []string{"--secret-file", "PostgreSQL"},
		},
		{
			name: "every invalid flag is reported at once",
			args: []string{"--log-level", "loud", "--log-format", "xml", "--redis", "tcp://x"},
			want: []string{"--log-level", "--log-format", "--redis"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearOperatorEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, err := configFrom(t, false, tt.args...)
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestFlagsHaveUsageAndVariables(t *testing.T) {
	for _, serve := range []bool{false, true} {
		for _, f := range app.Flags(serve) {
			df, ok := f.(cli.DocGenerationFlag)
			require.True(t, ok, "%v", f.Names())
			name := f.Names()[0]
			assert.NotEmpty(t, df.GetUsage(), "--%s has no usage", name)
			want := "HOPLINK_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			assert.Equal(t, []string{want}, df.GetEnvVars(), "--%s", name)
		}
	}
}

// TestURLDefaultsFollowTheListenAddress proves that --public-url and
// serve's --short-url-base take the port of --addr unless given, so that
// what serve prints and builds points at where it listens.
func TestURLDefaultsFollowTheListenAddress(t *testing.T) {
	clearOperatorEnv(t)
	tests := []struct {
		name            string
		serve           bool
		args            []string
		public, shortTo string
	}{
		{"the default address", true, nil, "http://localhost:8080", "http://{domain}:8080"},
		{"another loopback port", true, []string{"--addr", "127.0.0.1:18095"}, "http://localhost:18095", "http://{domain}:18095"},
		{"every interface", true, []string{"--addr", ":9000"}, "http://localhost:9000", "http://{domain}:9000"},
		{"port 80 needs none in URLs", true, []string{"--addr", "127.0.0.1:80"}, "http://localhost", "http://{domain}"},
		{"given URLs are kept", true, []string{"--addr", "127.0.0.1:18095", "--public-url", "https://api.example.com",
			"--short-url-base", "https://{domain}"}, "https://api.example.com", "https://{domain}"},
		{"a service binary keeps https short URLs", false, []string{"--addr", ":8081"}, "http://localhost:8081", "https://{domain}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := configFrom(t, tt.serve, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, tt.public, cfg.PublicURL.String())
			assert.Equal(t, tt.shortTo, cfg.ShortURLBase)
		})
	}
	t.Run("from the environment too", func(t *testing.T) {
		t.Setenv("HOPLINK_ADDR", "127.0.0.1:18096")
		cfg, err := configFrom(t, true)
		require.NoError(t, err)
		assert.Equal(t, "http://localhost:18096", cfg.PublicURL.String())
	})
	t.Run("an address without a port is refused", func(t *testing.T) {
		_, err := configFrom(t, true, "--addr", "localhost")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "--addr")
	})
}

func TestAccessLogFlag(t *testing.T) {
	clearOperatorEnv(t)
	cfg, err := configFrom(t, true)
	require.NoError(t, err)
	assert.True(t, cfg.AccessLog, "on by default")
	cfg, err = configFrom(t, true, "--no-access-log")
	require.NoError(t, err)
	assert.False(t, cfg.AccessLog)
}

// TestServiceBinariesCheckTheDatabasePathFirst proves that a single-service
// binary refuses a --db in a missing folder in one line naming it, before
// building anything.
func TestServiceBinariesCheckTheDatabasePathFirst(t *testing.T) {
	clearOperatorEnv(t)
	missing := t.TempDir() + "/no-such-folder/x.db"
	cliApp := app.ServiceCLI("hoplink-test", "test", app.APIService)
	cliApp.Writer, cliApp.ErrWriter = io.Discard, io.Discard
	err := cliApp.Run([]string{"hoplink-test", "--db", missing})
	require.Error(t, err)
	assert.Equal(t, "--db "+missing+": the folder "+strings.TrimSuffix(missing, "/x.db")+" does not exist; create it first, or check the path", err.Error())

	dir := t.TempDir()
	err = cliApp.Run([]string{"hoplink-test", "--db", dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a folder")
}
