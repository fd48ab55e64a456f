package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
)

// Defaults of the Authenticator.
const (
	// DefaultCacheTTL is how long a key and its creator's role are cached: a
	// revocation or a member's removal reaches every replica within it.
	DefaultCacheTTL = 2 * time.Second
	// DefaultCacheSize bounds the number of cached keys.
	DefaultCacheSize = 10_000
	// DefaultTouchInterval is how often last_used_at is written for a key in use.
	DefaultTouchInterval = time.Minute
)

// ErrUnauthorized is the one error for a missing, malformed, unknown, revoked
// or expired key (SPEC.md, Authentication rule 2).
var ErrUnauthorized = errcode.New(errcode.Unauthorized, "missing or invalid API key")

// AuthenticatorOptions configure an Authenticator. Zero values take the defaults.
type AuthenticatorOptions struct {
	// Clock returns the current time; time.Now when nil.
	Clock func() time.Time
	// CacheTTL is how long a looked-up key is trusted; DefaultCacheTTL when zero.
	// A negative value disables the cache.
	CacheTTL time.Duration
	// CacheSize bounds the cache; DefaultCacheSize when zero.
	CacheSize int
	// TouchInterval is the least time between two last_used_at writes of one
	// key; DefaultTouchInterval when zero.
	TouchInterval time.Duration
	// Logger receives failures of background last_used_at writes; slog.Default when nil.
	Logger *slog.Logger
	// StoreTimeout bounds the key lookup of an authentication, so that a
	// stalled database fails the request (503) instead of holding it; the
	// lookup then returns dbdeadline.ErrTimeout, which wraps
	// errcode.ErrUnavailable. If zero, dbdeadline.Default; a negative value
	// sets no deadline.
	StoreTimeout time.Duration
}

type cached struct {
	key     *Key
	role    Role
	missing bool // no key has this hash
	fetched time.Time
}

// Authenticator turns a bearer token into a Principal. It caches each key and
// its creator's role for at most CacheTTL, so a cached authentication does not
// touch the database, and records last_used_at in the background at most once
// per TouchInterval per key. It is safe for concurrent use.
type Authenticator struct {
	store KeyStore
	opts  AuthenticatorOptions

	mu      sync.Mutex
	cache   map[[sha256.Size]byte]cached // by SHA-256 of the key
	touched map[uuid.UUID]time.Time
	pending map[uuid.UUID]time.Time
}

// NewAuthenticator returns an Authenticator over store.
func NewAuthenticator(store KeyStore, opts AuthenticatorOptions) *Authenticator {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = DefaultCacheSize
	}
	if opts.TouchInterval <= 0 {
		opts.TouchInterval = DefaultTouchInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.StoreTimeout = dbdeadline.Or(opts.StoreTimeout, dbdeadline.Default)
	return &Authenticator{
		store:   store,
		opts:    opts,
		cache:   make(map[[sha256.Size]byte]cached),
		touched: make(map[uuid.UUID]time.Time),
		pending: make(map[uuid.UUID]time.Time),
	}
}

// BearerToken returns the token of an Authorization header value of the form
// "Bearer <token>" (scheme case-insensitive), or false when it has another form.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// AuthenticateHeader authenticates an Authorization header value.
func (a *Authenticator) AuthenticateHeader(ctx context.Context, header string) (*Principal, error) {
	token, ok := BearerToken(header)
	if !ok {
		return nil, ErrUnauthorized
	}
	return a.Authenticate(ctx, token)
}

// Authenticate returns the Principal of raw key token. Every failure that is
// the caller's is ErrUnauthorized; a storage failure is returned as it is,
// and a lookup past AuthenticatorOptions.StoreTimeout is
// dbdeadline.ErrTimeout.
func (a *Authenticator) Authenticate(ctx context.Context, token string) (*Principal, error) {
	if _, ok := KeyPrefix(token); !ok {
		return nil, ErrUnauthorized
	}
	sum := sha256.Sum256([]byte(token))
	now := a.opts.Clock()

	a.mu.Lock()
	c, hit := a.cache[sum]
	if hit && now.Sub(c.fetched) >= a.opts.CacheTTL {
		hit = false
	}
	a.mu.Unlock()

	if !hit {
		var (
			key  *Key
			role Role
		)
		err := dbdeadline.Call(ctx, a.opts.StoreTimeout, func(ctx context.Context) (err error) {
			key, role, err = a.store.KeyByHash(ctx, hex.EncodeToString(sum[:]))
			return err
		})
		switch {
		case errors.Is(err, errcode.ErrNotFound):
			c = cached{missing: true, fetched: now}
		case err != nil:
			return nil, err
		default:
			c = cached{key: key, role: role, fetched: now}
		}
		a.put(sum, c)
	}
	if c.missing || c.key.Expired(now) {
		return nil, ErrUnauthorized
	}
	a.touch(c.key.ID, now)
	k := c.key
	return &Principal{
		KeyID:     k.ID,
		OrgID:     k.OrgID,
		Type:      k.Type,
		Scopes:    NewScopeSet(k.Scopes),
		AppID:     k.AppID,
		CreatedBy: k.CreatedBy,
		Role:      c.role,
	}, nil
}

func (a *Authenticator) put(hash [sha256.Size]byte, c cached) {
	if a.opts.CacheTTL < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= a.opts.CacheSize {
		// Drop stale entries first; if none are stale, drop everything: the
		// cache refills within one TTL and stays bounded.
		for h, e := range a.cache {
			if c.fetched.Sub(e.fetched) >= a.opts.CacheTTL {
				delete(a.cache, h)
			}
		}
		if len(a.cache) >= a.opts.CacheSize {
			clear(a.cache)
		}
	}
	a.cache[hash] = c
}

func (a *Authenticator) touch(id uuid.UUID, now time.Time) {
	// Stored and shown to the millisecond, as every timestamp of the API.
	now = now.UTC().Truncate(time.Millisecond)
	a.mu.Lock()
	defer a.mu.Unlock()
	if last, ok := a.touched[id]; ok && now.Sub(last) < a.opts.TouchInterval {
		return
	}
	a.touched[id] = now
	a.pending[id] = now
}

// Flush writes the pending last_used_at times.
func (a *Authenticator) Flush(ctx context.Context) error {
	a.mu.Lock()
	if len(a.pending) == 0 {
		a.mu.Unlock()
		return nil
	}
	batch := a.pending
	a.pending = make(map[uuid.UUID]time.Time)
	// Forget touch times that can no longer throttle anything, so the map stays small.
	now := a.opts.Clock()
	for id, t := range a.touched {
		if now.Sub(t) >= a.opts.TouchInterval {
			delete(a.touched, id)
		}
	}
	a.mu.Unlock()
	return a.store.TouchKeys(ctx, batch)
}

// Run flushes last_used_at times every interval until ctx is done, then
// flushes once more with a fresh short deadline.
func (a *Authenticator) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := a.Flush(fctx); err != nil {
				a.opts.Logger.Warn("auth: flushing last_used_at", "err", err)
			}
			return
		case <-t.C:
			if err := a.Flush(ctx); err != nil {
				a.opts.Logger.Warn("auth: flushing last_used_at", "err", err)
			}
		}
	}
}

// ForgetKey drops key id from the cache at once.
func (a *Authenticator) ForgetKey(id uuid.UUID) {
	a.forget(func(k *Key) bool { return k.ID == id })
}

// ForgetCreator drops every cached key created by userID, as when the user
// leaves an organization or changes role.
func (a *Authenticator) ForgetCreator(userID uuid.UUID) {
	a.forget(func(k *Key) bool { return k.CreatedBy != nil && *k.CreatedBy == userID })
}

// ForgetOrg drops every cached key of organization orgID.
func (a *Authenticator) ForgetOrg(orgID uuid.UUID) {
	a.forget(func(k *Key) bool { return k.OrgID == orgID })
}

func (a *Authenticator) forget(match func(*Key) bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for h, c := range a.cache {
		if c.key != nil && match(c.key) {
			delete(a.cache, h)
		}
	}
}
