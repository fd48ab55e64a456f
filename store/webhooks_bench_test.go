package store_test

import (
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

// BenchmarkClaimWebhooks measures what the webhook outbox adds to the
// write of an install match (Store.Claim: the install, the claimed click,
// the rollups and the attempt, in one transaction): "off" with no
// endpoint, "other" with an endpoint that does not take install.attributed
// (the endpoints are read, nothing is written), "on" with one that takes it
// (the event and its delivery are written too). Each iteration claims a
// click of its own. SQLite is a file (WAL).
func BenchmarkClaimWebhooks(b *testing.B) {
	run := func(b *testing.B, s *store.Store, events []webhook.Type) {
		ctx, c := b.Context(), newClock()
		o := createOrg(b, s, c, "acme-"+uuid.NewString()[:8])
		l := createLink(b, s, newLink(c, o.ID, "hop.example", "spring-"+uuid.NewString()[:8]))
		if events != nil {
			require.NoError(b, s.CreateWebhook(ctx, newEndpoint(c, o.ID, events...)))
		}
		w := &attrWorld{orgID: o.ID}
		recs := make([]attribution.InstallRecord, b.N)
		atts := make([]attribution.Attempt, b.N)
		for i := range b.N {
			click := insertRawClick(b, s, l, c.next())
			recs[i], atts[i] = installFor(w, l, click, c.next())
		}
		b.ResetTimer()
		for i := range b.N {
			require.NoError(b, s.Claim(ctx, recs[i], atts[i]))
		}
	}
	cases := []struct {
		name   string
		events []webhook.Type
	}{
		{"off", nil},
		{"other", []webhook.Type{webhook.LinkCreated}},
		{"on", []webhook.Type{webhook.InstallAttributed}},
	}
	for _, tc := range cases {
		b.Run("sqlite/"+tc.name, func(b *testing.B) {
			s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			require.NoError(b, err)
			b.Cleanup(func() { _ = s.Close() })
			require.NoError(b, s.Migrate(b.Context()))
			run(b, s, tc.events)
		})
		b.Run("postgres/"+tc.name, func(b *testing.B) { run(b, storetest.Postgres(b), tc.events) })
	}
}
