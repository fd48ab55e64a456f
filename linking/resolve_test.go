package linking_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
)

// resolveStore is an in-memory linking.ResolveStore that counts link reads
// (by address, and separately by old address).
type resolveStore struct {
	mu       sync.Mutex
	links    map[string]*linking.Link // domain + "/" + slug
	old      map[string]uuid.UUID     // old address (domain + "/" + slug) to link id
	reads    atomic.Int64
	oldReads atomic.Int64
}

func (s *resolveStore) LinkByDomainSlug(_ context.Context, domain, slug string) (*linking.Link, error) {
	s.reads.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.links[domain+"/"+slug]; ok {
		c := *l
		return &c, nil
	}
	return nil, errcode.ErrNotFound
}

func (s *resolveStore) LinkByOldAddress(_ context.Context, domain, slug string) (*linking.Link, error) {
	s.oldReads.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.old[domain+"/"+slug]; ok {
		for _, l := range s.links {
			if l.ID == id {
				c := *l
				return &c, nil
			}
		}
	}
	return nil, errcode.ErrNotFound
}

func (s *resolveStore) put(l *linking.Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.links[l.Domain+"/"+l.Slug] = l
}

func (s *resolveStore) AppByID(context.Context, uuid.UUID, uuid.UUID) (*linking.App, error) {
	return nil, errcode.ErrNotFound
}

func (s *resolveStore) AppByLinkDomain(context.Context, string) (*linking.App, error) {
	return nil, errcode.ErrNotFound
}

func (s *resolveStore) AppByHandle(context.Context, string) (*linking.App, error) {
	return nil, errcode.ErrNotFound
}

func (s *resolveStore) OrgParameters(context.Context, uuid.UUID) (*params.OrgConfig, error) {
	return nil, nil
}

func newResolveFixture(opts linking.ResolverOptions) (*resolveStore, *testkit.Clock, *linking.Resolver) {
	s := &resolveStore{links: map[string]*linking.Link{}, old: map[string]uuid.UUID{}}
	c := testkit.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	opts.Clock = c.Now
	return s, c, linking.NewResolver(s, opts)
}

func TestResolverStates(t *testing.T) {
	s, c, r := newResolveFixture(linking.ResolverOptions{})
	expires := c.Now().Add(time.Minute)
	s.put(&linking.Link{Domain: "hop.test", Slug: "live", IsActive: true, DestinationURL: "https://a.example/"})
	s.put(&linking.Link{Domain: "hop.test", Slug: "paused", IsActive: false})
	s.put(&linking.Link{Domain: "hop.test", Slug: "expiring", IsActive: true, ExpiresAt: &expires})
	ctx := context.Background()

	res, err := r.Resolve(ctx, "HOP.test.", "LIVE")
	require.NoError(t, err, "domain normalized, slug lowered")
	assert.Equal(t, "https://a.example/", res.Route.DestinationURL)
	assert.Nil(t, res.App)
	assert.True(t, res.Effective.Forwarding.Enabled, "no defaults: params.Merge(nil, nil)")

	_, err = r.Resolve(ctx, "hop.test", "paused")
	requireCode(t, err, errcode.NotFound)
	_, err = r.Resolve(ctx, "hop.test", "missing")
	requireCode(t, err, errcode.NotFound)
	_, err = r.Resolve(ctx, "hop.test", "expiring")
	require.NoError(t, err)
	c.Advance(time.Minute)
	_, err = r.Resolve(ctx, "hop.test", "expiring")
	requireCode(t, err, errcode.Gone)
}

func TestResolverCachesFoundAndMissingUntilTheTTL(t *testing.T) {
	s, c, r := newResolveFixture(linking.ResolverOptions{TTL: 2 * time.Second})
	ctx := context.Background()
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
	for range 3 {
		_, err := r.Resolve(ctx, "hop.test", "a")
		require.NoError(t, err)
		_, err = r.Resolve(ctx, "hop.test", "none")
		requireCode(t, err, errcode.NotFound)
	}
	assert.EqualValues(t, 2, s.reads.Load(), "one read per key")

	s.put(&linking.Link{Domain: "hop.test", Slug: "none", IsActive: true})
	_, err := r.Resolve(ctx, "hop.test", "none")
	requireCode(t, err, errcode.NotFound)
	c.Advance(2 * time.Second)
	_, err = r.Resolve(ctx, "hop.test", "none")
	require.NoError(t, err, "seen once the negative entry expires")

	s.put(&linking.Link{Domain: "hop.test", Slug: "b", IsActive: true})
	_, err = r.Resolve(ctx, "hop.test", "b")
	require.NoError(t, err)
	s.put(&linking.Link{Domain: "hop.test", Slug: "b", IsActive: false})
	r.InvalidateLink(&linking.Link{Domain: "hop.test", Slug: "B"})
	_, err = r.Resolve(ctx, "hop.test", "b")
	requireCode(t, err, errcode.NotFound)
}

func TestResolverCacheIsBounded(t *testing.T) {
	s, _, r := newResolveFixture(linking.ResolverOptions{MaxEntries: 10})
	for i := range 100 {
		_, _ = r.Resolve(context.Background(), "hop.test", uuid.NewString()[:8]+string(rune('a'+i%26)))
	}
	assert.LessOrEqual(t, r.CacheLen(), 10)
	assert.EqualValues(t, 100, s.reads.Load())
}

func TestResolverDisabledCacheReadsEveryTime(t *testing.T) {
	s, _, r := newResolveFixture(linking.ResolverOptions{TTL: -1})
	s.put(&linking.Link{Domain: "hop.test", Slug: "a", IsActive: true})
	for range 3 {
		_, err := r.Resolve(context.Background(), "hop.test", "a")
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, s.reads.Load())
}
