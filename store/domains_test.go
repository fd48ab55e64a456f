package store_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// newDomain builds an unverified domain of orgID.
func newDomain(c *clock, orgID uuid.UUID, name string) *linking.Domain {
	at := c.next()
	return &linking.Domain{
		ID: uuid.Must(uuid.NewV7()), OrgID: orgID, Domain: name,
		VerificationToken: "hoplink-verify-" + name, CreatedAt: at, UpdatedAt: at,
	}
}

func createDomain(t *testing.T, s *store.Store, c *clock, orgID uuid.UUID, name string) *linking.Domain {
	t.Helper()
	d := newDomain(c, orgID, name)
	require.NoError(t, s.CreateDomain(t.Context(), d, 100))
	return d
}

func verifyDomain(t *testing.T, s *store.Store, c *clock, d *linking.Domain) *linking.Domain {
	t.Helper()
	v, err := s.MarkDomainVerified(t.Context(), d.OrgID, d.ID, c.next())
	require.NoError(t, err)
	return v
}

func TestDomainsMigrationUpDownUp(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		assertMigratesDownAndUp(t, s, "domains")
		c := newClock()
		o := createOrg(t, s, c, "acme")
		verifyDomain(t, s, c, createDomain(t, s, c, o.ID, "links.acme.com"))
	})
}

func TestCreateDomainAndReadItBack(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		d := createDomain(t, s, c, o.ID, "links.acme.com")
		got, err := s.DomainByID(t.Context(), o.ID, d.ID)
		require.NoError(t, err)
		assert.Equal(t, d, got)

		other := createOrg(t, s, c, "other")
		_, err = s.DomainByID(t.Context(), other.ID, d.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's domain is not found")

		v := verifyDomain(t, s, c, d)
		assert.True(t, v.Verified)
		require.NotNil(t, v.VerifiedAt)
		assert.Equal(t, *v.VerifiedAt, v.UpdatedAt)
		_, err = s.MarkDomainVerified(t.Context(), other.ID, d.ID, c.next())
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization cannot verify it")
	})
}

func TestCreateDomainRefusals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		a := createOrg(t, s, c, "a")
		b := createOrg(t, s, c, "b")
		ctx := t.Context()

		t.Run("an organization has a name once, verified or not", func(t *testing.T) {
			createDomain(t, s, c, a.ID, "dup.example.com")
			err := s.CreateDomain(ctx, newDomain(c, a.ID, "dup.example.com"), 100)
			assert.ErrorIs(t, err, linking.ErrDomainDuplicate)
		})
		t.Run("several organizations may hold a name unverified", func(t *testing.T) {
			createDomain(t, s, c, a.ID, "shared.example.com")
			createDomain(t, s, c, b.ID, "shared.example.com")
		})
		t.Run("a name verified by another organization is claimed", func(t *testing.T) {
			verifyDomain(t, s, c, createDomain(t, s, c, a.ID, "claimed.example.com"))
			err := s.CreateDomain(ctx, newDomain(c, b.ID, "claimed.example.com"), 100)
			assert.ErrorIs(t, err, linking.ErrDomainClaimed)
		})
		t.Run("the duplicate check comes before the claim", func(t *testing.T) {
			err := s.CreateDomain(ctx, newDomain(c, a.ID, "claimed.example.com"), 100)
			assert.ErrorIs(t, err, linking.ErrDomainDuplicate)
		})
		t.Run("a second verification of a name is claimed", func(t *testing.T) {
			da := createDomain(t, s, c, a.ID, "race.example.com")
			db := createDomain(t, s, c, b.ID, "race.example.com")
			verifyDomain(t, s, c, da)
			_, err := s.MarkDomainVerified(ctx, b.ID, db.ID, c.next())
			assert.ErrorIs(t, err, linking.ErrDomainClaimed)
			got, err := s.DomainByID(ctx, b.ID, db.ID)
			require.NoError(t, err)
			assert.False(t, got.Verified, "the loser stays unverified")
		})
		t.Run("the plan's number of domains", func(t *testing.T) {
			o := createOrg(t, s, c, "limited")
			require.NoError(t, s.CreateDomain(ctx, newDomain(c, o.ID, "one.example.com"), 2))
			require.NoError(t, s.CreateDomain(ctx, newDomain(c, o.ID, "two.example.com"), 2))
			err := s.CreateDomain(ctx, newDomain(c, o.ID, "three.example.com"), 2)
			assert.ErrorIs(t, err, linking.ErrDomainLimit)
			n, err := s.DB().NewSelect().Table("domains").Where("org_id = ?", o.ID).Count(ctx)
			require.NoError(t, err)
			assert.Equal(t, 2, int(n))
		})
		t.Run("an organization that does not exist", func(t *testing.T) {
			err := s.CreateDomain(ctx, newDomain(c, uuid.Must(uuid.NewV7()), "gone.example.com"), 100)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
	})
}

func TestListDomains(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		var want []string
		for _, n := range []string{"c.example.com", "a.example.com", "b.example.com"} {
			createDomain(t, s, c, o.ID, n)
			want = append(want, n)
		}
		createDomain(t, s, c, other.ID, "z.example.com")

		page, total, err := s.ListDomains(t.Context(), o.ID, 2, 0)
		require.NoError(t, err)
		assert.Equal(t, 3, total)
		require.Len(t, page, 2)
		assert.Equal(t, want[0], page[0].Domain, "oldest first")
		assert.Equal(t, want[1], page[1].Domain)
		page, _, err = s.ListDomains(t.Context(), o.ID, 2, 2)
		require.NoError(t, err)
		require.Len(t, page, 1)
		assert.Equal(t, want[2], page[0].Domain)
	})
}

func TestLiveDomainsAndSuspension(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		live := verifyDomain(t, s, c, createDomain(t, s, c, o.ID, "live.example.com"))
		createDomain(t, s, c, o.ID, "pending.example.com")
		verifyDomain(t, s, c, createDomain(t, s, c, other.ID, "theirs.example.com"))

		names, err := s.LiveCustomDomains(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"live.example.com"}, names, "verified domains of this organization only")
		got, err := s.LiveDomain(ctx, "live.example.com")
		require.NoError(t, err)
		assert.Equal(t, live.ID, got.ID)
		_, err = s.LiveDomain(ctx, "pending.example.com")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "an unverified domain is not live")

		at := c.next()
		n, err := s.SetDomainsSuspended(ctx, o.ID, true, at)
		require.NoError(t, err)
		assert.Equal(t, 2, n, "every domain of the organization")
		n, err = s.SetDomainsSuspended(ctx, o.ID, true, c.next())
		require.NoError(t, err)
		assert.Zero(t, n, "suspending again changes nothing")
		got, err = s.DomainByID(ctx, o.ID, live.ID)
		require.NoError(t, err)
		require.NotNil(t, got.SuspendedAt)
		assert.Equal(t, at, *got.SuspendedAt)
		names, err = s.LiveCustomDomains(ctx, o.ID)
		require.NoError(t, err)
		assert.Empty(t, names, "a suspended domain is not live")
		_, err = s.LiveDomain(ctx, "live.example.com")
		assert.ErrorIs(t, err, errcode.ErrNotFound)
		_, err = s.LiveDomain(ctx, "theirs.example.com")
		assert.NoError(t, err, "another organization's domains are untouched")

		n, err = s.SetDomainsSuspended(ctx, o.ID, false, c.next())
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		got, err = s.DomainByID(ctx, o.ID, live.ID)
		require.NoError(t, err)
		assert.Nil(t, got.SuspendedAt)
		assert.True(t, got.Verified, "restoring keeps the verification")
		names, err = s.LiveCustomDomains(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"live.example.com"}, names)
	})
}

func TestLinksOnCustomDomainsResolveOnlyWhileLive(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		other := createOrg(t, s, c, "other")
		d := createDomain(t, s, c, o.ID, "go.acme.com")
		// Another organization added the name before this one verified it.
		createDomain(t, s, c, other.ID, "go.acme.com")
		d = verifyDomain(t, s, c, d)
		createLink(t, s, newLink(c, o.ID, "go.acme.com", "spring"))
		createLink(t, s, newLink(c, o.ID, "hop.example", "plain"))

		_, err := s.LinkByDomainSlug(ctx, "go.acme.com", "spring")
		require.NoError(t, err, "a live custom domain serves its links")

		t.Run("a link of another organization on the name is not served", func(t *testing.T) {
			createLink(t, s, newLink(c, other.ID, "go.acme.com", "theirs"))
			_, err := s.LinkByDomainSlug(ctx, "go.acme.com", "theirs")
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
		t.Run("suspended: not found; restored: found", func(t *testing.T) {
			_, err := s.SetDomainsSuspended(ctx, o.ID, true, c.next())
			require.NoError(t, err)
			_, err = s.LinkByDomainSlug(ctx, "go.acme.com", "spring")
			assert.ErrorIs(t, err, errcode.ErrNotFound)
			_, err = s.LinkByDomainSlug(ctx, "hop.example", "plain")
			assert.NoError(t, err, "links on the default link domain are untouched")
			_, err = s.SetDomainsSuspended(ctx, o.ID, false, c.next())
			require.NoError(t, err)
			_, err = s.LinkByDomainSlug(ctx, "go.acme.com", "spring")
			assert.NoError(t, err)
		})
		t.Run("deleting the domain deletes its links", func(t *testing.T) {
			deleted, err := s.DeleteDomain(ctx, o.ID, d.ID)
			require.NoError(t, err)
			assert.Equal(t, d.ID, deleted.ID)
			_, err = s.LinkByDomainSlug(ctx, "go.acme.com", "spring")
			assert.ErrorIs(t, err, errcode.ErrNotFound)
			assert.Equal(t, 1, orgRows(t, s, "links", o.ID), "the link on the default link domain stays")
			_, err = s.DeleteDomain(ctx, o.ID, d.ID)
			assert.ErrorIs(t, err, errcode.ErrNotFound)
		})
	})
}

func TestAppOnCustomDefaultDomainOnlyWhileLive(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		ctx := t.Context()
		o := createOrg(t, s, c, "acme")
		a := linkApp(t, s, c, o.ID)
		d := createDomain(t, s, c, o.ID, "app.acme.com")
		_, err := s.DB().NewUpdate().Table("apps").Set("default_link_domain = ?", "app.acme.com").Where("id = ?", a.ID).Exec(ctx)
		require.NoError(t, err)

		_, err = s.AppByLinkDomain(ctx, "app.acme.com")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "unverified")
		verifyDomain(t, s, c, d)
		got, err := s.AppByLinkDomain(ctx, "app.acme.com")
		require.NoError(t, err, "verified")
		assert.Equal(t, a.ID, got.ID)
		_, err = s.SetDomainsSuspended(ctx, o.ID, true, c.next())
		require.NoError(t, err)
		_, err = s.AppByLinkDomain(ctx, "app.acme.com")
		assert.ErrorIs(t, err, errcode.ErrNotFound, "suspended")
		_, err = s.AppByLinkDomain(ctx, a.LinkDomain)
		assert.NoError(t, err, "the app's subdomain is untouched")
	})
}

func orgRows(t *testing.T, s *store.Store, table string, orgID uuid.UUID) int {
	t.Helper()
	n, err := s.DB().NewSelect().Table(table).Where("org_id = ?", orgID).Count(t.Context())
	require.NoError(t, err)
	return int(n)
}
