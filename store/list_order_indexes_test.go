package store_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// An organization's keys and an install's attempts are read through an
// index that gives both the rows and their order (migration
// 20261203000005): SQLite neither sorts the keys again nor walks every
// attempt of the organization.
func TestKeyAndAttemptListsReadTheirIndexes(t *testing.T) {
	t.Parallel()
	capture := &selectCapture{}
	t.Run("sqlite", func(t *testing.T) { testListOrderIndexes(t, openCapturing(t, ":memory:", capture), capture) })
	t.Run("postgres", func(t *testing.T) {
		testListOrderIndexes(t, openCapturing(t, storetest.PostgresDSN(t), capture), capture)
	})
}

func testListOrderIndexes(t *testing.T, s *store.Store, capture *selectCapture) {
	ctx, c := t.Context(), newClock()
	w := newAttrWorld(t, s, c, "acme")
	var first uuid.UUID
	for i := range 5 {
		k := createKey(t, s, c, w.orgID, nil)
		if i == 0 {
			first = k.ID
		}
	}
	rec, claim := installFor(w, w.linkA, w.clickA, c.next())
	require.NoError(t, s.Claim(ctx, rec, claim))
	for range 3 {
		again := claim
		again.ID, again.CreatedAt = uuid.Must(uuid.NewV7()), c.next()
		src := attribution.SourceReplay
		again.MatchSource = &src
		require.NoError(t, s.RecordAttempt(ctx, again))
	}
	// Attempts of another install of the organization stay out.
	other, otherClaim := installFor(w, w.linkB, w.clickB, c.next())
	require.NoError(t, s.Claim(ctx, other, otherClaim))

	statements := func(name string, read func() error) []string {
		capture.mu.Lock()
		capture.stmts = nil
		capture.mu.Unlock()
		require.NoError(t, read(), name)
		capture.mu.Lock()
		defer capture.mu.Unlock()
		require.NotEmpty(t, capture.stmts, name)
		return capture.stmts
	}
	keys := statements("keys", func() error {
		ks, err := s.ListKeys(ctx, w.orgID, nil)
		if err == nil {
			assert.Len(t, ks, 5)
			assert.Equal(t, first, ks[0].ID, "oldest first")
		}
		return err
	})
	attempts := statements("attempts", func() error {
		as, err := s.InstallAttempts(ctx, w.orgID, rec.ID, 50)
		if err == nil {
			assert.Len(t, as, 4, "the install's claim and its three replays")
		}
		return err
	})
	for _, tt := range []struct {
		name, index string
		stmts       []string
	}{
		{"keys", "api_keys_org_id_created_at_id_idx", keys},
		{"attempts", "attribution_attempts_install_id_created_at_id_idx", attempts},
	} {
		for _, q := range tt.stmts {
			p := plan(t, s, q)
			assert.Contains(t, p, tt.index, "%s: %s", tt.name, q)
			assert.NotContains(t, strings.ToUpper(p), "TEMP B-TREE", "%s sorts: %s", tt.name, q)
		}
	}
}
