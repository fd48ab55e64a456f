package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// errStopScan, returned by a scanClicks callback, ends the scan without an
// error.
var errStopScan = errors.New("store: stop the click scan")

// scanPage is how many segments one query of a scan lists. Their
// payloads are read together, up to scanFetchSegments of them and
// scanFetchBytes of encoded payload a query (a larger segment alone): an
// organization with little traffic has a small segment for each of the
// writer's batches, and a query each would cost more than its decoding.
const (
	scanPage          = 256
	scanFetchSegments = 64
	scanFetchBytes    = 1 << 20
)

// scanClicks calls fn with each of organization orgID's stored clicks in
// w (From inclusive, To exclusive) that pass f and, when createdBy is not
// nil, whose link that member created, in (occurred_at, id) order,
// decoding the window's segments one at a time (several only where
// segments overlap in time). Each filter keeps the clicks whose value
// equals it; Tag keeps the clicks of links that carry the tag now. The clicks of a deleted link (a tombstone in
// click_link_tombstones) are skipped until its compaction removed them.
// fn may keep nothing it is given past its return (the click is reused);
// it ends the scan without an error by returning errStopScan.
func (s *Store) scanClicks(ctx context.Context, orgID uuid.UUID, w analytics.Window, f analytics.Filter, createdBy *uuid.UUID,
	fn func(*analytics.Click) error) error {
	return s.scanClicksAfter(ctx, orgID, w, f, createdBy, nil, fn)
}

// segmentMeta is a segment as a scan lists it, without its payload: Size
// is the payload's length in bytes.
type segmentMeta struct {
	ID      uuid.UUID `bun:"id"`
	FirstAt time.Time `bun:"first_at"`
	LastAt  time.Time `bun:"last_at"`
	Size    int64     `bun:"size"`
}

// scanCursor is a decoded segment's clicks that a scan has yet to pass on.
type scanCursor struct {
	clicks []analytics.Click
	next   int
}

// scanClicksAfter is scanClicks from the click after position after (from
// the window's start when nil).
func (s *Store) scanClicksAfter(ctx context.Context, orgID uuid.UUID, w analytics.Window, f analytics.Filter,
	createdBy *uuid.UUID, after *analytics.ExportPosition, fn func(*analytics.Click) error) error {
	keep, err := s.clickKeeper(ctx, orgID, f, createdBy)
	if err != nil {
		return err
	}
	from, to := w.From.UTC(), w.To.UTC()
	start := from
	if after != nil && after.Time.After(start) {
		start = after.Time.UTC()
	}
	if !start.Before(to) {
		return nil
	}

	// The segments holding clicks from start on began at most one span
	// before it and end at or after it: listed in (first_at, id) order,
	// page by page.
	var page []segmentMeta
	pos, exhausted := 0, false
	var last *segmentMeta
	peek := func() (*segmentMeta, error) {
		if pos < len(page) {
			return &page[pos], nil
		}
		if exhausted {
			return nil, nil
		}
		page = page[:0]
		pos = 0
		q := whereHolding(s.db.NewSelect().Model((*segmentRow)(nil)).Column("cs.id", "cs.first_at", "cs.last_at").
			ColumnExpr("length(cs.data) AS size"), orgID, start, to)
		if last != nil {
			q.Where("(cs.first_at > ? OR (cs.first_at = ? AND cs.id > ?))", last.FirstAt, last.FirstAt, last.ID)
		}
		if err := q.OrderExpr("cs.first_at, cs.id").Limit(scanPage).Scan(ctx, &page); err != nil {
			return nil, err
		}
		if len(page) < scanPage {
			exhausted = true
		}
		if len(page) == 0 {
			return nil, nil
		}
		m := page[len(page)-1]
		last = &m
		return &page[0], nil
	}
	// fetched holds the payloads read ahead of their turn: the segments
	// listed after m, read in m's query.
	fetched := map[uuid.UUID]*segmentRow{}
	load := func(m *segmentMeta) (*scanCursor, error) {
		row := fetched[m.ID]
		if row == nil {
			ids, size := []uuid.UUID{m.ID}, m.Size
			for _, n := range page[pos:] {
				if len(ids) == scanFetchSegments || size+n.Size > scanFetchBytes {
					break
				}
				ids, size = append(ids, n.ID), size+n.Size
			}
			var rows []segmentRow
			if err := s.db.NewSelect().Model(&rows).Column("cs.id", "cs.org_id", "cs.data").
				Where("cs.org_id = ?", orgID).Where("cs.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
				return nil, err
			}
			for i := range rows {
				fetched[rows[i].ID] = &rows[i]
			}
			if row = fetched[m.ID]; row == nil {
				return nil, fmt.Errorf("segment %s: %w", m.ID, sql.ErrNoRows)
			}
		}
		delete(fetched, m.ID)
		clicks, err := decodeSegment(row)
		if err != nil {
			return nil, fmt.Errorf("segment %s: %w", m.ID, err)
		}
		kept := clicks[:0]
		for i := range clicks {
			c := &clicks[i]
			if c.OccurredAt.Before(from) || !c.OccurredAt.Before(to) || after != nil && cmpPosition(c, after) <= 0 || !keep(c) {
				continue
			}
			kept = append(kept, *c)
		}
		return &scanCursor{clicks: kept}, nil
	}

	var open []*scanCursor
	head := func() (int, *analytics.Click) {
		best := -1
		for i, c := range open {
			if best < 0 || compareClicks(&c.clicks[c.next], &open[best].clicks[open[best].next]) < 0 {
				best = i
			}
		}
		if best < 0 {
			return -1, nil
		}
		return best, &open[best].clicks[open[best].next]
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Every segment that may hold a click before the head is opened
		// before the head is passed on.
		for {
			m, err := peek()
			if err != nil {
				return s.err("scan clicks", err)
			}
			if m == nil {
				break
			}
			if _, h := head(); h != nil && m.FirstAt.After(h.OccurredAt) {
				break
			}
			pos++
			cur, err := load(m)
			if err != nil {
				return s.err("scan clicks", err)
			}
			if len(cur.clicks) > 0 {
				open = append(open, cur)
			}
		}
		i, h := head()
		if h == nil {
			return nil
		}
		if err := fn(h); err != nil {
			if errors.Is(err, errStopScan) {
				return nil
			}
			return err
		}
		cur := open[i]
		cur.next++
		if cur.next == len(cur.clicks) {
			open = append(open[:i], open[i+1:]...)
		}
	}
}

// clickKeeper returns the test a scan applies to each click of orgID: f's
// filters, the links createdBy created when it is not nil, and no click
// of a deleted link.
func (s *Store) clickKeeper(ctx context.Context, orgID uuid.UUID, f analytics.Filter, createdBy *uuid.UUID) (func(*analytics.Click) bool, error) {
	var gone []uuid.UUID
	if err := s.db.NewSelect().Table("click_link_tombstones").Column("link_id").
		Where("org_id = ?", orgID).Scan(ctx, &gone); err != nil {
		return nil, s.err("scan clicks", err)
	}
	deleted := idSet(gone)
	var tagged, created map[uuid.UUID]bool
	if f.Tag != nil {
		var ids []uuid.UUID
		has := "EXISTS (SELECT 1 FROM json_each(l.tags) AS t WHERE t.value = ?)"
		if s.db.Dialect().Name() == dialect.PG {
			has = "EXISTS (SELECT 1 FROM jsonb_array_elements_text(l.tags::jsonb) AS t(value) WHERE t.value = ?)"
		}
		if err := s.db.NewSelect().TableExpr("links AS l").Column("l.id").Where("l.org_id = ?", orgID).
			Where(has, *f.Tag).Scan(ctx, &ids); err != nil {
			return nil, s.err("scan clicks", err)
		}
		tagged = idSet(ids)
	}
	if createdBy != nil {
		var ids []uuid.UUID
		if err := s.db.NewSelect().Table("links").Column("id").
			Where("org_id = ? AND created_by = ?", orgID, *createdBy).Scan(ctx, &ids); err != nil {
			return nil, s.err("scan clicks", err)
		}
		created = idSet(ids)
	}
	eq := func(v *string, got string) bool { return v == nil || *v == got }
	return func(c *analytics.Click) bool {
		switch {
		case deleted[c.LinkID],
			f.LinkID != nil && *f.LinkID != c.LinkID,
			f.AppID != nil && (c.AppID == nil || *c.AppID != *f.AppID),
			!eq(f.Domain, c.Domain), !eq(f.Source, string(c.Source)), !eq(f.Platform, c.Platform),
			!eq(f.Country, c.Country), !eq(f.UTMSource, c.UTMSource), !eq(f.UTMMedium, c.UTMMedium),
			!eq(f.UTMCampaign, c.UTMCampaign),
			tagged != nil && !tagged[c.LinkID],
			created != nil && !created[c.LinkID]:
			return false
		}
		return true
	}, nil
}

func idSet(ids []uuid.UUID) map[uuid.UUID]bool {
	m := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
