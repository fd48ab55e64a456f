package linking_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
)

// Modes of an outageStore.
const (
	storeUp      int32 = iota
	storeDown          // every read fails at once: connection refused
	storeStalled       // every read waits until its context ends
	storeBroken        // every read fails with an error that is not an outage
	storeGated         // every read waits for release, then fails as storeDown
)

// outageStore is a resolveStore whose link and app reads can be made to
// fail as a database that cannot be reached fails, or to stall as a
// database that accepts a connection and answers nothing.
type outageStore struct {
	*resolveStore
	mode    atomic.Int32
	apps    map[string]*linking.App
	calls   atomic.Int64  // reads while not up
	release chan struct{} // storeGated reads wait for it to close
}

// fail returns the error of a read in the store's mode, counting the reads
// made while it is not up.
func (s *outageStore) fail(ctx context.Context) error {
	mode := s.mode.Load()
	if mode != storeUp {
		s.calls.Add(1)
	}
	switch mode {
	case storeDown:
		return fmt.Errorf("store: link: dial tcp 127.0.0.1:5432: connection refused: %w", errcode.ErrUnavailable)
	case storeStalled:
		<-ctx.Done()
		return fmt.Errorf("store: link: %w", ctx.Err())
	case storeBroken:
		return errors.New("store: link: no such column")
	case storeGated:
		<-s.release
		return fmt.Errorf("store: link: read tcp: i/o timeout: %w", errcode.ErrUnavailable)
	}
	return nil
}

func (s *outageStore) LinkByDomainSlug(ctx context.Context, domain, slug string) (*linking.Link, error) {
	if err := s.fail(ctx); err != nil {
		return nil, err
	}
	return s.resolveStore.LinkByDomainSlug(ctx, domain, slug)
}

func (s *outageStore) LinkByOldAddress(ctx context.Context, domain, slug string) (*linking.Link, error) {
	if err := s.fail(ctx); err != nil {
		return nil, err
	}
	return s.resolveStore.LinkByOldAddress(ctx, domain, slug)
}

func (s *outageStore) AppByLinkDomain(ctx context.Context, domain string) (*linking.App, error) {
	if err := s.fail(ctx); err != nil {
		return nil, err
	}
	if a, ok := s.apps[domain]; ok {
		c := *a
		return &c, nil
	}
	return nil, errcode.ErrNotFound
}

func newOutageFixture(opts linking.ResolverOptions) (*outageStore, *testkit.Clock, *linking.Resolver) {
	s := &outageStore{
		resolveStore: &resolveStore{links: map[string]*linking.Link{}, old: map[string]uuid.UUID{}},
		apps:         map[string]*linking.App{},
		release:      make(chan struct{}),
	}
	c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	opts.Clock = c.Now
	return s, c, linking.NewResolver(s, opts)
}

// requireUnavailable asserts err says the database cannot be reached, so
// that the handlers answer 503 SERVICE_UNAVAILABLE.
func requireUnavailable(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, errcode.ErrUnavailable)
	assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err))
}

func TestResolverServesAKnownLinkStaleWhileTheStoreIsDown(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, StaleIfError: time.Hour})
	ctx := context.Background()
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true, DestinationURL: "https://a.example/"})
	_, err := r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err)

	s.mode.Store(storeDown)
	c.Advance(5 * time.Second) // expired: the next lookup reloads, and fails
	res, err := r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err, "the last known answer outlives the failed reload")
	assert.Equal(t, "https://a.example/", res.Route.DestinationURL)
	assert.EqualValues(t, 1, s.calls.Load(), "one reload was tried")

	for range 10 {
		_, err = r.Resolve(ctx, "hop.test", "a")
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, s.calls.Load(), "a stale entry is not reloaded again within the TTL")
	c.Advance(5 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.calls.Load(), "then once per TTL")

	// The bound is counted from the entry's expiry, not from its last
	// failed reload.
	c.Set(time.Date(2030, 1, 1, 0, 0, 5, 0, time.UTC).Add(time.Hour - time.Nanosecond))
	_, err = r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err, "still within the hour")
	c.Advance(time.Nanosecond)
	_, err = r.Resolve(ctx, "hop.test", "a")
	requireUnavailable(t, err)
	_, err = r.Resolve(ctx, "hop.test", "a")
	requireUnavailable(t, err) // past the bound every lookup asks the store

	s.mode.Store(storeUp)
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true, DestinationURL: "https://b.example/"})
	res, err = r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err)
	assert.Equal(t, "https://b.example/", res.Route.DestinationURL, "the store's answer replaces the stale one")
}

func TestResolverStaleLinkKeepsItsStates(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second})
	ctx := context.Background()
	expires := c.Now().Add(time.Minute)
	s.put(&linking.Link{Domain: "hop.test", Slug: "paused", IsActive: false})
	s.put(&linking.Link{Domain: "hop.test", Slug: "expiring", IsActive: true, ExpiresAt: &expires})
	_, err := r.Resolve(ctx, "hop.test", "paused")
	requireCode(t, err, errcode.NotFound)
	_, err = r.Resolve(ctx, "hop.test", "expiring")
	require.NoError(t, err)

	s.mode.Store(storeDown)
	c.Advance(30 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "paused")
	requireCode(t, err, errcode.NotFound)
	_, err = r.Resolve(ctx, "hop.test", "expiring")
	require.NoError(t, err)
	c.Advance(30 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "expiring")
	requireCode(t, err, errcode.Gone)
}

func TestResolverNeverServesAnUnknownSlugStale(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second})
	ctx := context.Background()
	_, err := r.Resolve(ctx, "hop.test", "none")
	requireCode(t, err, errcode.NotFound)

	s.mode.Store(storeDown)
	_, err = r.Resolve(ctx, "hop.test", "none")
	requireCode(t, err, errcode.NotFound)
	assert.Zero(t, s.calls.Load(), "within its TTL the database's answer stands, unasked")

	c.Advance(5 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "none")
	requireUnavailable(t, err)
	_, err = r.Resolve(ctx, "hop.test", "never-seen")
	requireUnavailable(t, err)
}

func TestResolverStaleFollowsOldAddresses(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second})
	ctx := context.Background()
	l := &linking.Link{ID: uuid.New(), Domain: "new.test", Slug: "a", IsActive: true}
	s.put(l)
	s.old["old.test/a"] = l.ID
	_, moved, err := r.ResolveAddress(ctx, "old.test", "a")
	require.NoError(t, err)
	require.True(t, moved)

	s.mode.Store(storeDown)
	c.Advance(time.Minute)
	res, moved, err := r.ResolveAddress(ctx, "old.test", "a")
	require.NoError(t, err)
	assert.True(t, moved)
	assert.Equal(t, l.ID, res.Link.ID)
}

func TestResolverServesADomainsAppStale(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, DefaultLinkDomain: "hop.test"})
	ctx := context.Background()
	s.apps["shop.hop.test"] = &linking.App{ID: uuid.New(), Handle: "shop", LinkDomain: "shop.hop.test"}
	_, err := r.AppForDomain(ctx, "shop.hop.test")
	require.NoError(t, err)
	_, err = r.AppForDomain(ctx, "none.example")
	requireCode(t, err, errcode.NotFound)

	s.mode.Store(storeDown)
	c.Advance(time.Minute)
	app, err := r.AppForDomain(ctx, "shop.hop.test")
	require.NoError(t, err)
	assert.Equal(t, "shop", app.Handle)
	_, err = r.AppForDomain(ctx, "none.example")
	requireUnavailable(t, err)
}

func TestResolverStaleIfErrorLimits(t *testing.T) {
	t.Parallel()
	t.Run("disabled, a failed reload answers the failure", func(t *testing.T) {
		t.Parallel()
		s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, StaleIfError: -1})
		s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
		_, err := r.Resolve(context.Background(), "hop.test", "a")
		require.NoError(t, err)
		s.mode.Store(storeDown)
		c.Advance(5 * time.Second)
		_, err = r.Resolve(context.Background(), "hop.test", "a")
		requireUnavailable(t, err)
	})
	t.Run("an error that is not an outage is not hidden", func(t *testing.T) {
		t.Parallel()
		s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second})
		s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
		_, err := r.Resolve(context.Background(), "hop.test", "a")
		require.NoError(t, err)
		s.mode.Store(storeBroken)
		c.Advance(5 * time.Second)
		_, err = r.Resolve(context.Background(), "hop.test", "a")
		require.Error(t, err)
		assert.Equal(t, errcode.InternalError, errcode.CodeOf(err))
	})
}

func TestResolverStalledStoreFailsWithinTheDeadline(t *testing.T) {
	t.Parallel()
	// The deadline is a real one: the stalled read returns when its
	// context ends, as a driver does.
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, StoreTimeout: 20 * time.Millisecond})
	ctx := context.Background()
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
	s.apps["shop.hop.test"] = &linking.App{ID: uuid.New(), Handle: "shop", LinkDomain: "shop.hop.test"}
	_, err := r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err)
	_, err = r.AppForDomain(ctx, "shop.hop.test")
	require.NoError(t, err)

	s.mode.Store(storeStalled)
	_, err = r.Resolve(ctx, "hop.test", "unknown")
	requireUnavailable(t, err)
	assert.ErrorIs(t, err, dbdeadline.ErrTimeout)
	_, err = r.AppForDomain(ctx, "other.hop.test")
	requireUnavailable(t, err)
	assert.ErrorIs(t, err, dbdeadline.ErrTimeout)

	c.Advance(5 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err, "a known link answers stale once its reload times out")
	_, err = r.AppForDomain(ctx, "shop.hop.test")
	require.NoError(t, err)
}

func TestResolverWaitersOfAFailedReloadGetTheStaleAnswer(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, StoreTimeout: time.Hour})
	ctx := context.Background()
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
	_, err := r.Resolve(ctx, "hop.test", "a")
	require.NoError(t, err)

	// The reload waits until the test releases it, then fails: every
	// request that came meanwhile gets the stale answer.
	s.mode.Store(storeGated)
	c.Advance(5 * time.Second)
	errs := make(chan error, 5)
	resolve := func() {
		_, err := r.Resolve(ctx, "hop.test", "a")
		errs <- err
	}
	go resolve()
	require.Eventually(t, func() bool { return s.calls.Load() == 1 }, 10*time.Second, time.Millisecond)
	for range 4 {
		go resolve()
	}
	close(s.release)
	for range 5 {
		require.NoError(t, <-errs)
	}
	assert.EqualValues(t, 1, s.calls.Load(), "one reload for all")
}

func TestResolverCountsCacheHitsMissesAndStaleAnswers(t *testing.T) {
	t.Parallel()
	s, c, r := newOutageFixture(linking.ResolverOptions{TTL: 5 * time.Second, StaleIfError: time.Hour})
	ctx := context.Background()
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true, DestinationURL: "https://a.example/"})
	s.apps["app.hop.test"] = &linking.App{Name: "A"}

	_, err := r.Resolve(ctx, "hop.test", "a") // miss: loaded
	require.NoError(t, err)
	for range 3 {
		_, err = r.Resolve(ctx, "hop.test", "a") // hits
		require.NoError(t, err)
	}
	_, err = r.Resolve(ctx, "hop.test", "unknown") // miss, cached as none
	requireCode(t, err, errcode.NotFound)
	assert.Equal(t, linking.CacheStats{Hits: 3, Misses: 2}, r.LinkCacheStats())

	s.mode.Store(storeDown)
	c.Advance(5 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "a") // miss, answered stale after the failed reload
	require.NoError(t, err)
	_, err = r.Resolve(ctx, "hop.test", "a") // stale without a reload
	require.NoError(t, err)
	_, err = r.Resolve(ctx, "hop.test", "unknown") // miss, never served stale
	requireUnavailable(t, err)
	assert.Equal(t, linking.CacheStats{Hits: 3, Misses: 4, Stale: 2}, r.LinkCacheStats())

	s.mode.Store(storeUp)
	_, err = r.AppForDomain(ctx, "app.hop.test")
	require.NoError(t, err)
	_, err = r.AppForDomain(ctx, "app.hop.test")
	require.NoError(t, err)
	assert.Equal(t, linking.CacheStats{Hits: 1, Misses: 1}, r.AppCacheStats(), "the apps' cache counts apart")
}
