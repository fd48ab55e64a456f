package linking_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store/storetest"
)

// move moves l of the in-memory store to domain and slug, leaving its old
// address behind, as a move of a link will.
func (s *resolveStore) move(l *linking.Link, domain, slug string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.links, l.Domain+"/"+l.Slug)
	s.old[l.Domain+"/"+l.Slug] = l.ID
	l.Domain, l.Slug = domain, slug
	s.links[domain+"/"+slug] = l
}

// del deletes l and, as the store's cascade does, its old addresses.
func (s *resolveStore) del(l *linking.Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.links, l.Domain+"/"+l.Slug)
	for k, id := range s.old {
		if id == l.ID {
			delete(s.old, k)
		}
	}
}

func TestResolverOldAddressAnswersWithTheMovedLink(t *testing.T) {
	t.Parallel()
	s, c, r := newResolveFixture(linking.ResolverOptions{})
	ctx := context.Background()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), Domain: "old.hop.test", Slug: "spring", IsActive: true,
		DestinationURL: "https://a.example/"}
	s.put(l)
	s.move(l, "new.hop.test", "spring-sale")

	res, moved, err := r.ResolveAddress(ctx, "OLD.hop.test", "Spring")
	require.NoError(t, err)
	assert.True(t, moved, "an old address")
	assert.Equal(t, "new.hop.test", res.Link.Domain, "the link's current domain")
	assert.Equal(t, "spring-sale", res.Link.Slug, "and slug")
	res, err = r.Resolve(ctx, "old.hop.test", "spring")
	require.NoError(t, err)
	assert.Equal(t, l.ID, res.Link.ID, "Resolve follows an old address too")

	res, moved, err = r.ResolveAddress(ctx, "new.hop.test", "spring-sale")
	require.NoError(t, err)
	assert.False(t, moved, "the link's own address")
	assert.Equal(t, l.ID, res.Link.ID)

	// A paused or expired link: the old address still leads to it; Resolve
	// answers the link's state.
	paused := *l
	paused.IsActive = false
	s.put(&paused)
	r.InvalidateLink(&paused)
	res, moved, err = r.ResolveAddress(ctx, "old.hop.test", "spring")
	require.NoError(t, err)
	assert.True(t, moved)
	assert.False(t, res.Link.IsActive)
	_, err = r.Resolve(ctx, "old.hop.test", "spring")
	requireCode(t, err, errcode.NotFound)
	_, _, err = r.ResolveAddress(ctx, "new.hop.test", "spring-sale")
	requireCode(t, err, errcode.NotFound)

	expired := *l
	at := c.Now()
	expired.ExpiresAt = &at
	s.put(&expired)
	r.InvalidateLink(&expired)
	_, moved, err = r.ResolveAddress(ctx, "old.hop.test", "spring")
	require.NoError(t, err)
	assert.True(t, moved)
	_, err = r.Resolve(ctx, "old.hop.test", "spring")
	requireCode(t, err, errcode.Gone)
}

func TestResolverCachesOldAddresses(t *testing.T) {
	t.Parallel()
	s, c, r := newResolveFixture(linking.ResolverOptions{TTL: 2 * time.Second})
	ctx := context.Background()
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), Domain: "old.hop.test", Slug: "spring", IsActive: true,
		DestinationURL: "https://a.example/"}
	s.put(l)
	s.move(l, "new.hop.test", "spring")
	for range 3 {
		_, moved, err := r.ResolveAddress(ctx, "old.hop.test", "spring")
		require.NoError(t, err)
		require.True(t, moved)
		_, err = r.Resolve(ctx, "old.hop.test", "none")
		requireCode(t, err, errcode.NotFound)
	}
	assert.EqualValues(t, 2, s.oldReads.Load(), "one old-address read per key: the old address and the unknown slug")
	assert.EqualValues(t, 3, s.reads.Load(), "one link read per key: the old address, the link's own, the unknown slug")

	// A write to the link reaches its old address at once.
	changed := *l
	changed.DestinationURL = "https://b.example/"
	s.put(&changed)
	r.InvalidateLink(&changed)
	res, _, err := r.ResolveAddress(ctx, "old.hop.test", "spring")
	require.NoError(t, err)
	assert.Equal(t, "https://b.example/", res.Link.DestinationURL)

	// So does a second move: the old address follows the link to its new
	// address once the move invalidates the address it left and the one it took.
	s.move(&changed, "newer.hop.test", "spring")
	r.Invalidate("new.hop.test", "spring")
	r.InvalidateLink(&changed)
	for _, addr := range []string{"old.hop.test", "new.hop.test"} {
		res, moved, err := r.ResolveAddress(ctx, addr, "spring")
		require.NoError(t, err, addr)
		assert.True(t, moved, addr)
		assert.Equal(t, "newer.hop.test", res.Link.Domain, addr)
	}

	// And a delete: the old address is gone with its link, at once.
	s.del(&changed)
	r.InvalidateLink(&changed)
	_, _, err = r.ResolveAddress(ctx, "old.hop.test", "spring")
	requireCode(t, err, errcode.NotFound)
	_, err = r.Resolve(ctx, "new.hop.test", "spring")
	requireCode(t, err, errcode.NotFound)

	// An old address recorded after its slug was cached as unknown is
	// served once the entry is invalidated, or else once it expires.
	m := &linking.Link{ID: uuid.Must(uuid.NewV7()), Domain: "old.hop.test", Slug: "autumn", IsActive: true}
	_, err = r.Resolve(ctx, "old.hop.test", "autumn")
	requireCode(t, err, errcode.NotFound)
	s.put(m)
	s.move(m, "new.hop.test", "autumn")
	_, err = r.Resolve(ctx, "old.hop.test", "autumn")
	requireCode(t, err, errcode.NotFound) // the negative entry still holds
	c.Advance(2 * time.Second)
	_, moved, err := r.ResolveAddress(ctx, "old.hop.test", "autumn")
	require.NoError(t, err)
	assert.True(t, moved)
}

func TestResolverOldAddressWithTheCacheDisabled(t *testing.T) {
	t.Parallel()
	s, _, r := newResolveFixture(linking.ResolverOptions{TTL: -1})
	l := &linking.Link{ID: uuid.Must(uuid.NewV7()), Domain: "old.hop.test", Slug: "spring", IsActive: true}
	s.put(l)
	s.move(l, "new.hop.test", "spring")
	for range 2 {
		res, moved, err := r.ResolveAddress(context.Background(), "old.hop.test", "spring")
		require.NoError(t, err)
		assert.True(t, moved)
		assert.Equal(t, l.ID, res.Link.ID)
	}
	assert.EqualValues(t, 2, s.oldReads.Load())
}

// oldAddressFixture is a link fixture whose service tells a resolver over
// the same store of its writes.
func oldAddressFixture(t *testing.T) (*linkFixture, *linking.Resolver) {
	t.Helper()
	s := storetest.SQLite(t)
	r := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDefaultDomain})
	f := newLinkFixture(t, s, func(o *linking.LinkServiceOptions) { o.Cache = r })
	return f, r
}

// appLink creates a link of the fixture's app with slug.
func (f *linkFixture) appLink(t *testing.T, slug string) *linking.Link {
	t.Helper()
	l, err := f.svc.Create(t.Context(), f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp(slug),
		AppID: &f.app.ID})
	require.NoError(t, err)
	return l
}

func TestRecordOldAddressListsItOnGet(t *testing.T) {
	t.Parallel()
	f, _ := oldAddressFixture(t)
	ctx := t.Context()
	l := f.appLink(t, "spring")

	first, err := f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, "Old.Hop.Example.", "Spring")
	require.NoError(t, err)
	assert.Equal(t, linking.Redirect{URL: "https://old.hop.example/spring", Since: f.clock.Now()}, *first,
		"domain normalized, slug lowered, since now")
	f.clock.Set(f.clock.Now().Add(time.Hour))
	second, err := f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, "older.hop.example", "spring-sale")
	require.NoError(t, err)

	got, err := f.svc.Get(ctx, f.owner, l.ID)
	require.NoError(t, err)
	assert.Equal(t, []linking.Redirect{*first, *second}, got.RedirectedFrom, "oldest first")
	assert.Equal(t, *l, got.Link)
}

func TestRecordOldAddressErrors(t *testing.T) {
	t.Parallel()
	f, _ := oldAddressFixture(t)
	ctx := t.Context()
	l, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring")})
	require.NoError(t, err)
	other := f.appLink(t, "taken")
	stranger := linkOrg(t, f.s, "stranger")

	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, " ", "spring")
	requireFieldError(t, err, linking.FieldDomain)
	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, "old.hop.example", "-spring")
	requireFieldError(t, err, linking.FieldSlug)
	_, err = f.svc.RecordOldAddress(ctx, stranger.ID, l.ID, "old.hop.example", "spring")
	requireCode(t, err, errcode.NotFound)

	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, other.Domain, "taken")
	e := requireCode(t, err, errcode.SlugTaken)
	assert.Equal(t, map[string]any{"slug": "taken", "domain": other.Domain}, e.Details)
	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, "old.hop.example", "spring")
	require.NoError(t, err)
	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, other.ID, "old.hop.example", "spring")
	e = requireCode(t, err, errcode.SlugTaken)
	assert.Equal(t, map[string]any{"slug": "spring", "domain": "old.hop.example"}, e.Details)
}

// TestOldAddressIsTakenForNewLinks proves domain rule 8 for old addresses: a
// slug that is an old address on the chosen domain is 409 SLUG_TAKEN, a
// generated one is generated again, and deleting the moved link frees it.
func TestOldAddressIsTakenForNewLinks(t *testing.T) {
	t.Parallel()
	random := zeroThenOne()
	s := storetest.SQLite(t)
	r := linking.NewResolver(s, linking.ResolverOptions{DefaultLinkDomain: linkDefaultDomain})
	f := newLinkFixture(t, s, func(o *linking.LinkServiceOptions) { o.Cache = r; o.Random = random })
	ctx := t.Context()
	l := f.appLink(t, "spring")
	_, err := f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, linkDefaultDomain, "spring")
	require.NoError(t, err)
	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, linkDefaultDomain, "aaaaaaa")
	require.NoError(t, err)

	_, err = f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring")})
	e := requireCode(t, err, errcode.SlugTaken)
	assert.Equal(t, map[string]any{"slug": "spring", "domain": linkDefaultDomain}, e.Details)

	g, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com"})
	require.NoError(t, err)
	assert.Equal(t, "bbbbbbb", g.Slug, "aaaaaaa is an old address, so a second slug was generated")

	_, moved, err := r.ResolveAddress(ctx, linkDefaultDomain, "spring")
	require.NoError(t, err)
	require.True(t, moved)
	_, err = f.svc.Delete(ctx, f.owner, l.ID)
	require.NoError(t, err)
	_, _, err = r.ResolveAddress(ctx, linkDefaultDomain, "spring")
	requireCode(t, err, errcode.NotFound)
	again, err := f.svc.Create(ctx, f.owner, linking.CreateLinkInput{DestinationURL: "https://example.com", Slug: sp("spring")})
	require.NoError(t, err, "the old address went with its link")
	res, moved, err := r.ResolveAddress(ctx, linkDefaultDomain, "spring")
	require.NoError(t, err)
	assert.False(t, moved)
	assert.Equal(t, again.ID, res.Link.ID)
}

// TestRecordOldAddressIsServedAtOnce proves that recording an old address
// drops the resolver's cached answer for it, so that an address cached as
// unknown redirects at once.
func TestRecordOldAddressIsServedAtOnce(t *testing.T) {
	t.Parallel()
	f, r := oldAddressFixture(t)
	ctx := t.Context()
	l := f.appLink(t, "spring")
	_, _, err := r.ResolveAddress(ctx, "old.hop.example", "spring")
	requireCode(t, err, errcode.NotFound)

	_, err = f.svc.RecordOldAddress(ctx, f.org.ID, l.ID, "old.hop.example", "spring")
	require.NoError(t, err)
	res, moved, err := r.ResolveAddress(ctx, "old.hop.example", "spring")
	require.NoError(t, err)
	assert.True(t, moved)
	assert.Equal(t, l.ID, res.Link.ID)
	assert.Equal(t, f.app.LinkDomain, res.Link.Domain)
}
