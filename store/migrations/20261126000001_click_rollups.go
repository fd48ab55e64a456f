package migrations

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Click rollups (issue 15, item 5): the analytics queries read counts kept
// per organization and UTC quarter hour (click_rollup_slots), per
// dimension value and quarter hour (click_rollup_dims) and per dimension
// value and UTC day (click_rollup_dim_days), each with the clicks and the
// installs attributed to them, instead of grouping raw clicks. A slot is
// the Unix second at which its quarter hour starts, a day the Unix second
// of its UTC midnight: integers keep the keys small and are read without
// parsing a time. The click
// writer adds to them in the transaction that stores the clicks. Existing
// clicks are counted into them here, a chunk at a time in id order, with
// the install attributed to each.
//
// Keys follow the two reads that matter: a time series narrowed to one
// value reads (org_id, dim, value, slot) in order, which is the key of
// click_rollup_dims; a breakdown reads every value of one dimension over
// whole days, (org_id, dim, day, value), the key of click_rollup_dim_days,
// and the quarter hours at the window's edges through the index on
// (org_id, dim, slot).

// clickRollupSlot is a row of click_rollup_slots, frozen as of this
// migration.
type clickRollupSlot struct {
	bun.BaseModel `bun:"table:click_rollup_slots,alias:rs"`

	OrgID    uuid.UUID `bun:"org_id,pk,type:uuid"`
	Slot     int64     `bun:"slot,pk"`
	Clicks   int64     `bun:"clicks,notnull"`
	Installs int64     `bun:"installs,notnull"`
}

// clickRollupDim is a row of click_rollup_dims, frozen as of this
// migration. Value is "" for unknown.
type clickRollupDim struct {
	bun.BaseModel `bun:"table:click_rollup_dims,alias:rd"`

	OrgID    uuid.UUID `bun:"org_id,pk,type:uuid"`
	Dim      string    `bun:"dim,pk"`
	Value    string    `bun:"value,pk"`
	Slot     int64     `bun:"slot,pk"`
	Clicks   int64     `bun:"clicks,notnull"`
	Installs int64     `bun:"installs,notnull"`
}

// clickRollupDay is a row of click_rollup_dim_days, frozen as of this
// migration.
type clickRollupDay struct {
	bun.BaseModel `bun:"table:click_rollup_dim_days,alias:rdd"`

	OrgID    uuid.UUID `bun:"org_id,pk,type:uuid"`
	Dim      string    `bun:"dim,pk"`
	Day      int64     `bun:"day,pk"`
	Value    string    `bun:"value,pk"`
	Clicks   int64     `bun:"clicks,notnull"`
	Installs int64     `bun:"installs,notnull"`
}

// clickRollupDimSlotIndex serves the breakdown's edges.
const clickRollupDimSlotIndex = "click_rollup_dims_org_id_dim_slot_idx"

// clickRollupChunk is how many clicks one backfill step reads; its counts
// are added to the rollups before the next.
const clickRollupChunk = 5000

// clickRollupSource is a click as the backfill reads it: its dimension
// values in the order of clickRollupDims, and whether an install was
// attributed to it.
type clickRollupSource struct {
	ID           uuid.UUID  `bun:"id"`
	OrgID        uuid.UUID  `bun:"org_id"`
	OccurredAt   time.Time  `bun:"occurred_at"`
	LinkID       uuid.UUID  `bun:"link_id"`
	AppID        *uuid.UUID `bun:"app_id"`
	Domain       string     `bun:"domain"`
	Source       string     `bun:"source"`
	Platform     string     `bun:"platform"`
	OS           string     `bun:"os"`
	OSVersion    string     `bun:"os_version"`
	Browser      string     `bun:"browser"`
	DeviceModel  string     `bun:"device_model"`
	InAppBrowser string     `bun:"in_app_browser"`
	Country      string     `bun:"country"`
	RefererHost  string     `bun:"referer_host"`
	UTMSource    string     `bun:"utm_source"`
	UTMMedium    string     `bun:"utm_medium"`
	UTMCampaign  string     `bun:"utm_campaign"`
	UTMTerm      string     `bun:"utm_term"`
	UTMContent   string     `bun:"utm_content"`
	Installs     int64      `bun:"installs"`
}

// clickRollupDims are the analytics dimensions as of this migration.
var clickRollupDims = []string{"link", "app", "domain", "source", "platform", "os", "os_version", "browser",
	"device_model", "in_app_browser", "country", "referer_host", "utm_source", "utm_medium", "utm_campaign",
	"utm_term", "utm_content"}

func (c *clickRollupSource) values() []string {
	app := ""
	if c.AppID != nil {
		app = c.AppID.String()
	}
	return []string{c.LinkID.String(), app, c.Domain, c.Source, c.Platform, c.OS, c.OSVersion, c.Browser,
		c.DeviceModel, c.InAppBrowser, c.Country, c.RefererHost, c.UTMSource, c.UTMMedium, c.UTMCampaign,
		c.UTMTerm, c.UTMContent}
}

func init() {
	Migrations.MustRegister(clickRollupsUp, clickRollupsDown)
}

func clickRollupsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, m := range []any{(*clickRollupSlot)(nil), (*clickRollupDim)(nil), (*clickRollupDay)(nil)} {
			if _, err := tx.NewCreateTable().Model(m).ForeignKey(orgCascade).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.NewCreateIndex().Model((*clickRollupDim)(nil)).Index(clickRollupDimSlotIndex).
			Column("org_id", "dim", "slot").Exec(ctx); err != nil {
			return err
		}
		return backfillClickRollups(ctx, tx)
	})
}

// backfillClickRollups counts every click into the rollups, a chunk at a
// time in id order.
func backfillClickRollups(ctx context.Context, tx bun.Tx) error {
	var after uuid.UUID
	for {
		var rows []clickRollupSource
		err := tx.NewSelect().TableExpr("clicks AS c").
			Column("c.id", "c.org_id", "c.occurred_at", "c.link_id", "c.app_id", "c.domain", "c.source", "c.platform",
				"c.os", "c.os_version", "c.browser", "c.device_model", "c.in_app_browser", "c.country", "c.referer_host",
				"c.utm_source", "c.utm_medium", "c.utm_campaign", "c.utm_term", "c.utm_content").
			ColumnExpr("(SELECT count(*) FROM installs AS i WHERE i.click_id = c.id) AS installs").
			Where("c.id > ?", after).OrderExpr("c.id").Limit(clickRollupChunk).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		if err := addClickRollupsV1(ctx, tx, rows); err != nil {
			return err
		}
		if len(rows) < clickRollupChunk {
			return nil
		}
		after = rows[len(rows)-1].ID
	}
}

// addClickRollupsV1 adds rows to the three tables, one upsert each.
func addClickRollupsV1(ctx context.Context, tx bun.Tx, rows []clickRollupSource) error {
	if len(rows) == 0 {
		return nil
	}
	slots := map[clickRollupSlot]*clickRollupSlot{}
	dims := map[clickRollupDim]*clickRollupDim{}
	days := map[clickRollupDay]*clickRollupDay{}
	for i := range rows {
		c := &rows[i]
		t := c.OccurredAt.UTC().Truncate(15 * time.Minute)
		slot := t.Unix()
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix()
		add := func(clicks, installs *int64) { *clicks++; *installs += c.Installs }
		ks := clickRollupSlot{OrgID: c.OrgID, Slot: slot}
		if slots[ks] == nil {
			slots[ks] = &clickRollupSlot{OrgID: c.OrgID, Slot: slot}
		}
		add(&slots[ks].Clicks, &slots[ks].Installs)
		for j, v := range c.values() {
			kd := clickRollupDim{OrgID: c.OrgID, Dim: clickRollupDims[j], Value: v, Slot: slot}
			if dims[kd] == nil {
				r := kd
				dims[kd] = &r
			}
			add(&dims[kd].Clicks, &dims[kd].Installs)
			ky := clickRollupDay{OrgID: c.OrgID, Dim: clickRollupDims[j], Value: v, Day: day}
			if days[ky] == nil {
				r := ky
				days[ky] = &r
			}
			add(&days[ky].Clicks, &days[ky].Installs)
		}
	}
	slotRows := make([]clickRollupSlot, 0, len(slots))
	for _, r := range slots {
		slotRows = append(slotRows, *r)
	}
	dimRows := make([]clickRollupDim, 0, len(dims))
	for _, r := range dims {
		dimRows = append(dimRows, *r)
	}
	dayRows := make([]clickRollupDay, 0, len(days))
	for _, r := range days {
		dayRows = append(dayRows, *r)
	}
	sort.Slice(slotRows, func(i, j int) bool { return slotRows[i].Slot < slotRows[j].Slot })
	sort.Slice(dimRows, func(i, j int) bool {
		a, b := dimRows[i], dimRows[j]
		if a.Dim != b.Dim {
			return a.Dim < b.Dim
		}
		if c := strings.Compare(a.Value, b.Value); c != 0 {
			return c < 0
		}
		return a.Slot < b.Slot
	})
	sort.Slice(dayRows, func(i, j int) bool {
		a, b := dayRows[i], dayRows[j]
		if a.Dim != b.Dim {
			return a.Dim < b.Dim
		}
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		return a.Value < b.Value
	})
	for _, q := range []*bun.InsertQuery{
		tx.NewInsert().Model(&slotRows).On("CONFLICT (org_id, slot) DO UPDATE").
			Set("clicks = rs.clicks + EXCLUDED.clicks").Set("installs = rs.installs + EXCLUDED.installs"),
		tx.NewInsert().Model(&dimRows).On("CONFLICT (org_id, dim, value, slot) DO UPDATE").
			Set("clicks = rd.clicks + EXCLUDED.clicks").Set("installs = rd.installs + EXCLUDED.installs"),
		tx.NewInsert().Model(&dayRows).On("CONFLICT (org_id, dim, day, value) DO UPDATE").
			Set("clicks = rdd.clicks + EXCLUDED.clicks").Set("installs = rdd.installs + EXCLUDED.installs"),
	} {
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func clickRollupsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, m := range []any{(*clickRollupDay)(nil), (*clickRollupDim)(nil), (*clickRollupSlot)(nil)} {
			if _, err := tx.NewDropTable().Model(m).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
