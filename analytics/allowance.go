package analytics

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// AllowanceOptions configure an Allowance. Every zero value means its
// default.
type AllowanceOptions struct {
	// TTL is how long an organization's usage read from the store is
	// trusted before it is read again, in the background. Default 5s.
	TTL time.Duration
	// RefreshTimeout bounds one read of the store. Default 5s.
	RefreshTimeout time.Duration
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Logger receives failed reads. slog.Default() when nil.
	Logger *slog.Logger
}

// Allowance answers, without waiting on the database, whether an
// organization's next click is still within its monthly click allowance
// (issue 4: past it, clicks are counted but not stored). It caches each
// organization's limit and count, reads them again in the background once
// they are older than TTL, and counts the clicks it allowed since. It is
// safe for concurrent use. See the package doc for how exact it is.
type Allowance struct {
	usage UsageStore
	opts  AllowanceOptions
	log   *slog.Logger

	// orgs maps an organization id to its *allowanceEntry; entries are
	// never removed (one per organization that had a click).
	orgs sync.Map
	wg   sync.WaitGroup
}

type allowanceEntry struct {
	// usage is the last answer of the store, nil before the first.
	usage atomic.Pointer[allowanceUsage]
	// refreshing is true while a read is under way.
	refreshing atomic.Bool
	// next is when usage should be read again, in Unix nanoseconds; a
	// failed read waits as long as a successful one.
	next atomic.Int64
}

type allowanceUsage struct {
	Usage
	// known is false when the organization could not be found: its clicks
	// are stored (the store drops them if it is really gone).
	known bool
	// allowed is the clicks allowed since fetched.
	allowed atomic.Int64
}

// NewAllowance returns an Allowance that reads usage from store.
func NewAllowance(store UsageStore, opts AllowanceOptions) *Allowance {
	if opts.TTL <= 0 {
		opts.TTL = 5 * time.Second
	}
	if opts.RefreshTimeout <= 0 {
		opts.RefreshTimeout = 5 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Allowance{
		usage: store,
		opts:  opts,
		log:   opts.Logger.With("component", "analytics.allowance"),
	}
}

// Store reports whether orgID's next click should be stored, and counts
// that click as allowed when it should. It never waits on the database:
// when it knows nothing of orgID yet, it answers true and starts reading
// orgID's usage in the background; when what it knows is older than TTL, it
// answers from it and starts reading again.
func (a *Allowance) Store(orgID uuid.UUID) bool {
	e := a.entry(orgID)
	u := e.usage.Load()
	if u == nil || a.opts.Clock().UnixNano() >= e.next.Load() {
		a.refreshAsync(orgID, e)
	}
	if u == nil || !u.known {
		return true
	}
	if u.Count+u.allowed.Load() >= u.Limit {
		return false
	}
	return u.Count+u.allowed.Add(1) <= u.Limit
}

// Refresh reads orgID's usage now and waits for it; Store never needs it,
// but a caller may warm the cache with it.
func (a *Allowance) Refresh(ctx context.Context, orgID uuid.UUID) error {
	return a.refresh(ctx, orgID, a.entry(orgID))
}

func (a *Allowance) entry(orgID uuid.UUID) *allowanceEntry {
	if e, ok := a.orgs.Load(orgID); ok {
		return e.(*allowanceEntry)
	}
	e, _ := a.orgs.LoadOrStore(orgID, &allowanceEntry{})
	return e.(*allowanceEntry)
}

// Wait returns when no background read is under way, for shutdown and
// tests.
func (a *Allowance) Wait() { a.wg.Wait() }

func (a *Allowance) refreshAsync(orgID uuid.UUID, e *allowanceEntry) {
	if !e.refreshing.CompareAndSwap(false, true) {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer e.refreshing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), a.opts.RefreshTimeout)
		defer cancel()
		if err := a.refresh(ctx, orgID, e); err != nil {
			a.log.Warn("reading the click allowance failed", "org_id", orgID, "error", err)
		}
	}()
}

func (a *Allowance) refresh(ctx context.Context, orgID uuid.UUID, e *allowanceEntry) error {
	now := a.opts.Clock()
	e.next.Store(now.Add(a.opts.TTL).UnixNano())
	u, err := a.usage.ClickUsage(ctx, orgID, now)
	switch {
	case errors.Is(err, errcode.ErrNotFound):
		e.usage.Store(&allowanceUsage{})
		return nil
	case err != nil:
		// Keep the last answer until the next read.
		return err
	}
	e.usage.Store(&allowanceUsage{Usage: u, known: true})
	return nil
}
