package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/linking"
)

// Config is the validated operator configuration shared by every binary
// (DESIGN.md, Operator contract).
type Config struct {
	// DB is a SQLite file path, ":memory:", or a postgres:// DSN.
	DB string
	// Addr is the listen address.
	Addr string
	// ServiceHosts are the host names of the API service; any other host is a link domain.
	ServiceHosts []string
	// PublicURL is the external URL of the service host.
	PublicURL *url.URL
	// DefaultLinkDomain is the service's own short-link domain.
	DefaultLinkDomain string
	// ShortURLBase builds short_url: {domain} is replaced and /{slug} appended.
	ShortURLBase string
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Redis is a redis:// URL; empty keeps rate limits in process.
	Redis string
	// DNSServer is the host:port used to verify custom domains; empty is the system resolver.
	DNSServer string
	// CNAMETarget is the CNAME a custom domain must point at.
	CNAMETarget string
	// GeoIPDB is a MaxMind-format database that gives clicks a region and
	// city; empty locates countries only, from the built-in table.
	GeoIPDB string
	// SecretFile holds the server secret; empty means hoplink.secret beside a SQLite database.
	SecretFile string
	// SpoolDir is the directory of the durable click spool (SpoolPath
	// resolves its default); empty keeps clicks in memory, as for an
	// in-memory database.
	SpoolDir string
	// SpoolMaxBytes bounds the click spool on disk.
	SpoolMaxBytes int64
	// LogLevel and LogFormat ("text" or "json") configure slog.
	LogLevel  slog.Level
	LogFormat string
	// DBTimeout bounds every database call on a request's path (link and
	// app lookups, key authentication, /readyz); past it the request is 503.
	// Zero sets no deadline.
	DBTimeout time.Duration
	// StaleIfError is how long past its cache TTL a known link keeps
	// redirecting while the database cannot be reached; zero disables it.
	StaleIfError time.Duration
	// WebhookAllowPrivate lets webhook URLs use plain http and reach
	// loopback, private, link-local and metadata addresses, for tests and
	// private networks.
	WebhookAllowPrivate bool
}

// zeroDisables turns an operator's duration, where zero turns a feature off,
// into the option of the packages it is handed to, where zero is their
// default and a negative value turns it off.
func zeroDisables(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// IsPostgres reports whether DB selects PostgreSQL.
func (c Config) IsPostgres() bool { return IsPostgresDSN(c.DB) }

// IsPostgresDSN reports whether dsn selects PostgreSQL.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Flags are the operator flags every binary takes, each with its HOPLINK_ variable.
// serve selects the defaults of the all-in-one server.
func Flags(serve bool) []cli.Flag {
	shortBase := "https://{domain}"
	if serve {
		shortBase = "http://{domain}:8080"
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "db", Value: "hoplink.db", EnvVars: []string{"HOPLINK_DB"},
			Usage: "SQLite file path (or :memory:); a postgres:// or postgresql:// DSN selects PostgreSQL"},
		&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", EnvVars: []string{"HOPLINK_ADDR"}, Usage: "listen address"},
		&cli.StringFlag{Name: "service-host", Value: "localhost,127.0.0.1", EnvVars: []string{"HOPLINK_SERVICE_HOST"},
			Usage: "host names of the API service; requests for any other host are link-domain requests"},
		&cli.StringFlag{Name: "public-url", Value: "http://localhost:8080", EnvVars: []string{"HOPLINK_PUBLIC_URL"},
			Usage: "external URL of the service host"},
		&cli.StringFlag{Name: "default-link-domain", Value: "hop.localhost", EnvVars: []string{"HOPLINK_DEFAULT_LINK_DOMAIN"},
			Usage: "the service's own short-link domain; app subdomains are {handle}.this"},
		&cli.StringFlag{Name: "short-url-base", Value: shortBase, EnvVars: []string{"HOPLINK_SHORT_URL_BASE"},
			Usage: "how short_url is built: {domain} is replaced and /{slug} appended"},
		&cli.StringFlag{Name: "trusted-proxies", EnvVars: []string{"HOPLINK_TRUSTED_PROXIES"},
			Usage: "comma-separated CIDRs whose X-Forwarded-For is believed (default none)"},
		&cli.StringFlag{Name: "redis", EnvVars: []string{"HOPLINK_REDIS"},
			Usage: "redis:// URL; when set, rate limits are shared across replicas (default none)"},
		&cli.StringFlag{Name: "dns-server", EnvVars: []string{"HOPLINK_DNS_SERVER"},
			Usage: "host:port of the DNS server used to verify custom domains (default the system resolver)"},
		&cli.StringFlag{Name: "cname-target", EnvVars: []string{"HOPLINK_CNAME_TARGET"},
			Usage: "the CNAME a custom domain must point at (default cname. plus the default link domain)"},
		&cli.StringFlag{Name: "secret-file", EnvVars: []string{"HOPLINK_SECRET_FILE"},
			Usage: "file holding the server secret (32+ random bytes); default hoplink.secret beside a SQLite database, created on first start; required with PostgreSQL"},
		&cli.StringFlag{Name: "geoip-db", EnvVars: []string{"HOPLINK_GEOIP_DB"},
			Usage: "MaxMind-format database (GeoIP2 or GeoLite2 City) for the region and city of clicks; the country needs none (default none)"},
		&cli.DurationFlag{Name: "db-timeout", Value: dbdeadline.Default, EnvVars: []string{"HOPLINK_DB_TIMEOUT"},
			Usage: "deadline of each database call on a request's path (link, app and key lookups, /readyz); past it the request answers 503; 0 sets none"},
		&cli.DurationFlag{Name: "stale-if-error", Value: linking.DefaultStaleIfError, EnvVars: []string{"HOPLINK_STALE_IF_ERROR"},
			Usage: "how long past its cache lifetime a known link keeps redirecting while the database cannot be reached; 0 disables"},
		&cli.StringFlag{Name: "spool-dir", EnvVars: []string{"HOPLINK_SPOOL_DIR"},
			Usage: "directory of the durable click spool, one per process; default hoplink.spool beside a SQLite database, " +
				"<user cache dir>/hoplink/<binary>.spool with PostgreSQL, none (clicks in memory) with :memory:"},
		&cli.Int64Flag{Name: "spool-max-bytes", Value: analytics.DefaultSpoolMaxBytes, EnvVars: []string{"HOPLINK_SPOOL_MAX_BYTES"},
			Usage: "bound of the click spool on disk; past it clicks are counted but not stored"},
		&cli.BoolFlag{Name: "webhook-allow-private", EnvVars: []string{"HOPLINK_WEBHOOK_ALLOW_PRIVATE"},
			Usage: "allow webhook URLs on loopback, private, link-local and metadata addresses, and plain http (for tests and private networks)"},
		&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{"HOPLINK_LOG_LEVEL"}, Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "text", EnvVars: []string{"HOPLINK_LOG_FORMAT"}, Usage: "text or json"},
	}
}

// ConfigFromCLI turns the flags of c into a validated Config.
func ConfigFromCLI(c *cli.Context) (Config, error) {
	cfg := Config{
		DB:                c.String("db"),
		Addr:              c.String("addr"),
		DefaultLinkDomain: strings.ToLower(strings.TrimSpace(c.String("default-link-domain"))),
		ShortURLBase:      c.String("short-url-base"),
		Redis:             c.String("redis"),
		DNSServer:         c.String("dns-server"),
		CNAMETarget:       c.String("cname-target"),
		SecretFile:        c.String("secret-file"),
		GeoIPDB:           c.String("geoip-db"),
		SpoolMaxBytes:     c.Int64("spool-max-bytes"),
		LogFormat:         c.String("log-format"),

		WebhookAllowPrivate: c.Bool("webhook-allow-private"),
	}
	var errs []error
	if cfg.DB == "" {
		errs = append(errs, errors.New("--db must not be empty"))
	}
	for _, h := range strings.Split(c.String("service-host"), ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		// Requests are matched on their host name alone, so a port is dropped.
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		if h = strings.Trim(h, "[]"); h != "" {
			cfg.ServiceHosts = append(cfg.ServiceHosts, h)
		}
	}
	if len(cfg.ServiceHosts) == 0 {
		errs = append(errs, errors.New("--service-host must name at least one host"))
	}
	u, err := url.Parse(c.String("public-url"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--public-url must be an http or https URL, got %q", c.String("public-url")))
	} else {
		u.Path = strings.TrimRight(u.Path, "/")
		cfg.PublicURL = u
	}
	if cfg.DefaultLinkDomain == "" {
		errs = append(errs, errors.New("--default-link-domain must not be empty"))
	}
	if !strings.Contains(cfg.ShortURLBase, "{domain}") {
		errs = append(errs, errors.New("--short-url-base must contain {domain}"))
	}
	if cfg.TrustedProxies, err = clientip.ParseTrustedProxies(c.String("trusted-proxies")); err != nil {
		errs = append(errs, fmt.Errorf("--trusted-proxies: %w", err))
	}
	if cfg.Redis != "" && !strings.HasPrefix(cfg.Redis, "redis://") && !strings.HasPrefix(cfg.Redis, "rediss://") {
		errs = append(errs, errors.New("--redis must be a redis:// or rediss:// URL"))
	}
	if cfg.CNAMETarget == "" {
		cfg.CNAMETarget = "cname." + cfg.DefaultLinkDomain
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		errs = append(errs, fmt.Errorf("--log-level: %w", err))
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		errs = append(errs, errors.New("--log-format must be text or json"))
	}
	cfg.DBTimeout, cfg.StaleIfError = c.Duration("db-timeout"), c.Duration("stale-if-error")
	if cfg.DBTimeout < 0 {
		errs = append(errs, errors.New("--db-timeout must not be negative"))
	}
	if cfg.StaleIfError < 0 {
		errs = append(errs, errors.New("--stale-if-error must not be negative"))
	}
	if cfg.SpoolMaxBytes <= 0 {
		errs = append(errs, errors.New("--spool-max-bytes must be above 0"))
	}
	if cfg.DB != "" {
		if cfg.SpoolDir, err = SpoolPath(cfg.DB, c.String("spool-dir"), c.App.Name); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.IsPostgres() && cfg.SecretFile == "" {
		errs = append(errs, errors.New("--secret-file (HOPLINK_SECRET_FILE) is required with PostgreSQL: every replica must share one server secret"))
	}
	return cfg, errors.Join(errs...)
}

// SpoolPath returns the click spool directory of the binary name on the
// database db: flag when set; else hoplink.spool beside a SQLite database
// file; "" for an in-memory database (its clicks die with it, so they are
// kept in memory too); and, with PostgreSQL, name.spool in a hoplink
// directory of the user's cache directory (os.UserCacheDir), so that the
// binaries of one machine each have their own, or in the working
// directory when there is no cache directory. Two processes cannot share
// a spool: the second fails to start.
func SpoolPath(db, flag, name string) (string, error) {
	switch {
	case flag != "":
		return flag, nil
	case IsPostgresDSN(db):
		if name == "" {
			name = "hoplink"
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			return name + ".spool", nil
		}
		return filepath.Join(cache, "hoplink", name+".spool"), nil
	case db == ":memory:":
		return "", nil
	default:
		return filepath.Join(filepath.Dir(db), "hoplink.spool"), nil
	}
}
