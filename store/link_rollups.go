package store

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// The link rollups (click_link_rollups, migration 20261203000001) hold,
// per organization, link, and UTC hour (span 3600) or UTC day (span
// 86400), one row whose data is an analytics.LinkRollup: the clicks and
// installs of the link in that span per value of every dimension but
// link. A breakdown narrowed to a few links reads them (analytics.go):
// clicks are Zipf-skewed over links, and the long tail has well under one
// click a link-day, so a row per link, dimension value and day would cost
// about fourteen rows a click where this costs at most two.
//
// App and domain are in the rollup: a link's app can change (PATCH
// app_id) and so can its domain (a move, MoveLink), and a click keeps the
// app and domain it had when it was made, which is what a breakdown by
// either counts. For the same reason a filter on app_id does not reduce
// to a set of links.
//
// They change with the other rollups, in the same transactions, through
// rollupDelta.apply: the rows of a change's keys are read, merged in Go
// and written back. On PostgreSQL the keys' rows are first inserted empty
// (ON CONFLICT DO NOTHING) and then read FOR UPDATE, in key order, so that
// two writers in two processes each wait for the other's row instead of
// overwriting it, and take their locks in one order; SQLite has one
// writer. The statements are as many per change however many rows it
// touches. A row left without counts (its clicks removed) is deleted.

// Link rollup spans, in seconds.
const (
	linkRollupHour = 3600
	linkRollupDay  = 86400
)

// maxRollupLinks is the largest set of links whose breakdown is read from
// the link rollups; a larger set is scanned.
const maxRollupLinks = 200

// linkRollupRow is a row of click_link_rollups.
type linkRollupRow struct {
	bun.BaseModel `bun:"table:click_link_rollups,alias:lr"`

	OrgID  uuid.UUID `bun:"org_id,pk"`
	LinkID uuid.UUID `bun:"link_id,pk"`
	Span   int64     `bun:"span,pk"`
	Start  int64     `bun:"start,pk"`
	Data   []byte    `bun:"data"`
}

// linkRollupDims are the dimensions a link rollup holds: all but link.
var linkRollupDims = func() []analytics.Dimension {
	var out []analytics.Dimension
	for _, d := range analytics.Dimensions() {
		if d != analytics.DimLink {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}()

type linkRollupKey struct {
	org, link   uuid.UUID
	span, start int64
}

func (a linkRollupKey) compare(b linkRollupKey) int {
	if c := bytes.Compare(a.org[:], b.org[:]); c != 0 {
		return c
	}
	if c := bytes.Compare(a.link[:], b.link[:]); c != 0 {
		return c
	}
	if a.span != b.span {
		return cmp.Compare(a.span, b.span)
	}
	return cmp.Compare(a.start, b.start)
}

// linkDimValue is a value of one dimension, by its index in
// linkRollupDims; names beyond them are dimensions a later writer added.
type linkDimValue struct {
	dim   int
	value string
}

// linkCounts is a link rollup being merged: counts per dimension value,
// and the dimensions read that this writer does not know, kept as they
// were.
type linkCounts struct {
	values  map[linkDimValue]*rollupCounts
	unknown []analytics.LinkRollupDim
}

func (lc *linkCounts) add(k linkDimValue, clicks, installs int64) {
	n := lc.values[k]
	if n == nil {
		n = &rollupCounts{}
		lc.values[k] = n
	}
	n.clicks += clicks
	n.installs += installs
}

// merge adds the decoded rollup r.
func (lc *linkCounts) merge(r *analytics.LinkRollup) {
	for _, d := range r.Dims {
		i := sort.Search(len(linkRollupDims), func(i int) bool { return linkRollupDims[i] >= d.Dim })
		if i == len(linkRollupDims) || linkRollupDims[i] != d.Dim {
			lc.unknown = append(lc.unknown, d)
			continue
		}
		for _, v := range d.Values {
			lc.add(linkDimValue{i, v.Value}, v.Clicks, v.Installs)
		}
	}
}

// rollup returns the counts as a rollup, leaving out the values without
// clicks or installs. A count below zero (more removed than was counted,
// which a consistent store never has) is kept at zero.
func (lc *linkCounts) rollup() *analytics.LinkRollup {
	r := &analytics.LinkRollup{}
	for k, n := range lc.values {
		if n.clicks <= 0 && n.installs <= 0 {
			continue
		}
		for len(r.Dims) <= k.dim {
			r.Dims = append(r.Dims, analytics.LinkRollupDim{Dim: linkRollupDims[len(r.Dims)]})
		}
		r.Dims[k.dim].Values = append(r.Dims[k.dim].Values,
			analytics.LinkRollupValue{Value: k.value, Clicks: max(n.clicks, 0), Installs: max(n.installs, 0)})
	}
	kept := r.Dims[:0]
	for _, d := range r.Dims {
		if len(d.Values) > 0 {
			sort.Slice(d.Values, func(i, j int) bool { return d.Values[i].Value < d.Values[j].Value })
			kept = append(kept, d)
		}
	}
	r.Dims = append(kept, lc.unknown...)
	sort.Slice(r.Dims, func(i, j int) bool { return r.Dims[i].Dim < r.Dims[j].Dim })
	return r
}

// linkRollupDeltas derives a change's link rollups from its tuples: per
// link and UTC hour, and per link and UTC day.
func linkRollupDeltas(tuples map[rollupTuple]*rollupCounts) map[linkRollupKey]*linkCounts {
	out := map[linkRollupKey]*linkCounts{}
	get := func(k linkRollupKey) *linkCounts {
		lc := out[k]
		if lc == nil {
			lc = &linkCounts{values: map[linkDimValue]*rollupCounts{}}
			out[k] = lc
		}
		return lc
	}
	names := map[uuid.UUID]string{}
	var hours []linkRollupKey
	for t, n := range tuples {
		k := linkRollupKey{t.org, t.link, linkRollupHour, t.slot - t.slot%linkRollupHour}
		lc := out[k]
		if lc == nil {
			hours = append(hours, k)
			lc = get(k)
		}
		for i, d := range linkRollupDims {
			lc.add(linkDimValue{i, t.value(d, names)}, n.clicks, n.installs)
		}
	}
	// A day is the sum of its hours, which have fewer values than the
	// tuples.
	for _, k := range hours {
		hour := out[k]
		day := get(linkRollupKey{k.org, k.link, linkRollupDay, k.start - k.start%linkRollupDay})
		for v, n := range hour.values {
			day.add(v, n.clicks, n.installs)
		}
	}
	return out
}

// applyLinkRollups adds the link rollups of tuples to click_link_rollups
// in tx.
func applyLinkRollups(ctx context.Context, tx bun.Tx, tuples map[rollupTuple]*rollupCounts) error {
	deltas := linkRollupDeltas(tuples)
	if len(deltas) == 0 {
		return nil
	}
	keys := make([]linkRollupKey, 0, len(deltas))
	for k := range deltas {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].compare(keys[j]) < 0 })
	pg := tx.Dialect().Name() == dialect.PG
	if pg {
		empty, err := analytics.EncodeLinkRollup(nil, &analytics.LinkRollup{})
		if err != nil {
			return err
		}
		rows := make([]linkRollupRow, len(keys))
		for i, k := range keys {
			rows[i] = linkRollupRow{OrgID: k.org, LinkID: k.link, Span: k.span, Start: k.start, Data: empty}
		}
		if _, err := tx.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return err
		}
	}
	// The keys' rows, through the primary key: a list of row values
	// joined to the table (SQLite scans the whole table for a row value
	// IN a list).
	with, args := linkRollupKeys(keys, pg)
	query := with + ` SELECT lr.org_id, lr.link_id, lr.span, lr.start, lr.data FROM k CROSS JOIN click_link_rollups AS lr
		WHERE lr.org_id = k.org_id AND lr.link_id = k.link_id AND lr.span = k.span AND lr.start = k.start`
	if pg {
		query += " ORDER BY lr.org_id, lr.link_id, lr.span, lr.start FOR UPDATE OF lr"
	}
	var existing []linkRollupRow
	if err := tx.NewRaw(query, args...).Scan(ctx, &existing); err != nil {
		return err
	}
	for i := range existing {
		e := &existing[i]
		r, err := analytics.DecodeLinkRollup(e.Data)
		if err != nil {
			return fmt.Errorf("link rollup %s/%d/%d: %w", e.LinkID, e.Span, e.Start, err)
		}
		if lc := deltas[linkRollupKey{e.OrgID, e.LinkID, e.Span, e.Start}]; lc != nil {
			lc.merge(r)
		}
	}
	rows := make([]linkRollupRow, 0, len(keys))
	var gone []linkRollupKey
	for _, k := range keys {
		r := deltas[k].rollup()
		if len(r.Dims) == 0 {
			gone = append(gone, k)
			continue
		}
		data, err := analytics.EncodeLinkRollup(nil, r)
		if err != nil {
			return err
		}
		rows = append(rows, linkRollupRow{OrgID: k.org, LinkID: k.link, Span: k.span, Start: k.start, Data: data})
	}
	if err := upsertLinkRollups(ctx, tx, pg, rows); err != nil {
		return err
	}
	if len(gone) > 0 {
		with, args := linkRollupKeys(gone, pg)
		match := "lr.org_id = k.org_id AND lr.link_id = k.link_id AND lr.span = k.span AND lr.start = k.start"
		query := with + " DELETE FROM click_link_rollups AS lr USING k WHERE " + match
		if !pg {
			query = with + " DELETE FROM click_link_rollups WHERE rowid IN (SELECT lr.rowid FROM k CROSS JOIN click_link_rollups AS lr WHERE " + match + ")"
		}
		if _, err := tx.NewRaw(query, args...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rollupLinks returns the links that set's clicks are the clicks of, when
// set reduces to a set of at most maxRollupLinks links (ok true): a
// filter of link_id, tag or both, a member's reach, or a member's reach
// with those. The links of tombstones are left out, as a scan skips
// their clicks.
func (s *Store) rollupLinks(ctx context.Context, set analytics.ClickSet) (links []uuid.UUID, ok bool, err error) {
	f := set.Filter
	if f != (analytics.Filter{LinkID: f.LinkID, Tag: f.Tag}) || f.LinkID == nil && f.Tag == nil && set.CreatedBy == nil {
		return nil, false, nil
	}
	if f.Tag != nil || set.CreatedBy != nil {
		if links, err = s.linkIDsOf(ctx, set.OrgID, set.CreatedBy, f.Tag, maxRollupLinks+1); err != nil {
			return nil, false, err
		}
		if len(links) > maxRollupLinks {
			return nil, false, nil
		}
		if f.LinkID != nil {
			in := false
			for _, id := range links {
				in = in || id == *f.LinkID
			}
			links = nil
			if in {
				links = []uuid.UUID{*f.LinkID}
			}
		}
	} else {
		links = []uuid.UUID{*f.LinkID}
	}
	if len(links) == 0 {
		return nil, true, nil
	}
	var gone []uuid.UUID
	if err := s.db.NewSelect().Table("click_link_tombstones").Column("link_id").
		Where("org_id = ? AND link_id IN (?)", set.OrgID, bun.List(links)).Scan(ctx, &gone); err != nil {
		return nil, false, err
	}
	if len(gone) > 0 {
		deleted := idSet(gone)
		kept := links[:0]
		for _, id := range links {
			if !deleted[id] {
				kept = append(kept, id)
			}
		}
		links = kept
	}
	return links, true, nil
}

// countByLinkRollups is CountClicksBy of set, whose clicks are those of
// links (rollupLinks) and whose window starts and ends on quarter hours:
// the window's whole UTC days from the day rows, the whole hours before
// the first and after the last from the hour rows, and the quarter hours
// left at its edges (at most three each side) from a scan of those alone,
// when the links have clicks in their hour.
func (s *Store) countByLinkRollups(ctx context.Context, set analytics.ClickSet, by analytics.Dimension, links []uuid.UUID) ([]analytics.ValueCount, error) {
	op := "count clicks by " + string(by)
	if len(links) == 0 {
		return nil, nil
	}
	from, to := set.Window.From.UTC().Unix(), set.Window.To.UTC().Unix()
	up := func(t, span int64) int64 { return (t + span - 1) / span * span }
	down := func(t, span int64) int64 { return t / span * span }
	type part struct{ span, from, to int64 }
	var parts []part
	var scans [][2]int64
	firstHour, lastHour := up(from, linkRollupHour), down(to, linkRollupHour)
	firstDay, lastDay := up(from, linkRollupDay), down(to, linkRollupDay)
	switch {
	case firstDay < lastDay:
		parts = []part{{linkRollupDay, firstDay, lastDay}, {linkRollupHour, firstHour, firstDay}, {linkRollupHour, lastDay, lastHour}}
		scans = [][2]int64{{from, firstHour}, {lastHour, to}}
	case firstHour < lastHour:
		parts = []part{{linkRollupHour, firstHour, lastHour}}
		scans = [][2]int64{{from, firstHour}, {lastHour, to}}
	default:
		scans = [][2]int64{{from, to}}
	}

	counts := valueTally{}
	for _, p := range parts {
		if p.from >= p.to {
			continue
		}
		var rows []linkRollupRow
		if err := s.db.NewSelect().Model(&rows).Column("link_id", "data").
			Where("lr.org_id = ? AND lr.link_id IN (?) AND lr.span = ? AND lr.start >= ? AND lr.start < ?",
				set.OrgID, bun.List(links), p.span, p.from, p.to).Scan(ctx); err != nil {
			return nil, s.err(op, err)
		}
		for i := range rows {
			r, err := analytics.DecodeLinkRollup(rows[i].Data)
			if err != nil {
				return nil, fmt.Errorf("store: %s: link rollup of %s: %w", op, rows[i].LinkID, err)
			}
			if by == analytics.DimLink {
				// Every dimension's values add up to the link's counts.
				var clicks, installs int64
				for _, v := range r.Dim(linkRollupDims[0]) {
					clicks, installs = clicks+v.Clicks, installs+v.Installs
				}
				counts.add(rows[i].LinkID.String(), clicks, installs)
				continue
			}
			for _, v := range r.Dim(by) {
				counts.add(v.Value, v.Clicks, v.Installs)
			}
		}
	}
	// An edge's quarter hours are scanned only when the links have
	// clicks in its hour: a row of the hour exists then, and only then
	// (a row left without counts is deleted).
	var hours []int64
	for _, sc := range scans {
		if sc[0] < sc[1] {
			hours = append(hours, down(sc[0], linkRollupHour), down(sc[1]-1, linkRollupHour))
		}
	}
	busy := map[int64]bool{}
	if len(hours) > 0 {
		var starts []int64
		if err := s.db.NewSelect().Model((*linkRollupRow)(nil)).Column("start").
			Where("lr.org_id = ? AND lr.link_id IN (?) AND lr.span = ? AND lr.start IN (?)",
				set.OrgID, bun.List(links), linkRollupHour, bun.List(hours)).Scan(ctx, &starts); err != nil {
			return nil, s.err(op, err)
		}
		for _, h := range starts {
			busy[h] = true
		}
	}
	for _, sc := range scans {
		if sc[0] >= sc[1] || !busy[down(sc[0], linkRollupHour)] && !busy[down(sc[1]-1, linkRollupHour)] {
			continue
		}
		edge := set
		edge.Window = analytics.Window{From: time.Unix(sc[0], 0).UTC(), To: time.Unix(sc[1], 0).UTC()}
		got, err := s.countByScan(ctx, edge, by)
		if err != nil {
			return nil, err
		}
		for _, vc := range got {
			v := ""
			if vc.Value != nil {
				v = *vc.Value
			}
			counts.add(v, vc.Clicks, vc.Installs)
		}
	}
	return counts.counts(), nil
}

// linkRollupChunk is how many rows one upsert writes on SQLite, five
// values bound each (SQLite binds at most 32,766).
const linkRollupChunk = 1000

// upsertLinkRollups writes rows over the rows of their keys. On SQLite
// the values are bound natively: bun would write each blob into the
// statement's text in hexadecimal, which SQLite parses again, and a
// statement of a few hundred kilobytes cost the driver's allocator a
// mapping of its own.
func upsertLinkRollups(ctx context.Context, tx bun.Tx, pg bool, rows []linkRollupRow) error {
	if len(rows) == 0 {
		return nil
	}
	if pg {
		_, err := tx.NewInsert().Model(&rows).On("CONFLICT (org_id, link_id, span, start) DO UPDATE").
			Set("data = EXCLUDED.data").Exec(ctx)
		return err
	}
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), linkRollupChunk)]
		rows = rows[len(chunk):]
		var q strings.Builder
		q.WriteString(`INSERT INTO "click_link_rollups" ("org_id", "link_id", "span", "start", "data") VALUES `)
		args := make([]any, 0, 5*len(chunk))
		for i := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?)")
			r := &chunk[i]
			args = append(args, r.OrgID.String(), r.LinkID.String(), r.Span, r.Start, r.Data)
		}
		q.WriteString(` ON CONFLICT ("org_id", "link_id", "span", "start") DO UPDATE SET "data" = excluded."data"`)
		if _, err := tx.Tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// linkRollupKeys returns keys as the common table expression k, with the
// values it binds.
func linkRollupKeys(keys []linkRollupKey, pg bool) (string, []any) {
	var b strings.Builder
	b.WriteString("WITH k (org_id, link_id, span, start) AS (VALUES ")
	args := make([]any, 0, 4*len(keys))
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if pg {
			b.WriteString("(?::uuid, ?::uuid, ?::integer, ?::bigint)")
		} else {
			b.WriteString("(?, ?, ?, ?)")
		}
		args = append(args, k.org, k.link, k.span, k.start)
	}
	b.WriteString(")")
	return b.String(), args
}
