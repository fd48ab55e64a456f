package store

import (
	"cmp"
	"context"
	"net/netip"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// Raw clicks live in click_segments (migration 20261126000002): per
// organization and batch, one row holding the batch's stored clicks in
// (occurred_at, id) order, encoded with analytics.EncodeSegment. A segment
// holds at most analytics.MaxSegmentClicks clicks and spans at most
// maxSegmentSpan, so that the segments holding the clicks from an instant
// on are those that start at most one span before it (click_scan.go). The
// clicks that attribution reads are also rows of clicks (isCandidate) on
// PostgreSQL; on SQLite only some are (needsRow, click_rows.go).

// maxSegmentSpan is the longest time between the first and the last click
// of one segment.
const maxSegmentSpan = time.Hour

// segmentRow is a row of click_segments. HasIPs says whether any of its
// clicks still carries an IP address; the purge encodes the segment again
// without them after analytics.IPRetention.
type segmentRow struct {
	bun.BaseModel `bun:"table:click_segments,alias:cs"`

	ID        uuid.UUID `bun:"id,pk"`
	OrgID     uuid.UUID `bun:"org_id"`
	FirstAt   time.Time `bun:"first_at"`
	LastAt    time.Time `bun:"last_at"`
	Clicks    int       `bun:"clicks"`
	HasIPs    bool      `bun:"has_ips"`
	Data      []byte    `bun:"data"`
	CreatedAt time.Time `bun:"created_at"`

	// clicks are the clicks a new segment encodes, for the candidate
	// index; not a column.
	clicks []analytics.Click `bun:"-"`
}

// isCandidate reports whether attribution reads c, so that it is also kept
// as a row of clicks (on SQLite, when it needsRow): a click of a link with an app on iOS or Android (the
// only platforms an install can come from), or an SDK resolve or any click
// with a tap id, whose unique index must refuse a repeated tap. A desktop
// click of an app's link is no longer a row: the matcher's busy-key count
// and the devices it counts behind an address are of phones only (see
// docs/decisions.md, Click store).
func isCandidate(c *analytics.Click) bool {
	return c.AppID != nil && (c.Platform == "ios" || c.Platform == "android") ||
		c.Source == analytics.SourceAppOpen || c.TapID != nil
}

// segmentClick prepares a normalized click for a segment: its time cut to
// milliseconds (the segment's resolution), and an IP that is not an
// address left out (its key and class were derived from it already).
func segmentClick(c *analytics.Click) {
	c.OccurredAt = c.OccurredAt.Truncate(time.Millisecond)
	if c.IP != "" {
		if a, err := netip.ParseAddr(c.IP); err != nil || a.Zone() != "" {
			c.IP = ""
		}
	}
}

// compareClicks orders clicks by (occurred_at, id), the order of a
// segment and of exports.
func compareClicks(a, b *analytics.Click) int {
	if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
		return c
	}
	return slices.Compare(a.ID[:], b.ID[:])
}

// sortClicks sorts clicks by (occurred_at, id).
func sortClicks(clicks []analytics.Click) {
	// By index: a Click is large, and a comparison by value copies two.
	less := func(i, j int) bool { return compareClicks(&clicks[i], &clicks[j]) < 0 }
	if !sort.SliceIsSorted(clicks, less) {
		sort.Slice(clicks, less)
	}
}

// buildSegments encodes one organization's clicks, sorted by (occurred_at,
// id), into segment rows created at now: a new segment starts after
// analytics.MaxSegmentClicks clicks or when a click is maxSegmentSpan or
// more after the segment's first.
func buildSegments(orgID uuid.UUID, clicks []analytics.Click, now time.Time) ([]segmentRow, error) {
	var rows []segmentRow
	for start := 0; start < len(clicks); {
		end := start + 1
		for end < len(clicks) && end-start < analytics.MaxSegmentClicks &&
			clicks[end].OccurredAt.Sub(clicks[start].OccurredAt) < maxSegmentSpan {
			end++
		}
		row, err := newSegment(orgID, clicks[start:end], now)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		start = end
	}
	return rows, nil
}

// newSegment encodes clicks, sorted and of one organization, as one
// segment row.
func newSegment(orgID uuid.UUID, clicks []analytics.Click, now time.Time) (segmentRow, error) {
	data, err := analytics.EncodeSegment(make([]byte, 0, 64+len(clicks)*48), clicks)
	if err != nil {
		return segmentRow{}, err
	}
	row := segmentRow{
		ID: uuid.Must(uuid.NewV7()), OrgID: orgID, FirstAt: clicks[0].OccurredAt.UTC(),
		LastAt: clicks[len(clicks)-1].OccurredAt.UTC(), Clicks: len(clicks), Data: data, CreatedAt: now.UTC(),
		clicks: clicks,
	}
	for i := range clicks {
		if clicks[i].IP != "" {
			row.HasIPs = true
			break
		}
	}
	return row, nil
}

// insertSegments writes rows in tx and, on SQLite, returns them as the
// candidate index takes them (candidates_segments.go).
func (s *Store) insertSegments(ctx context.Context, tx bun.Tx, rows []segmentRow) ([]handedSegment, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if s.Dialect() == "sqlite" {
		// Bound natively rather than written into the statement's text as
		// a hexadecimal literal, which the driver would parse again.
		handed := make([]handedSegment, len(rows))
		for i := range rows {
			r := &rows[i]
			res, err := tx.Tx.ExecContext(ctx, `INSERT INTO "click_segments" ("id","org_id","first_at","last_at","clicks","has_ips","data","created_at") VALUES (?,?,?,?,?,?,?,?)`,
				r.ID.String(), r.OrgID.String(), r.FirstAt.UTC().Format(sqliteTimeFormat), r.LastAt.UTC().Format(sqliteTimeFormat),
				r.Clicks, r.HasIPs, r.Data, r.CreatedAt.UTC().Format(sqliteTimeFormat))
			if err != nil {
				return nil, err
			}
			rowid, err := res.LastInsertId()
			if err != nil {
				return nil, err
			}
			handed[i] = handedSegment{rowid: rowid, id: r.ID, clicks: r.clicks}
		}
		return handed, nil
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return nil, err
}

// whereHolding limits q, a select of click_segments AS cs, to organization
// orgID's segments that may hold clicks in [from, to): a segment spans at
// most maxSegmentSpan, so those began at most one span before from, and
// they end at or after it.
func whereHolding(q *bun.SelectQuery, orgID uuid.UUID, from, to time.Time) *bun.SelectQuery {
	return q.Where("cs.org_id = ?", orgID).Where("cs.first_at >= ?", from.UTC().Add(-maxSegmentSpan)).
		Where("cs.first_at < ?", to.UTC()).Where("cs.last_at >= ?", from.UTC())
}

// decodeSegment returns the clicks of r in (occurred_at, id) order.
func decodeSegment(r *segmentRow) ([]analytics.Click, error) {
	clicks, err := analytics.DecodeSegment(r.OrgID, r.Data)
	if err != nil {
		return nil, err
	}
	sortClicks(clicks)
	return clicks, nil
}

// cmpPosition compares c's place in the export order with p.
func cmpPosition(c *analytics.Click, p *analytics.ExportPosition) int {
	return cmp.Or(c.OccurredAt.Compare(p.Time), slices.Compare(c.ID[:], p.ID[:]))
}
