package store_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkEndRenamePeriod measures the end of a rename period that moves
// 1,000 links to the new subdomain, in one transaction, on each database.
func BenchmarkEndRenamePeriod(b *testing.B) {
	const links = 1000
	run := func(b *testing.B, s *store.Store) {
		c := newClock()
		o := createOrg(b, s, c, "acme")
		for b.Loop() {
			b.StopTimer()
			a := newApp(c, o.ID, "App")
			require.NoError(b, s.CreateApp(b.Context(), a, 1<<30))
			for i := range links {
				require.NoError(b, s.CreateLink(b.Context(), linkOf(c, a, a.LinkDomain, fmt.Sprintf("slug-%d", i)), linking.LinkQuota{}))
			}
			r := renameOf(a, "r"+a.Handle[4:20], c.next())
			_, err := s.RenameApp(b.Context(), r)
			require.NoError(b, err)
			end := &linking.RenameEnd{OrgID: o.ID, AppID: a.ID, OldHandle: a.Handle, Previous: a.LinkDomain,
				Current: r.ToLinkDomain, At: r.EndsAt, HoldUntil: r.EndsAt.Add(linking.HandleHold)}
			b.StartTimer()
			res, err := s.EndRenamePeriod(b.Context(), end)
			require.NoError(b, err)
			require.Len(b, res.Moved, links)
		}
	}
	b.Run("sqlite", func(b *testing.B) { run(b, storetest.SQLite(b)) })
	b.Run("postgres", func(b *testing.B) { run(b, storetest.Postgres(b)) })
}
