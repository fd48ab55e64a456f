package migrations

import (
	"bytes"
	"context"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// Link rollups: a breakdown narrowed to a link (the dashboard's per-link
// page), a tag or a member's links read, per link and UTC hour (span 3600)
// or UTC day (span 86400), one row of click_link_rollups whose data holds
// the counts of every dimension but link (analytics.EncodeLinkRollup),
// instead of decoding every segment of the organization's window. start
// is the Unix second the span starts at.
//
// Existing clicks are counted from the segments, per organization in
// (first_at, id) order a page at a time, with the installs attributed to
// them (installs.click_id, whose click has a row of clicks). Since a
// segment's clicks are at or after its first_at, a span that ends at or
// before the next segment's first_at has all its clicks, and is written
// then. The clicks of deleted links not yet compacted are counted too: the
// compaction subtracts them, as from the other rollups.
//
// The encoding is analytics.EncodeLinkRollup's: its format carries a
// version, and every version stays readable, so this migration calls it
// rather than a frozen copy.

// clickLinkRollup is a row of click_link_rollups, frozen as of this
// migration.
type clickLinkRollup struct {
	bun.BaseModel `bun:"table:click_link_rollups"`

	OrgID  uuid.UUID `bun:"org_id,pk,type:uuid"`
	LinkID uuid.UUID `bun:"link_id,pk,type:uuid"`
	Span   int64     `bun:"span,pk,type:integer"`
	Start  int64     `bun:"start,pk"`
	Data   []byte    `bun:"data,notnull"`
}

// clickLinkRollupPage is how many segments one step of the backfill reads.
const clickLinkRollupPage = 100

// clickLinkRollupDims are the dimensions of a link rollup as of this
// migration, in the encoding's order (by name), each with a click's value.
var clickLinkRollupDims = []struct {
	name  analytics.Dimension
	value func(c *analytics.Click) string
}{
	{"app", func(c *analytics.Click) string {
		if c.AppID == nil {
			return ""
		}
		return c.AppID.String()
	}},
	{"browser", func(c *analytics.Click) string { return c.Browser }},
	{"country", func(c *analytics.Click) string { return c.Country }},
	{"device_model", func(c *analytics.Click) string { return c.DeviceModel }},
	{"domain", func(c *analytics.Click) string { return c.Domain }},
	{"in_app_browser", func(c *analytics.Click) string { return c.InAppBrowser }},
	{"os", func(c *analytics.Click) string { return c.OS }},
	{"os_version", func(c *analytics.Click) string { return c.OSVersion }},
	{"platform", func(c *analytics.Click) string { return c.Platform }},
	{"referer_host", func(c *analytics.Click) string { return c.RefererHost }},
	{"source", func(c *analytics.Click) string { return string(c.Source) }},
	{"utm_campaign", func(c *analytics.Click) string { return c.UTMCampaign }},
	{"utm_content", func(c *analytics.Click) string { return c.UTMContent }},
	{"utm_medium", func(c *analytics.Click) string { return c.UTMMedium }},
	{"utm_source", func(c *analytics.Click) string { return c.UTMSource }},
	{"utm_term", func(c *analytics.Click) string { return c.UTMTerm }},
}

type clickLinkRollupKey struct {
	link        uuid.UUID
	span, start int64
}

// clickLinkRollupCounts is a rollup being counted: per dimension (by index)
// and value, clicks and installs.
type clickLinkRollupCounts []map[string]*[2]int64

func init() {
	Migrations.MustRegister(clickLinkRollupsUp, clickLinkRollupsDown)
}

func clickLinkRollupsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*clickLinkRollup)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		var orgs []uuid.UUID
		if err := tx.NewSelect().Table("organizations").Column("id").OrderExpr("id").Scan(ctx, &orgs); err != nil {
			return err
		}
		for _, org := range orgs {
			if err := backfillClickLinkRollups(ctx, tx, org); err != nil {
				return err
			}
		}
		return nil
	})
}

// backfillClickLinkRollups counts organization org's segments into
// click_link_rollups.
func backfillClickLinkRollups(ctx context.Context, tx bun.Tx, org uuid.UUID) error {
	open := map[clickLinkRollupKey]clickLinkRollupCounts{}
	var last *clickSegment
	for {
		var segs []clickSegment
		q := tx.NewSelect().Model(&segs).Column("id", "org_id", "first_at", "last_at", "data").Where("org_id = ?", org)
		if last != nil {
			q = q.Where("(first_at > ? OR (first_at = ? AND id > ?))", last.FirstAt, last.FirstAt, last.ID)
		}
		if err := q.OrderExpr("first_at, id").Limit(clickLinkRollupPage).Scan(ctx); err != nil {
			return err
		}
		if len(segs) == 0 {
			break
		}
		installs, err := clickLinkRollupInstalls(ctx, tx, org, segs)
		if err != nil {
			return err
		}
		for i := range segs {
			// Every span that ends by this segment's first click is whole.
			if err := flushClickLinkRollups(ctx, tx, org, open, segs[i].FirstAt.UTC().Unix()); err != nil {
				return err
			}
			clicks, err := analytics.DecodeSegment(org, segs[i].Data)
			if err != nil {
				return err
			}
			for j := range clicks {
				c := &clicks[j]
				at := c.OccurredAt.UTC().Unix()
				for _, k := range []clickLinkRollupKey{{c.LinkID, 3600, at - at%3600}, {c.LinkID, 86400, at - at%86400}} {
					counts := open[k]
					if counts == nil {
						counts = make(clickLinkRollupCounts, len(clickLinkRollupDims))
						for d := range counts {
							counts[d] = map[string]*[2]int64{}
						}
						open[k] = counts
					}
					for d, dim := range clickLinkRollupDims {
						v := dim.value(c)
						n := counts[d][v]
						if n == nil {
							n = &[2]int64{}
							counts[d][v] = n
						}
						n[0]++
						n[1] += installs[c.ID]
					}
				}
			}
		}
		if len(segs) < clickLinkRollupPage {
			break
		}
		last = &segs[len(segs)-1]
	}
	return flushClickLinkRollups(ctx, tx, org, open, 1<<62)
}

// clickLinkRollupInstalls returns the installs attributed to the clicks of
// segs, by click id: the installs whose click has a row of clicks in the
// segments' time.
func clickLinkRollupInstalls(ctx context.Context, tx bun.Tx, org uuid.UUID, segs []clickSegment) (map[uuid.UUID]int64, error) {
	from, to := segs[0].FirstAt, segs[0].LastAt
	for i := range segs {
		if segs[i].LastAt.After(to) {
			to = segs[i].LastAt
		}
	}
	var ids []uuid.UUID
	if err := tx.NewSelect().TableExpr("installs AS i").Join("JOIN clicks AS c ON c.id = i.click_id").
		ColumnExpr("i.click_id").Where("c.org_id = ? AND c.occurred_at >= ? AND c.occurred_at <= ?",
		org, from.UTC(), to.UTC().Add(time.Millisecond)).Scan(ctx, &ids); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(ids))
	for _, id := range ids {
		out[id]++
	}
	return out, nil
}

// flushClickLinkRollups writes the rollups of open that end at or before
// cut, in key order, and forgets them.
func flushClickLinkRollups(ctx context.Context, tx bun.Tx, org uuid.UUID, open map[clickLinkRollupKey]clickLinkRollupCounts, cut int64) error {
	var keys []clickLinkRollupKey
	for k := range open {
		if k.start+k.span <= cut {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if c := bytes.Compare(a.link[:], b.link[:]); c != 0 {
			return c < 0
		}
		if a.span != b.span {
			return a.span < b.span
		}
		return a.start < b.start
	})
	const chunk = 500
	rows := make([]clickLinkRollup, 0, chunk)
	write := func() error {
		if len(rows) == 0 {
			return nil
		}
		_, err := tx.NewInsert().Model(&rows).Exec(ctx)
		rows = rows[:0]
		return err
	}
	for _, k := range keys {
		r := &analytics.LinkRollup{}
		for d, values := range open[k] {
			dim := analytics.LinkRollupDim{Dim: clickLinkRollupDims[d].name}
			for v, n := range values {
				dim.Values = append(dim.Values, analytics.LinkRollupValue{Value: v, Clicks: n[0], Installs: n[1]})
			}
			sort.Slice(dim.Values, func(i, j int) bool { return dim.Values[i].Value < dim.Values[j].Value })
			r.Dims = append(r.Dims, dim)
		}
		data, err := analytics.EncodeLinkRollup(nil, r)
		if err != nil {
			return err
		}
		rows = append(rows, clickLinkRollup{OrgID: org, LinkID: k.link, Span: k.span, Start: k.start, Data: data})
		delete(open, k)
		if len(rows) == chunk {
			if err := write(); err != nil {
				return err
			}
		}
	}
	return write()
}

func clickLinkRollupsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDropTable().Model((*clickLinkRollup)(nil)).IfExists().Exec(ctx)
		return err
	})
}
