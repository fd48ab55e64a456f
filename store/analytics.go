package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

var _ analytics.QueryStore = (*Store)(nil)

// The analytics queries read raw clicks: they group the clicks of the
// window (whereClicks) by slot or by a column, and count with each click
// the install attributed to it, through the unique index on
// installs.click_id. (clicks.claimed_by_install is not used: a session's
// claim marks several clicks with one install.)

// slotSeconds is analytics.Slot in seconds.
const slotSeconds = int64(analytics.Slot / time.Second)

// dimensionColumns are the columns of clicks that each dimension groups by.
var dimensionColumns = map[analytics.Dimension]string{
	analytics.DimLink:         "c.link_id",
	analytics.DimApp:          "c.app_id",
	analytics.DimDomain:       "c.domain",
	analytics.DimSource:       "c.source",
	analytics.DimPlatform:     "c.platform",
	analytics.DimOS:           "c.os",
	analytics.DimOSVersion:    "c.os_version",
	analytics.DimBrowser:      "c.browser",
	analytics.DimDeviceModel:  "c.device_model",
	analytics.DimInAppBrowser: "c.in_app_browser",
	analytics.DimCountry:      "c.country",
	analytics.DimRefererHost:  "c.referer_host",
	analytics.DimUTMSource:    "c.utm_source",
	analytics.DimUTMMedium:    "c.utm_medium",
	analytics.DimUTMCampaign:  "c.utm_campaign",
	analytics.DimUTMTerm:      "c.utm_term",
	analytics.DimUTMContent:   "c.utm_content",
}

// clickSetQuery returns a query over set's clicks (alias c) joined to their
// installs (alias i) that counts both.
func (s *Store) clickSetQuery(set analytics.ClickSet) *bun.SelectQuery {
	q := s.db.NewSelect().TableExpr("clicks AS c").
		Join("LEFT JOIN installs AS i ON i.click_id = c.id").
		ColumnExpr("count(*) AS clicks").ColumnExpr("count(i.id) AS installs")
	q = s.whereClicks(q, set.OrgID, analytics.Window{From: set.Window.From.UTC(), To: set.Window.To.UTC()}, set.Filter)
	if set.CreatedBy != nil {
		q = q.Where("c.link_id IN (?)", s.db.NewSelect().Table("links").Column("id").
			Where("org_id = ? AND created_by = ?", set.OrgID, *set.CreatedBy))
	}
	return q
}

// slotExpr is the SQL of the Unix second at which a click's slot starts.
func (s *Store) slotExpr() string {
	if s.db.Dialect().Name() == dialect.PG {
		return fmt.Sprintf("CAST(floor(extract(epoch FROM c.occurred_at) / %d) AS bigint) * %d", slotSeconds, slotSeconds)
	}
	// SQLite keeps times as text with their offset, which strftime reads.
	return fmt.Sprintf("(CAST(strftime('%%s', c.occurred_at) AS INTEGER) / %d) * %d", slotSeconds, slotSeconds)
}

// CountClickSlots implements analytics.QueryStore.
func (s *Store) CountClickSlots(ctx context.Context, set analytics.ClickSet) ([]analytics.SlotCount, error) {
	var rows []struct {
		Slot     int64 `bun:"slot"`
		Clicks   int64 `bun:"clicks"`
		Installs int64 `bun:"installs"`
	}
	err := s.clickSetQuery(set).ColumnExpr(s.slotExpr()+" AS slot").GroupExpr("slot").Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("count click slots", err)
	}
	out := make([]analytics.SlotCount, len(rows))
	for i, r := range rows {
		out[i] = analytics.SlotCount{Start: time.Unix(r.Slot, 0).UTC(), Clicks: r.Clicks, Installs: r.Installs}
	}
	return out, nil
}

// CountClicksBy implements analytics.QueryStore. Empty text and a NULL
// app id are the unknown value.
func (s *Store) CountClicksBy(ctx context.Context, set analytics.ClickSet, by analytics.Dimension) ([]analytics.ValueCount, error) {
	col, ok := dimensionColumns[by]
	if !ok {
		return nil, fmt.Errorf("store: count clicks by %q: no such dimension", by)
	}
	var rows []struct {
		Value    sql.NullString `bun:"value"`
		Clicks   int64          `bun:"clicks"`
		Installs int64          `bun:"installs"`
	}
	err := s.clickSetQuery(set).ColumnExpr(col+" AS value").GroupExpr(col).Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("count clicks by "+string(by), err)
	}
	out := make([]analytics.ValueCount, 0, len(rows))
	unknown := -1
	for _, r := range rows {
		if !r.Value.Valid || r.Value.String == "" {
			if unknown < 0 {
				unknown = len(out)
				out = append(out, analytics.ValueCount{})
			}
			out[unknown].Clicks += r.Clicks
			out[unknown].Installs += r.Installs
			continue
		}
		v := r.Value.String
		out = append(out, analytics.ValueCount{Value: &v, Clicks: r.Clicks, Installs: r.Installs})
	}
	return out, nil
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
