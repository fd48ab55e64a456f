package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/hoplink/hoplink/store/migrations"
)

// Store is Hoplink's database, SQLite or PostgreSQL. It implements the
// Store interfaces that the service packages declare. It is safe for
// concurrent use.
type Store struct {
	db      *bun.DB
	maxIdle int
	// keep holds an in-memory SQLite database open; nil otherwise.
	keep *sql.Conn
	// stmts are the statements prepared for hot paths (preparedStmt).
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt
	// texts are the queries of scanPrepared, by name.
	texts map[string]string
	// kept holds the queries of stmts on PostgreSQL (stmtConn); nil on
	// SQLite.
	kept *sync.Map
	// subs caches which organizations take link.clicked and
	// install.unattributed (webhook_events.go).
	subs subscriberLists
	// stopCheckpoints stops the background checkpoints of a SQLite file
	// (checkpoint.go) and waits for them; nil otherwise.
	stopCheckpoints func()
	// candidates answers attribution's key reads from memory
	// (candidates.go).
	candidates *candidateIndex
	// segmentKeyReads counts the key reads answered by decoding segments
	// (keyClicksSQLite), for tests.
	segmentKeyReads atomic.Int64
}

// Option configures Open.
type Option func(*options)

type options struct {
	hooks []bun.QueryHook
}

// WithQueryHook adds h to every query the store runs, for logging or
// tracing (bundebug, bunotel). There are no hooks by default.
func WithQueryHook(h bun.QueryHook) Option {
	return func(o *options) { o.hooks = append(o.hooks, h) }
}

// Open opens the database that dsn names and pings it. A dsn that starts with
// postgres:// or postgresql:// selects PostgreSQL (bun's pgdriver; query
// parameters the driver does not know, such as search_path, are set on every
// connection; plan_cache_mode is force_generic_plan unless dsn sets it, see
// preparedStmt). Anything else is a SQLite file path or ":memory:", opened with
// the pure-Go modernc.org/sqlite driver; query parameters already in dsn are
// kept.
//
// Every SQLite connection runs with foreign keys on, a busy timeout of ten
// seconds and BEGIN IMMEDIATE transactions (so that a transaction never fails
// to upgrade a read lock to a write lock); files use the WAL journal with
// synchronous=NORMAL: a commit does not wait for the disk, only a
// checkpoint does, and checkpoints run in the background (checkpoint.go),
// not in the commit that fills the log. A crash of the process loses
// nothing; a power cut or a crash of the machine may lose the last
// transactions committed before it, never the database's consistency.
// That is SQLite's recommended setting for WAL, and what lets one writer
// keep up with clicks at the redirect's rate.
//
// ":memory:" opens a uniquely named shared-cache in-memory database. One
// connection, reserved for the store's lifetime, keeps it alive, and every
// query runs on a single other connection, in turn. One query connection,
// because shared cache answers concurrent writers with SQLITE_LOCKED at once
// (the busy timeout does not apply); the reserved connection, because the pool
// discards a connection whose query was cancelled, and an in-memory database
// dies with its last connection. Other databases allow 4 × GOMAXPROCS
// connections.
//
// Open does not migrate; call Migrate. A database that cannot be reached
// fails with an error that wraps errcode.ErrUnavailable.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var (
		db      *bun.DB
		kept    *sync.Map
		memory  bool
		maxOpen = 4 * runtime.GOMAXPROCS(0)
	)
	switch {
	case dsn == "":
		return nil, errors.New("store: empty database DSN")
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		connector, err := pgConnector(dsn)
		if err != nil {
			return nil, err
		}
		kept = &sync.Map{}
		db = bun.NewDB(sql.OpenDB(stmtConnector{Connector: connector, kept: kept}), pgdialect.New())
	default:
		memory = dsn == ":memory:"
		sqldb, err := sql.Open("sqlite", sqliteDSN(dsn, memory))
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if memory {
			maxOpen = 2 // the reserved connection and the query connection
		}
		db = bun.NewDB(sqldb, sqlitedialect.New())
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	for _, h := range o.hooks {
		db = db.WithQueryHook(h)
	}
	s := &Store{db: db, maxIdle: maxOpen, kept: kept}
	if memory {
		keep, err := db.DB.Conn(ctx)
		if err != nil {
			_ = db.Close()
			return nil, s.err("open", err)
		}
		s.keep = keep
	}
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	s.candidates = newCandidateIndex(s)
	if s.Dialect() == "sqlite" {
		if !memory {
			s.stopCheckpoints = s.checkpointInBackground(sqliteCheckpointEvery)
		}
	}
	return s, nil
}

// pgConnector returns a pgdriver connector for dsn, turning pgdriver's panic
// on a malformed DSN into an error that does not repeat the DSN (it may hold
// a password).
func pgConnector(dsn string) (c *pgdriver.Connector, err error) {
	if _, err := url.Parse(dsn); err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("store: invalid PostgreSQL DSN: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("store: invalid PostgreSQL DSN: %v", r)
		}
	}()
	c = pgdriver.NewConnector(pgdriver.WithApplicationName("hoplink"), pgdriver.WithDSN(dsn))
	conf := c.Config()
	if conf.ConnParams == nil {
		conf.ConnParams = map[string]any{}
	}
	if _, ok := conf.ConnParams["plan_cache_mode"]; !ok {
		conf.ConnParams["plan_cache_mode"] = "force_generic_plan"
	}
	return c, nil
}

// sqliteMmapSize is how much of a SQLite file its connections read through
// a memory map (1 GiB): pages are read from the operating system's cache
// without a system call and a copy each, which is most of the cost of
// attribution's reads of a busy address's clicks once the file outgrows
// the connections' own page caches. The map is address space, shared by
// every connection; memory is what the operating system caches anyway.
const sqliteMmapSize = "1073741824"

// sqliteDSN adds Hoplink's connection settings to a SQLite dsn, replacing
// ":memory:" with a uniquely named shared-cache in-memory database.
func sqliteDSN(dsn string, memory bool) string {
	params := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	if memory {
		return "file:hoplink-" + rand.Text() + "?mode=memory&cache=shared&" + params
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + params + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(" + sqliteMmapSize + ")" +
		"&_pragma=wal_autocheckpoint(" + sqliteAutoCheckpointPages + ")"
}

// DB returns the underlying bun database, for this package's repositories,
// for tests and for test helpers; services never see it.
func (s *Store) DB() *bun.DB { return s.db }

// Dialect returns the database's dialect name: "sqlite" or "pg".
func (s *Store) Dialect() string { return s.db.Dialect().Name().String() }

// Close closes the database. Every later call fails with an error that wraps
// errcode.ErrUnavailable.
func (s *Store) Close() error {
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
	}
	if s.candidates != nil {
		s.candidates.close()
	}
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		_ = st.Close()
	}
	s.stmts = nil
	s.stmtMu.Unlock()
	if s.keep != nil {
		_ = s.keep.Close()
	}
	return s.db.Close()
}

// preparedStmt returns query prepared, preparing it the first time it is
// asked for. database/sql prepares it again on each connection that runs
// it. Prepared statements skip parsing and, with the connections'
// plan_cache_mode of force_generic_plan, planning on every call: left to
// itself PostgreSQL kept planning attribution's key read for each call
// (0.5 ms, three times its execution), since the generic plan's estimated
// cost exceeds a custom plan's, though it is the same plan. Only prepared
// statements are planned once; bun sends every other query as text with
// its values, planned each time. The cost is bun's query hooks, which do
// not see prepared statements: they are kept for the few statements on a
// hot path. On PostgreSQL its connections (stmtConn) keep a statement
// that fails on a stalled database from poisoning the pool.
func (s *Store) preparedStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st := s.stmts[query]; st != nil {
		return st, nil
	}
	if s.kept != nil {
		s.kept.Store(query, true)
	}
	st, err := s.db.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// scanPrepared runs the query that build makes, given the placeholders
// of len(args) parameters, as a prepared statement (preparedStmt) with
// args, and scans its first row into dest as bun's Scan does: sql.ErrNoRows
// when there is none. The text is made once per name, which must name one
// query.
//
// On PostgreSQL the query is built with args and sent as text: as a
// prepared statement of the driver, a statement whose execution timed out
// (a database that stops answering) left its connection in the pool, not
// marked bad as a text query's is, and the next request on it waited for
// the driver's own timeouts, 20 seconds, where the caller's deadline was
// 200 ms. The store's connections (stmtConn) now discard such a
// connection; whether these reads gain from being prepared again has not
// been measured.
func (s *Store) scanPrepared(ctx context.Context, name string, build func(ph []any) *bun.SelectQuery, args []any, dest ...any) error {
	if s.db.Dialect().Name() == dialect.PG {
		return build(args).Scan(ctx, dest...)
	}
	s.stmtMu.Lock()
	query, ok := s.texts[name]
	if !ok {
		ph := make([]any, len(args))
		for i := range ph {
			ph[i] = bun.Safe("?")
		}
		query = build(ph).String()
		if s.texts == nil {
			s.texts = map[string]string{}
		}
		s.texts[name] = query
	}
	s.stmtMu.Unlock()
	stmt, err := s.preparedStmt(ctx, query)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := s.db.ScanRow(ctx, rows, dest...); err != nil {
		return err
	}
	return rows.Close()
}

// Ping checks that the database can be reached; the error wraps
// errcode.ErrUnavailable when it cannot.
func (s *Store) Ping(ctx context.Context) error {
	return s.err("ping", s.db.PingContext(ctx))
}

// Migrate applies every pending migration of package store/migrations, as one
// migration group. A migration that fails is rolled back and not recorded.
//
// On PostgreSQL, Migrate holds a session advisory lock, keyed by the current
// schema, while it runs, so concurrent migrators take turns; the database
// releases the lock if the process dies. On SQLite there is no lock: each
// migration runs in one transaction, so a second process migrating the same
// file at the same moment fails on the already created tables instead of
// applying anything twice.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.MigrateNames(ctx)
	return err
}

// MigrateNames is Migrate that also returns the names of the migrations it
// applied ("20261122000001_foundation"), none when the schema was current.
func (s *Store) MigrateNames(ctx context.Context) ([]string, error) {
	names := []string{}
	err := s.withMigrator(ctx, "migrate", func(m *migrate.Migrator) error {
		group, err := m.Migrate(ctx)
		if err != nil {
			return err
		}
		for _, applied := range group.Migrations {
			names = append(names, applied.String())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

// MigrationState is one migration of package store/migrations and whether
// it is applied.
type MigrationState struct {
	// Name is the migration's full name ("20261122000001_foundation").
	Name string
	// AppliedAt is when it was applied; zero while it is pending.
	AppliedAt time.Time
}

// Applied reports whether the migration is applied.
func (m MigrationState) Applied() bool { return !m.AppliedAt.IsZero() }

// MigrationStatus returns every migration this build knows, oldest first,
// each with when it was applied, read with bun's
// Migrator.MigrationsWithStatus. It writes nothing and takes no lock: on a
// database no migration ever ran on, every migration is pending. A
// migration a newer build applied is not listed.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	m := migrate.NewMigrator(s.db, migrations.Migrations)
	var list migrate.MigrationSlice
	started, err := s.migrationsStarted(ctx)
	if err == nil && started {
		list, err = m.MigrationsWithStatus(ctx)
	} else if err == nil {
		list = migrations.Migrations.Sorted()
	}
	if err != nil {
		return nil, s.err("migration status", err)
	}
	out := make([]MigrationState, len(list))
	for i, mg := range list {
		out[i] = MigrationState{Name: mg.String(), AppliedAt: mg.MigratedAt.UTC()}
		if mg.GroupID == 0 {
			out[i].AppliedAt = time.Time{}
		}
	}
	return out, nil
}

// PendingMigrations returns how many migrations this build knows are not
// applied (MigrationStatus).
func (s *Store) PendingMigrations(ctx context.Context) (int, error) {
	list, err := s.MigrationStatus(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range list {
		if !m.Applied() {
			n++
		}
	}
	return n, nil
}

// migrationsStarted reports whether bun's migration table exists (in the
// current schema on PostgreSQL), so that reading it does not fail on a
// database no migration ever ran on.
func (s *Store) migrationsStarted(ctx context.Context) (bool, error) {
	var found bool
	var err error
	if s.db.Dialect().Name() == dialect.PG {
		err = s.db.QueryRowContext(ctx, "SELECT to_regclass('bun_migrations') IS NOT NULL").Scan(&found)
	} else {
		err = s.db.QueryRowContext(ctx,
			"SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'").Scan(&found)
	}
	return found, err
}

// Rollback rolls back the last migration group, under the same lock as Migrate.
func (s *Store) Rollback(ctx context.Context) error {
	return s.withMigrator(ctx, "rollback", func(m *migrate.Migrator) error {
		_, err := m.Rollback(ctx)
		return err
	})
}

func (s *Store) withMigrator(ctx context.Context, op string, fn func(*migrate.Migrator) error) error {
	unlock, err := s.lockMigrations(ctx)
	if err != nil {
		return s.err(op, err)
	}
	defer unlock()
	m := migrate.NewMigrator(s.db, migrations.Migrations, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return s.err(op, err)
	}
	return s.err(op, fn(m))
}

// lockMigrations takes PostgreSQL's migration lock on a connection of its own
// and returns the function that releases it; on SQLite it does nothing.
func (s *Store) lockMigrations(ctx context.Context) (unlock func(), err error) {
	if s.db.Dialect().Name() != dialect.PG {
		return func() {}, nil
	}
	const key = "hashtext('hoplink.migrate:' || coalesce(current_schema(), ''))"
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock("+key+")"); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return func() {
		// A connection that failed to unlock is discarded: its session ends
		// and takes the lock with it.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+key+")"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		_ = conn.Close()
	}, nil
}

// oneRow turns a write that touched no row into sql.ErrNoRows, which s.err
// reports as errcode.ErrNotFound.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return sql.ErrNoRows
	}
	return nil
}

// utc returns t in UTC; stored times are UTC, but drivers may scan them in
// another location.
func utc(t time.Time) time.Time { return t.UTC() }

// utcPtr is utc for a nullable time.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
