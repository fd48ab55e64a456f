package linking

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
)

// ResolveStore is the storage a Resolver reads. Implementations wrap
// errcode.ErrNotFound and errcode.ErrUnavailable.
type ResolveStore interface {
	// LinkByDomainSlug returns the link with domain and slug (both as
	// stored: normalized domain, lowercase slug), whatever its organization;
	// errcode.ErrNotFound when there is none, and when domain is a custom
	// domain that the link's organization does not have verified and
	// unsuspended (a suspended domain's links are 404, SPEC.md).
	LinkByDomainSlug(ctx context.Context, domain, slug string) (*Link, error)
	// LinkByOldAddress returns the link that domain and slug (as stored) are
	// an old address of (OldAddress), as it is now, whatever its
	// organization; errcode.ErrNotFound when they are none, and when either
	// the old domain or the link's current one is a custom domain that the
	// link's organization does not have verified and unsuspended.
	LinkByOldAddress(ctx context.Context, domain, slug string) (*Link, error)
	// AppByID returns app id of organization orgID; errcode.ErrNotFound when
	// there is none in orgID.
	AppByID(ctx context.Context, orgID, id uuid.UUID) (*App, error)
	// AppByLinkDomain returns the app whose link_domain is domain, else one
	// whose previous_link_domain is, else one whose default_link_domain is
	// (a custom domain set as the app's default, counted only while the
	// app's organization has it verified and unsuspended), whatever its
	// organization; errcode.ErrNotFound when there is none.
	AppByLinkDomain(ctx context.Context, domain string) (*App, error)
	// AppByHandle returns the app with handle, whatever its organization;
	// errcode.ErrNotFound when there is none.
	AppByHandle(ctx context.Context, handle string) (*App, error)
	// OrgParameters returns the parameter defaults of organization orgID,
	// nil when none are set; errcode.ErrNotFound when the organization does
	// not exist.
	OrgParameters(ctx context.Context, orgID uuid.UUID) (*params.OrgConfig, error)
}

// Resolved is a link as the link-domain handler serves it: the link, its app
// and its organization's parameter defaults, with what routing and params
// need computed once. A Resolved is shared by every request that reads it
// from the cache: callers must not modify it or anything it points to.
type Resolved struct {
	// Link is the link; never nil.
	Link *Link
	// App is the link's app, nil when it has none.
	App *App
	// OrgParams are the organization's parameter defaults, nil when none are set.
	OrgParams *params.OrgConfig
	// Effective is params.Merge(OrgParams, Link.Parameters).
	Effective params.Effective
	// Route and RouteApp are the link's and app's URLs for RouteVisitor;
	// RouteApp is nil when the link has no app.
	Route    RouteLink
	RouteApp *RouteApp
	// UTM are the link's UTM fields for params.Apply.
	UTM params.UTMFields
}

// Cache defaults of a Resolver.
const (
	// DefaultResolveTTL is how long a Resolver keeps an entry. A change made
	// by another replica (or directly in the database) is seen by this one
	// within this time; changes made through this process's services are
	// seen at once.
	DefaultResolveTTL = 5 * time.Second
	// DefaultResolveCacheSize is how many links (and, separately, how many
	// link domains' apps) a Resolver keeps at most.
	DefaultResolveCacheSize = 50_000
	// DefaultStaleIfError is how long past its TTL a Resolver's entry that
	// holds a link keeps answering while the store cannot be reached.
	DefaultStaleIfError = time.Hour
)

// ResolverOptions configure a Resolver. The zero value uses the defaults.
type ResolverOptions struct {
	// DefaultLinkDomain is the service's {default_link_domain}; it fills in
	// the link domains of apps stored without them (App.FillLinkDomains)
	// and finds an app by handle from its subdomain.
	DefaultLinkDomain string
	// TTL is how long an entry, found or not, is kept. If zero,
	// DefaultResolveTTL; a negative TTL disables the cache.
	TTL time.Duration
	// MaxEntries bounds each of the Resolver's two caches. If zero or less,
	// DefaultResolveCacheSize. When a cache is full, an expired entry, else
	// an arbitrary one, makes room for the new one.
	MaxEntries int
	// Clock is the time, for expiry of links and of cache entries; time.Now when nil.
	Clock func() time.Time
	// StoreTimeout bounds each load from the store (a link with its app and
	// organization defaults, or a link domain's app), so that a stalled
	// connection fails the lookup instead of holding the request: a load
	// that runs out of time is dbdeadline.ErrTimeout, which wraps
	// errcode.ErrUnavailable. If zero, dbdeadline.Default; a negative
	// value sets no deadline.
	StoreTimeout time.Duration
	// StaleIfError is how long past its TTL an entry that holds a link, an
	// old address or a link domain's app keeps answering when its reload
	// fails because the store cannot be reached (errcode.ErrUnavailable,
	// StoreTimeout included). If zero, DefaultStaleIfError; a negative
	// value disables it. Entries of unknown slugs and of domains without
	// an app are never served stale.
	StaleIfError time.Duration
}

// Resolver finds the link a visitor of a link domain asks for, reading
// through a bounded in-process cache keyed by (normalized domain, lowercase
// slug). Unknown slugs are cached too (negative caching), so that a flood of
// requests for a slug that does not exist does not reach the database.
//
// An old address of a moved link (OldAddress) is cached as where the link
// is now (its current domain and slug, and its id), never as a copy of the
// link: answering it reads the link's own entry, so every write that
// invalidates the link reaches its old addresses too. An entry that no
// longer leads to its link (the link moved again or was deleted) is read
// again from the store.
//
// Entries live for ResolverOptions.TTL (5 seconds by default): replicas, and
// changes made directly in the database, converge within it. The services of
// this process call Invalidate, InvalidateLink and InvalidateAll after every
// write (LinkServiceOptions.Cache, AppServiceOptions.OnAppChange), so their
// changes are seen at once. Parameter defaults of an organization changed through
// org.Parameters are seen within the TTL.
//
// Concurrent misses on one key are coalesced: one store read answers all of
// them, so an entry that expires under load costs one read per replica, not
// one per request. A write that invalidates a key while its read is in
// flight keeps that read's answer out of the cache.
//
// Every load runs under a deadline (ResolverOptions.StoreTimeout, a second
// by default), so a stalled database fails a lookup within it.
//
// Stale if error: links keep redirecting while the database is away. When
// the reload of an expired entry fails because the store cannot be reached
// (an error wrapping errcode.ErrUnavailable, the deadline included), an
// entry that holds a link (or an old address, or a link domain's app)
// keeps answering with its last known value, up to
// ResolverOptions.StaleIfError (an hour by default) past its expiry; the
// failed reload neither evicts nor renews it. While it answers stale, the
// store is asked again for it at most once per TTL, so that visitors of a
// stale link do not each wait for the deadline. Past the bound the lookup
// fails: the handlers answer 503 SERVICE_UNAVAILABLE. An entry that says a
// slug (or a domain's app) does not exist is never served stale: an
// unknown slug is 404 only while the database's answer is fresh, and 503
// when the database cannot be asked.
//
// A Resolver is safe for concurrent use.
type Resolver struct {
	store   ResolveStore
	def     string
	ttl     time.Duration
	timeout time.Duration
	clock   func() time.Time
	links   *ttlCache[linkKey, linkEntry]
	apps    *ttlCache[string, *App]
}

// linkKey is a link's cache key: normalized domain and lowercase slug.
type linkKey struct{ domain, slug string }

// linkEntry is what the cache holds for one address: the link served there
// (res), or, for an old address of a moved link, where that link is now
// (moved); neither for an address that serves nothing.
type linkEntry struct {
	res   *Resolved
	moved *movedLink
}

// movedLink is where the link of an old address is now: the key of its own
// entry, and its id, by which an entry that no longer leads to it is told.
type movedLink struct {
	to linkKey
	id uuid.UUID
}

// NewResolver returns a Resolver over store.
func NewResolver(store ResolveStore, opts ResolverOptions) *Resolver {
	if opts.TTL == 0 {
		opts.TTL = DefaultResolveTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultResolveCacheSize
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	opts.StoreTimeout = dbdeadline.Or(opts.StoreTimeout, dbdeadline.Default)
	if opts.StaleIfError == 0 {
		opts.StaleIfError = DefaultStaleIfError
	}
	return &Resolver{
		store:   store,
		def:     NormalizeDomain(opts.DefaultLinkDomain),
		ttl:     opts.TTL,
		timeout: opts.StoreTimeout,
		clock:   opts.Clock,
		links: newTTLCache[linkKey](opts.MaxEntries, opts.StaleIfError, func(e linkEntry) bool {
			return e.res != nil || e.moved != nil
		}),
		apps: newTTLCache[string](opts.MaxEntries, opts.StaleIfError, func(a *App) bool { return a != nil }),
	}
}

// Resolve returns the link at slug on domain for a visitor. domain is
// normalized (NormalizeDomain) and slug lowered (NormalizeSlugForLookup)
// first. An old address of a moved link returns the moved link, whose
// Domain and Slug are its current ones (SPEC.md, GET /links/resolve/{slug}
// rule 4), with the same errors as the link's own address. Errors (SPEC.md,
// Link states): 404 NOT_FOUND for an unknown or deleted slug and for a
// paused link (is_active false); 410 GONE for a link whose expires_at is at
// or before now. Store errors (errcode.ErrUnavailable, a load past
// StoreTimeout included) are returned as they are and never cached; a
// known link's last answer outlives them for StaleIfError (see Resolver).
func (r *Resolver) Resolve(ctx context.Context, domain, slug string) (*Resolved, error) {
	now := r.clock()
	res, _, err := r.lookup(ctx, linkKey{NormalizeDomain(domain), NormalizeSlugForLookup(slug)}, now)
	if err != nil {
		return nil, err
	}
	return checkState(res, now)
}

// ResolveAddress is Resolve for the link-domain handler, which answers an
// old address of a moved link with 301 Moved Permanently to the link's
// current short URL: at an old address it returns the moved link and moved
// true, whatever the link's state. A 301 is permanent and clients keep it,
// so it does not depend on a state that may change back; the link's current
// address answers its state (404 while paused, 410 once expired). At any
// other address it returns what Resolve returns, with moved false.
func (r *Resolver) ResolveAddress(ctx context.Context, domain, slug string) (res *Resolved, moved bool, err error) {
	now := r.clock()
	res, moved, err = r.lookup(ctx, linkKey{NormalizeDomain(domain), NormalizeSlugForLookup(slug)}, now)
	if err != nil || moved {
		return res, moved, err
	}
	res, err = checkState(res, now)
	return res, false, err
}

// CacheStats are the answers of one of a Resolver's caches since it was
// made. A lookup that reads the link of an old address counts twice: the
// old address, then the link.
type CacheStats struct {
	// Hits are the answers from a fresh entry.
	Hits uint64
	// Misses are the lookups that loaded from the store, or waited for
	// another lookup's load, failed loads and stale answers after them
	// included.
	Misses uint64
	// Stale are the answers from an expired entry while the store could
	// not be reached (ResolverOptions.StaleIfError).
	Stale uint64
}

// LinkCacheStats returns the answers of the link cache (Resolve,
// ResolveAddress).
func (r *Resolver) LinkCacheStats() CacheStats { return r.links.stats() }

// AppCacheStats returns the answers of the cache of link domains' apps
// (AppForDomain).
func (r *Resolver) AppCacheStats() CacheStats { return r.apps.stats() }

func (c *ttlCache[K, V]) stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Stale: c.staleHits.Load()}
}

// checkState returns res when its link is served at now: nil (no link) and
// a paused link are 404, an expired link 410.
func checkState(res *Resolved, now time.Time) (*Resolved, error) {
	switch {
	case res == nil, !res.Link.IsActive:
		return nil, errLinkNotFound
	case res.Link.ExpiresAt != nil && !res.Link.ExpiresAt.After(now):
		return nil, errLinkGone
	}
	return res, nil
}

// lookup returns the link at key, whatever its state, nil when there is
// none; at an old address, the moved link and moved true.
func (r *Resolver) lookup(ctx context.Context, key linkKey, now time.Time) (res *Resolved, moved bool, err error) {
	e, err := r.entry(ctx, key, now)
	if err != nil || e.moved == nil {
		return e.res, false, err
	}
	// An old address: the link's own entry answers, so that a write that
	// invalidates the link is seen here too.
	for retried := false; ; retried = true {
		t, err := r.entry(ctx, e.moved.to, now)
		if err != nil {
			return nil, false, err
		}
		if t.res != nil && t.res.Link.ID == e.moved.id {
			return t.res, true, nil
		}
		if retried {
			return nil, false, nil
		}
		// The link moved again or is gone since the old address was read:
		// read the old address again.
		r.links.invalidate(key)
		e, err = r.entry(ctx, key, now)
		if err != nil || e.moved == nil {
			return e.res, false, err
		}
	}
}

// entry returns the cache's entry for key, loading it when it is missing
// or expired.
func (r *Resolver) entry(ctx context.Context, key linkKey, now time.Time) (linkEntry, error) {
	return r.links.get(ctx, key, now, r.ttl, func(ctx context.Context) (linkEntry, error) {
		ctx, cancel := dbdeadline.Context(ctx, r.timeout)
		defer cancel()
		e, err := r.load(ctx, key)
		return e, dbdeadline.Err(ctx, err)
	})
}

var (
	errLinkNotFound = errcode.New(errcode.NotFound, "link not found")
	errLinkGone     = errcode.New(errcode.Gone, "link has expired")
	errAppNotFound  = errcode.New(errcode.NotFound, "no app on this link domain")
)

// load reads what is at key: the link there, with its app and
// organization defaults; else, when key is an old address, where its link
// is now; else nothing.
func (r *Resolver) load(ctx context.Context, key linkKey) (linkEntry, error) {
	l, err := r.store.LinkByDomainSlug(ctx, key.domain, key.slug)
	if errors.Is(err, errcode.ErrNotFound) {
		l, err = r.store.LinkByOldAddress(ctx, key.domain, key.slug)
		switch {
		case errors.Is(err, errcode.ErrNotFound):
			return linkEntry{}, nil
		case err != nil:
			return linkEntry{}, err
		}
		return linkEntry{moved: &movedLink{to: linkKey{l.Domain, l.Slug}, id: l.ID}}, nil
	}
	if err != nil {
		return linkEntry{}, err
	}
	res, err := r.resolved(ctx, l)
	if err != nil {
		return linkEntry{}, err
	}
	return linkEntry{res: res}, nil
}

// resolved reads link l's app and organization defaults.
func (r *Resolver) resolved(ctx context.Context, l *Link) (*Resolved, error) {
	res := &Resolved{Link: l}
	if l.AppID != nil {
		app, err := r.store.AppByID(ctx, l.OrgID, *l.AppID)
		switch {
		case err == nil:
			app.FillLinkDomains(r.def)
			res.App = app
		case !errors.Is(err, errcode.ErrNotFound): // an app deleted meanwhile: none
			return nil, err
		}
	}
	var err error
	res.OrgParams, err = r.store.OrgParameters(ctx, l.OrgID)
	if err != nil && !errors.Is(err, errcode.ErrNotFound) {
		return nil, err
	}
	res.Effective = params.Merge(res.OrgParams, l.Parameters)
	res.Route = RouteLink{
		DestinationURL:     l.DestinationURL,
		IOSURL:             deref(l.IOSURL),
		IOSFallbackURL:     deref(l.IOSFallbackURL),
		AndroidURL:         deref(l.AndroidURL),
		AndroidFallbackURL: deref(l.AndroidFallbackURL),
	}
	if a := res.App; a != nil {
		res.RouteApp = &RouteApp{
			IOSAppStoreURL:      deref(a.IOSAppStoreURL),
			AndroidPlayStoreURL: deref(a.AndroidPlayStoreURL),
			AndroidPackageName:  deref(a.AndroidPackageName),
		}
	}
	res.UTM = params.UTMFields{Source: deref(l.UTMSource), Medium: deref(l.UTMMedium), Campaign: deref(l.UTMCampaign)}
	return res, nil
}

// AppForDomain returns the app whose link domain is domain: its subdomain,
// its previous subdomain, or a custom domain set as its default link domain
// (never the service's default link domain, which many apps share). The
// association files are served for it. 404 NOT_FOUND when there is none,
// and on a previous subdomain whose rename period has ended by the
// resolver's clock, even before the end is carried out (the app's row
// still names it): the period ends at its ends_at on every replica.
// Answers are cached as Resolve's are; the caller must not modify the app.
func (r *Resolver) AppForDomain(ctx context.Context, domain string) (*App, error) {
	domain = NormalizeDomain(domain)
	now := r.clock()
	app, err := r.apps.get(ctx, domain, now, r.ttl, func(ctx context.Context) (*App, error) {
		ctx, cancel := dbdeadline.Context(ctx, r.timeout)
		defer cancel()
		app, err := r.loadApp(ctx, domain)
		return app, dbdeadline.Err(ctx, err)
	})
	if err != nil {
		return nil, err
	}
	if app == nil || previousEnded(app, domain, now) {
		return nil, errAppNotFound
	}
	return app, nil
}

// previousEnded reports whether domain is app's previous subdomain (and
// none of its current ones) and its rename period ended by now.
func previousEnded(app *App, domain string, now time.Time) bool {
	if app.PreviousLinkDomain == nil || app.RenameEndsAt == nil || now.Before(*app.RenameEndsAt) {
		return false
	}
	return NormalizeDomain(*app.PreviousLinkDomain) == domain && NormalizeDomain(app.LinkDomain) != domain &&
		NormalizeDomain(app.DefaultLinkDomain) != domain
}

func (r *Resolver) loadApp(ctx context.Context, domain string) (*App, error) {
	if domain == "" || domain == r.def {
		return nil, nil
	}
	app, err := r.store.AppByLinkDomain(ctx, domain)
	if errors.Is(err, errcode.ErrNotFound) && IsAppSubdomain(domain, r.def) {
		// An app stored before apps had link domains has only a handle.
		handle := domain[:len(domain)-len(r.def)-1]
		app, err = r.store.AppByHandle(ctx, handle)
		if err == nil {
			app.FillLinkDomains(r.def)
			if app.LinkDomain != domain {
				return nil, nil
			}
		}
	}
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	app.FillLinkDomains(r.def)
	return app, nil
}

// Invalidate drops the cached answer for slug on domain, found or not. A
// move of a link invalidates the address it leaves and the one it takes.
func (r *Resolver) Invalidate(domain, slug string) {
	r.links.invalidate(linkKey{NormalizeDomain(domain), NormalizeSlugForLookup(slug)})
}

// InvalidateLink implements LinkCache: it drops l's entry.
func (r *Resolver) InvalidateLink(l *Link) { r.Invalidate(l.Domain, l.Slug) }

// InvalidateAll implements LinkCache: it drops every entry, of links and of
// apps. An app's change reaches every link of the app, so app writes call it.
func (r *Resolver) InvalidateAll() {
	r.links.clear()
	r.apps.clear()
}

// LinkCache is told of writes that change what a link domain serves, so that
// a cache in this process forgets them at once. *Resolver implements it.
type LinkCache interface {
	// InvalidateLink drops the entry of l's domain and slug.
	InvalidateLink(l *Link)
	// InvalidateAll drops every entry.
	InvalidateAll()
}

// ttlCache is a bounded map of entries that expire, with coalesced loads.
// A nil value is a cached "none".
//
// An expired entry whose value keep accepts answers for up to stale past
// its expiry when its reload fails with errcode.ErrUnavailable (see
// Resolver); it is then reloaded at most once per ttl.
type ttlCache[K comparable, V any] struct {
	max   int
	stale time.Duration
	keep  func(V) bool

	mu       sync.RWMutex
	entries  map[K]ttlEntry[V]
	inflight map[K]*ttlCall[V]
	// gen counts invalidations; a load that began before one does not
	// store its answer.
	gen uint64

	// hits, misses and stale count the answers of get (CacheStats).
	hits, misses, staleHits atomic.Uint64
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
	// retry is set when the entry answered stale for a reload that failed:
	// until then it answers stale without another load.
	retry time.Time
}

type ttlCall[V any] struct {
	done  chan struct{}
	value V
	err   error
}

// newTTLCache returns a cache of at most max entries; an expired entry
// whose value keep accepts answers for up to stale past its expiry while
// its reloads fail with errcode.ErrUnavailable (never when stale <= 0).
func newTTLCache[K comparable, V any](max int, stale time.Duration, keep func(V) bool) *ttlCache[K, V] {
	return &ttlCache[K, V]{max: max, stale: stale, keep: keep,
		entries: map[K]ttlEntry[V]{}, inflight: map[K]*ttlCall[V]{}}
}

// answers reports whether e answers at now without a load: it has not
// expired, or it answers stale after a failed reload and its retry time
// has not come.
func (c *ttlCache[K, V]) answers(e ttlEntry[V], now time.Time) bool {
	return now.Before(e.expires) || now.Before(e.retry) && c.staleOK(e, now)
}

// staleOK reports whether e may answer at now for a reload that failed.
func (c *ttlCache[K, V]) staleOK(e ttlEntry[V], now time.Time) bool {
	return c.stale > 0 && c.keep(e.value) && now.Before(e.expires.Add(c.stale))
}

// get returns key's value, loading it when it is absent or expired at now.
// When the load fails with errcode.ErrUnavailable, an expired entry still
// within its stale bound answers instead (staleOK), and is not reloaded
// again for ttl. A ttl below zero never caches.
func (c *ttlCache[K, V]) get(ctx context.Context, key K, now time.Time, ttl time.Duration,
	load func(context.Context) (V, error)) (V, error) {
	if ttl < 0 {
		c.misses.Add(1)
		return load(ctx)
	}
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && c.answers(e, now) {
		c.count(e, now)
		return e.value, nil
	}

	c.mu.Lock()
	if e, ok := c.entries[key]; ok && c.answers(e, now) {
		c.mu.Unlock()
		c.count(e, now)
		return e.value, nil
	}
	c.misses.Add(1)
	if call, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		select {
		case <-call.done:
			if call.err != nil {
				c.mu.Lock()
				defer c.mu.Unlock()
				return c.staleAnswer(key, call.err, now, 0)
			}
			return call.value, nil
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	call := &ttlCall[V]{done: make(chan struct{})}
	c.inflight[key] = call
	gen := c.gen
	c.mu.Unlock()

	// The load outlives a caller that goes away: others may wait on it.
	call.value, call.err = load(context.WithoutCancel(ctx))
	close(call.done)

	c.mu.Lock()
	if c.inflight[key] == call {
		delete(c.inflight, key)
	}
	if call.err != nil {
		defer c.mu.Unlock()
		return c.staleAnswer(key, call.err, now, ttl)
	}
	if c.gen == gen {
		if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
			c.evict(now)
		}
		c.entries[key] = ttlEntry[V]{value: call.value, expires: now.Add(ttl)}
	}
	c.mu.Unlock()
	return call.value, nil
}

// staleAnswer answers a load of key that failed with err: key's last known
// value when err wraps errcode.ErrUnavailable and the entry may answer
// stale at now (staleOK), else err. When retryAfter is above zero (the
// loader's call), the entry then answers without a reload for retryAfter.
// c.mu is held.
func (c *ttlCache[K, V]) staleAnswer(key K, err error, now time.Time, retryAfter time.Duration) (V, error) {
	e, ok := c.entries[key]
	if !ok || !errors.Is(err, errcode.ErrUnavailable) || !c.staleOK(e, now) {
		var zero V
		return zero, err
	}
	if retryAfter > 0 {
		e.retry = now.Add(retryAfter)
		c.entries[key] = e
	}
	c.staleHits.Add(1)
	return e.value, nil
}

// count counts an answer of e at now without a load: a hit while e is
// fresh, else a stale answer.
func (c *ttlCache[K, V]) count(e ttlEntry[V], now time.Time) {
	if now.Before(e.expires) {
		c.hits.Add(1)
	} else {
		c.staleHits.Add(1)
	}
}

// evict removes one entry, expired if it finds one among the first few it
// looks at; c.mu is held.
func (c *ttlCache[K, V]) evict(now time.Time) {
	const look = 8
	var victim K
	n := 0
	for k, e := range c.entries { // map order is arbitrary
		victim = k
		if !now.Before(e.expires) || n == look {
			break
		}
		n++
	}
	delete(c.entries, victim)
}

func (c *ttlCache[K, V]) invalidate(key K) {
	c.mu.Lock()
	delete(c.entries, key)
	delete(c.inflight, key)
	c.gen++
	c.mu.Unlock()
}

func (c *ttlCache[K, V]) clear() {
	c.mu.Lock()
	clear(c.entries)
	clear(c.inflight)
	c.gen++
	c.mu.Unlock()
}

// len returns how many entries c holds, expired ones included.
func (c *ttlCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// CacheLen returns how many links the cache holds, expired entries included.
func (r *Resolver) CacheLen() int { return r.links.len() }
