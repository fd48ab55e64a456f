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
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/webhook"
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
	// app lookups, key authentication, OAuth token checks, /readyz; an
	// attribution match gets twice it); past it the request is 503.
	// Zero sets no deadline.
	DBTimeout time.Duration
	// StaleIfError is how long past its cache TTL a known link keeps
	// redirecting while the database cannot be reached; zero disables it.
	StaleIfError time.Duration
	// CORSOrigins are the browser origins (scheme://host[:port], lowercase)
	// allowed to call /mcp, /oauth/token, /oauth/register and /oauth/revoke
	// from another site; "*" allows any. Empty allows none. The OAuth
	// metadata documents allow any origin whatever it says.
	CORSOrigins []string
	// AccessLog logs one line per HTTP request at info level
	// (--no-access-log turns it off).
	AccessLog bool
	// WebhookAllowPrivate lets webhook URLs use plain http and reach
	// loopback, private, link-local and metadata addresses, for tests and
	// private networks.
	WebhookAllowPrivate bool
	// WebhookFirstRetry is the wait after a webhook delivery's first
	// failure, doubling after each further one up to six hours.
	WebhookFirstRetry time.Duration
	// MetricsAddr is the listen address of the Prometheus /metrics
	// endpoint, a listener of its own; empty serves no metrics.
	MetricsAddr string
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

// serveShortURLBase is the default of --short-url-base in serve, whose
// port follows --addr.
const serveShortURLBase = "http://{domain}:8080"

// Flags are the operator flags every binary takes, each with its HOPLINK_ variable.
// serve selects the defaults of the all-in-one server.
func Flags(serve bool) []cli.Flag {
	shortBase, shortBaseText := "https://{domain}", ""
	if serve {
		shortBase, shortBaseText = serveShortURLBase, "http://{domain}:PORT, PORT that of --addr"
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "db", Value: "hoplink.db", EnvVars: []string{"HOPLINK_DB"},
			Usage: "SQLite file path (or :memory:); a postgres:// or postgresql:// DSN selects PostgreSQL"},
		&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", EnvVars: []string{"HOPLINK_ADDR"}, Usage: "listen address"},
		&cli.StringFlag{Name: "service-host", Value: "localhost,127.0.0.1", EnvVars: []string{"HOPLINK_SERVICE_HOST"},
			Usage: "host names of the API service; requests for any other host are link-domain requests"},
		&cli.StringFlag{Name: "public-url", Value: "http://localhost:8080", EnvVars: []string{"HOPLINK_PUBLIC_URL"},
			DefaultText: "http://localhost:PORT, PORT that of --addr", Usage: "external URL of the service host"},
		&cli.StringFlag{Name: "default-link-domain", Value: "hop.localhost", EnvVars: []string{"HOPLINK_DEFAULT_LINK_DOMAIN"},
			Usage: "the service's own short-link domain; app subdomains are {handle}.this"},
		&cli.StringFlag{Name: "short-url-base", Value: shortBase, DefaultText: shortBaseText, EnvVars: []string{"HOPLINK_SHORT_URL_BASE"},
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
				"<user cache dir>/hoplink/<binary>.spool with PostgreSQL, none (clicks in memory) with :memory:; " +
				"off keeps clicks in memory (a crash loses them)"},
		&cli.Int64Flag{Name: "spool-max-bytes", Value: analytics.DefaultSpoolMaxBytes, EnvVars: []string{"HOPLINK_SPOOL_MAX_BYTES"},
			Usage: "bound of the click spool on disk; past it clicks are counted but not stored"},
		&cli.StringFlag{Name: "cors-origins", EnvVars: []string{"HOPLINK_CORS_ORIGINS"},
			Usage: "comma-separated browser origins (https://app.example) allowed to call /mcp and the OAuth token, registration and revocation endpoints from another site, or * for any; the OAuth metadata documents allow any origin (default none)"},
		&cli.BoolFlag{Name: "webhook-allow-private", EnvVars: []string{"HOPLINK_WEBHOOK_ALLOW_PRIVATE"},
			Usage: "allow webhook URLs on loopback, private, link-local and metadata addresses, and plain http (for tests and private networks)"},
		&cli.DurationFlag{Name: "webhook-first-retry", Value: webhook.DefaultFirstRetry, EnvVars: []string{"HOPLINK_WEBHOOK_FIRST_RETRY"},
			Usage: "wait after a webhook delivery's first failure, doubling after each further one up to 6h (at least 1s)"},
		&cli.StringFlag{Name: "metrics-addr", EnvVars: []string{"HOPLINK_METRICS_ADDR"},
			Usage: "listen address (host:port) of the Prometheus /metrics endpoint, a listener of its own, never the one of --addr (default none: no metrics)"},
		&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{"HOPLINK_LOG_LEVEL"}, Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "text", EnvVars: []string{"HOPLINK_LOG_FORMAT"}, Usage: "text or json"},
		&cli.BoolFlag{Name: "no-access-log", EnvVars: []string{"HOPLINK_NO_ACCESS_LOG"},
			Usage: "do not log one line per HTTP request (logged at info level by default)"},
	}
}

// FlagsNamed returns the operator flags named, in the order of Flags, for
// an admin command that uses only those: ConfigFromCLI gives every flag a
// command does not take its default.
func FlagsNamed(names ...string) []cli.Flag {
	var out []cli.Flag
	for _, f := range Flags(false) {
		if slices.Contains(names, f.Names()[0]) {
			out = append(out, f)
		}
	}
	return out
}

// flagValues reads the operator flags of one command: a flag the command
// does not define has its default (that of Flags(false)).
type flagValues struct {
	c        *cli.Context
	defaults map[string]cli.Flag
}

func newFlagValues(c *cli.Context) flagValues {
	defaults := map[string]cli.Flag{}
	for _, f := range Flags(false) {
		defaults[f.Names()[0]] = f
	}
	return flagValues{c: c, defaults: defaults}
}

// defined reports whether the command (or the app) of c takes flag name.
func (v flagValues) defined(name string) bool {
	for _, ctx := range v.c.Lineage() {
		if ctx.Command != nil && slices.ContainsFunc(ctx.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) }) {
			return true
		}
	}
	return v.c.App != nil && slices.ContainsFunc(v.c.App.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
}

func (v flagValues) String(name string) string {
	if v.defined(name) {
		return v.c.String(name)
	}
	if f, ok := v.defaults[name].(*cli.StringFlag); ok {
		return f.Value
	}
	return ""
}

func (v flagValues) Duration(name string) time.Duration {
	if v.defined(name) {
		return v.c.Duration(name)
	}
	if f, ok := v.defaults[name].(*cli.DurationFlag); ok {
		return f.Value
	}
	return 0
}

func (v flagValues) Int64(name string) int64 {
	if v.defined(name) {
		return v.c.Int64(name)
	}
	if f, ok := v.defaults[name].(*cli.Int64Flag); ok {
		return f.Value
	}
	return 0
}

func (v flagValues) Bool(name string) bool {
	if v.defined(name) {
		return v.c.Bool(name)
	}
	if f, ok := v.defaults[name].(*cli.BoolFlag); ok {
		return f.Value
	}
	return false
}

// IsSet reports whether the operator gave flag name (or its variable).
func (v flagValues) IsSet(name string) bool { return v.defined(name) && v.c.IsSet(name) }

// ConfigFromCLI turns the flags of c into a validated Config. A flag the
// command does not take has its default. Unless given, --public-url and
// serve's --short-url-base take the port of --addr.
func ConfigFromCLI(c *cli.Context) (Config, error) {
	v := newFlagValues(c)
	cfg := Config{
		DB:                v.String("db"),
		Addr:              v.String("addr"),
		DefaultLinkDomain: strings.ToLower(strings.TrimSpace(v.String("default-link-domain"))),
		ShortURLBase:      v.String("short-url-base"),
		Redis:             v.String("redis"),
		DNSServer:         v.String("dns-server"),
		CNAMETarget:       v.String("cname-target"),
		SecretFile:        v.String("secret-file"),
		GeoIPDB:           v.String("geoip-db"),
		SpoolMaxBytes:     v.Int64("spool-max-bytes"),
		LogFormat:         v.String("log-format"),
		AccessLog:         true,
		MetricsAddr:       strings.TrimSpace(v.String("metrics-addr")),

		WebhookAllowPrivate: v.Bool("webhook-allow-private"),
	}
	var errs []error
	if cfg.DB == "" {
		errs = append(errs, errors.New("--db must not be empty"))
	}
	publicURL := v.String("public-url")
	if port, ok := listenPort(cfg.Addr); !ok {
		errs = append(errs, fmt.Errorf("--addr must be host:port or :port, got %q", cfg.Addr))
	} else {
		if !v.IsSet("public-url") {
			publicURL = "http://localhost" + portSuffix(port)
		}
		if !v.IsSet("short-url-base") && cfg.ShortURLBase == serveShortURLBase {
			cfg.ShortURLBase = "http://{domain}" + portSuffix(port)
		}
	}
	if cfg.MetricsAddr != "" {
		if _, ok := listenPort(cfg.MetricsAddr); !ok {
			errs = append(errs, fmt.Errorf("--metrics-addr must be host:port or :port, got %q", cfg.MetricsAddr))
		} else if cfg.MetricsAddr == cfg.Addr {
			errs = append(errs, errors.New("--metrics-addr must differ from --addr: metrics are never served on the service's listener"))
		}
	}
	if v.defined("no-access-log") {
		cfg.AccessLog = !c.Bool("no-access-log")
	}
	for _, h := range strings.Split(v.String("service-host"), ",") {
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
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--public-url must be an http or https URL, got %q", publicURL))
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
	if cfg.TrustedProxies, err = clientip.ParseTrustedProxies(v.String("trusted-proxies")); err != nil {
		errs = append(errs, fmt.Errorf("--trusted-proxies: %w", err))
	}
	if cfg.Redis != "" && !strings.HasPrefix(cfg.Redis, "redis://") && !strings.HasPrefix(cfg.Redis, "rediss://") {
		errs = append(errs, errors.New("--redis must be a redis:// or rediss:// URL"))
	}
	if cfg.CNAMETarget == "" {
		cfg.CNAMETarget = "cname." + cfg.DefaultLinkDomain
	}
	if cfg.CORSOrigins, err = ParseCORSOrigins(v.String("cors-origins")); err != nil {
		errs = append(errs, fmt.Errorf("--cors-origins: %w", err))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(v.String("log-level"))); err != nil {
		errs = append(errs, fmt.Errorf("--log-level: %w", err))
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		errs = append(errs, errors.New("--log-format must be text or json"))
	}
	cfg.DBTimeout, cfg.StaleIfError = v.Duration("db-timeout"), v.Duration("stale-if-error")
	if cfg.WebhookFirstRetry = v.Duration("webhook-first-retry"); cfg.WebhookFirstRetry < time.Second || cfg.WebhookFirstRetry > webhook.MaxRetryWait {
		errs = append(errs, errors.New("--webhook-first-retry must be between 1s and 6h"))
	}
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
		if cfg.SpoolDir, err = SpoolPath(cfg.DB, v.String("spool-dir"), c.App.Name); err != nil {
			errs = append(errs, err)
		}
	}
	// Only the servers read the secret; the admin commands take no --secret-file.
	if cfg.IsPostgres() && cfg.SecretFile == "" && v.defined("secret-file") {
		errs = append(errs, errors.New("--secret-file (HOPLINK_SECRET_FILE) is required with PostgreSQL: every replica must share one server secret"))
	}
	return cfg, errors.Join(errs...)
}

// ParseCORSOrigins parses --cors-origins: comma-separated origins, each
// "*" or an http or https URL with a host and nothing after it (a trailing
// slash is dropped), returned lowercase. Empty gives none.
func ParseCORSOrigins(v string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(strings.TrimSuffix(o, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(o, "?#") {
			return nil, fmt.Errorf("%q is not an origin (scheme://host[:port], such as https://app.example)", o)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return out, nil
}

// SpoolOff is the --spool-dir that turns the click spool off.
const SpoolOff = "off"

// CheckDB checks, before anything is built, that the database of cfg can
// be opened where it says (checkSQLitePath): the servers call it first,
// so that a mistyped --db is reported as such rather than by whatever
// needs its folder first (the server secret beside it).
func CheckDB(cfg Config) error { return checkSQLitePath(cfg.DB) }

// checkSQLitePath, called before the database is opened, refuses a
// SQLite --db that cannot be a database file:
// one in a folder that does not exist (SQLite would say only "out of
// memory (14)"), or a folder itself. A file that does not exist yet is
// fine: it is created, and OpenStore logs its full path.
func checkSQLitePath(db string) error {
	if IsPostgresDSN(db) || db == ":memory:" || strings.HasPrefix(db, "file:") {
		return nil
	}
	path, _, _ := strings.Cut(db, "?")
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--db %s is a folder; name a database file, such as %s", db, filepath.Join(path, "hoplink.db"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--db %s: the folder %s does not exist; create it first, or check the path", db, dir)
	case err != nil:
		return fmt.Errorf("--db %s: %w", db, err)
	case !fi.IsDir():
		return fmt.Errorf("--db %s: %s is not a folder", db, dir)
	}
	return nil
}

// listenPort returns the port of the listen address addr (":8080",
// "127.0.0.1:8080", "[::1]:8080"); ok is false when addr has none.
func listenPort(addr string) (string, bool) {
	_, port, err := net.SplitHostPort(addr)
	return port, err == nil && port != ""
}

// portSuffix is ":port" in a URL, or nothing for HTTP's own port 80.
func portSuffix(port string) string {
	if port == "80" {
		return ""
	}
	return ":" + port
}

// SpoolPath returns the click spool directory of the binary name on the
// database db: flag when set; else hoplink.spool beside a SQLite database
// file; "" for an in-memory database (its clicks die with it, so they are
// kept in memory too); and, with PostgreSQL, name.spool in a hoplink
// directory of the user's cache directory (os.UserCacheDir), so that the
// binaries of one machine each have their own, or in the working
// directory when there is no cache directory. Two processes cannot share
// a spool: the second fails to start. The flag SpoolOff turns the spool
// off: clicks wait in memory, and a crash of the process loses them.
func SpoolPath(db, flag, name string) (string, error) {
	switch {
	case flag == SpoolOff:
		return "", nil
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
