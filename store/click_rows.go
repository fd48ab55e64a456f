package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/attribution"
)

// A candidate click (isCandidate) is without a row of clicks on SQLite,
// held by its segment alone, unless needsRow: the readers of one click by
// its id find it there (MatchClick, Claim), and a claim writes its row; the
// readers of a key read the candidate index or the segments
// (candidates_segments.go). The segment is
// found through the time the click's UUIDv7 id carries: a click's id is
// made when it is recorded, so its time is the click's own, within
// clickIDSlack. docs/decisions.md ("Click store") says where this leads.

// clickIDSlack is how far a click's time may be from the time its id
// carries for the click to be found by its id in the segments.
const clickIDSlack = time.Minute

// idTime is the time a UUIDv7 id carries, and whether it is one.
func idTime(id uuid.UUID) (time.Time, bool) {
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return time.Time{}, false
	}
	sec, nsec := id.Time().UnixTime()
	return time.Unix(sec, nsec).UTC(), true
}

// needsRow reports whether a candidate click keeps a row of clicks on
// SQLite: one with a tap id, whose unique index refuses a repeated tap, and
// one that could not be found by its id in the segments.
func needsRow(c *analytics.Click) bool {
	if c.TapID != nil {
		return true
	}
	t, ok := idTime(c.ID)
	if !ok {
		return true
	}
	d := c.OccurredAt.Sub(t)
	return d > clickIDSlack || d < -clickIDSlack
}

// segmentClickByID returns click id of organization orgID, read from its
// segment through the time its id carries, or nil when no segment holds it
// or it is not a candidate.
func (s *Store) segmentClickByID(ctx context.Context, db bun.IDB, orgID, id uuid.UUID) (*analytics.Click, error) {
	t, ok := idTime(id)
	if !ok {
		return nil, nil
	}
	// The click is within clickIDSlack of t, both ends included; segment
	// times are milliseconds.
	var rows []segmentRow
	err := whereHolding(db.NewSelect().Model(&rows), orgID, t.Add(-clickIDSlack), t.Add(clickIDSlack+time.Millisecond)).
		Scan(ctx)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		c, ok, err := analytics.FindInSegment(rows[i].OrgID, rows[i].Data, id)
		if err != nil {
			return nil, err
		}
		if ok {
			if !isCandidate(&c) {
				return nil, nil
			}
			return &c, nil
		}
	}
	return nil, nil
}

// matchClickFromSegment is MatchClick for a click without a row: read from
// its segment, with its link's match window, unclaimed (a claim writes its
// row). A click whose link is gone is not found, as with a row.
func (s *Store) matchClickFromSegment(ctx context.Context, orgID, id uuid.UUID) (*attribution.Click, error) {
	c, err := s.segmentClickByID(ctx, s.db, orgID, id)
	if err != nil || c == nil {
		return nil, err
	}
	var hours sql.NullInt64
	err = s.db.NewSelect().Table("links").Column("match_window_hours").
		Where("id = ? AND org_id = ?", c.LinkID, orgID).Scan(ctx, &hours)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := &attribution.Click{
		ID: c.ID, LinkID: c.LinkID, AppID: c.AppID, OccurredAt: c.OccurredAt.UTC(), Platform: c.Platform,
		OSVersion: c.OSVersion, DeviceModel: c.DeviceModel, UserAgent: c.UserAgent,
		AcceptLanguage: c.AcceptLanguage, IPKey: c.IPKey,
	}
	if hours.Valid {
		h := int(hours.Int64)
		out.MatchWindowHours = &h
	}
	return out, nil
}

// writeRowsFromSegments writes in tx, unclaimed, the rows of those of the
// clicks ids of organization orgID that have none, from their segments (a
// claim's clicks, before its install refers to them). An id that no segment
// holds as a candidate is left alone.
func (s *Store) writeRowsFromSegments(ctx context.Context, tx bun.Tx, orgID uuid.UUID, ids []uuid.UUID) error {
	for _, id := range ids {
		n, err := tx.NewSelect().Table("clicks").Where("id = ?", id).Count(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		c, err := s.segmentClickByID(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if c == nil {
			continue
		}
		row := fromClick(c)
		if _, err := tx.NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return err
		}
		// A row older than the organization's IP mark would keep its key
		// past the purge's clearing.
		if err := s.lowerIPMarks(ctx, tx, []analytics.Click{*c}, []bool{true}); err != nil {
			return err
		}
	}
	return nil
}
