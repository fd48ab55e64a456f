package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// The link rollups (click_link_rollups, migration 20261203000001) hold,
// per organization, UTC hour (span 3600) or UTC day (span 86400), and
// link, one row whose data is an analytics.LinkRollup: the clicks and
// installs of the link in that span per value of every dimension but
// link. A breakdown narrowed to a few links reads them (analytics.go):
// clicks are Zipf-skewed over links, and the long tail has well under one
// click a link-day, so a row per link, dimension value and day would cost
// about fourteen rows a click where this costs at most two.
//
// The writer writes hour rows; a day's rows are summed from its hours
// once it has ended, and until then a reader sums the hours
// (link_rollup_folds.go).
//
// The rows are keyed by (org_id, span, start, link_id) (migration
// 20261203000006), the order in which they are written: a batch of many
// links' clicks touches the rows of the current hour and day, which lie
// together however many links it has. A link's window is read by its
// starts, a lookup of the key for each span of the window and link.
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
// overwriting it, and take their locks in one order, in statements as
// many per change however many rows it touches; SQLite has one writer,
// which reads and writes row by row through prepared statements. A row
// left without counts (its clicks removed) is deleted.

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
	Span   int64     `bun:"span,pk"`
	Start  int64     `bun:"start,pk"`
	LinkID uuid.UUID `bun:"link_id,pk"`
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

// compare orders keys as the table's primary key does: by organization,
// span, start and link.
func (a linkRollupKey) compare(b linkRollupKey) int {
	if c := bytes.Compare(a.org[:], b.org[:]); c != 0 {
		return c
	}
	if a.span != b.span {
		return cmp.Compare(a.span, b.span)
	}
	if a.start != b.start {
		return cmp.Compare(a.start, b.start)
	}
	return bytes.Compare(a.link[:], b.link[:])
}

// linkDimValue is a value of one dimension, by its index in
// linkRollupDims.
type linkDimValue struct {
	dim   int
	value string
}

// linkCounts is a change's counts of one link rollup, per dimension
// value.
type linkCounts struct {
	values map[linkDimValue]*rollupCounts
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

// sorted returns the counts as one list per dimension of linkRollupDims
// that has values, each in ascending order of value, with the counts as
// they are (a removal's are negative).
func (lc *linkCounts) sorted() []analytics.LinkRollupDim {
	byDim := make([][]analytics.LinkRollupValue, len(linkRollupDims))
	for k, n := range lc.values {
		byDim[k.dim] = append(byDim[k.dim], analytics.LinkRollupValue{Value: k.value, Clicks: n.clicks, Installs: n.installs})
	}
	out := make([]analytics.LinkRollupDim, 0, len(linkRollupDims))
	for i, d := range linkRollupDims {
		if vs := byDim[i]; len(vs) > 0 {
			slices.SortFunc(vs, func(a, b analytics.LinkRollupValue) int { return strings.Compare(a.Value, b.Value) })
			out = append(out, analytics.LinkRollupDim{Dim: d, Values: vs})
		}
	}
	return out
}

// addLinkRollupValues returns the sum of the value lists a and b, both in
// ascending order of value, leaving out the values without clicks or
// installs; a count below zero (more removed than was counted, which a
// consistent store never has) is kept at zero.
func addLinkRollupValues(a, b []analytics.LinkRollupValue) []analytics.LinkRollupValue {
	out := make([]analytics.LinkRollupValue, 0, max(len(a), len(b)))
	keep := func(v analytics.LinkRollupValue) {
		if v.Clicks > 0 || v.Installs > 0 {
			v.Clicks, v.Installs = max(v.Clicks, 0), max(v.Installs, 0)
			out = append(out, v)
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Value < b[j].Value:
			keep(a[i])
			i++
		case i == len(a) || b[j].Value < a[i].Value:
			keep(b[j])
			j++
		default:
			keep(analytics.LinkRollupValue{Value: a[i].Value, Clicks: a[i].Clicks + b[j].Clicks, Installs: a[i].Installs + b[j].Installs})
			i++
			j++
		}
	}
	return out
}

// linkRollupDeltas derives a change's link rollups from its tuples: per
// link and UTC hour, and per link and UTC day for the days before the
// organization's fold mark (marks[org]: link_rollup_folds.go).
func linkRollupDeltas(tuples map[rollupTuple]*rollupCounts, marks map[uuid.UUID]int64) map[linkRollupKey]*linkCounts {
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
		start := k.start - k.start%linkRollupDay
		if start >= marks[k.org] {
			continue
		}
		hour := out[k]
		day := get(linkRollupKey{k.org, k.link, linkRollupDay, start})
		for v, n := range hour.values {
			day.add(v, n.clicks, n.installs)
		}
	}
	return out
}

// applyLinkRollups adds the link rollups of tuples to click_link_rollups
// in tx.
func applyLinkRollups(ctx context.Context, tx bun.Tx, tuples map[rollupTuple]*rollupCounts) error {
	if len(tuples) == 0 {
		return nil
	}
	// The mark is read under the lock a fold waits for.
	if err := lockLinkRollups(ctx, tx, "ROW EXCLUSIVE"); err != nil {
		return err
	}
	var orgs []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for t := range tuples {
		if !seen[t.org] {
			seen[t.org] = true
			orgs = append(orgs, t.org)
		}
	}
	marks, err := linkFoldMarks(ctx, tx, orgs)
	if err != nil {
		return err
	}
	deltas := linkRollupDeltas(tuples, marks)
	if len(deltas) == 0 {
		return nil
	}
	keys := make([]linkRollupKey, 0, len(deltas))
	for k := range deltas {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].compare(keys[j]) < 0 })
	if tx.Dialect().Name() == dialect.PG {
		return applyLinkRollupsPG(ctx, tx, keys, deltas)
	}
	return applyLinkRollupsSQLite(ctx, tx, keys, deltas)
}

// mergeLinkRollup adds the stored rollup data (nil when the key has no
// row) to the change's counts, by dimension, as sorted lists merged in
// one pass, and returns the encoded sum, or nil when it holds no counts
// and the row is to be deleted. A dimension this writer does not know (a
// later writer's) is kept as it was.
func mergeLinkRollup(k linkRollupKey, delta []analytics.LinkRollupDim, data []byte) ([]byte, error) {
	stored := &analytics.LinkRollup{}
	if data != nil {
		var err error
		if stored, err = analytics.DecodeLinkRollup(data); err != nil {
			return nil, fmt.Errorf("link rollup %s/%d/%d: %w", k.link, k.span, k.start, err)
		}
	}
	known := func(d analytics.Dimension) bool {
		_, ok := slices.BinarySearch(linkRollupDims, d)
		return ok
	}
	sum := &analytics.LinkRollup{Dims: make([]analytics.LinkRollupDim, 0, max(len(stored.Dims), len(delta)))}
	add := func(d analytics.Dimension, a, b []analytics.LinkRollupValue) {
		if vs := addLinkRollupValues(a, b); len(vs) > 0 {
			sum.Dims = append(sum.Dims, analytics.LinkRollupDim{Dim: d, Values: vs})
		}
	}
	i, j := 0, 0
	for i < len(stored.Dims) || j < len(delta) {
		switch {
		case j == len(delta) || i < len(stored.Dims) && stored.Dims[i].Dim < delta[j].Dim:
			if d := stored.Dims[i]; known(d.Dim) {
				add(d.Dim, d.Values, nil)
			} else {
				sum.Dims = append(sum.Dims, d)
			}
			i++
		case i == len(stored.Dims) || delta[j].Dim < stored.Dims[i].Dim:
			add(delta[j].Dim, nil, delta[j].Values)
			j++
		default:
			add(delta[j].Dim, stored.Dims[i].Values, delta[j].Values)
			i++
			j++
		}
	}
	if len(sum.Dims) == 0 {
		return nil, nil
	}
	return analytics.EncodeLinkRollup(nil, sum)
}

// The statements of applyLinkRollupsSQLite, one row each.
const (
	linkRollupSelectSQL = `SELECT "data" FROM "click_link_rollups" WHERE "org_id" = ? AND "span" = ? AND "start" = ? AND "link_id" = ?`
	linkRollupUpsertSQL = `INSERT INTO "click_link_rollups" ("org_id", "span", "start", "link_id", "data") VALUES (?, ?, ?, ?, ?)
		ON CONFLICT ("org_id", "span", "start", "link_id") DO UPDATE SET "data" = excluded."data"`
	linkRollupDeleteSQL = `DELETE FROM "click_link_rollups" WHERE "org_id" = ? AND "span" = ? AND "start" = ? AND "link_id" = ?`
)

// applyLinkRollupsSQLite reads, merges and writes each key's row through
// statements prepared once for the change. A batch of many links' clicks
// touches thousands of rows: as one statement listing every key (or every
// row's values) the text took longer for SQLite to parse and compile than
// the rows to read and write, and the pure-Go driver matches each bound
// value to its argument by a search of the arguments, so its binding grows
// with their square. The statements run without a cancellable context
// (the driver watches one with a goroutine per call); ctx is checked
// between rows.
func applyLinkRollupsSQLite(ctx context.Context, tx bun.Tx, keys []linkRollupKey, deltas map[linkRollupKey]*linkCounts) error {
	bg := context.WithoutCancel(ctx)
	stmts, closeAll, err := prepareInTx(bg, tx, linkRollupSelectSQL, linkRollupUpsertSQL, linkRollupDeleteSQL)
	if err != nil {
		return err
	}
	defer closeAll()
	sel, upsert, del := stmts[0], stmts[1], stmts[2]
	for i, k := range keys {
		if i%clickCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		org, link := k.org.String(), k.link.String()
		var stored []byte
		if err := sel.QueryRowContext(bg, org, k.span, k.start, link).Scan(&stored); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		data, err := mergeLinkRollup(k, deltas[k].sorted(), stored)
		if err != nil {
			return err
		}
		switch {
		case data != nil:
			_, err = upsert.ExecContext(bg, org, k.span, k.start, link, data)
		case stored != nil:
			_, err = del.ExecContext(bg, org, k.span, k.start, link)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// prepareInTx prepares queries in tx, in their order, and returns them
// with the function that closes them; on an error none stays open.
func prepareInTx(ctx context.Context, tx bun.Tx, queries ...string) ([]*sql.Stmt, func(), error) {
	stmts := make([]*sql.Stmt, 0, len(queries))
	closeAll := func() {
		for _, st := range stmts {
			_ = st.Close()
		}
	}
	for _, q := range queries {
		st, err := tx.Tx.PrepareContext(ctx, q)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, closeAll, nil
}

// applyLinkRollupsPG inserts the keys' rows empty where missing, reads
// them FOR UPDATE in key order, and writes the sums back in one upsert
// and one delete: statements as many per change however many rows it
// touches, each a round trip.
func applyLinkRollupsPG(ctx context.Context, tx bun.Tx, keys []linkRollupKey, deltas map[linkRollupKey]*linkCounts) error {
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
	// The keys' rows, through the primary key: a list of row values
	// joined to the table.
	with, args := linkRollupKeys(keys)
	query := with + ` SELECT lr.org_id, lr.link_id, lr.span, lr.start, lr.data FROM k CROSS JOIN click_link_rollups AS lr
		WHERE lr.org_id = k.org_id AND lr.link_id = k.link_id AND lr.span = k.span AND lr.start = k.start
		ORDER BY lr.org_id, lr.span, lr.start, lr.link_id FOR UPDATE OF lr`
	var existing []linkRollupRow
	if err := tx.NewRaw(query, args...).Scan(ctx, &existing); err != nil {
		return err
	}
	stored := make(map[linkRollupKey][]byte, len(existing))
	for i := range existing {
		e := &existing[i]
		stored[linkRollupKey{e.OrgID, e.LinkID, e.Span, e.Start}] = e.Data
	}
	rows = rows[:0]
	var gone []linkRollupKey
	for _, k := range keys {
		data, err := mergeLinkRollup(k, deltas[k].sorted(), stored[k])
		if err != nil {
			return err
		}
		if data == nil {
			gone = append(gone, k)
			continue
		}
		rows = append(rows, linkRollupRow{OrgID: k.org, LinkID: k.link, Span: k.span, Start: k.start, Data: data})
	}
	if len(rows) > 0 {
		if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (org_id, span, start, link_id) DO UPDATE").
			Set("data = EXCLUDED.data").Exec(ctx); err != nil {
			return err
		}
	}
	if len(gone) > 0 {
		with, args := linkRollupKeys(gone)
		query := with + ` DELETE FROM click_link_rollups AS lr USING k
			WHERE lr.org_id = k.org_id AND lr.link_id = k.link_id AND lr.span = k.span AND lr.start = k.start`
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
		// The days from the organization's fold mark on have hour rows
		// only (link_rollup_folds.go).
		marks, err := linkFoldMarks(ctx, s.db, []uuid.UUID{set.OrgID})
		if err != nil {
			return nil, s.err(op, err)
		}
		folded := min(max(marks[set.OrgID], firstDay), lastDay)
		parts = []part{{linkRollupDay, firstDay, folded}, {linkRollupHour, folded, lastDay},
			{linkRollupHour, firstHour, firstDay}, {linkRollupHour, lastDay, lastHour}}
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
		// The part's starts, each with the links, are lookups of the key;
		// a range of starts would read every link's rows in it.
		starts := make([]int64, 0, (p.to-p.from)/p.span)
		for t := p.from; t < p.to; t += p.span {
			starts = append(starts, t)
		}
		var rows []linkRollupRow
		if err := s.db.NewSelect().Model(&rows).Column("link_id", "data").
			Where("lr.org_id = ? AND lr.span = ? AND lr.start IN (?) AND lr.link_id IN (?)",
				set.OrgID, p.span, bun.List(starts), bun.List(links)).Scan(ctx); err != nil {
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
			Where("lr.org_id = ? AND lr.span = ? AND lr.start IN (?) AND lr.link_id IN (?)",
				set.OrgID, linkRollupHour, bun.List(hours), bun.List(links)).Scan(ctx, &starts); err != nil {
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

// linkRollupKeys returns keys as the common table expression k, with the
// values it binds (PostgreSQL).
func linkRollupKeys(keys []linkRollupKey) (string, []any) {
	var b strings.Builder
	b.WriteString("WITH k (org_id, link_id, span, start) AS (VALUES ")
	args := make([]any, 0, 4*len(keys))
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?::uuid, ?::uuid, ?::integer, ?::bigint)")
		args = append(args, k.org, k.link, k.span, k.start)
	}
	b.WriteString(")")
	return b.String(), args
}
