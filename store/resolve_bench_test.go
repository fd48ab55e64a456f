package store_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// BenchmarkLinkByDomainSlug measures the resolver's load of a link, which
// it runs for every link it serves once per TTL: over a thousand links
// under load that is a thousand loads every five seconds.
func BenchmarkLinkByDomainSlug(b *testing.B) {
	const links = 1000
	run := func(b *testing.B, s *store.Store) {
		ctx, c := b.Context(), newClock()
		o := createOrg(b, s, c, "acme")
		for i := range links {
			createLink(b, s, newLink(c, o.ID, "hop.example", fmt.Sprintf("l%d", i)))
		}
		i := 0
		for b.Loop() {
			_, err := s.LinkByDomainSlug(ctx, "hop.example", fmt.Sprintf("l%d", i%links))
			require.NoError(b, err)
			i++
		}
	}
	b.Run("sqlite", func(b *testing.B) {
		s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s.Close() })
		require.NoError(b, s.Migrate(b.Context()))
		run(b, s)
	})
	b.Run("postgres", func(b *testing.B) { run(b, storetest.Postgres(b)) })
}
