package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/org"
)

var _ analytics.PurgeStore = (*Store)(nil)

// The purge's statements each change at most limit rows, chosen by a
// subquery through an index that starts with the organization and the
// time (for the IPs of installs and segments, the partial index of those
// that carry one).
// On PostgreSQL the subquery locks its rows FOR UPDATE SKIP LOCKED, so
// that two purges at once never wait on each other or deadlock: each takes
// the rows the other does not hold, and a row deleted by one is not seen
// by the other. SQLite has one writer; each statement is its own short
// transaction.

// PurgeOrgs implements analytics.PurgeStore.
func (s *Store) PurgeOrgs(ctx context.Context) ([]analytics.PurgeOrg, error) {
	var rows []struct {
		ID   uuid.UUID `bun:"id"`
		Plan string    `bun:"plan"`
	}
	if err := s.db.NewSelect().Table("organizations").Column("id", "plan").OrderExpr("id").Scan(ctx, &rows); err != nil {
		return nil, s.err("purge organizations", err)
	}
	out := make([]analytics.PurgeOrg, len(rows))
	for i, r := range rows {
		out[i] = analytics.PurgeOrg{ID: r.ID, Plan: org.Plan(r.Plan)}
	}
	return out, nil
}

// DeleteClicksBefore implements analytics.PurgeStore. The installs that
// claimed a deleted click keep their row: installs.click_id is set to NULL
// by its foreign key (ON DELETE SET NULL). click_counts is not touched.
func (s *Store) DeleteClicksBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return s.purgeRows(ctx, "purge clicks", "clicks", "id", "org_id = ? AND occurred_at < ?", orgID, before, limit)
}

// DeleteInstallsBefore implements analytics.PurgeStore. The attempts that
// name a deleted install keep their row: attribution_attempts.install_id
// is set to NULL by its foreign key (ON DELETE SET NULL).
func (s *Store) DeleteInstallsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return s.purgeRows(ctx, "purge installs", "installs", "id", "org_id = ? AND installed_at < ?", orgID, before, limit)
}

// DeleteAttemptsBefore implements analytics.PurgeStore.
func (s *Store) DeleteAttemptsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return s.purgeRows(ctx, "purge attempts", "attribution_attempts", "id", "org_id = ? AND created_at < ?", orgID, before, limit)
}

// DeleteUnstoredBefore implements analytics.PurgeStore. It first deletes
// the organization's click rollups older than before (deleteRollupsBefore),
// which the count it returns leaves out.
func (s *Store) DeleteUnstoredBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	// click_unstored's key is (org_id, slot): the organization's slots are
	// chosen by the subquery, and the outer statement keeps to the
	// organization.
	if err := s.deleteRollupsBefore(ctx, orgID, before, limit); err != nil {
		return 0, err
	}
	return s.purgeRows(ctx, "purge unstored clicks", "click_unstored", "slot", "org_id = ? AND slot < ?", orgID, before, limit, orgID)
}

// purgeRows deletes at most limit rows of table that match where (with
// orgID and before), chosen by key; outer, when given, is the organization
// the outer statement keeps to, for a table whose key is not unique alone.
func (s *Store) purgeRows(ctx context.Context, op, table, key, where string, orgID uuid.UUID, before time.Time, limit int, outer ...uuid.UUID) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	sub := s.db.NewSelect().Table(table).Column(key).Where(where, orgID, before.UTC()).Limit(int64(limit))
	if s.db.Dialect().Name() == dialect.PG {
		sub = sub.For("UPDATE SKIP LOCKED")
	}
	q := s.db.NewDelete().TableExpr(table).Where("? IN (?)", bun.Ident(key), sub)
	if len(outer) > 0 {
		q = q.Where("org_id = ?", outer[0])
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, s.err(op, err)
	}
	n, err := res.RowsAffected()
	return int(n), s.err(op, err)
}

// ClearClickIPsBefore implements analytics.PurgeStore.
//
// A row of clicks keeps the IP key alone, not the address (migration
// 20261202000001), and has no index of the rows that carry one: each
// organization has an IP mark (ipMarkRow), before which none of its rows
// carries a key. The organizations whose mark is before before are taken
// in the order of their ids, each in a transaction of its own
// (clearOrgClickIPs), until limit rows are cleared.
func (s *Store) ClearClickIPsBefore(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var orgs []uuid.UUID
	if err := s.db.NewSelect().Model((*ipMarkRow)(nil)).Column("org_id").
		Where("m.cleared_until < ?", before.UnixMicro()).OrderExpr("m.org_id").Scan(ctx, &orgs); err != nil {
		return 0, s.err("clear click IPs", err)
	}
	n := 0
	for _, id := range orgs {
		k, err := s.clearOrgClickIPs(ctx, id, before, limit-n)
		n += k
		if err != nil {
			return n, s.err("clear click IPs", err)
		}
		if n >= limit {
			break
		}
	}
	return n, nil
}

// clearOrgClickIPs empties the IP key of at most limit rows of clicks of
// orgID that occurred before before, and returns how many it emptied.
//
// In one transaction it reads the organization's IP mark, locked FOR
// UPDATE on PostgreSQL before anything else (see lowerIPMarks for why),
// then the rows from the mark to before that carry a key, oldest first,
// through the (org_id, occurred_at) index: only the rows written since
// the last purge. It empties their keys and moves the mark up to before,
// or to the last row read when there were limit of them. On PostgreSQL a
// row is updated only when no other transaction holds it (FOR UPDATE SKIP
// LOCKED), so that a claim holding a row never makes the purge wait and
// the two cannot deadlock: the purge waits for nothing but the mark. The
// mark then stays at the oldest row it skipped, for the next purge.
func (s *Store) clearOrgClickIPs(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	pg := s.db.Dialect().Name() == dialect.PG
	n := 0
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		var mark ipMarkRow
		q := tx.NewSelect().Model(&mark).Where("m.org_id = ?", orgID)
		if pg {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil // an organization deleted meanwhile
			}
			return err
		}
		cut := before.UnixMicro()
		if mark.ClearedUntil >= cut {
			return nil
		}
		var rows []struct {
			ID         uuid.UUID `bun:"id"`
			OccurredAt time.Time `bun:"occurred_at"`
		}
		if err := tx.NewSelect().Table("clicks").Column("id", "occurred_at").
			Where("org_id = ? AND occurred_at >= ? AND occurred_at < ?", orgID, time.UnixMicro(mark.ClearedUntil).UTC(), before.UTC()).
			Where("ip_key <> ''").OrderExpr("occurred_at").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
			return err
		}
		next := cut
		if len(rows) == limit {
			next = rows[len(rows)-1].OccurredAt.UnixMicro()
		}
		if len(rows) > 0 {
			ids := make([]uuid.UUID, len(rows))
			for i := range rows {
				ids[i] = rows[i].ID
			}
			pick := tx.NewSelect().Table("clicks").Column("id").Where("id IN (?)", bun.List(ids))
			upd := tx.NewUpdate().Table("clicks").Set("ip_key = ''")
			if pg {
				var cleared []uuid.UUID
				if err := upd.Where("id IN (?)", pick.For("UPDATE SKIP LOCKED")).Returning("id").
					Scan(ctx, &cleared); err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				done := make(map[uuid.UUID]bool, len(cleared))
				for _, id := range cleared {
					done[id] = true
				}
				for i := range rows {
					if !done[rows[i].ID] {
						next = min(next, rows[i].OccurredAt.UnixMicro())
					}
				}
				n = len(cleared)
			} else {
				res, err := upd.Where("id IN (?)", bun.List(ids)).Exec(ctx)
				if err != nil {
					return err
				}
				k, err := res.RowsAffected()
				if err != nil {
					return err
				}
				n = int(k)
			}
		}
		if next <= mark.ClearedUntil {
			return nil
		}
		_, err := tx.NewUpdate().Model((*ipMarkRow)(nil)).Set("cleared_until = ?", next).
			Where("m.org_id = ?", orgID).Exec(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ClearInstallIPsBefore implements analytics.PurgeStore: it empties the IP
// of at most limit installs, of every organization, made before before
// that still carry one, found through the partial index of such installs.
func (s *Store) ClearInstallIPsBefore(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	pick := s.db.NewSelect().Table("installs").Column("id").
		Where("ip <> '' AND installed_at < ?", before.UTC()).Limit(int64(limit))
	if s.db.Dialect().Name() == dialect.PG {
		pick = pick.For("UPDATE SKIP LOCKED")
	}
	res, err := s.db.NewUpdate().Table("installs").Set("ip = ''").Where("id IN (?)", pick).Exec(ctx)
	if err != nil {
		return 0, s.err("clear install IPs", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.err("clear install IPs", err)
	}
	return int(n), nil
}

// DeleteSegmentsBefore implements analytics.PurgeStore: it deletes at most
// limit of orgID's segments whose last click occurred before before,
// through the (org_id, last_at) index. A segment that holds clicks on both
// sides of before stays until its last click is past retention too
// (segments span at most maxSegmentSpan); readers never show clicks
// outside their window.
func (s *Store) DeleteSegmentsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return s.purgeRows(ctx, "purge click segments", "click_segments", "id", "org_id = ? AND last_at < ?", orgID, before, limit)
}

// ClearSegmentIPsBefore implements analytics.PurgeStore.
//
// In one transaction it reads at most limit segments of every
// organization that still carry IPs and whose last click occurred before
// before (through the partial index of such segments; FOR UPDATE SKIP
// LOCKED on PostgreSQL, as the link compaction locks the segments it
// rewrites), and encodes each again with its clicks' IP address and IP key
// emptied, keeping their country and network class.
func (s *Store) ClearSegmentIPsBefore(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	n := 0
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []segmentRow
		sel := tx.NewSelect().Model(&rows).Where("cs.has_ips AND cs.last_at < ?", before.UTC()).Limit(int64(limit))
		if s.db.Dialect().Name() == dialect.PG {
			sel = sel.For("UPDATE SKIP LOCKED")
		}
		if err := sel.Scan(ctx); err != nil {
			return err
		}
		for i := range rows {
			clicks, err := decodeSegment(&rows[i])
			if err != nil {
				return err
			}
			for j := range clicks {
				c := &clicks[j]
				if c.IPClass == "" {
					c.IPClass = analytics.NetworkClass(c.IP)
				}
				c.IP, c.IPKey = "", ""
			}
			if err := s.rewriteSegment(ctx, tx, &rows[i], clicks); err != nil {
				return err
			}
		}
		n = len(rows)
		return nil
	})
	if err != nil {
		return 0, s.err("clear segment IPs", err)
	}
	return n, nil
}
