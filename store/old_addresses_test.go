package store_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// oldAddress builds an old address of l at domain and slug, beginning at the clock's next time.
func oldAddress(c *clock, l *linking.Link, domain, slug string) *linking.OldAddress {
	return &linking.OldAddress{Domain: domain, Slug: slug, LinkID: l.ID, OrgID: l.OrgID, BeganAt: c.next()}
}

func recordOldAddress(t *testing.T, s *store.Store, a *linking.OldAddress) *linking.OldAddress {
	t.Helper()
	require.NoError(t, s.RecordOldAddress(t.Context(), a))
	return a
}

func TestOldAddressesMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "link_old_addresses")
		c := newClock()
		o := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, o.ID, "new.hop.example", "spring"))
		recordOldAddress(t, s, oldAddress(c, l, "old.hop.example", "spring"))
	})
}

func TestRecordOldAddressesAndListThemOldestFirst(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "spring"))
		first := oldAddress(c, l, "old.hop.example", "spring")
		second := oldAddress(c, l, "older.hop.example", "spring-sale")
		// Recorded out of order: the list follows began_at, not insertion.
		recordOldAddress(t, s, second)
		recordOldAddress(t, s, first)

		got, err := s.OldAddresses(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Equal(t, []linking.OldAddress{*first, *second}, got)

		got, err = s.OldAddresses(ctx, other.ID, l.ID)
		require.NoError(t, err)
		assert.Empty(t, got, "another organization sees none")
		lonely := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "lonely"))
		got, err = s.OldAddresses(ctx, acme.ID, lonely.ID)
		require.NoError(t, err)
		assert.Empty(t, got, "a link that never moved has none")

		moved, err := s.LinkByOldAddress(ctx, "old.hop.example", "spring")
		require.NoError(t, err)
		assert.Equal(t, l.ID, moved.ID)
		assert.Equal(t, "new.hop.example", moved.Domain, "the link as it is now")
		assert.Equal(t, "spring", moved.Slug)
		_, err = s.LinkByOldAddress(ctx, "new.hop.example", "spring")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "a link's own address is no old address")
		_, err = s.LinkByOldAddress(ctx, "old.hop.example", "autumn")
		assert.ErrorIs(t, err, errcode.ErrNotFound)
	})
}

func TestRecordOldAddressRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "spring"))
		createLink(t, s, newLink(c, other.ID, "old.hop.example", "taken"))
		recordOldAddress(t, s, oldAddress(c, l, "old.hop.example", "spring"))

		a := oldAddress(c, l, "old.hop.example", "summer")
		a.OrgID = other.ID
		assert.ErrorIs(t, s.RecordOldAddress(ctx, a), errcode.ErrNotFound, "the link is not in the organization")
		a = oldAddress(c, l, "old.hop.example", "summer")
		a.LinkID = uuid.Must(uuid.NewV7())
		assert.ErrorIs(t, s.RecordOldAddress(ctx, a), errcode.ErrNotFound, "no such link")

		assert.ErrorIs(t, s.RecordOldAddress(ctx, oldAddress(c, l, "old.hop.example", "taken")), errcode.ErrConflict,
			"another link is at the address, whatever its organization")
		assert.ErrorIs(t, s.RecordOldAddress(ctx, oldAddress(c, l, "old.hop.example", "spring")), errcode.ErrConflict,
			"already an old address of the link")
		next := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "next"))
		assert.ErrorIs(t, s.RecordOldAddress(ctx, oldAddress(c, next, "old.hop.example", "spring")), errcode.ErrConflict,
			"already another link's old address")

		// A move may record the address it leaves before it changes the link.
		recordOldAddress(t, s, oldAddress(c, next, "new.hop.example", "next"))
		got, err := s.OldAddresses(ctx, acme.ID, next.ID)
		require.NoError(t, err)
		assert.Len(t, got, 1)
	})
}

func TestCreateLinkOnAnOldAddressIsAConflict(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		l := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "spring"))
		recordOldAddress(t, s, oldAddress(c, l, "old.hop.example", "spring"))

		for _, quota := range []linking.LinkQuota{{}, {Max: 100, Since: t0}} {
			err := s.CreateLink(ctx, newLink(c, acme.ID, "old.hop.example", "spring"), quota)
			assert.ErrorIs(t, err, errcode.ErrConflict, "quota %d", quota.Max)
			err = s.CreateLink(ctx, newLink(c, other.ID, "old.hop.example", "spring"), quota)
			assert.ErrorIs(t, err, errcode.ErrConflict, "whatever the organization, quota %d", quota.Max)
		}
		createLink(t, s, newLink(c, other.ID, "elsewhere.hop.example", "spring"))
	})
}

func TestOldAddressesLiveAsLongAsTheirLink(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		l := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "spring"))
		recordOldAddress(t, s, oldAddress(c, l, "old.hop.example", "spring"))

		require.NoError(t, s.DeleteLink(ctx, acme.ID, l.ID))
		_, err := s.LinkByOldAddress(ctx, "old.hop.example", "spring")
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		got, err := s.OldAddresses(ctx, acme.ID, l.ID)
		require.NoError(t, err)
		assert.Empty(t, got)
		createLink(t, s, newLink(c, acme.ID, "old.hop.example", "spring"))

		// An organization's deletion takes its links' old addresses too.
		other := createOrg(t, s, c, "other")
		m := createLink(t, s, newLink(c, other.ID, "new.hop.example", "autumn"))
		recordOldAddress(t, s, oldAddress(c, m, "old.hop.example", "autumn"))
		require.NoError(t, s.DeleteOrganization(ctx, other.ID))
		_, err = s.LinkByOldAddress(ctx, "old.hop.example", "autumn")
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		createLink(t, s, newLink(c, acme.ID, "old.hop.example", "autumn"))
	})
}

// TestLinkByOldAddressOnCustomDomains proves that an old address serves only
// while both its own domain and the link's current one serve: a custom
// domain that its organization has verified and not suspended, or no custom
// domain at all.
func TestLinkByOldAddressOnCustomDomains(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		acme := createOrg(t, s, c, "acme")
		oldCustom := createDomain(t, s, c, acme.ID, "old.acme.com")
		newCustom := createDomain(t, s, c, acme.ID, "new.acme.com")

		fromCustom := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "from-custom"))
		recordOldAddress(t, s, oldAddress(c, fromCustom, "old.acme.com", "from-custom"))
		toCustom := createLink(t, s, newLink(c, acme.ID, "new.acme.com", "to-custom"))
		recordOldAddress(t, s, oldAddress(c, toCustom, "old.hop.example", "to-custom"))

		_, err := s.LinkByOldAddress(ctx, "old.acme.com", "from-custom")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "the old domain is not verified")
		_, err = s.LinkByOldAddress(ctx, "old.hop.example", "to-custom")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "the link's domain is not verified")

		verifyDomain(t, s, c, oldCustom)
		verifyDomain(t, s, c, newCustom)
		got, err := s.LinkByOldAddress(ctx, "old.acme.com", "from-custom")
		require.NoError(t, err)
		assert.Equal(t, fromCustom.ID, got.ID)
		got, err = s.LinkByOldAddress(ctx, "old.hop.example", "to-custom")
		require.NoError(t, err)
		assert.Equal(t, toCustom.ID, got.ID)
	})
}

// TestConcurrentCreateAndRecordOfOneAddress proves that a link's create and
// another link's old address cannot both take one address: of the two,
// started together, exactly one succeeds, the other is a conflict.
func TestConcurrentCreateAndRecordOfOneAddress(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		acme, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		moved := createLink(t, s, newLink(c, acme.ID, "new.hop.example", "moved"))
		const rounds = 10
		for i := range rounds {
			slug := "race-" + string(rune('a'+i))
			record := oldAddress(c, moved, "old.hop.example", slug)
			create := newLink(c, other.ID, "old.hop.example", slug)
			var errs [2]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				errs[0] = s.RecordOldAddress(t.Context(), record)
			}()
			go func() {
				defer wg.Done()
				<-start
				errs[1] = s.CreateLink(t.Context(), create, linking.LinkQuota{})
			}()
			close(start)
			wg.Wait()
			assertOneWins(t, errs[:], errcode.ErrConflict, "round %d: %v", i, errs)
		}
	})
}
