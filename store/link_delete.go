package store

import (
	"bytes"
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// Deleting a link removes its click history permanently (SPEC.md, Link
// states). Its clicks are removed in two steps:
//
//  1. In the delete's transaction, a tombstone (click_link_tombstones)
//     names the link: from its commit on, scanClicks skips the link's
//     clicks, so no export counts them once the delete has answered, and
//     the matcher reads none of its rows of clicks (those it reads are
//     joined to their links, or dropped by linkWindows when the link is
//     gone).
//  2. Then the compaction decodes the organization's segments that may
//     hold the link's clicks (those ending after a day before the link was
//     created, compactMargin, and holding its id's 16 bytes at all), encodes them again without those
//     clicks (or deletes a segment left empty), deletes the rows of clicks
//     of those that have one (isCandidate), by id, and hands the removed
//     clicks to onClicksRemoved in the same transaction, a page of
//     segments at a time, and deletes the tombstone last. The rows of
//     clicks have no foreign key to links, whose cascade needed an index
//     of the rows by link (migration 20261202000001): every row is in a
//     segment too, so the segments find them.
//
// DeleteLink runs the compaction before it returns; one interrupted (the
// request cancelled, the process stopped, the database away) is finished
// by the purge (CompactDeletedLinks), which looks for tombstones left.
// InsertClicks locks the links of its batch FOR KEY SHARE on PostgreSQL (on
// SQLite transactions are serial), so that a batch that read a link before
// its delete commits before the delete, and the compaction finds its
// segments.

// tombstoneRow is a row of click_link_tombstones.
type tombstoneRow struct {
	bun.BaseModel `bun:"table:click_link_tombstones,alias:lt"`

	LinkID    uuid.UUID `bun:"link_id,pk"`
	OrgID     uuid.UUID `bun:"org_id"`
	Since     time.Time `bun:"since"`
	DeletedAt time.Time `bun:"deleted_at"`
}

// compactPage is how many segments one transaction of a compaction reads.
const compactPage = 64

// compactMargin is how long before its link's creation a compaction still
// looks for the link's clicks: a click's time comes from the clock of the
// process that redirected, a link's creation from the API's, and the two
// may disagree.
const compactMargin = 24 * time.Hour

// DeleteLink implements linking.LinkStore.
func (s *Store) DeleteLink(ctx context.Context, orgID, id uuid.UUID) error {
	var stones []tombstoneRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		stones, err = tombstoneLinks(ctx, tx, orgID, "id = ?", id)
		if err != nil {
			return err
		}
		var gone struct {
			Domain string     `bun:"domain"`
			Slug   string     `bun:"slug"`
			AppID  *uuid.UUID `bun:"app_id"`
		}
		err = tx.NewDelete().Model((*linkRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).
			Returning("domain, slug, app_id").Scan(ctx, &gone)
		if err != nil {
			return err
		}
		ev, err := linkDeletedEvent(orgID, id, gone.Domain, gone.Slug, gone.AppID, time.Now())
		if err != nil {
			return err
		}
		return s.emit(ctx, tx, ev)
	})
	if err != nil {
		return s.err("delete link", err)
	}
	s.compactLinks(ctx, stones)
	return nil
}

// tombstoneLinks writes, in tx, a tombstone for each link of orgID that
// where selects (it names the columns of links unqualified), and returns
// them.
func tombstoneLinks(ctx context.Context, tx bun.Tx, orgID uuid.UUID, where string, args ...any) ([]tombstoneRow, error) {
	var links []struct {
		ID        uuid.UUID `bun:"id"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := tx.NewSelect().Table("links").Column("id", "created_at").Where("org_id = ?", orgID).
		Where(where, args...).Scan(ctx, &links); err != nil {
		return nil, err
	}
	if len(links) == 0 {
		return nil, nil
	}
	now := time.Now().UTC()
	stones := make([]tombstoneRow, len(links))
	for i, l := range links {
		stones[i] = tombstoneRow{LinkID: l.ID, OrgID: orgID, Since: l.CreatedAt.UTC(), DeletedAt: now}
	}
	_, err := tx.NewInsert().Model(&stones).On("CONFLICT DO NOTHING").Exec(ctx)
	return stones, err
}

// compactLinks runs the compaction of each tombstone; a failure leaves the
// tombstone for the purge to finish.
func (s *Store) compactLinks(ctx context.Context, stones []tombstoneRow) {
	for i := range stones {
		if err := s.compactLink(ctx, &stones[i]); err != nil {
			return
		}
	}
}

// CompactDeletedLinks implements analytics.PurgeStore: it finishes the
// compaction of at most limit deleted links whose tombstone is left and
// returns how many it finished.
func (s *Store) CompactDeletedLinks(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var stones []tombstoneRow
	if err := s.db.NewSelect().Model(&stones).OrderExpr("lt.deleted_at, lt.link_id").Limit(int64(limit)).Scan(ctx); err != nil {
		return 0, s.err("compact deleted links", err)
	}
	for i := range stones {
		if err := s.compactLink(ctx, &stones[i]); err != nil {
			return i, s.err("compact deleted links", err)
		}
	}
	return len(stones), nil
}

// compactLink removes the clicks of stone's link from its organization's
// segments, a page of segments per transaction, and then the tombstone.
func (s *Store) compactLink(ctx context.Context, stone *tombstoneRow) error {
	var after *segmentMeta
	for {
		var page []segmentMeta
		q := s.db.NewSelect().Model((*segmentRow)(nil)).Column("cs.id", "cs.first_at", "cs.last_at").
			Where("cs.org_id = ? AND cs.last_at >= ?", stone.OrgID, stone.Since.Add(-compactMargin).Truncate(time.Millisecond))
		if after != nil {
			q.Where("(cs.last_at > ? OR (cs.last_at = ? AND cs.id > ?))", after.LastAt, after.LastAt, after.ID)
		}
		if err := q.OrderExpr("cs.last_at, cs.id").Limit(compactPage).Scan(ctx, &page); err != nil {
			return err
		}
		if len(page) > 0 {
			ids := make([]uuid.UUID, len(page))
			for i := range page {
				ids[i] = page[i].ID
			}
			if err := s.removeLinkClicks(ctx, stone.OrgID, stone.LinkID, ids); err != nil {
				return err
			}
		}
		if len(page) < compactPage {
			break
		}
		last := page[len(page)-1]
		after = &last
	}
	_, err := s.db.NewDelete().Model((*tombstoneRow)(nil)).Where("lt.link_id = ?", stone.LinkID).Exec(ctx)
	return err
}

// removeLinkClicks encodes the segments ids of orgID again without the
// clicks of linkID, in one transaction that hands them to
// onClicksRemoved. On PostgreSQL the segments are locked FOR UPDATE, as
// the purge's IP clearing locks them, so that neither overwrites the
// other's encoding.
func (s *Store) removeLinkClicks(ctx context.Context, orgID, linkID uuid.UUID, ids []uuid.UUID) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []segmentRow
		q := tx.NewSelect().Model(&rows).Where("cs.org_id = ? AND cs.id IN (?)", orgID, bun.List(ids))
		if s.Dialect() == "pg" {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return err
		}
		var removed []analytics.Click
		for i := range rows {
			r := &rows[i]
			if !bytes.Contains(r.Data, linkID[:]) {
				continue // the link is not in this segment's dictionary
			}
			clicks, err := decodeSegment(r)
			if err != nil {
				return err
			}
			kept := clicks[:0:0]
			for _, c := range clicks {
				if c.LinkID == linkID {
					removed = append(removed, c)
				} else {
					kept = append(kept, c)
				}
			}
			if len(kept) == len(clicks) {
				continue
			}
			if err := s.rewriteSegment(ctx, tx, r, kept); err != nil {
				return err
			}
		}
		if len(removed) == 0 {
			return nil
		}
		// The installs first: deleting a click's row sets their click_id
		// to NULL. The rows before the rollups: a claim updates a click's
		// row and then the rollups, so the two take their locks in one
		// order.
		attributed, err := clickInstalls(ctx, tx, removed)
		if err != nil {
			return err
		}
		if err := deleteClickRows(ctx, tx, orgID, removed); err != nil {
			return err
		}
		return s.onClicksRemoved(ctx, tx, removed, attributed)
	})
}

// clickRowChunk is how many rows of clicks one statement deletes by id.
const clickRowChunk = 500

// deleteClickRows deletes, in tx, the rows of clicks of orgID that the
// clicks removed from segments have (those isCandidate selects), through
// the primary key.
func deleteClickRows(ctx context.Context, tx bun.Tx, orgID uuid.UUID, removed []analytics.Click) error {
	var ids []uuid.UUID
	for i := range removed {
		if isCandidate(&removed[i]) {
			ids = append(ids, removed[i].ID)
		}
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), clickRowChunk)]
		ids = ids[len(chunk):]
		if _, err := tx.NewDelete().Table("clicks").Where("id IN (?) AND org_id = ?", bun.List(chunk), orgID).
			Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rewriteSegment replaces segment r's clicks with clicks (sorted, of its
// organization), or deletes it when clicks is empty.
func (s *Store) rewriteSegment(ctx context.Context, tx bun.Tx, r *segmentRow, clicks []analytics.Click) error {
	if len(clicks) == 0 {
		_, err := tx.NewDelete().Model((*segmentRow)(nil)).Where("cs.id = ?", r.ID).Exec(ctx)
		return err
	}
	n, err := newSegment(r.OrgID, clicks, r.CreatedAt)
	if err != nil {
		return err
	}
	_, err = tx.NewUpdate().Model((*segmentRow)(nil)).
		Set("data = ?", n.Data).Set("clicks = ?", n.Clicks).Set("first_at = ?", n.FirstAt).
		Set("last_at = ?", n.LastAt).Set("has_ips = ?", n.HasIPs).Where("cs.id = ?", r.ID).Exec(ctx)
	return err
}
