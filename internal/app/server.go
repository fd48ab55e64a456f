package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"go.uber.org/fx"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/httpapi"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/webhook"
)

// Handler is the root HTTP handler a binary serves.
type Handler struct{ http.Handler }

// API provides the REST API handler.
var API = fx.Module("api",
	fx.Provide(NewAPI, NewMatcher, NewWebhookWorker),
	fx.Invoke(RunExportWorker, RunPurger, RunWebhookWorker, PrepareMatching),
	RenameSweep,
)

// PrepareMatching builds the store's index of candidate clicks at start,
// in the background (store.Store.PrepareMatching), so that the first
// installs after a restart are matched from memory as soon as it is built;
// until then the database answers. A build that fails is logged; the
// index tries again in the background.
func PrepareMatching(lc fx.Lifecycle, s *store.Store, log *slog.Logger) {
	runInBackground(lc, "candidate index", func(ctx context.Context) error {
		if err := s.PrepareMatching(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("candidate index not built at start", "error", err)
		}
		return nil
	})
}

// NewWebhooks returns the webhook service over s: signing secrets sealed
// under a key derived from the server secret, URLs checked against
// --webhook-allow-private.
func NewWebhooks(s *store.Store, secret Secret, cfg Config) (*webhook.Service, error) {
	return webhook.NewService(s, secret, webhook.ServiceOptions{AllowPrivate: cfg.WebhookAllowPrivate})
}

// NewWebhookWorker returns the worker that delivers the webhook outbox
// (the store records the endpoints it disables in the audit log); its
// client refuses private addresses unless --webhook-allow-private, and it
// waits --webhook-first-retry after a first failure.
func NewWebhookWorker(s *store.Store, secret Secret, cfg Config, log *slog.Logger) (*webhook.Worker, error) {
	return webhook.NewWorker(s, secret, webhook.WorkerOptions{
		Client:     webhook.NewClient(webhook.ClientOptions{AllowPrivate: cfg.WebhookAllowPrivate}),
		Logger:     log,
		FirstRetry: cfg.WebhookFirstRetry,
	})
}

// RunWebhookWorker delivers webhooks while the application runs, in every
// binary that serves the REST API (hoplink serve and hoplink-api). Any
// number of replicas may run it: a lease keeps two from sending one
// delivery at once, and a delivery one replica left unfinished when it
// stopped is sent by another once its lease lapses.
func RunWebhookWorker(lc fx.Lifecycle, w *webhook.Worker) {
	runInBackground(lc, "webhook worker", func(ctx context.Context) error {
		w.Run(ctx)
		return nil
	})
}

// NewLists returns the installs and attempts lists over s, reading plans
// from orgs; the server secret signs their cursors, so that a cursor from
// one replica (or from the MCP tools) continues on another.
func NewLists(s *store.Store, orgs *org.Service, secret Secret) *attribution.Lists {
	return attribution.NewLists(s, orgs, attribution.ListsOptions{Secret: secret})
}

// NewQueries returns the click analytics queries over s, reading plans
// from orgs; the REST handlers and the MCP tool share them.
func NewQueries(s *store.Store, orgs *org.Service) *analytics.Queries {
	return analytics.NewQueries(s, orgs, analytics.QueriesOptions{})
}

// NewMatcher returns the attribution matcher over s with its default model.
// The apps service of the same binary empties its in-process cache of an
// organization's apps on every app write (NewAppService).
func NewMatcher(s *store.Store, m *Metrics) *attribution.Matcher {
	return attribution.NewMatcher(s, attribution.MatcherOptions{OnAttempt: m.OnAttempt()})
}

// APIDeps are the dependencies of the REST API.
type APIDeps struct {
	fx.In
	Config        Config
	Log           *slog.Logger
	Store         *store.Store
	Secret        Secret
	Limiter       ratelimit.Limiter
	Authenticator *auth.Authenticator
	Keys          *auth.Keys
	Orgs          *org.Service
	Team          *org.Team
	Invitations   *org.Invitations
	Parameters    *org.Parameters
	Apps          *linking.AppService
	Links         *linking.LinkService
	Domains       *linking.DomainService
	Resolver      *linking.Resolver
	Accounts      *account.Service
	Audit         *audit.Service
	Clicks        *analytics.Recorder
	Matcher       *attribution.Matcher
	Lists         *attribution.Lists
	Queries       *analytics.Queries
	Exports       *analytics.Exports
	Webhooks      *webhook.Service
	// Extra are the routes other modules add (the OAuth endpoints and
	// pages, when the binary has them).
	Extra APIRoutes
}

// NewAPI returns the /v1 API with health checks.
func NewAPI(d APIDeps) *httpapi.API {
	pages := accountPagesOptions(d.Config, d.Secret)
	return httpapi.New(httpapi.Options{
		Authenticator: d.Authenticator,
		Keys:          d.Keys,
		Orgs:          d.Orgs,
		Apps:          d.Apps,
		Links:         d.Links,
		Domains:       d.Domains,
		Team:          d.Team,
		Invitations:   d.Invitations,
		Parameters:    d.Parameters,
		Accounts:      d.Accounts,
		Audit:         d.Audit,
		Webhooks:      d.Webhooks,
		AccountPages:  &pages,
		// The SDK resolve reads through the link-domain handler's cache,
		// builds URLs with its params options and records its clicks
		// through the same recorder.
		Resolver:          d.Resolver,
		DefaultLinkDomain: d.Config.DefaultLinkDomain,
		Params:            params.Options{},
		Clicks:            d.Clicks,
		Attribution:       d.Matcher,
		MatchTimeout:      2 * zeroDisables(d.Config.DBTimeout),
		Lists:             d.Lists,
		Analytics:         d.Queries,
		Exports:           d.Exports,
		Limiter:           d.Limiter,
		Ready:             d.Store.Ping,
		ReadyTimeout:      zeroDisables(d.Config.DBTimeout),
		TrustedProxies:    d.Config.TrustedProxies,
		Logger:            d.Log,
		// The OAuth endpoints and pages, when the binary has them.
		Routes: d.Extra.Routes,
	})
}

// Server serves the Handler on cfg.Addr: it listens on start (a listen error
// fails the start) and shuts down gracefully on stop.
var Server = fx.Module("server",
	fx.Invoke(RunServer),
)

// RunServer starts an HTTP server for h in lc, its requests observed by m
// (httpapi.Instrument) when the metrics are on.
func RunServer(lc fx.Lifecycle, cfg Config, h Handler, m *Metrics, log *slog.Logger) {
	var handler http.Handler = h
	if observe := m.ObserveRequest(); observe != nil {
		handler = httpapi.Instrument(handler, observe)
	}
	if cfg.AccessLog {
		handler = httpapi.AccessLog(handler, log)
	}
	srv := newHTTPServer(cfg.Addr, handler, log)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", cfg.Addr)
			if err != nil {
				return listenError(cfg.Addr, err)
			}
			log.Info("listening", "addr", ln.Addr().String())
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("server stopped", "err", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			log.Info("stopping: no new connections; finishing the requests in flight")
			err := srv.Shutdown(ctx)
			if err == nil {
				log.Info("HTTP server stopped")
			}
			return err
		},
	})
}

// newHTTPServer returns the server of every listener: h on addr, with
// bounded header, read, write and idle times and header size, its errors
// logged as warnings.
func newHTTPServer(addr string, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// listenError says in one line that the server cannot listen on addr, and
// which flag chooses another address.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot listen on %s: the address is in use (another server runs there?); choose another with --addr", addr)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		err = opErr.Err
	}
	return fmt.Errorf("cannot listen on %s (--addr): %v", addr, err)
}
