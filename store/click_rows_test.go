package store_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/store/storetest"
)

// On SQLite a candidate click found in its segment alone, without a row of
// clicks, is matched by its id and claimed as a row would be: the claim
// writes its row, claimed, and counts the install with the click's
// dimensions; a second claim of it is refused. A click that is not a
// candidate, one whose id carries another time, one of another
// organization and one of a deleted link are not found.
func TestCandidateWithoutARowIsMatchedAndClaimed(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx, c := t.Context(), newClock()
	o := createOrg(t, s, c, "acme")
	other := createOrg(t, s, c, "other")
	withApp, plain := appAndPlainLinks(t, s, c, o.ID)
	_, err := s.DB().NewUpdate().Table("links").Set("match_window_hours = 12").Where("id = ?", withApp.ID).Exec(ctx)
	require.NoError(t, err)
	now := time.Now().UTC().Truncate(time.Millisecond)

	phone := newClick(withApp, now)
	phone.Country = "US"
	desktop := newClick(withApp, now)
	desktop.Platform, desktop.OS, desktop.DeviceModel = "desktop", "macOS", ""
	noApp := newClick(plain, now)
	misdated := withRow(newClick(withApp, now.Add(-2*time.Hour)))
	_, err = s.InsertClicks(ctx, []analytics.Click{phone, desktop, noApp, misdated})
	require.NoError(t, err)
	_, err = s.DB().NewDelete().Table("clicks").Where("org_id = ?", o.ID).Exec(ctx)
	require.NoError(t, err)

	got, err := s.MatchClick(ctx, o.ID, phone.ID)
	require.NoError(t, err)
	twelve := 12
	assert.Equal(t, attribution.Click{
		ID: phone.ID, LinkID: withApp.ID, AppID: withApp.AppID, OccurredAt: now, Platform: "ios",
		OSVersion: phone.OSVersion, DeviceModel: phone.DeviceModel, UserAgent: phone.UserAgent,
		AcceptLanguage: phone.AcceptLanguage, IPKey: analytics.IPKey(phone.IP), MatchWindowHours: &twelve,
	}, *got, "read from the segment, with the link's match window")

	for name, q := range map[string]struct{ org, id uuid.UUID }{
		"desktop":              {o.ID, desktop.ID},
		"link without an app":  {o.ID, noApp.ID},
		"id of another time":   {o.ID, misdated.ID},
		"another organization": {other.ID, phone.ID},
		"unknown":              {o.ID, uuid.Must(uuid.NewV7())},
		"not a version 7 id":   {o.ID, uuid.New()},
	} {
		_, err := s.MatchClick(ctx, q.org, q.id)
		assert.ErrorIs(t, err, errcode.ErrNotFound, name)
	}

	rec, att := claimOf(o.ID, phone.ID, withApp.ID, withApp.AppID, now.Add(time.Minute))
	require.NoError(t, s.Claim(ctx, rec, att))
	var claimedBy uuid.UUID
	require.NoError(t, s.DB().NewSelect().Table("clicks").Column("claimed_by_install").
		Where("id = ?", phone.ID).Scan(ctx, &claimedBy))
	assert.Equal(t, rec.ID, claimedBy, "the claim wrote the click's row")
	got, err = s.MatchClick(ctx, o.ID, phone.ID)
	require.NoError(t, err)
	assert.True(t, got.Claimed)

	again, att2 := claimOf(o.ID, phone.ID, withApp.ID, withApp.AppID, now.Add(2*time.Minute))
	assert.ErrorIs(t, s.Claim(ctx, again, att2), attribution.ErrClaimed)

	set := analytics.ClickSet{OrgID: o.ID, Window: analytics.Window{From: now.Add(-time.Hour), To: now.Add(time.Hour)}}
	by, err := s.CountClicksBy(ctx, set, analytics.DimCountry)
	require.NoError(t, err)
	assert.Equal(t, [2]int64{1, 1}, valueMap(by)["US"], "the install is counted with its click's country")

	// A session click without a row is claimed with the install's own,
	// which has one.
	session := newClick(withApp, now.Add(time.Second))
	own := newClick(withApp, now.Add(2*time.Second))
	_, err = s.InsertClicks(ctx, []analytics.Click{session, own})
	require.NoError(t, err)
	_, err = s.DB().NewDelete().Table("clicks").Where("id = ?", session.ID).Exec(ctx)
	require.NoError(t, err)
	rec, att = claimOf(o.ID, own.ID, withApp.ID, withApp.AppID, now.Add(3*time.Minute))
	rec.ClaimedClickIDs = []uuid.UUID{own.ID, session.ID}
	require.NoError(t, s.Claim(ctx, rec, att))
	n, err := s.DB().NewSelect().Table("clicks").Where("claimed_by_install = ?", rec.ID).Count(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 2, n)

	// A deleted link's clicks are not found.
	gone := newClick(withApp, now.Add(3*time.Second))
	_, err = s.InsertClicks(ctx, []analytics.Click{gone})
	require.NoError(t, err)
	_, err = s.DB().NewDelete().Table("clicks").Where("id = ?", gone.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = s.DB().NewDelete().Table("links").Where("id = ?", withApp.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = s.MatchClick(ctx, o.ID, gone.ID)
	assert.ErrorIs(t, err, errcode.ErrNotFound)
}
