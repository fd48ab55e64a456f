package migrations

import (
	"context"
	"net/netip"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// Click segments (issue 15, item 5). Every stored click is written, per
// organization and batch, into a row of click_segments: the clicks of the
// batch in (occurred_at, id) order, encoded with analytics.EncodeSegment,
// with the time of the first and the last, their count and whether the
// encoded clicks still carry their IP addresses. Exports read segments in
// time order; the retention purge deletes whole segments and empties their
// IPs by encoding them again without. A segment spans at most
// clickSegmentSpan, so that a reader looking for the clicks from an
// instant on starts at the segments that began one span before it.
//
// The clicks table keeps only the clicks attribution reads (store's
// attribution.go): the clicks of links with an app on iOS or Android, the
// platforms an install comes from, and SDK resolves and any click with a
// tap id (whose unique index must refuse a repeated tap). Those clicks are
// in a segment as well. Existing clicks are moved into segments per organization, in
// time order, clickSegmentChunk at a time, and the others are deleted.
// The clicks indexes all still have a reader (the candidate lookup, the
// tap id, the purge's by organization and time and by clicks with an IP,
// and the link's cascade), so none is dropped.
//
// click_link_tombstones holds the links deleted whose clicks are still in
// segments: readers skip their clicks until the compaction removed them
// from every segment and deleted the tombstone. since is the link's
// creation, before which no segment holds its clicks.
//
// The segment encoding is analytics.EncodeSegment's: its format carries a
// version, and every version stays readable, so this migration calls it
// rather than a frozen copy.
//
// Down puts the segments' clicks back into clicks (all but those of
// tombstoned links, which are gone) and drops both tables.

// clickSegmentSpan is the longest time one segment spans, frozen as of
// this migration (store's maxSegmentSpan).
const clickSegmentSpan = time.Hour

// clickSegmentChunk is how many clicks one step of the move reads.
const clickSegmentChunk = 5000

// clickSegment is a row of click_segments, frozen as of this migration.
type clickSegment struct {
	bun.BaseModel `bun:"table:click_segments"`

	ID        uuid.UUID `bun:"id,pk,type:uuid"`
	OrgID     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	FirstAt   time.Time `bun:"first_at,notnull"`
	LastAt    time.Time `bun:"last_at,notnull"`
	Clicks    int       `bun:"clicks,notnull"`
	HasIPs    bool      `bun:"has_ips,notnull"`
	Data      []byte    `bun:"data,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// clickLinkTombstone is a row of click_link_tombstones, frozen as of this
// migration.
type clickLinkTombstone struct {
	bun.BaseModel `bun:"table:click_link_tombstones"`

	LinkID    uuid.UUID `bun:"link_id,pk,type:uuid"`
	OrgID     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	Since     time.Time `bun:"since,notnull"`
	DeletedAt time.Time `bun:"deleted_at,notnull"`
}

// segmentClick is a row of clicks as of this migration.
type segmentClick struct {
	bun.BaseModel `bun:"table:clicks"`

	ID             uuid.UUID  `bun:"id,pk"`
	OrgID          uuid.UUID  `bun:"org_id"`
	LinkID         uuid.UUID  `bun:"link_id"`
	AppID          *uuid.UUID `bun:"app_id"`
	Domain         string     `bun:"domain"`
	Slug           string     `bun:"slug"`
	OccurredAt     time.Time  `bun:"occurred_at"`
	Source         string     `bun:"source"`
	Platform       string     `bun:"platform"`
	OS             string     `bun:"os"`
	OSVersion      string     `bun:"os_version"`
	DeviceModel    string     `bun:"device_model"`
	Browser        string     `bun:"browser"`
	InAppBrowser   string     `bun:"in_app_browser"`
	IP             string     `bun:"ip"`
	IPKey          string     `bun:"ip_key"`
	IPClass        string     `bun:"ip_class"`
	Country        string     `bun:"country"`
	Region         string     `bun:"region"`
	City           string     `bun:"city"`
	UserAgent      string     `bun:"user_agent"`
	AcceptLanguage string     `bun:"accept_language"`
	Referer        string     `bun:"referer"`
	RefererHost    string     `bun:"referer_host"`
	UTMSource      string     `bun:"utm_source"`
	UTMMedium      string     `bun:"utm_medium"`
	UTMCampaign    string     `bun:"utm_campaign"`
	UTMTerm        string     `bun:"utm_term"`
	UTMContent     string     `bun:"utm_content"`
	TapID          *uuid.UUID `bun:"tap_id"`
}

// clickNotCandidate selects the clicks attribution never reads.
const clickNotCandidate = "NOT ((app_id IS NOT NULL AND platform IN ('ios', 'android')) OR source = 'app_open' OR tap_id IS NOT NULL)"

func init() {
	Migrations.MustRegister(clickSegmentsUp, clickSegmentsDown)
}

func clickSegmentsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*clickSegment)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateTable().Model((*clickLinkTombstone)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*clickSegment)(nil)).Index("click_segments_org_id_first_at_idx").Column("org_id", "first_at"),
			tx.NewCreateIndex().Model((*clickSegment)(nil)).Index("click_segments_org_id_last_at_idx").Column("org_id", "last_at"),
			tx.NewCreateIndex().Model((*clickSegment)(nil)).Index("click_segments_with_ips_last_at_idx").Column("last_at").Where("has_ips"),
			tx.NewCreateIndex().Model((*clickLinkTombstone)(nil)).Index("click_link_tombstones_org_id_idx").Column("org_id"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		var orgs []uuid.UUID
		if err := tx.NewSelect().Table("organizations").Column("id").OrderExpr("id").Scan(ctx, &orgs); err != nil {
			return err
		}
		for _, orgID := range orgs {
			if err := moveClicksToSegments(ctx, tx, orgID); err != nil {
				return err
			}
		}
		// A click an install was attributed to stays a row too, so that
		// the install keeps its click_id (installs.click_id is SET NULL
		// when its click goes).
		_, err := tx.NewDelete().Table("clicks").Where(clickNotCandidate).
			Where("NOT EXISTS (SELECT 1 FROM installs AS i WHERE i.click_id = clicks.id)").Exec(ctx)
		return err
	})
}

// moveClicksToSegments writes orgID's clicks into segments, reading them
// in (occurred_at, id) order a chunk at a time.
func moveClicksToSegments(ctx context.Context, tx bun.Tx, orgID uuid.UUID) error {
	var after *segmentClick
	for {
		var rows []segmentClick
		q := tx.NewSelect().Model(&rows).Where("org_id = ?", orgID)
		if after != nil {
			q.Where("(occurred_at > ? OR (occurred_at = ? AND id > ?))", after.OccurredAt, after.OccurredAt, after.ID)
		}
		if err := q.OrderExpr("occurred_at, id").Limit(clickSegmentChunk).Scan(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		clicks := make([]analytics.Click, len(rows))
		for i := range rows {
			clicks[i] = rows[i].click()
		}
		for start := 0; start < len(clicks); {
			end := start + 1
			for end < len(clicks) && clicks[end].OccurredAt.Sub(clicks[start].OccurredAt) < clickSegmentSpan {
				end++
			}
			if err := insertSegment(ctx, tx, orgID, clicks[start:end]); err != nil {
				return err
			}
			start = end
		}
		if len(rows) < clickSegmentChunk {
			return nil
		}
		after = &rows[len(rows)-1]
	}
}

func (r *segmentClick) click() analytics.Click {
	c := analytics.Click{
		ID: r.ID, OrgID: r.OrgID, LinkID: r.LinkID, AppID: r.AppID, Domain: r.Domain, Slug: r.Slug,
		OccurredAt: r.OccurredAt.UTC().Truncate(time.Millisecond), Source: analytics.Source(r.Source), Platform: r.Platform, OS: r.OS,
		OSVersion: r.OSVersion, DeviceModel: r.DeviceModel, Browser: r.Browser, InAppBrowser: r.InAppBrowser,
		IP: r.IP, IPKey: r.IPKey, IPClass: r.IPClass, Country: r.Country, Region: r.Region, City: r.City,
		UserAgent: r.UserAgent, AcceptLanguage: r.AcceptLanguage, Referer: r.Referer, RefererHost: r.RefererHost,
		UTMSource: r.UTMSource, UTMMedium: r.UTMMedium, UTMCampaign: r.UTMCampaign, UTMTerm: r.UTMTerm,
		UTMContent: r.UTMContent, TapID: r.TapID,
	}
	if _, err := netip.ParseAddr(c.IP); err != nil || c.IP == "" {
		c.IP = "" // a segment keeps addresses only; the key stays derived from it
	}
	return c
}

func insertSegment(ctx context.Context, tx bun.Tx, orgID uuid.UUID, clicks []analytics.Click) error {
	data, err := analytics.EncodeSegment(nil, clicks)
	if err != nil {
		return err
	}
	seg := clickSegment{
		ID: uuid.Must(uuid.NewV7()), OrgID: orgID, FirstAt: clicks[0].OccurredAt, LastAt: clicks[len(clicks)-1].OccurredAt,
		Clicks: len(clicks), Data: data, CreatedAt: time.Now().UTC(),
	}
	for i := range clicks {
		if clicks[i].IP != "" {
			seg.HasIPs = true
			break
		}
	}
	_, err = tx.NewInsert().Model(&seg).Exec(ctx)
	return err
}

func clickSegmentsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var gone []uuid.UUID
		if err := tx.NewSelect().Model((*clickLinkTombstone)(nil)).Column("link_id").Scan(ctx, &gone); err != nil {
			return err
		}
		skip := make(map[uuid.UUID]bool, len(gone))
		for _, id := range gone {
			skip[id] = true
		}
		var after uuid.UUID
		for {
			var segs []clickSegment
			if err := tx.NewSelect().Model(&segs).Where("id > ?", after).OrderExpr("id").Limit(100).Scan(ctx); err != nil {
				return err
			}
			for i := range segs {
				clicks, err := analytics.DecodeSegment(segs[i].OrgID, segs[i].Data)
				if err != nil {
					return err
				}
				rows := make([]segmentClick, 0, len(clicks))
				for _, c := range clicks {
					if !skip[c.LinkID] {
						rows = append(rows, fromSegmentClick(&c))
					}
				}
				if len(rows) > 0 {
					if _, err := tx.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
						return err
					}
				}
			}
			if len(segs) < 100 {
				break
			}
			after = segs[len(segs)-1].ID
		}
		for _, model := range []any{(*clickLinkTombstone)(nil), (*clickSegment)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func fromSegmentClick(c *analytics.Click) segmentClick {
	return segmentClick{
		ID: c.ID, OrgID: c.OrgID, LinkID: c.LinkID, AppID: c.AppID, Domain: c.Domain, Slug: c.Slug,
		OccurredAt: c.OccurredAt, Source: string(c.Source), Platform: c.Platform, OS: c.OS, OSVersion: c.OSVersion,
		DeviceModel: c.DeviceModel, Browser: c.Browser, InAppBrowser: c.InAppBrowser, IP: c.IP, IPKey: c.IPKey,
		IPClass: c.IPClass, Country: c.Country, Region: c.Region, City: c.City, UserAgent: c.UserAgent,
		AcceptLanguage: c.AcceptLanguage, Referer: c.Referer, RefererHost: c.RefererHost, UTMSource: c.UTMSource,
		UTMMedium: c.UTMMedium, UTMCampaign: c.UTMCampaign, UTMTerm: c.UTMTerm, UTMContent: c.UTMContent, TapID: c.TapID,
	}
}
