package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// listIDs lists the links of orgID that f selects (every match when f has
// no limit) and returns their ids in order and the total.
func listIDs(t *testing.T, s *store.Store, orgID uuid.UUID, f linking.LinkFilter) ([]uuid.UUID, int) {
	t.Helper()
	f.OrgID = orgID
	if f.Limit == 0 {
		f.Limit = 100
	}
	links, total, err := s.ListLinks(t.Context(), f)
	require.NoError(t, err)
	ids := []uuid.UUID{}
	for _, l := range links {
		ids = append(ids, l.ID)
	}
	return ids, total
}

// idsOf returns the ids of links, in order.
func idsOf(links ...*linking.Link) []uuid.UUID {
	ids := []uuid.UUID{}
	for _, l := range links {
		ids = append(ids, l.ID)
	}
	return ids
}

// The tag filter reads link_tags, which every write of a link keeps: it
// returns exactly the links that hold the tag after creates, updates,
// deletes and bulk inserts, and never a link of another organization.
func TestListLinksTagFilterFollowsWrites(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		tagged := func(orgID uuid.UUID, slug string, tags ...string) *linking.Link {
			l := newLink(c, orgID, "hop.example", slug)
			l.Tags = tags
			return createLink(t, s, l)
		}
		tag := func(tag string) ([]uuid.UUID, int) {
			t.Helper()
			return listIDs(t, s, o.ID, linking.LinkFilter{Tag: tag})
		}
		a := tagged(o.ID, "a", "spring", "ios")
		b := tagged(o.ID, "b", "spring")
		cc := tagged(o.ID, "c")
		tagged(other.ID, "other-spring", "spring", "ios")

		ids, total := tag("spring")
		assert.Equal(t, idsOf(b, a), ids, "created")
		assert.Equal(t, 2, total)

		// An update replaces the tags: one removed, one added.
		a.Tags, a.UpdatedAt = []string{"ios", "autumn"}, c.next()
		require.NoError(t, s.UpdateLink(ctx, a))
		cc.Tags, cc.UpdatedAt = []string{"spring"}, c.next()
		require.NoError(t, s.UpdateLink(ctx, cc))
		ids, total = tag("spring")
		assert.Equal(t, idsOf(cc, b), ids, "after the updates")
		assert.Equal(t, 2, total)
		ids, _ = tag("autumn")
		assert.Equal(t, idsOf(a), ids, "a tag added by an update")

		// An update that keeps the tags keeps the link in the filter, in
		// its creation order.
		b.Name, b.UpdatedAt = str("renamed"), c.next()
		require.NoError(t, s.UpdateLink(ctx, b))
		ids, _ = tag("spring")
		assert.Equal(t, idsOf(cc, b), ids, "after an update of the name")

		// Pausing a link moves it between the tag's active and paused
		// links.
		b.IsActive, b.UpdatedAt = false, c.next()
		require.NoError(t, s.UpdateLink(ctx, b))
		for _, sort := range []linking.LinkSort{linking.LinkSortNewest, linking.LinkSortSlug} {
			ids, total = listIDs(t, s, o.ID, linking.LinkFilter{Tag: "spring", IsActive: ptr(false), Sort: sort})
			assert.Equal(t, idsOf(b), ids, "paused, %s", sort)
			assert.Equal(t, 1, total)
			ids, total = listIDs(t, s, o.ID, linking.LinkFilter{Tag: "spring", IsActive: ptr(true), Sort: sort})
			assert.Equal(t, idsOf(cc), ids, "active, %s", sort)
			assert.Equal(t, 1, total)
		}
		ids, total = listIDs(t, s, o.ID, linking.LinkFilter{Tag: "spring", IsActive: ptr(false), Limit: 1})
		assert.Equal(t, idsOf(b), ids, "paused, a full page")
		assert.Equal(t, 1, total, "paused, counted")

		require.NoError(t, s.DeleteLink(ctx, o.ID, cc.ID))
		ids, total = tag("spring")
		assert.Equal(t, idsOf(b), ids, "after the delete")
		assert.Equal(t, 1, total)

		bulk := []*linking.Link{newLink(c, o.ID, "hop.example", "bulk-1"), newLink(c, o.ID, "hop.example", "bulk-2")}
		bulk[0].Tags = []string{"spring", "print"}
		bulk[1].Tags = []string{"print"}
		require.NoError(t, s.BulkInsertLinks(ctx, bulk))
		ids, total = tag("spring")
		assert.Equal(t, idsOf(bulk[0], b), ids, "after a bulk insert")
		assert.Equal(t, 2, total)
		ids, total = tag("print")
		assert.Equal(t, idsOf(bulk[1], bulk[0]), ids)
		assert.Equal(t, 2, total)

		// The other organization's links hold these tags too: none shows.
		ids, total = tag("ios")
		assert.Equal(t, idsOf(a), ids, "no link of another organization")
		assert.Equal(t, 1, total)
		ids, total = listIDs(t, s, other.ID, linking.LinkFilter{Tag: "print"})
		assert.Empty(t, ids)
		assert.Equal(t, 0, total)
	})
}

// The search finds a substring of slug, name, destination or one tag,
// ignoring case, with LIKE's wildcards literal, before and after writes,
// in one organization only, from 1 character on.
func TestListLinksSearch(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		mk := func(orgID uuid.UUID, slug string, mod func(*linking.Link)) *linking.Link {
			l := newLink(c, orgID, "hop.example", slug)
			l.DestinationURL = "https://dest.example/" + slug
			if mod != nil {
				mod(l)
			}
			return createLink(t, s, l)
		}
		gift := mk(o.ID, "gift", func(l *linking.Link) { l.Name = str("Gift Card 12"); l.Tags = []string{"Retail", "b2c"} })
		sale := mk(o.ID, "sale", func(l *linking.Link) {
			l.DestinationURL = "https://Shop.example/100%_off?a=b\\c"
			l.Tags = []string{"ab", "cd"}
		})
		ecole := mk(o.ID, "ecole", func(l *linking.Link) { l.Name = str("ÉCOLE Straße"); l.Tags = []string{`say "hi"`} })
		mk(other.ID, "other-gift", func(l *linking.Link) { l.Name = str("Gift Card 12"); l.Tags = []string{"Retail"} })

		// PostgreSQL lowers non-ASCII letters as its collation does;
		// SQLite's trigram index folds them from 3 characters on.
		var folds bool
		if s.Dialect() == "pg" {
			require.NoError(t, s.DB().QueryRowContext(ctx, "SELECT lower('É') = 'é'").Scan(&folds))
		} else {
			folds = true
		}

		tests := []struct {
			name   string
			search string
			want   []*linking.Link
		}{
			{"a slug", "IFT", []*linking.Link{gift}},
			{"a name, ignoring ASCII case", "gift card 1", []*linking.Link{gift}},
			{"a destination", "shop.EXAMPLE", []*linking.Link{sale}},
			{"a tag", "etai", []*linking.Link{gift}},
			{"a whole tag", "b2c", []*linking.Link{gift}},
			{"a substring, not a word", "ard 1", []*linking.Link{gift}},
			{"% is literal", "100%", []*linking.Link{sale}},
			{"% and _ are literal", "0%_o", []*linking.Link{sale}},
			{"_ is literal, 3 characters", "%_o", []*linking.Link{sale}},
			{"a wildcard alone matches only itself", "_", []*linking.Link{sale}},
			{"% alone, 1 character", "%", []*linking.Link{sale}},
			{"the escape character is literal", `b\c`, []*linking.Link{sale}},
			{"a double quote", `"hi"`, []*linking.Link{ecole}},
			{"1 character", "ß", []*linking.Link{ecole}},
			{"2 characters, in a tag", "b2", []*linking.Link{gift}},
			{"2 characters, ignoring case", "RE", []*linking.Link{gift}},
			{"no run across two tags", "abcd", nil},
			{"no run across two tags, with the separator", "ab\ncd", nil},
			{"no run across two columns", "gift card 12retail", nil},
			{"an accent is not ignored", "ecole s", nil},
			{"a non-ASCII letter as written", "Straße", []*linking.Link{ecole}},
			{"nothing", "zulu", nil},
		}
		if folds {
			tests = append(tests, struct {
				name   string
				search string
				want   []*linking.Link
			}{"non-ASCII letters, ignoring case", "école", []*linking.Link{ecole}})
		}
		for _, tt := range tests {
			ids, total := listIDs(t, s, o.ID, linking.LinkFilter{Search: tt.search})
			assert.Equal(t, idsOf(tt.want...), ids, "%s: %q", tt.name, tt.search)
			assert.Equal(t, len(tt.want), total, "%s: %q", tt.name, tt.search)
		}

		// Writes: a changed name, tags and destination are found by what
		// they now hold, and no longer by what they held; a deleted link
		// is found no more.
		gift.Name, gift.Tags, gift.UpdatedAt = str("Voucher"), []string{"promo"}, c.next()
		require.NoError(t, s.UpdateLink(ctx, gift))
		for search, want := range map[string][]*linking.Link{
			"gift card": nil, "etai": nil, "ouch": {gift}, "romo": {gift}, "gift": {gift} /* the slug */} {
			ids, total := listIDs(t, s, o.ID, linking.LinkFilter{Search: search})
			assert.Equal(t, idsOf(want...), ids, "after the update: %q", search)
			assert.Equal(t, len(want), total, "after the update: %q", search)
		}
		require.NoError(t, s.DeleteLink(ctx, o.ID, sale.ID))
		for _, search := range []string{"shop.example", "_", "sal"} {
			ids, total := listIDs(t, s, o.ID, linking.LinkFilter{Search: search})
			assert.Empty(t, ids, "after the delete: %q", search)
			assert.Equal(t, 0, total, "after the delete: %q", search)
		}
		bulk := newLink(c, o.ID, "hop.example", "bulk")
		bulk.Tags = []string{"Catalogue"}
		require.NoError(t, s.BulkInsertLinks(ctx, []*linking.Link{bulk}))
		ids, _ := listIDs(t, s, o.ID, linking.LinkFilter{Search: "catalog"})
		assert.Equal(t, idsOf(bulk), ids, "a bulk-inserted link")
	})
}

// A deleted organization's links, and a deleted custom domain's, leave
// nothing behind in the tag rows or the search table.
func TestLinkSearchRowsGoWithTheirLinks(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, kept := createOrg(t, s, c, "acme"), createOrg(t, s, c, "kept")
		for i := range 3 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("gone-%d", i))
			l.Tags = []string{"gone"}
			createLink(t, s, l)
		}
		l := newLink(c, kept.ID, "hop.example", "kept")
		l.Tags = []string{"kept"}
		createLink(t, s, l)
		require.NoError(t, s.DeleteOrganization(ctx, o.ID))

		count := func(query string) int {
			var n int
			require.NoError(t, s.DB().QueryRowContext(ctx, query).Scan(&n))
			return n
		}
		assert.Equal(t, 1, count("SELECT count(*) FROM link_tags"))
		if s.Dialect() != "pg" {
			assert.Equal(t, 1, count("SELECT count(*) FROM link_search_keys"))
			assert.Equal(t, 0, count(`SELECT count(*) FROM link_search WHERE link_search MATCH '"gone"'`))
			assert.Equal(t, 1, count(`SELECT count(*) FROM link_search WHERE link_search MATCH '"kept"'`))
		}
		ids, total := listIDs(t, s, kept.ID, linking.LinkFilter{Search: "kep"})
		assert.Equal(t, idsOf(l), ids)
		assert.Equal(t, 1, total)
	})
}

// The total is exact whatever the filters, whether the page shows it or
// it is counted, and pages follow each other without gap or repeat.
func TestListLinksTotals(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		c := newClock()
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		var all []*linking.Link
		for i := range 25 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("link-%02d", i))
			l.Tags = []string{[]string{"red", "green", "blue"}[i%3]}
			l.IsActive = i%4 != 0
			all = append(all, createLink(t, s, l))
		}
		createLink(t, s, newLink(c, other.ID, "hop.example", "other-link"))
		want := func(keep func(i int, l *linking.Link) bool) []*linking.Link {
			var out []*linking.Link
			for i := len(all) - 1; i >= 0; i-- {
				if keep(i, all[i]) {
					out = append(out, all[i])
				}
			}
			return out
		}
		filters := []struct {
			name string
			f    linking.LinkFilter
			want []*linking.Link
		}{
			{"none", linking.LinkFilter{}, want(func(int, *linking.Link) bool { return true })},
			{"tag", linking.LinkFilter{Tag: "red"}, want(func(i int, _ *linking.Link) bool { return i%3 == 0 })},
			{"tag and state", linking.LinkFilter{Tag: "red", IsActive: ptr(true)},
				want(func(i int, _ *linking.Link) bool { return i%3 == 0 && i%4 != 0 })},
			{"state", linking.LinkFilter{IsActive: ptr(false)}, want(func(i int, _ *linking.Link) bool { return i%4 == 0 })},
			{"search", linking.LinkFilter{Search: "link-1"}, want(func(i int, _ *linking.Link) bool { return i >= 10 && i < 20 })},
			{"short search", linking.LinkFilter{Search: "-"}, want(func(int, *linking.Link) bool { return true })},
			{"search and tag", linking.LinkFilter{Search: "link-", Tag: "green"}, want(func(i int, _ *linking.Link) bool { return i%3 == 1 })},
		}
		for _, tt := range filters {
			for _, limit := range []int{1, 4, 7, 100} {
				var got []uuid.UUID
				for offset := 0; offset < len(tt.want)+limit; offset += limit {
					f := tt.f
					f.Limit, f.Offset = limit, offset
					ids, total := listIDs(t, s, o.ID, f)
					assert.Equal(t, len(tt.want), total, "%s, limit %d, offset %d", tt.name, limit, offset)
					got = append(got, ids...)
				}
				assert.Equal(t, idsOf(tt.want...), got, "%s, pages of %d", tt.name, limit)
			}
		}
	})
}

// The sort orders apply to filtered lists too: a tag's links and a
// search's matches by slug, by last change, oldest first.
func TestListLinksFilteredSorts(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o := createOrg(t, s, c, "acme")
		mk := func(slug string) *linking.Link {
			l := newLink(c, o.ID, "hop.example", slug)
			l.Tags = []string{"promo"}
			return createLink(t, s, l)
		}
		mike, alpha, zulu := mk("promo-mike"), mk("promo-alpha"), mk("promo-zulu")
		mike.Name, mike.UpdatedAt = str("changed last"), c.next().Add(time.Minute)
		require.NoError(t, s.UpdateLink(ctx, mike))
		tests := []struct {
			sort linking.LinkSort
			want []*linking.Link
		}{
			{linking.LinkSortNewest, []*linking.Link{zulu, alpha, mike}},
			{linking.LinkSortOldest, []*linking.Link{mike, alpha, zulu}},
			{linking.LinkSortUpdated, []*linking.Link{mike, zulu, alpha}},
			{linking.LinkSortSlug, []*linking.Link{alpha, mike, zulu}},
		}
		for _, tt := range tests {
			for _, f := range []linking.LinkFilter{{Tag: "promo"}, {Search: "promo-"}, {Search: "pr"}} {
				f.Sort = tt.sort
				ids, total := listIDs(t, s, o.ID, f)
				assert.Equal(t, idsOf(tt.want...), ids, "%s, %+v", tt.sort, f)
				assert.Equal(t, 3, total)
			}
		}
	})
}

// The migration fills link_tags and the search from the links already
// stored, rolls back on its own and applies again.
func TestLinkSearchMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261202000002_link_list_indexes")
		o, other := createOrg(t, s, c, "acme"), createOrg(t, s, c, "other")
		insert := func(orgID uuid.UUID, slug, name, tags string) uuid.UUID {
			id, at := uuid.Must(uuid.NewV7()), c.next()
			_, err := s.DB().NewInsert().TableExpr("links").Model(&map[string]any{
				"id": id, "org_id": orgID, "domain": "hop.example", "slug": slug, "name": name,
				"destination_url": "https://dest.example/" + slug, "is_active": true, "tags": tags,
				"created_at": at, "updated_at": at,
			}).Exec(ctx)
			require.NoError(t, err)
			return id
		}
		a := insert(o.ID, "alpha", "Spring sale", `["spring","ios"]`)
		b := insert(o.ID, "bravo", "Summer", `["spring"]`)
		insert(o.ID, "charlie", "Autumn", `[]`)
		insert(other.ID, "other", "Spring sale", `["spring"]`)
		require.NoError(t, s.Migrate(ctx))

		check := func(when string) {
			ids, total := listIDs(t, s, o.ID, linking.LinkFilter{Tag: "spring"})
			assert.Equal(t, []uuid.UUID{b, a}, ids, "%s: tag", when)
			assert.Equal(t, 2, total, "%s: tag", when)
			ids, _ = listIDs(t, s, o.ID, linking.LinkFilter{Search: "ring sa"})
			assert.Equal(t, []uuid.UUID{a}, ids, "%s: search in a name", when)
			ids, _ = listIDs(t, s, o.ID, linking.LinkFilter{Search: "ios"})
			assert.Equal(t, []uuid.UUID{a}, ids, "%s: search in a tag", when)
		}
		check("after the migration")
		require.NoError(t, s.Rollback(ctx))
		assert.False(t, tableExists(t, s, "link_tags"), "after down")
		assert.True(t, tableExists(t, s, "links"), "after down")
		require.NoError(t, s.Migrate(ctx))
		check("after up again")
	})
}

// The unfiltered total and the state filter's are read from link_counts,
// which triggers keep through every write of links: creates, bulk
// inserts, state changes, deletes of one link and of a domain's links,
// concurrent creates, and another organization's deletion.
func TestLinkCountsFollowWrites(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		o, gone := createOrg(t, s, c, "acme"), createOrg(t, s, c, "gone")
		// totals returns the totals of all, active and paused links, each
		// counted (a page of one, full).
		totals := func() [3]int {
			t.Helper()
			var out [3]int
			for i, state := range []*bool{nil, ptr(true), ptr(false)} {
				_, out[i] = listIDs(t, s, o.ID, linking.LinkFilter{IsActive: state, Limit: 1})
			}
			return out
		}
		assert.Equal(t, [3]int{0, 0, 0}, totals(), "no link yet")

		var links []*linking.Link
		for i := range 4 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i))
			l.IsActive = i != 3
			links = append(links, createLink(t, s, l))
		}
		createLink(t, s, newLink(c, gone.ID, "hop.example", "gone-1"))
		assert.Equal(t, [3]int{4, 3, 1}, totals(), "created")

		bulk := []*linking.Link{newLink(c, o.ID, "hop.example", "b1"), newLink(c, o.ID, "hop.example", "b2")}
		bulk[1].IsActive = false
		require.NoError(t, s.BulkInsertLinks(ctx, bulk))
		assert.Equal(t, [3]int{6, 4, 2}, totals(), "bulk inserted")

		links[0].IsActive, links[0].UpdatedAt = false, c.next()
		require.NoError(t, s.UpdateLink(ctx, links[0]))
		links[1].Name, links[1].UpdatedAt = str("renamed"), c.next()
		require.NoError(t, s.UpdateLink(ctx, links[1]))
		assert.Equal(t, [3]int{6, 3, 3}, totals(), "one paused, one renamed")
		links[3].IsActive, links[3].UpdatedAt = true, c.next()
		require.NoError(t, s.UpdateLink(ctx, links[3]))
		assert.Equal(t, [3]int{6, 4, 2}, totals(), "one resumed")

		require.NoError(t, s.DeleteLink(ctx, o.ID, links[0].ID))
		assert.Equal(t, [3]int{5, 4, 1}, totals(), "a paused link deleted")

		d := createDomain(t, s, c, o.ID, "go.example.com")
		for i := range 3 {
			l := newLink(c, o.ID, d.Domain, fmt.Sprintf("d%d", i))
			l.IsActive = i != 0
			createLink(t, s, l)
		}
		assert.Equal(t, [3]int{8, 6, 2}, totals(), "on a custom domain")
		_, err := s.DeleteDomain(ctx, o.ID, d.ID)
		require.NoError(t, err)
		assert.Equal(t, [3]int{5, 4, 1}, totals(), "the domain's links deleted")

		require.NoError(t, s.DeleteOrganization(ctx, gone.ID))
		assert.Equal(t, [3]int{5, 4, 1}, totals(), "another organization deleted")

		var wg sync.WaitGroup
		for i := range 8 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("c%d", i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, s.CreateLink(ctx, l, linking.LinkQuota{}))
			}()
		}
		wg.Wait()
		assert.Equal(t, [3]int{13, 12, 1}, totals(), "concurrent creates")
	})
}

// The counts migration counts the links already stored, rolls back on
// its own and applies again.
func TestLinkCountsMigrationBackfill(t *testing.T) {
	t.Parallel()
	eachEmptyDB(t, func(t *testing.T, s *store.Store) {
		ctx, c := t.Context(), newClock()
		migrateTo(t, s, "20261203000002_link_search")
		o := createOrg(t, s, c, "acme")
		for i := range 5 {
			l := newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i))
			l.IsActive = i%2 == 0
			createLink(t, s, l)
		}
		require.NoError(t, s.Migrate(ctx))
		check := func(when string) {
			for state, want := range map[string]int{"all": 5, "active": 3, "paused": 2} {
				f := linking.LinkFilter{Limit: 1}
				if state != "all" {
					f.IsActive = ptr(state == "active")
				}
				_, total := listIDs(t, s, o.ID, f)
				assert.Equal(t, want, total, "%s: %s", when, state)
			}
		}
		check("after the migration")
		require.NoError(t, s.Rollback(ctx))
		assert.False(t, tableExists(t, s, "link_counts"), "after down")
		require.NoError(t, s.Migrate(ctx))
		check("after up again")
	})
}

// When PostgreSQL cannot create pg_trgm, migration 20261203000002 goes on
// without the trigram indexes: the search finds the same links without
// them, reading the organization's links.
func TestListLinksSearchWithoutTrigramIndexes(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t)
	ctx, c := t.Context(), newClock()
	for _, index := range []string{"links_slug_trgm_idx", "links_name_trgm_idx", "links_destination_url_trgm_idx", "link_tags_tag_trgm_idx"} {
		_, err := s.DB().ExecContext(ctx, "DROP INDEX "+index)
		require.NoError(t, err)
	}
	o := createOrg(t, s, c, "acme")
	l := newLink(c, o.ID, "hop.example", "spring")
	l.Name, l.Tags = str("Gift Card 12"), []string{"Retail"}
	createLink(t, s, l)
	createLink(t, s, newLink(c, o.ID, "hop.example", "other"))
	for _, search := range []string{"gift card", "ETAI", "spr", "re"} {
		ids, total := listIDs(t, s, o.ID, linking.LinkFilter{Search: search})
		assert.Equal(t, idsOf(l), ids, search)
		assert.Equal(t, 1, total, search)
	}
}
