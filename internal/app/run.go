package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/geo"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/version"
)

// Options are the fx options of one binary.
func Options(cfg Config, storeOpts StoreOptions, extra ...fx.Option) fx.Option {
	return fx.Options(
		fx.Supply(cfg, storeOpts),
		fx.WithLogger(func(log *slog.Logger) fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log}
			l.UseLogLevel(slog.LevelDebug)
			// A failed start is reported once, by Run's caller, in the
			// operator's words; fx's own account of it is for debugging.
			l.UseErrorLevel(slog.LevelDebug)
			return l
		}),
		Core,
		fx.Options(extra...),
	)
}

// APIService is the REST API binary: the API on every host.
func APIService() fx.Option {
	// The recorder takes the clicks of SDK resolves.
	return fx.Options(API, fx.Provide(NewClickRecorder, func(a *httpapi.API) Handler { return Handler{a} }), Server)
}

// RedirectService is the link-domain binary: the link-domain handler on
// every host.
func RedirectService() fx.Option {
	return fx.Options(fx.Provide(func(h *httpapi.LinkDomain) Handler { return Handler{h} }, NewLinkDomain, NewClickRecorder),
		RenameSweep, Server)
}

// LinkDomainDeps are the dependencies of the link-domain handler.
type LinkDomainDeps struct {
	fx.In
	Config   Config
	Log      *slog.Logger
	Store    *store.Store
	Secret   Secret
	Limiter  ratelimit.Limiter
	Resolver *linking.Resolver
	Clicks   *analytics.Recorder
	Metrics  *Metrics
}

// NewLinkDomain returns the link-domain handler over the resolver, with
// /readyz pinging the store; the server secret signs its password forms and
// cookies, and the limiter (the API's) counts password attempts. With
// --redis the wrong passwords per link are counted in Redis too, so that a
// locked link is locked on every replica; otherwise in this process.
func NewLinkDomain(d LinkDomainDeps) *httpapi.LinkDomain {
	var lockout ratelimit.Lockout
	if r, ok := ratelimit.Unwrap(d.Limiter).(*ratelimit.Redis); ok {
		lockout = r.Lockout(func(string) ratelimit.LockoutRule { return httpapi.DefaultLinkLockout }, d.Log)
	}
	return httpapi.NewLinkDomain(httpapi.LinkDomainOptions{
		PasswordLockout: lockout,
		Resolver:        d.Resolver,
		Ready:           d.Store.Ping,
		ReadyTimeout:    zeroDisables(d.Config.DBTimeout),
		ShortURLBase:    d.Config.ShortURLBase,
		TrustedProxies:  d.Config.TrustedProxies,
		Logger:          d.Log,
		Secret:          d.Secret,
		Limiter:         d.Limiter,
		OnRedirect:      httpapi.RecordClicks(d.Clicks),
		OnOutcome:       d.Metrics.OnOutcome(),
	})
}

// recorderBatch is the click recorder's batch: the clicks of a spool
// chunk at most (see NewClickRecorder).
const recorderBatch = 2000

// recorderGather is how many full spool chunks the recorder gathers into
// one batch before the second's tick (analytics.RecorderOptions): under
// load it writes about a batch of 10,000 clicks a second rather than one
// of 2,000 for each chunk, and a batch's rollup rows, a link's hour and
// day among them, are shared by five times as many clicks.
const recorderGather = 5

// reportOverflow logs, at most once per interval, how many clicks found
// the recorder's buffer or spool full since the last report (counted, but
// stored without a row), so that a redirect load or an outage beyond what
// the recorder can hold is never silent.
func reportOverflow(ctx context.Context, rec *analytics.Recorder, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var reported uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			st := rec.Stats()
			if st.Overflowed > reported {
				log.Warn("click buffer or spool full: clicks were counted but not stored", "overflowed", st.Overflowed-reported,
					"overflowed_total", st.Overflowed, "written_total", st.Written)
				reported = st.Overflowed
			}
		}
	}
}

// NewClickRecorder returns the click recorder with the organizations' click
// allowances and the durable click spool of cfg.SpoolDir (locked by this
// process: a spool another process uses fails the start), and runs it
// while the application runs. It stops after the HTTP server (fx stops in
// reverse order), so the clicks of the last requests are written before
// the process exits, or stay in the spool for the next start.
//
// A spool chunk holds recorderBatch clicks: its rotation (a file made,
// allocated and mapped, the last one cut and closed) happens on a
// redirect's path, under the spool's mutex, so it should be rare; a
// chunk rotates every second too, so a small load is written as soon.
func NewClickRecorder(lc fx.Lifecycle, cfg Config, s *store.Store, locator geo.Locator, m *Metrics, log *slog.Logger) (*analytics.Recorder, error) {
	allowance := analytics.NewAllowance(s, analytics.AllowanceOptions{Logger: log})
	rec, err := analytics.OpenRecorder(s, analytics.RecorderOptions{Allowance: allowance, Locator: locator, Logger: log,
		SpoolDir: cfg.SpoolDir, SpoolMaxBytes: cfg.SpoolMaxBytes, BatchSize: recorderBatch, GatherChunks: recorderGather,
		OnFlush: m.OnFlush()})
	if err != nil {
		return nil, fmt.Errorf("--spool-dir %s: %w", cfg.SpoolDir, err)
	}
	m.WatchRecorder(rec)
	if cfg.SpoolDir != "" {
		log.Info("clicks are kept in a durable spool until written", "spool_dir", cfg.SpoolDir)
	}
	runInBackground(lc, "click recorder", func(ctx context.Context) error {
		go reportOverflow(ctx, rec, log, 10*time.Second)
		err := rec.Run(ctx)
		allowance.Wait()
		logClicksAtStop(log, rec.Stats(), cfg.SpoolDir)
		return err
	})
	return rec, nil
}

// logClicksAtStop logs, as the click recorder stops, what it did with the
// clicks of this run: written, counted only, given up, and what stays in
// the spool for the next start.
func logClicksAtStop(log *slog.Logger, st analytics.Stats, spoolDir string) {
	attrs := []any{"accepted", st.Accepted, "written", st.Written, "counted_only", st.CountedOnly,
		"duplicates", st.Duplicates, "failed", st.Failed}
	if spoolDir != "" {
		attrs = append(attrs, "left_in_spool_bytes", st.SpoolBytes, "spool_dir", spoolDir)
	} else {
		attrs = append(attrs, "left_in_memory", st.Buffered)
	}
	log.Info("click recorder stopped", attrs...)
}

// NewLocator returns what locates clicks: the MaxMind-format database of
// --geoip-db, opened at start (a file that does not open fails the start)
// and closed on stop, or the built-in country table.
func NewLocator(lc fx.Lifecycle, cfg Config, log *slog.Logger) (geo.Locator, error) {
	if cfg.GeoIPDB == "" {
		return geo.Builtin(), nil
	}
	db, err := geo.OpenMaxMind(cfg.GeoIPDB)
	if err != nil {
		return nil, fmt.Errorf("--geoip-db: %w", err)
	}
	log.Info("locating clicks with a MaxMind-format database", "path", cfg.GeoIPDB)
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}

// AuthService is the OAuth and MCP binary: the service routes (/mcp) in
// front of the authorization server, the sign-in and account pages and the
// health checks (AuthPages). The MCP tools run on the services the REST API
// uses, but the REST API itself is not built: this binary serves no /v1
// resources.
func AuthService() fx.Option {
	return fx.Options(MCP, OAuth, fx.Provide(NewAuthPages, authHandler), RenameSweep, Server)
}

func authHandler(cfg Config, pages AuthPages, routes ServiceRoutes) Handler {
	return Handler{NewServiceHandler(cfg, pages, routes.Routes)}
}

// BootstrapOptions say whether serve creates a first organization.
type BootstrapOptions struct {
	Enabled bool
	// Out receives the bootstrap key, once.
	Out io.Writer
}

// ServeAll is the all-in-one server: the API, /mcp and the auth endpoints on
// the service hosts, link domains on every other host, and a first organization
// with its key on an empty database.
func ServeAll(boot BootstrapOptions) fx.Option {
	return fx.Options(
		API,
		MCP,
		OAuth,
		fx.Supply(boot),
		fx.Provide(NewLinkDomain, NewClickRecorder, func(cfg Config, a *httpapi.API, l *httpapi.LinkDomain,
			routes ServiceRoutes) Handler {
			return Handler{&httpapi.HostRouter{ServiceHosts: cfg.ServiceHosts,
				Service: NewServiceHandler(cfg, a, routes.Routes), LinkDomain: l}}
		}),
		// The listener opens first, so that a taken address fails the start
		// before anything is created.
		fx.Invoke(Bootstrap),
		Server,
	)
}

// Bootstrap creates the organization "Default" and prints its key once when
// the database has no organization and boot is enabled. On a database that
// has organizations it logs how to make a key with the CLI, for whoever
// lost the bootstrap key.
func Bootstrap(lc fx.Lifecycle, boot BootstrapOptions, orgs *org.Service, cfg Config, log *slog.Logger) {
	if !boot.Enabled {
		return
	}
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		n, err := orgs.Count(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			db := DBForLog(cfg.DB)
			log.Info("the database has organizations, so no bootstrap key is made; a lost key cannot be shown again, "+
				"but the CLI makes a new one", "organizations", n,
				"list_them", "hoplink org list --db "+db,
				"make_a_key", "hoplink key create --db "+db+" --org ORG_ID --name admin --scopes "+scopeList(auth.RequestableScopes))
			return nil
		}
		o, key, err := orgs.Create(ctx, "Default", org.PlanFree)
		if err != nil {
			return err
		}
		out := boot.Out
		if out == nil {
			out = os.Stdout
		}
		fmt.Fprintf(out, "\nCreated organization %q (%s) with a bootstrap API key.\n", o.Name, o.ID)
		fmt.Fprintf(out, "It is shown only this once; keep it safe:\n\n    %s\n\n", key.RawKey)
		fmt.Fprintf(out, "Try it:  curl -H 'Authorization: Bearer %s' %s/v1/organizations/%s\n\n", key.RawKey, cfg.PublicURL, o.ID)
		return nil
	}))
}

func scopeList(scopes []auth.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

// Run starts an application built from opts, waits for SIGINT or SIGTERM and
// stops it gracefully. It sets the garbage collector for a long-running
// server first (tuneGC).
func Run(opts fx.Option) error {
	tuneGC(os.Getenv, machineMemory)
	a := fx.New(opts, fx.StopTimeout(30*time.Second))
	if err := a.Err(); err != nil {
		// The error a constructor returned, without the dependency
		// chain fx and dig wrap around it.
		return dig.RootCause(err)
	}
	// Done receives SIGINT and SIGTERM. Ask for it before starting, so that a
	// signal that arrives as soon as the server listens stops it gracefully.
	done := a.Done()
	startCtx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.Start(startCtx); err != nil {
		return err
	}
	<-done
	stopCtx, cancelStop := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelStop()
	return a.Stop(stopCtx)
}

// ServiceCLI returns the command line of a single-service binary: the
// operator flags and an action that runs service until SIGINT or SIGTERM.
// A SQLite database is migrated on start; PostgreSQL needs `hoplink migrate`.
func ServiceCLI(name, usage string, service func() fx.Option) *cli.App {
	return &cli.App{
		Name:    name,
		Usage:   usage,
		Version: version.Get().String(),
		Flags:   Flags(false),
		Action: func(c *cli.Context) error {
			cfg, err := ConfigFromCLI(c)
			if err != nil {
				return err
			}
			if err := CheckDB(cfg); err != nil {
				return err
			}
			return Run(Options(cfg, StoreOptions{Migrate: !cfg.IsPostgres()}, service()))
		},
	}
}
