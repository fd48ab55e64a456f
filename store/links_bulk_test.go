package store_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

func TestBulkInsertLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		var links []*linking.Link
		for i := range 1_203 { // two inserts of a thousand and a part
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("bulk-%04d", i))
			l.Tags = []string{"bulk", fmt.Sprintf("t%d", i%7)}
			l.IsActive = i%3 != 0
			links = append(links, l)
		}
		require.NoError(t, s.BulkInsertLinks(ctx, links))
		for _, i := range []int{0, 999, 1000, 1202} {
			got, err := s.LinkByID(ctx, o.ID, links[i].ID)
			require.NoError(t, err)
			assert.Equal(t, links[i], got, "link %d reads back as written", i)
		}
		_, total, err := s.ListLinks(ctx, linking.LinkFilter{OrgID: o.ID, Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, len(links), total)

		again := newLink(c, o.ID, "hop.example", "bulk-0500")
		fresh := newLink(c, o.ID, "hop.example", "fresh")
		err = s.BulkInsertLinks(ctx, []*linking.Link{fresh, again})
		assert.ErrorIs(t, err, errcode.ErrConflict, "a taken address")
		_, err = s.LinkByID(ctx, o.ID, fresh.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "nothing of a failed call is written")
	})
}

func TestLinksByIDs(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		a := createLink(t, s, newLink(c, o.ID, "hop.example", "a"))
		b := createLink(t, s, newLink(c, o.ID, "hop.example", "b"))
		theirs := createLink(t, s, newLink(c, other.ID, "hop.example", "theirs"))

		got, err := s.LinksByIDs(ctx, o.ID, []uuid.UUID{b.ID, theirs.ID, uuid.New(), a.ID})
		require.NoError(t, err)
		byID := map[uuid.UUID]linking.Link{}
		for _, l := range got {
			byID[l.ID] = l
		}
		assert.Equal(t, map[uuid.UUID]linking.Link{a.ID: *a, b.ID: *b}, byID,
			"the organization's links among the ids; another's and an unknown id are left out")

		got, err = s.LinksByIDs(ctx, o.ID, nil)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}
