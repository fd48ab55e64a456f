package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/hoplink/hoplink/analytics"
)

var _ analytics.QueryStore = (*Store)(nil)

// The analytics queries read the click rollups (rollups.go) when they can
// answer the question exactly, and scan raw clicks (scanClicks) when they
// cannot:
//   - a window whose ends are not quarter hours of UTC is scanned (the
//     analytics service rounds its windows to quarter hours, so this is
//     for other callers);
//   - a time series without a filter reads click_rollup_slots; with one
//     filter of link_id, app_id, domain, source, platform, country,
//     utm_source, utm_medium or utm_campaign it reads click_rollup_dims at
//     that value; with tag alone, or for a member reading their own links,
//     it reads click_rollup_dims of dimension link at those links;
//   - a breakdown without a filter reads click_rollup_dim_days for the
//     whole UTC days of the window, click_rollup_dim_hours for the whole
//     UTC hours at its edges and click_rollup_dims for the quarter hours
//     left (at most three on each side); a member's breakdown by link does
//     the same for their links;
//   - a breakdown whose clicks are those of at most maxRollupLinks links
//     (a link_id filter, a tag filter, both, or a member's reach alone or
//     with them: rollupLinks) reads click_link_rollups
//     (link_rollups.go) for the whole UTC days and, at the edges, whole
//     hours of the window, and scans the at most three quarter hours
//     left at each edge (countByLinkRollups);
//   - every other combination (several filters but link_id with tag, an
//     app_id filter, which a link's change of app keeps from naming a set
//     of links, a filter with a member's reach, a breakdown with such a
//     filter or over more links) is scanned.
//
// A scan counts installs by click id: the installs whose click is one of
// the window's clicks, read through the unique index on installs.click_id.
// (clicks.claimed_by_install is not used: a session's claim marks several
// clicks with one install.)

// rollupFilterDims are the filters a rollup answers alone, with the
// dimension whose value each matches.
func rollupFilterDim(f analytics.Filter) (analytics.Dimension, string, bool) {
	n := 0
	var dim analytics.Dimension
	var value string
	for _, c := range []struct {
		d analytics.Dimension
		v *string
	}{
		{analytics.DimDomain, f.Domain}, {analytics.DimSource, f.Source}, {analytics.DimPlatform, f.Platform},
		{analytics.DimCountry, f.Country}, {analytics.DimUTMSource, f.UTMSource},
		{analytics.DimUTMMedium, f.UTMMedium}, {analytics.DimUTMCampaign, f.UTMCampaign},
	} {
		if c.v != nil {
			n, dim, value = n+1, c.d, *c.v
		}
	}
	if f.LinkID != nil {
		n, dim, value = n+1, analytics.DimLink, f.LinkID.String()
	}
	if f.AppID != nil {
		n, dim, value = n+1, analytics.DimApp, f.AppID.String()
	}
	if f.Tag != nil {
		n++
	}
	return dim, value, n == 1 && f.Tag == nil
}

// onSlots reports whether w starts and ends on quarter hours.
func onSlots(w analytics.Window) bool {
	return w.From.Equal(analytics.SlotOf(w.From)) && w.To.Equal(analytics.SlotOf(w.To))
}

// linksOf returns the ids, as rollup values, of organization orgID's links
// that member createdBy created, or that carry tag.
func (s *Store) linksOf(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, tag *string) ([]string, error) {
	ids, err := s.linkIDsOf(ctx, orgID, createdBy, tag, 0)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out, nil
}

// linkIDsOf returns the ids of organization orgID's links that member
// createdBy created, or that carry tag, at most limit of them when limit
// is above zero.
func (s *Store) linkIDsOf(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, tag *string, limit int) ([]uuid.UUID, error) {
	q := s.db.NewSelect().TableExpr("links AS l").ColumnExpr("l.id").Where("l.org_id = ?", orgID)
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if createdBy != nil {
		q = q.Where("l.created_by = ?", *createdBy)
	}
	if tag != nil {
		tagged := "EXISTS (SELECT 1 FROM json_each(l.tags) AS t WHERE t.value = ?)"
		if s.db.Dialect().Name() == dialect.PG {
			tagged = "EXISTS (SELECT 1 FROM jsonb_array_elements_text(l.tags::jsonb) AS t(value) WHERE t.value = ?)"
		}
		q = q.Where(tagged, *tag)
	}
	var ids []uuid.UUID
	if err := q.Scan(ctx, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// seriesValues returns the dimension and values of click_rollup_dims
// that hold set's clicks, or ok false when set needs click_rollup_slots
// (all false) or a scan (scan true).
func (s *Store) seriesValues(ctx context.Context, set analytics.ClickSet) (dim analytics.Dimension, values []string, whole, scan bool, err error) {
	f := set.Filter
	switch {
	case f == (analytics.Filter{}) && set.CreatedBy == nil:
		return "", nil, true, false, nil
	case f == (analytics.Filter{}) || (set.CreatedBy == nil && f == analytics.Filter{Tag: f.Tag}):
		values, err = s.linksOf(ctx, set.OrgID, set.CreatedBy, f.Tag)
		return analytics.DimLink, values, false, false, err
	case set.CreatedBy == nil:
		if d, v, ok := rollupFilterDim(f); ok {
			return d, []string{v}, false, false, nil
		}
	}
	return "", nil, false, true, nil
}

// CountClickSlots implements analytics.QueryStore.
func (s *Store) CountClickSlots(ctx context.Context, set analytics.ClickSet) ([]analytics.SlotCount, error) {
	if !onSlots(set.Window) {
		return s.countSlotsScan(ctx, set)
	}
	dim, values, whole, scan, err := s.seriesValues(ctx, set)
	if err != nil {
		return nil, s.err("count click slots", err)
	}
	if scan {
		return s.countSlotsScan(ctx, set)
	}
	var rows []struct {
		Slot     int64 `bun:"slot"`
		Clicks   int64 `bun:"clicks"`
		Installs int64 `bun:"installs"`
	}
	from, to := set.Window.From.Unix(), set.Window.To.Unix()
	var q *bun.SelectQuery
	if whole {
		q = s.db.NewSelect().Model((*rollupSlotRow)(nil)).Column("slot", "clicks", "installs").
			Where("org_id = ? AND slot >= ? AND slot < ?", set.OrgID, from, to)
	} else {
		if len(values) == 0 {
			return nil, nil
		}
		q = s.db.NewSelect().Model((*rollupDimRow)(nil)).Column("slot").
			ColumnExpr("sum(clicks) AS clicks").ColumnExpr("sum(installs) AS installs").
			Where("org_id = ? AND dim = ? AND value IN (?) AND slot >= ? AND slot < ?",
				set.OrgID, string(dim), bun.List(values), from, to).
			GroupExpr("slot")
	}
	if s.db.Dialect().Name() == dialect.PG {
		// One row of three arrays: reading 8,641 rows (90 days) one by
		// one through the driver cost the series most of its time.
		var slots, clicks, installs []int64
		err = s.db.NewSelect().TableExpr("(?) AS r", q).
			ColumnExpr("array_agg(r.slot), array_agg(r.clicks), array_agg(r.installs)").
			Scan(ctx, pgdialect.Array(&slots), pgdialect.Array(&clicks), pgdialect.Array(&installs))
		if err != nil {
			return nil, s.err("count click slots", err)
		}
		if len(clicks) != len(slots) || len(installs) != len(slots) {
			return nil, fmt.Errorf("store: count click slots: arrays of %d, %d and %d", len(slots), len(clicks), len(installs))
		}
		rows = make([]struct {
			Slot     int64 `bun:"slot"`
			Clicks   int64 `bun:"clicks"`
			Installs int64 `bun:"installs"`
		}, len(slots))
		for i := range slots {
			rows[i].Slot, rows[i].Clicks, rows[i].Installs = slots[i], clicks[i], installs[i]
		}
	} else if err = q.Scan(ctx, &rows); err != nil {
		return nil, s.err("count click slots", err)
	}
	out := make([]analytics.SlotCount, 0, len(rows))
	for _, r := range rows {
		if r.Clicks != 0 || r.Installs != 0 {
			out = append(out, analytics.SlotCount{Start: time.Unix(r.Slot, 0).UTC(), Clicks: r.Clicks, Installs: r.Installs})
		}
	}
	return out, nil
}

// CountClicksBy implements analytics.QueryStore.
func (s *Store) CountClicksBy(ctx context.Context, set analytics.ClickSet, by analytics.Dimension) ([]analytics.ValueCount, error) {
	if !by.Valid() {
		return nil, fmt.Errorf("store: count clicks by %q: no such dimension", by)
	}
	var values []string
	switch {
	case !onSlots(set.Window):
		return s.countByScan(ctx, set, by)
	case set.Filter != (analytics.Filter{}) || set.CreatedBy != nil && by != analytics.DimLink:
		links, ok, err := s.rollupLinks(ctx, set)
		if err != nil {
			return nil, s.err("count clicks by "+string(by), err)
		}
		if !ok {
			return s.countByScan(ctx, set, by)
		}
		return s.countByLinkRollups(ctx, set, by, links)
	case set.CreatedBy != nil:
		var err error
		if values, err = s.linksOf(ctx, set.OrgID, set.CreatedBy, nil); err != nil {
			return nil, s.err("count clicks by "+string(by), err)
		}
		if len(values) == 0 {
			return nil, nil
		}
	}
	// Whole UTC days from click_rollup_dim_days, the whole hours before
	// the first and after the last from click_rollup_dim_hours, the
	// quarter hours left at the edges from click_rollup_dims.
	from, to := set.Window.From.UTC(), set.Window.To.UTC()
	counts := valueTally{}
	// read adds the counts per value of table's rows whose column col is
	// in [from, to). PostgreSQL sums them per value; SQLite returns the
	// rows, summed here: its GROUP BY sorts them first, in a buffer that
	// grows by reallocation, and growing and freeing it was 40% of the
	// breakdowns' time in a profile.
	pg := s.db.Dialect().Name() == dialect.PG
	read := func(table, col string, from, to time.Time) error {
		if !from.Before(to) {
			return nil
		}
		q := s.db.NewSelect().TableExpr(table).
			Where("org_id = ? AND dim = ?", set.OrgID, string(by)).
			Where("? >= ? AND ? < ?", bun.Ident(col), from.Unix(), bun.Ident(col), to.Unix())
		if pg {
			q = q.Column("value").ColumnExpr("sum(clicks)").ColumnExpr("sum(installs)").GroupExpr("value")
		} else {
			q = q.Column("value", "clicks", "installs")
		}
		if values != nil {
			q = q.Where("value IN (?)", bun.List(values))
		}
		rows, err := q.Rows(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = rows.Close() }()
		var value string
		var clicks, installs int64
		for rows.Next() {
			if err := rows.Scan(&value, &clicks, &installs); err != nil {
				return err
			}
			counts.add(value, clicks, installs)
		}
		return rows.Err()
	}
	// The quarter hours are one range of the index on (org_id, dim,
	// slot), which SQLite is told to use: without statistics it would read
	// every quarter hour of the dimension through the primary key.
	quarters := "click_rollup_dims AS rd"
	if !pg {
		quarters += " INDEXED BY click_rollup_dims_org_id_dim_slot_idx"
	}
	const hours, days = "click_rollup_dim_hours AS rdh", "click_rollup_dim_days AS rdd"
	var err error
	for _, p := range windowParts(from, to) {
		switch p.grain {
		case time.Hour:
			err = read(hours, "hour", p.from, p.to)
		case 24 * time.Hour:
			err = read(days, "day", p.from, p.to)
		default:
			err = read(quarters, "slot", p.from, p.to)
		}
		if err != nil {
			return nil, s.err("count clicks by "+string(by), err)
		}
	}
	return counts.counts(), nil
}

// windowPart is a range of a window that one rollup table covers with
// rows of grain each.
type windowPart struct {
	from, to time.Time
	grain    time.Duration
}

// windowParts splits [from, to), whose ends are UTC quarter hours, into
// the fewest rows of the rollups: the whole UTC days, the whole hours
// before and after them, and the quarter hours left at the edges. Parts
// may be empty.
func windowParts(from, to time.Time) []windowPart {
	ceil := func(t time.Time, d time.Duration) time.Time {
		if f := t.Truncate(d); f.Before(t) {
			return f.Add(d)
		}
		return t
	}
	firstHour, lastHour := ceil(from, time.Hour), to.Truncate(time.Hour)
	if !firstHour.Before(lastHour) {
		return []windowPart{{from, to, 15 * time.Minute}}
	}
	firstDay, lastDay := ceil(from, 24*time.Hour), to.Truncate(24*time.Hour)
	if !firstDay.Before(lastDay) {
		return []windowPart{{from, firstHour, 15 * time.Minute}, {firstHour, lastHour, time.Hour},
			{lastHour, to, 15 * time.Minute}}
	}
	return []windowPart{{from, firstHour, 15 * time.Minute}, {firstHour, firstDay, time.Hour},
		{firstDay, lastDay, 24 * time.Hour}, {lastDay, lastHour, time.Hour}, {lastHour, to, 15 * time.Minute}}
}

// valueTally sums clicks and installs per dimension value as the rollups
// hold it ("" for unknown).
type valueTally map[string]*analytics.ValueCount

// add adds clicks and installs to value's counts.
func (t valueTally) add(value string, clicks, installs int64) {
	vc := t[value]
	if vc == nil {
		vc = &analytics.ValueCount{}
		if value != "" {
			v := value
			vc.Value = &v
		}
		t[value] = vc
	}
	vc.Clicks += clicks
	vc.Installs += installs
}

// counts returns the counts with clicks or installs, in any order.
func (t valueTally) counts() []analytics.ValueCount {
	out := make([]analytics.ValueCount, 0, len(t))
	for _, vc := range t {
		if vc.Clicks != 0 || vc.Installs != 0 {
			out = append(out, *vc)
		}
	}
	return out
}

// attributedClicks returns the ids of set's window's clicks that an
// install was attributed to, each with its number of installs.
func (s *Store) attributedClicks(ctx context.Context, set analytics.ClickSet) (map[uuid.UUID]int64, error) {
	var ids []uuid.UUID
	err := s.db.NewSelect().TableExpr("installs AS i").Join("JOIN clicks AS c ON c.id = i.click_id").
		ColumnExpr("i.click_id").
		Where("c.org_id = ? AND c.occurred_at >= ? AND c.occurred_at < ?", set.OrgID, set.Window.From.UTC(), set.Window.To.UTC()).
		Scan(ctx, &ids)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(ids))
	for _, id := range ids {
		out[id]++
	}
	return out, nil
}

// countSlotsScan is CountClickSlots over raw clicks.
func (s *Store) countSlotsScan(ctx context.Context, set analytics.ClickSet) ([]analytics.SlotCount, error) {
	installs, err := s.attributedClicks(ctx, set)
	if err != nil {
		return nil, s.err("count click slots", err)
	}
	slots := map[time.Time]*analytics.SlotCount{}
	err = s.scanClicks(ctx, set.OrgID, set.Window, set.Filter, set.CreatedBy, func(c *analytics.Click) error {
		slot := analytics.SlotOf(c.OccurredAt)
		sc := slots[slot]
		if sc == nil {
			sc = &analytics.SlotCount{Start: slot}
			slots[slot] = sc
		}
		sc.Clicks++
		sc.Installs += installs[c.ID]
		return nil
	})
	if err != nil {
		return nil, s.err("count click slots", err)
	}
	out := make([]analytics.SlotCount, 0, len(slots))
	for _, sc := range slots {
		out = append(out, *sc)
	}
	return out, nil
}

// countByScan is CountClicksBy over raw clicks.
func (s *Store) countByScan(ctx context.Context, set analytics.ClickSet, by analytics.Dimension) ([]analytics.ValueCount, error) {
	installs, err := s.attributedClicks(ctx, set)
	if err != nil {
		return nil, s.err("count clicks by "+string(by), err)
	}
	counts := valueTally{}
	err = s.scanClicks(ctx, set.OrgID, set.Window, set.Filter, set.CreatedBy, func(c *analytics.Click) error {
		counts.add(rollupValue(c, by), 1, installs[c.ID])
		return nil
	})
	if err != nil {
		return nil, s.err("count clicks by "+string(by), err)
	}
	return counts.counts(), nil
}

// UnstoredClicks implements analytics.QueryStore.
func (s *Store) UnstoredClicks(ctx context.Context, orgID uuid.UUID, w analytics.Window) (int64, error) {
	var n sql.NullInt64
	err := s.db.NewSelect().Model((*clickUnstoredRow)(nil)).ColumnExpr("sum(cu.count)").
		Where("cu.org_id = ? AND cu.slot >= ? AND cu.slot < ?", orgID, w.From.UTC(), w.To.UTC()).Scan(ctx, &n)
	if err != nil {
		return 0, s.err("unstored clicks", err)
	}
	return n.Int64, nil
}
