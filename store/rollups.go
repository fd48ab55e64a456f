package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// The click rollups (migration 20261126000001) hold, per organization, the
// clicks and the installs attributed to them per UTC quarter hour
// (click_rollup_slots), per dimension value and quarter hour
// (click_rollup_dims), per dimension value and UTC hour
// (click_rollup_dim_hours, migration 20261203000004) and per dimension
// value and UTC day (click_rollup_dim_days), slots, hours and days as the
// Unix second they start at, and per link and UTC hour or day the counts
// of every dimension in one row (click_link_rollups, link_rollups.go). A
// value is "" when it is unknown (an empty
// field, a link without an app). They change only inside the transaction
// that changes what they count: the batch that stores clicks
// (onClicksStored), the claim that attributes an install to a click
// (onInstallAttributed), the removal of a deleted link's clicks
// (onClicksRemoved); the purge deletes the rows older than the plan's
// retention (deleteRollupsBefore). Every change is one multi-row upsert
// per table that adds to the counts, its rows in key order so that two
// writers on PostgreSQL take their row locks in the same order and never
// deadlock; the link rollups, whose counts are in an encoded value, are
// read FOR UPDATE, merged and written back, in key order too
// (applyLinkRollups).

// rollupSlotRow is a row of click_rollup_slots.
type rollupSlotRow struct {
	bun.BaseModel `bun:"table:click_rollup_slots,alias:rs"`

	OrgID    uuid.UUID `bun:"org_id,pk"`
	Slot     int64     `bun:"slot,pk"`
	Clicks   int64     `bun:"clicks"`
	Installs int64     `bun:"installs"`
}

// rollupDimRow is a row of click_rollup_dims.
type rollupDimRow struct {
	bun.BaseModel `bun:"table:click_rollup_dims,alias:rd"`

	OrgID    uuid.UUID `bun:"org_id,pk"`
	Dim      string    `bun:"dim,pk"`
	Value    string    `bun:"value,pk"`
	Slot     int64     `bun:"slot,pk"`
	Clicks   int64     `bun:"clicks"`
	Installs int64     `bun:"installs"`
}

// rollupHourRow is a row of click_rollup_dim_hours; Hour is the start of
// a UTC hour.
type rollupHourRow struct {
	bun.BaseModel `bun:"table:click_rollup_dim_hours,alias:rdh"`

	OrgID    uuid.UUID `bun:"org_id,pk"`
	Dim      string    `bun:"dim,pk"`
	Hour     int64     `bun:"hour,pk"`
	Value    string    `bun:"value,pk"`
	Clicks   int64     `bun:"clicks"`
	Installs int64     `bun:"installs"`
}

// rollupDayRow is a row of click_rollup_dim_days; Day is a UTC midnight.
type rollupDayRow struct {
	bun.BaseModel `bun:"table:click_rollup_dim_days,alias:rdd"`

	OrgID    uuid.UUID `bun:"org_id,pk"`
	Dim      string    `bun:"dim,pk"`
	Day      int64     `bun:"day,pk"`
	Value    string    `bun:"value,pk"`
	Clicks   int64     `bun:"clicks"`
	Installs int64     `bun:"installs"`
}

// rollupValue is c's value of dimension d as the rollups and the raw
// counts group it: "" when unknown.
func rollupValue(c *analytics.Click, d analytics.Dimension) string {
	t := tupleOf(c)
	return t.value(d, nil)
}

// utcDay returns the UTC midnight at or before t.
func utcDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

type rollupSlotKey struct {
	org  uuid.UUID
	slot int64
}

type rollupDimKey struct {
	org   uuid.UUID
	dim   analytics.Dimension
	value string
	slot  int64 // a quarter hour, an hour or a day, as the table holds it
}

type rollupCounts struct{ clicks, installs int64 }

// rollupTuple is a click's organization, quarter hour and value of every
// dimension (a nil app is the zero id). A delta groups clicks by it first,
// so that a click costs one map update however many rows count it; the
// rows are derived from the distinct tuples when the delta is applied.
type rollupTuple struct {
	org, link, app uuid.UUID
	slot           int64
	domain, source, platform, os, osVersion, browser, deviceModel, inAppBrowser,
	country, refererHost, utmSource, utmMedium, utmCampaign, utmTerm, utmContent string
}

func tupleOf(c *analytics.Click) rollupTuple {
	t := rollupTuple{
		org: c.OrgID, link: c.LinkID, slot: analytics.SlotOf(c.OccurredAt).Unix(),
		domain: c.Domain, source: string(c.Source), platform: c.Platform, os: c.OS, osVersion: c.OSVersion,
		browser: c.Browser, deviceModel: c.DeviceModel, inAppBrowser: c.InAppBrowser, country: c.Country,
		refererHost: c.RefererHost, utmSource: c.UTMSource, utmMedium: c.UTMMedium, utmCampaign: c.UTMCampaign,
		utmTerm: c.UTMTerm, utmContent: c.UTMContent,
	}
	if c.AppID != nil {
		t.app = *c.AppID
	}
	return t
}

// value is t's value of dimension d as the rollups hold it ("" when
// unknown); ids are written through names, a cache of their text, when it
// is not nil.
func (t *rollupTuple) value(d analytics.Dimension, names map[uuid.UUID]string) string {
	name := func(id uuid.UUID) string {
		if id == uuid.Nil {
			return ""
		}
		s, ok := names[id]
		if !ok {
			s = id.String()
			if names != nil {
				names[id] = s
			}
		}
		return s
	}
	switch d {
	case analytics.DimLink:
		return name(t.link)
	case analytics.DimApp:
		return name(t.app)
	case analytics.DimDomain:
		return t.domain
	case analytics.DimSource:
		return t.source
	case analytics.DimPlatform:
		return t.platform
	case analytics.DimOS:
		return t.os
	case analytics.DimOSVersion:
		return t.osVersion
	case analytics.DimBrowser:
		return t.browser
	case analytics.DimDeviceModel:
		return t.deviceModel
	case analytics.DimInAppBrowser:
		return t.inAppBrowser
	case analytics.DimCountry:
		return t.country
	case analytics.DimRefererHost:
		return t.refererHost
	case analytics.DimUTMSource:
		return t.utmSource
	case analytics.DimUTMMedium:
		return t.utmMedium
	case analytics.DimUTMCampaign:
		return t.utmCampaign
	case analytics.DimUTMTerm:
		return t.utmTerm
	case analytics.DimUTMContent:
		return t.utmContent
	}
	return ""
}

// rollupDelta is what a change adds to the rollups: counts per distinct
// rollupTuple.
type rollupDelta struct {
	tuples map[rollupTuple]*rollupCounts
}

func newRollupDelta() *rollupDelta {
	return &rollupDelta{tuples: map[rollupTuple]*rollupCounts{}}
}

// add adds clicks and installs (negative to subtract) to every rollup row
// that counts c, a normalized click.
func (d *rollupDelta) add(c *analytics.Click, clicks, installs int64) {
	t := tupleOf(c)
	n := d.tuples[t]
	if n == nil {
		n = &rollupCounts{}
		d.tuples[t] = n
	}
	n.clicks += clicks
	n.installs += installs
}

// rows derives the rows of each table from the tuples: one per quarter
// hour, per dimension value and quarter hour, per dimension value and UTC
// hour, and per dimension value and UTC day.
func (d *rollupDelta) rows() (slots []rollupSlotRow, dims []rollupDimRow, hours []rollupHourRow, days []rollupDayRow) {
	slotSums := map[rollupSlotKey]*rollupCounts{}
	dimSums := map[rollupDimKey]*rollupCounts{}
	hourSums := map[rollupDimKey]*rollupCounts{}
	daySums := map[rollupDimKey]*rollupCounts{}
	bump := func(m map[rollupDimKey]*rollupCounts, k rollupDimKey, n *rollupCounts) {
		sum := m[k]
		if sum == nil {
			sum = &rollupCounts{}
			m[k] = sum
		}
		sum.clicks += n.clicks
		sum.installs += n.installs
	}
	names := map[uuid.UUID]string{}
	for t, n := range d.tuples {
		sk := rollupSlotKey{t.org, t.slot}
		sum := slotSums[sk]
		if sum == nil {
			sum = &rollupCounts{}
			slotSums[sk] = sum
		}
		sum.clicks += n.clicks
		sum.installs += n.installs
		for _, dim := range analytics.Dimensions() {
			bump(dimSums, rollupDimKey{t.org, dim, t.value(dim, names), t.slot}, n)
		}
	}
	for k, n := range dimSums {
		k.slot -= k.slot % 3600
		bump(hourSums, k, n)
	}
	for k, n := range hourSums {
		k.slot = utcDay(time.Unix(k.slot, 0)).Unix()
		bump(daySums, k, n)
	}
	slots = make([]rollupSlotRow, 0, len(slotSums))
	for k, n := range slotSums {
		slots = append(slots, rollupSlotRow{OrgID: k.org, Slot: k.slot, Clicks: n.clicks, Installs: n.installs})
	}
	dims = make([]rollupDimRow, 0, len(dimSums))
	for k, n := range dimSums {
		dims = append(dims, rollupDimRow{OrgID: k.org, Dim: string(k.dim), Value: k.value, Slot: k.slot,
			Clicks: n.clicks, Installs: n.installs})
	}
	hours = make([]rollupHourRow, 0, len(hourSums))
	for k, n := range hourSums {
		hours = append(hours, rollupHourRow{OrgID: k.org, Dim: string(k.dim), Value: k.value, Hour: k.slot,
			Clicks: n.clicks, Installs: n.installs})
	}
	days = make([]rollupDayRow, 0, len(daySums))
	for k, n := range daySums {
		days = append(days, rollupDayRow{OrgID: k.org, Dim: string(k.dim), Value: k.value, Day: k.slot,
			Clicks: n.clicks, Installs: n.installs})
	}
	return slots, dims, hours, days
}

// apply writes d: one upsert per table, its rows in key order.
func (d *rollupDelta) apply(ctx context.Context, tx bun.Tx) error {
	if len(d.tuples) == 0 {
		return nil
	}
	slots, dims, hours, days := d.rows()
	sort.Slice(slots, func(i, j int) bool {
		a, b := &slots[i], &slots[j]
		if a.OrgID != b.OrgID {
			return bytes.Compare(a.OrgID[:], b.OrgID[:]) < 0
		}
		return a.Slot < b.Slot
	})
	sort.Slice(dims, func(i, j int) bool {
		a, b := &dims[i], &dims[j]
		switch {
		case a.OrgID != b.OrgID:
			return bytes.Compare(a.OrgID[:], b.OrgID[:]) < 0
		case a.Dim != b.Dim:
			return a.Dim < b.Dim
		case a.Value != b.Value:
			return a.Value < b.Value
		}
		return a.Slot < b.Slot
	})
	sort.Slice(hours, func(i, j int) bool {
		a, b := &hours[i], &hours[j]
		switch {
		case a.OrgID != b.OrgID:
			return bytes.Compare(a.OrgID[:], b.OrgID[:]) < 0
		case a.Dim != b.Dim:
			return a.Dim < b.Dim
		case a.Hour != b.Hour:
			return a.Hour < b.Hour
		}
		return a.Value < b.Value
	})
	sort.Slice(days, func(i, j int) bool {
		a, b := &days[i], &days[j]
		switch {
		case a.OrgID != b.OrgID:
			return bytes.Compare(a.OrgID[:], b.OrgID[:]) < 0
		case a.Dim != b.Dim:
			return a.Dim < b.Dim
		case a.Day != b.Day:
			return a.Day < b.Day
		}
		return a.Value < b.Value
	})
	if err := applyRollupRows(ctx, tx, slots, dims, hours, days); err != nil {
		return err
	}
	return applyLinkRollups(ctx, tx, d.tuples)
}

// applyRollupRows adds the rows to their tables: one multi-row upsert a
// table on PostgreSQL, row by row on SQLite (applyRollupRowsSQLite).
func applyRollupRows(ctx context.Context, tx bun.Tx, slots []rollupSlotRow, dims []rollupDimRow, hours []rollupHourRow, days []rollupDayRow) error {
	if tx.Dialect().Name() != dialect.PG {
		return applyRollupRowsSQLite(ctx, tx, slots, dims, hours, days)
	}
	for _, q := range []*bun.InsertQuery{
		tx.NewInsert().Model(&slots).On("CONFLICT (org_id, slot) DO UPDATE").
			Set("clicks = rs.clicks + EXCLUDED.clicks").Set("installs = rs.installs + EXCLUDED.installs"),
		tx.NewInsert().Model(&dims).On("CONFLICT (org_id, dim, value, slot) DO UPDATE").
			Set("clicks = rd.clicks + EXCLUDED.clicks").Set("installs = rd.installs + EXCLUDED.installs"),
		tx.NewInsert().Model(&hours).On("CONFLICT (org_id, dim, hour, value) DO UPDATE").
			Set("clicks = rdh.clicks + EXCLUDED.clicks").Set("installs = rdh.installs + EXCLUDED.installs"),
		tx.NewInsert().Model(&days).On("CONFLICT (org_id, dim, day, value) DO UPDATE").
			Set("clicks = rdd.clicks + EXCLUDED.clicks").Set("installs = rdd.installs + EXCLUDED.installs"),
	} {
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rollupUpsertSQL are applyRollupRowsSQLite's statements, one row each:
// the slots', the dimensions' quarter hours', hours' and days'.
var rollupUpsertSQL = [4]string{
	`INSERT INTO "click_rollup_slots" ("org_id", "slot", "clicks", "installs") VALUES (?, ?, ?, ?)
		ON CONFLICT ("org_id", "slot") DO UPDATE SET "clicks" = "clicks" + excluded."clicks", "installs" = "installs" + excluded."installs"`,
	`INSERT INTO "click_rollup_dims" ("org_id", "dim", "value", "slot", "clicks", "installs") VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT ("org_id", "dim", "value", "slot") DO UPDATE SET "clicks" = "clicks" + excluded."clicks", "installs" = "installs" + excluded."installs"`,
	`INSERT INTO "click_rollup_dim_hours" ("org_id", "dim", "hour", "value", "clicks", "installs") VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT ("org_id", "dim", "hour", "value") DO UPDATE SET "clicks" = "clicks" + excluded."clicks", "installs" = "installs" + excluded."installs"`,
	`INSERT INTO "click_rollup_dim_days" ("org_id", "dim", "day", "value", "clicks", "installs") VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT ("org_id", "dim", "day", "value") DO UPDATE SET "clicks" = "clicks" + excluded."clicks", "installs" = "installs" + excluded."installs"`,
}

// applyRollupRowsSQLite adds the rows to their tables on SQLite, row by row
// through statements prepared once for the change, as the link rollups
// are (applyLinkRollupsSQLite): a statement listing a batch's thousands of
// rows took SQLite longer to parse and compile than the rows to write.
// UUIDs are bound in their text form, as bun's SQLite dialect writes them.
func applyRollupRowsSQLite(ctx context.Context, tx bun.Tx, slots []rollupSlotRow, dims []rollupDimRow, hours []rollupHourRow, days []rollupDayRow) error {
	bg := context.WithoutCancel(ctx)
	stmts, closeAll, err := prepareInTx(bg, tx, rollupUpsertSQL[:]...)
	if err != nil {
		return err
	}
	defer closeAll()
	n := 0
	exec := func(st *sql.Stmt, args ...any) error {
		if n++; n%clickCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		_, err := st.ExecContext(bg, args...)
		return err
	}
	for _, r := range slots {
		if err := exec(stmts[0], r.OrgID.String(), r.Slot, r.Clicks, r.Installs); err != nil {
			return err
		}
	}
	for _, r := range dims {
		if err := exec(stmts[1], r.OrgID.String(), r.Dim, r.Value, r.Slot, r.Clicks, r.Installs); err != nil {
			return err
		}
	}
	for _, r := range hours {
		if err := exec(stmts[2], r.OrgID.String(), r.Dim, r.Hour, r.Value, r.Clicks, r.Installs); err != nil {
			return err
		}
	}
	for _, r := range days {
		if err := exec(stmts[3], r.OrgID.String(), r.Dim, r.Day, r.Value, r.Clicks, r.Installs); err != nil {
			return err
		}
	}
	return nil
}

// onClicksStored adds stored, the normalized clicks a batch has just
// stored in tx, to the rollups. CountOnly clicks are left out
// (click_unstored counts them).
func (s *Store) onClicksStored(ctx context.Context, tx bun.Tx, stored []analytics.Click) error {
	d := newRollupDelta()
	for i := range stored {
		if !stored[i].CountOnly {
			d.add(&stored[i], 1, 0)
		}
	}
	return d.apply(ctx, tx)
}

// clickInstalls returns the installs attributed to clicks, by click id.
// The compaction reads them before it deletes the clicks' rows, whose
// foreign key sets installs.click_id to NULL.
func clickInstalls(ctx context.Context, tx bun.Tx, clicks []analytics.Click) (map[uuid.UUID]int64, error) {
	attributed := map[uuid.UUID]int64{}
	const chunk = 1000
	for i := 0; i < len(clicks); i += chunk {
		ids := make([]uuid.UUID, 0, chunk)
		for _, c := range clicks[i:min(i+chunk, len(clicks))] {
			ids = append(ids, c.ID)
		}
		var got []uuid.UUID
		if err := tx.NewSelect().Table("installs").Column("click_id").
			Where("click_id IN (?)", bun.List(ids)).Scan(ctx, &got); err != nil {
			return nil, err
		}
		for _, id := range got {
			attributed[id]++
		}
	}
	return attributed, nil
}

// onClicksRemoved subtracts removed, stored clicks that tx deletes for
// good (the clicks of a deleted link), from the rollups, with attributed,
// the installs attributed to them (clickInstalls, read before the clicks'
// rows were deleted). Rows left with nothing to count are deleted.
func (s *Store) onClicksRemoved(ctx context.Context, tx bun.Tx, removed []analytics.Click, attributed map[uuid.UUID]int64) error {
	if len(removed) == 0 {
		return nil
	}
	d := newRollupDelta()
	orgs := map[uuid.UUID]bool{}
	for i := range removed {
		if removed[i].CountOnly {
			continue
		}
		c := removed[i]
		c.Normalize()
		d.add(&c, -1, -attributed[c.ID])
		orgs[c.OrgID] = true
	}
	if err := d.apply(ctx, tx); err != nil {
		return err
	}
	for org := range orgs {
		for _, table := range []string{"click_rollup_slots", "click_rollup_dims", "click_rollup_dim_hours", "click_rollup_dim_days"} {
			if _, err := tx.NewDelete().TableExpr(table).
				Where("org_id = ? AND clicks <= 0 AND installs <= 0", org).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// rollupClickColumns are the columns of clicks that the rollups count a
// click by.
type rollupClickColumns struct {
	ID           uuid.UUID  `bun:"id"`
	OrgID        uuid.UUID  `bun:"org_id"`
	LinkID       uuid.UUID  `bun:"link_id"`
	AppID        *uuid.UUID `bun:"app_id"`
	Domain       string     `bun:"domain"`
	OccurredAt   time.Time  `bun:"occurred_at"`
	Source       string     `bun:"source"`
	Platform     string     `bun:"platform"`
	OS           string     `bun:"os"`
	OSVersion    string     `bun:"os_version"`
	DeviceModel  string     `bun:"device_model"`
	Browser      string     `bun:"browser"`
	InAppBrowser string     `bun:"in_app_browser"`
	Country      string     `bun:"country"`
	RefererHost  string     `bun:"referer_host"`
	UTMSource    string     `bun:"utm_source"`
	UTMMedium    string     `bun:"utm_medium"`
	UTMCampaign  string     `bun:"utm_campaign"`
	UTMTerm      string     `bun:"utm_term"`
	UTMContent   string     `bun:"utm_content"`
}

// onInstallAttributed adds one install to the rollup rows that count the
// click clickID of organization orgID, which tx has just attributed an
// install to. A nil clickID, or a click that is gone, adds nothing.
func (s *Store) onInstallAttributed(ctx context.Context, tx bun.Tx, orgID uuid.UUID, clickID *uuid.UUID) error {
	if clickID == nil {
		return nil
	}
	var r rollupClickColumns
	err := tx.NewSelect().Table("clicks").Column("id", "org_id", "link_id", "app_id", "domain", "occurred_at",
		"source", "platform", "os", "os_version", "device_model", "browser", "in_app_browser", "country",
		"referer_host", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content").
		Where("id = ? AND org_id = ?", *clickID, orgID).Scan(ctx, &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	c := analytics.Click{ID: r.ID, OrgID: r.OrgID, LinkID: r.LinkID, AppID: r.AppID, Domain: r.Domain,
		OccurredAt: r.OccurredAt, Source: analytics.Source(r.Source), Platform: r.Platform, OS: r.OS,
		OSVersion: r.OSVersion, DeviceModel: r.DeviceModel, Browser: r.Browser, InAppBrowser: r.InAppBrowser,
		Country: r.Country, RefererHost: r.RefererHost, UTMSource: r.UTMSource, UTMMedium: r.UTMMedium,
		UTMCampaign: r.UTMCampaign, UTMTerm: r.UTMTerm, UTMContent: r.UTMContent}
	d := newRollupDelta()
	d.add(&c, 0, 1)
	return d.apply(ctx, tx)
}

// deleteRollupsBefore deletes organization orgID's rollup rows of the
// quarter hours that start before before, of the hours and days that
// end before it, and the link rollups whose hour or day ends at or before
// it, in statements of at most limit rows each, until none is
// left. Each statement picks its rows by their whole key; on PostgreSQL
// FOR UPDATE SKIP LOCKED, as the purge's other statements do, so that two
// purges at once take different rows. The purge calls it with the start of
// the plan's retention.
func (s *Store) deleteRollupsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) error {
	if limit <= 0 {
		return nil
	}
	cut := before.Unix()
	for _, t := range []struct {
		table, where, key string
		cut               int64
	}{
		{"click_rollup_slots", "slot < ?", "org_id, slot", cut},
		{"click_rollup_dims", "slot < ?", "org_id, dim, value, slot", cut},
		{"click_rollup_dim_hours", "hour < ?", "org_id, dim, hour, value", before.Add(-time.Hour).Unix()},
		{"click_rollup_dim_days", "day < ?", "org_id, dim, day, value", before.Add(-24 * time.Hour).Unix()},
		// A link rollup goes once its span has ended: start + span <= cut.
		{"click_link_rollups", "span = 3600 AND start <= ?", "org_id, span, start, link_id", cut - linkRollupHour},
		{"click_link_rollups", "span = 86400 AND start <= ?", "org_id, span, start, link_id", cut - linkRollupDay},
	} {
		for {
			sub := s.db.NewSelect().Table(t.table).ColumnExpr(t.key).
				Where("org_id = ?", orgID).Where(t.where, t.cut).Limit(int64(limit))
			if s.db.Dialect().Name() == dialect.PG {
				sub = sub.For("UPDATE SKIP LOCKED")
			}
			res, err := s.db.NewDelete().TableExpr(t.table).Where("("+t.key+") IN (?)", sub).Exec(ctx)
			if err != nil {
				return s.err("purge click rollups", err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return s.err("purge click rollups", err)
			}
			if n == 0 {
				break
			}
		}
	}
	return nil
}
