package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// TestRecordReadsStayInTheirOrganization proves the reads of one install,
// one attempt, an install's attempts and a click's time: each returns the
// organization's own record, none of another organization's (not found), a
// member's filter keeps the installs of their own links only, and an
// install's attempts come newest first.
func TestRecordReadsStayInTheirOrganization(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := newClock()
		w := newAttrWorld(t, s, c, "acme")
		other := newAttrWorld(t, s, c, "globex")

		rec, claim := installFor(w, w.linkA, w.clickA, c.next())
		require.NoError(t, s.Claim(ctx, rec, claim))
		replay := claim
		replay.ID, replay.CreatedAt = uuid.Must(uuid.NewV7()), c.next()
		src := attribution.SourceReplay
		replay.MatchSource = &src
		require.NoError(t, s.RecordAttempt(ctx, replay))
		memberRec, memberClaim := installFor(w, w.linkB, w.clickB, c.next())
		require.NoError(t, s.Claim(ctx, memberRec, memberClaim))
		foreign, foreignClaim := installFor(other, other.linkA, other.clickA, c.next())
		require.NoError(t, s.Claim(ctx, foreign, foreignClaim))

		in, err := s.InstallByID(ctx, w.orgID, rec.ID, nil)
		require.NoError(t, err)
		assert.Equal(t, rec.ID, in.ID)
		assert.Equal(t, &w.clickA, in.ClickID)
		assert.True(t, in.HasMatchedPayload)
		_, err = s.InstallByID(ctx, w.orgID, foreign.ID, nil)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's install")
		_, err = s.InstallByID(ctx, w.orgID, rec.ID, &w.member)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "a member's filter: linkA is not theirs")
		in, err = s.InstallByID(ctx, w.orgID, memberRec.ID, &w.member)
		require.NoError(t, err)
		assert.Equal(t, memberRec.ID, in.ID, "linkB is the member's")

		a, err := s.AttemptByID(ctx, w.orgID, claim.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"time", "ip"}, a.Signals)
		assert.Equal(t, &rec.ID, a.InstallID)
		_, err = s.AttemptByID(ctx, w.orgID, foreignClaim.ID)
		assert.ErrorIs(t, err, errcode.ErrNotFound)

		attempts, err := s.InstallAttempts(ctx, w.orgID, rec.ID, 10)
		require.NoError(t, err)
		require.Len(t, attempts, 2)
		assert.Equal(t, replay.ID, attempts[0].ID, "newest first")
		assert.Equal(t, claim.ID, attempts[1].ID)
		attempts, err = s.InstallAttempts(ctx, w.orgID, rec.ID, 1)
		require.NoError(t, err)
		assert.Len(t, attempts, 1, "the limit holds")
		attempts, err = s.InstallAttempts(ctx, other.orgID, rec.ID, 10)
		require.NoError(t, err)
		assert.Empty(t, attempts, "another organization sees none")

		when := c.next()
		click := insertRawClick(t, s, w.linkA, when)
		at, err := s.ClickTime(ctx, w.orgID, click)
		require.NoError(t, err)
		assert.True(t, when.Equal(at), "%s is %s", at, when)
		assert.Equal(t, time.UTC, at.Location())
		_, err = s.ClickTime(ctx, w.orgID, other.clickA)
		assert.ErrorIs(t, err, errcode.ErrNotFound, "another organization's click")
	})
}
