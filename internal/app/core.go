package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/fx"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
)

// StoreOptions say how the core opens the database.
type StoreOptions struct {
	// Migrate applies pending migrations on start (serve does so on SQLite).
	Migrate bool
}

// Core provides the configuration's logger, the server secret, the store, the
// rate limiter and the services every binary shares. It needs a Config and
// StoreOptions supplied with fx.Supply.
var Core = fx.Module("core",
	fx.Provide(
		NewLogger,
		NewMetrics,
		LoadSecret,
		OpenStore,
		fx.Annotate(func(s *store.Store) *store.Store { return s }, fx.As(new(auth.KeyStore))),
		fx.Annotate(func(s *store.Store) *store.Store { return s }, fx.As(new(org.Store))),
		NewLimiter,
		NewLocator,
		NewAuthenticator,
		NewKeys,
		NewOrgService,
		NewParameters,
		NewResolver,
		NewDomainService,
		NewLists,
		NewQueries,
		NewExports,
		NewPurger,
		NewTeam,
		NewInvitations,
		NewLinkService,
		NewAppService,
		NewAccounts,
		NewAudit,
		NewWebhooks,
	),
	// The secret is loaded (and created beside SQLite) on every start, so a
	// missing or short secret fails the start rather than a later request.
	fx.Invoke(func(Secret) {}),
	MetricsListener,
)

// NewExports returns the click exports over s, reading plans from orgs,
// with download URLs under the configuration's public URL. Every binary
// that has it may start and read exports; the workers that run them are
// those of the binaries serving the REST API (RunExportWorker).
func NewExports(s *store.Store, orgs *org.Service, cfg Config, log *slog.Logger) *analytics.Exports {
	return analytics.NewExports(s, orgs, analytics.ExportsOptions{PublicURL: cfg.PublicURL.String(), Logger: log})
}

// NewPurger returns the purge of data older than retention over s.
func NewPurger(s *store.Store, log *slog.Logger) *analytics.Purger {
	return analytics.NewPurger(s, analytics.PurgerOptions{Logger: log})
}

// RunPurger runs the purge at start and every hour while the application
// runs: in every binary that serves the REST API (hoplink serve and
// hoplink-api). Purges on several replicas at once are safe.
func RunPurger(lc fx.Lifecycle, p *analytics.Purger) {
	runInBackground(lc, "retention purge", p.Run)
}

// RunExportWorker runs the exports' worker while the application runs. On
// stop, the job it runs goes back to pending for another worker (or this
// one after a restart) to resume.
func RunExportWorker(lc fx.Lifecycle, x *analytics.Exports) {
	runInBackground(lc, "click export worker", x.Run)
}

// RenameSweepInterval is how often every replica ends the app rename
// periods that have ended (linking.AppService.SweepRenamePeriods). The API
// ends a period on time anyway when it reads or writes its app, and the
// link domains treat a period past its ends_at as ended; the sweep bounds
// how long the links left to move wait when nothing reads the app.
const RenameSweepInterval = time.Minute

// RenameSweep runs the rename sweeper (RunRenameSweeper). Every binary
// includes it once (the REST API module, hoplink-redirect, hoplink-auth),
// so that the end of a period is carried out whichever services an
// operator runs.
var RenameSweep = fx.Invoke(RunRenameSweeper)

// RunRenameSweeper ends due app rename periods at start and every
// RenameSweepInterval while the application runs. Sweeps on several
// replicas at once are safe: each period ends once.
func RunRenameSweeper(lc fx.Lifecycle, apps *linking.AppService, log *slog.Logger) {
	runInBackground(lc, "app rename sweep", func(ctx context.Context) error {
		t := time.NewTicker(RenameSweepInterval)
		defer t.Stop()
		for {
			if n, err := apps.SweepRenamePeriods(ctx); err != nil && ctx.Err() == nil {
				log.Error("ending app rename periods", "err", err)
			} else if n > 0 {
				log.Info("ended app rename periods", "count", n)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	})
}

// NewResolver returns the link-domain resolver over s, with its default
// cache (linking.DefaultResolveTTL, linking.DefaultResolveCacheSize), the
// configuration's database deadline and its stale-if-error bound.
func NewResolver(s *store.Store, cfg Config, m *Metrics) *linking.Resolver {
	r := linking.NewResolver(s, linking.ResolverOptions{
		DefaultLinkDomain: cfg.DefaultLinkDomain,
		StoreTimeout:      zeroDisables(cfg.DBTimeout),
		StaleIfError:      zeroDisables(cfg.StaleIfError),
	})
	m.WatchResolver(r)
	return r
}

// NewLinkService returns the link service over s, with the configuration's
// default link domain and short-URL base, telling r of every write; links
// may use the live custom domains d knows.
func NewLinkService(s *store.Store, r *linking.Resolver, d *linking.DomainService, cfg Config) *linking.LinkService {
	return linking.NewLinkService(s, s, s, linking.LinkServiceOptions{
		DefaultLinkDomain: cfg.DefaultLinkDomain,
		ShortURLBase:      cfg.ShortURLBase,
		Cache:             r,
		CustomDomains:     d,
	})
}

// NewDomainService returns the custom-domain service over s: names are
// checked against the configuration's default link domain, service hosts
// and CNAME target, verified through --dns-server (the system's resolver
// when empty), and every change that alters what a domain serves empties r.
func NewDomainService(s *store.Store, r *linking.Resolver, cfg Config) (*linking.DomainService, error) {
	lookup, err := linking.NewDNSLookup(cfg.DNSServer)
	if err != nil {
		return nil, err
	}
	return linking.NewDomainService(s, s, linking.DomainServiceOptions{
		Reserved: linking.ReservedDomains{
			DefaultLinkDomain: cfg.DefaultLinkDomain,
			ServiceHosts:      cfg.ServiceHosts,
			CNAMETarget:       cfg.CNAMETarget,
		},
		Lookup: lookup,
		Cache:  r,
	}), nil
}

// NewKeys returns the key service over s, telling a of every revoked key.
func NewKeys(s auth.KeyStore, a *auth.Authenticator) *auth.Keys {
	return auth.NewKeys(s, auth.KeysOptions{Forget: a})
}

// NewOrgService returns the organization service over s, telling a of
// every organization deleted and member added or removed. A plan without
// custom domains suspends them and one with them restores them: d listens
// to the plan changes.
func NewOrgService(s org.Store, a *auth.Authenticator, d *linking.DomainService) *org.Service {
	return org.NewService(s, org.ServiceOptions{Forget: a, PlanListener: d})
}

// NewParameters returns the parameter-defaults service over s. Parameter
// defaults apply to every link of the organization: a change clears r, the
// link cache of this process.
func NewParameters(s *store.Store, r *linking.Resolver) *org.Parameters {
	return org.NewParameters(s, org.ParametersOptions{OnChange: func(uuid.UUID) { r.InvalidateAll() }})
}

// NewTeam returns the team service over s, telling a of every member whose
// role changed or who left.
func NewTeam(s *store.Store, a *auth.Authenticator) *org.Team {
	return org.NewTeam(s, org.TeamOptions{Forget: a})
}

// NewInvitations returns the invitations service over s, its tokens kept
// encrypted under a key derived from the server secret. A member who left
// and comes back by an invitation gets their keys back at once: a is told.
func NewInvitations(s *store.Store, secret Secret, a *auth.Authenticator) (*org.Invitations, error) {
	return org.NewInvitations(s, s, secret, org.InvitationsOptions{Forget: a})
}

// AppServiceDeps are the dependencies of the apps service.
type AppServiceDeps struct {
	fx.In
	Config        Config
	Store         *store.Store
	Authenticator *auth.Authenticator
	Resolver      *linking.Resolver
	Domains       *linking.DomainService
	// Matcher is the attribution matcher of the binaries that serve the
	// REST API (the API module provides it); nil in the others.
	Matcher *attribution.Matcher `optional:"true"`
	Log     *slog.Logger
}

// NewAppService returns the apps service over the store, giving apps their
// subdomains under the configuration's default link domain; deleting an app
// drops its organization's keys from the authenticator's cache, so that its
// SDK keys stop working at once; every app write empties the resolver and,
// when there is one, the matcher's cache of the organizations' apps.
func NewAppService(d AppServiceDeps) *linking.AppService {
	r, m := d.Resolver, d.Matcher
	return linking.NewAppService(d.Store, d.Store, linking.AppServiceOptions{
		DefaultLinkDomain: d.Config.DefaultLinkDomain,
		ShortURLBase:      d.Config.ShortURLBase,
		Forget:            d.Authenticator,
		CustomDomains:     d.Domains,
		OnLeftBehind: func(app *linking.App, n int) {
			d.Log.Warn("an app's rename period ended with links left on its old subdomain, their slug taken on the new one",
				"app_id", app.ID, "org_id", app.OrgID, "links", n)
		},
		OnAppChange: func(uuid.UUID) {
			r.InvalidateAll()
			if m != nil {
				m.InvalidateAll()
			}
		},
	})
}

// NewLogger returns the slog logger cfg asks for, writing to standard
// error through a buffer (logWriter: info lines within a fraction of a
// second, warnings and errors at once) that is flushed when the
// application stops.
func NewLogger(lc fx.Lifecycle, cfg Config) *slog.Logger {
	out := newLogWriter(os.Stderr)
	lc.Append(fx.StopHook(out.Stop))
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(flushingHandler{slog.NewJSONHandler(out, opts), out})
	}
	return newTextLogger(out, opts)
}

// newTextLogger returns the text logger of NewLogger, writing to out. The
// access log's lines skip slog's generic path (textHandler).
func newTextLogger(out *logWriter, opts *slog.HandlerOptions) *slog.Logger {
	return slog.New(textHandler{flushingHandler{slog.NewTextHandler(out, opts), out}})
}

// OpenStore opens the database of cfg, migrates it when opts ask, and closes
// it when the application stops. A PostgreSQL database it does not migrate
// must have no migration of this build pending (refusePending).
func OpenStore(lc fx.Lifecycle, cfg Config, opts StoreOptions, log *slog.Logger) (*store.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := checkSQLitePath(cfg.DB); err != nil {
		return nil, err
	}
	logDatabase(cfg, log)
	s, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w", DBForLog(cfg.DB), err)
	}
	if opts.Migrate {
		if err := s.Migrate(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
	} else if cfg.IsPostgres() {
		if err := refusePending(ctx, s); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	lc.Append(fx.StopHook(s.Close))
	return s, nil
}

// refusePending returns an error, one line naming the count and `hoplink
// migrate`, when migrations of this build are pending on s: a new version
// does not start on an old schema. Migrations a newer build applied do not
// count, so an old replica goes on starting while the others roll.
func refusePending(ctx context.Context, s *store.Store) error {
	n, err := s.PendingMigrations(ctx)
	if err != nil {
		return fmt.Errorf("reading the migration status: %w", err)
	}
	if n == 0 {
		return nil
	}
	noun := "migrations are"
	if n == 1 {
		noun = "migration is"
	}
	return fmt.Errorf("%d database %s pending: run `hoplink migrate` with the same --db, then start again", n, noun)
}

// logDatabase logs which database is opened: for a SQLite file its
// absolute path, and whether it is created now (a mistyped --db would
// otherwise silently start an empty database).
func logDatabase(cfg Config, log *slog.Logger) {
	switch {
	case cfg.IsPostgres():
		log.Info("opening the PostgreSQL database", "db", DBForLog(cfg.DB))
	case cfg.DB == ":memory:":
		log.Info("using an in-memory SQLite database: everything is lost when the process stops")
	default:
		if abs := newSQLiteFile(cfg.DB); abs != "" {
			log.Info("creating a new SQLite database", "path", abs)
			return
		}
		log.Info("opening the SQLite database", "path", sqliteAbs(cfg.DB))
	}
}

// sqliteAbs is the absolute path of the SQLite database file db.
func sqliteAbs(db string) string {
	path, _, _ := strings.Cut(strings.TrimPrefix(db, "file:"), "?")
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return abs
}

// newSQLiteFile returns the absolute path of the SQLite database file db
// when the file does not exist yet (opening it creates it), and "" for an
// existing file, an in-memory database or PostgreSQL.
func newSQLiteFile(db string) string {
	if IsPostgresDSN(db) || db == ":memory:" || strings.Contains(db, "mode=memory") {
		return ""
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(db, "file:"), "?")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return sqliteAbs(db)
	}
	return ""
}

// DBForLog is the database DSN without its password, for logs and errors.
func DBForLog(db string) string {
	if !IsPostgresDSN(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// NewLimiter returns the Redis limiter when cfg names Redis and the
// in-process one otherwise, its refusals counted by m. Use
// ratelimit.Unwrap to tell the Redis limiter under it.
func NewLimiter(lc fx.Lifecycle, cfg Config, m *Metrics, log *slog.Logger) (ratelimit.Limiter, error) {
	if cfg.Redis == "" {
		return m.Limiter(ratelimit.NewMemory(ratelimit.MemoryOptions{})), nil
	}
	r, err := ratelimit.OpenRedis(cfg.Redis)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := r.Ping(ctx); err != nil {
				log.Warn("redis does not answer; rate limits fail open until it does", "err", err)
			}
			return nil
		},
		OnStop: func(context.Context) error { return r.Close() },
	})
	return m.Limiter(r), nil
}

// NewAuthenticator returns the key authenticator, whose key lookups run
// under the configuration's database deadline, and runs its last_used_at
// flusher while the application runs.
func NewAuthenticator(lc fx.Lifecycle, s auth.KeyStore, cfg Config, log *slog.Logger) *auth.Authenticator {
	a := auth.NewAuthenticator(s, auth.AuthenticatorOptions{Logger: log, StoreTimeout: zeroDisables(cfg.DBTimeout)})
	runInBackground(lc, "auth: last_used_at flusher", func(ctx context.Context) error {
		a.Run(ctx, 10*time.Second)
		return nil
	})
	return a
}

// runInBackground runs run from the application's start until its stop: on
// stop, run's context is cancelled and the stop waits for run to return (or
// for the stop's own deadline, an error naming what did not stop).
func runInBackground(lc fx.Lifecycle, what string, run func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() { done <- run(ctx) }()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case err := <-done:
				return err
			case <-stop.Done():
				return fmt.Errorf("%s did not stop in time: %w", what, stop.Err())
			}
		},
	})
}
