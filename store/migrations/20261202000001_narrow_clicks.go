package migrations

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The narrow candidate row (issue 15). A row of clicks is written for every
// click that can lead to an install, and its cost is most of the redirect's
// on SQLite: the values bound and the index B-trees written. This migration
// keeps only what a reader of the row needs:
//
//   - It drops slug, referer, region, city, ip and ip_class. The matcher
//     reads the IP key, never the address; the install's rollups read the
//     dimensions they count (domain, source, platform, os, browser, country,
//     referer host, UTM fields); every other reader (analytics, exports,
//     the dashboard) reads the segments, which keep every field.
//   - It drops the partial index of the clicks that carry an IP (migration
//     20261125000004). The purge now finds the IP keys to clear through the
//     (org_id, occurred_at) index, from a per-organization mark kept in the
//     new table click_ip_marks: cleared_until, in Unix microseconds, below
//     which no row of the organization carries an IP key. This migration
//     sets it to the time of the organization's oldest row that carries an
//     IP, or to now when none does.
//   - It drops the (link_id, occurred_at) index and the foreign key to
//     links (ON DELETE CASCADE) that needed it: a link's delete removes its
//     rows itself, by id, as it compacts the segments that hold its clicks.
//
// The (org_id, tap_id) unique index and the foreign keys to organizations
// and apps stay. On PostgreSQL the columns, the indexes and the constraint
// are dropped in place; SQLite cannot drop a foreign key, so the table is
// rebuilt: a new table, the rows copied, the old one dropped and the new
// one renamed, in the migration's transaction. Dropping the old table runs
// its foreign-key actions (installs.click_id is set NULL), so the installs'
// click ids are kept aside and set again once the new table is in place.
//
// Down restores the columns empty (ip_class too: the addresses are gone),
// the two indexes and the foreign key, and drops click_ip_marks.

// narrowClick is the row of clicks this migration leaves.
type narrowClick struct {
	bun.BaseModel `bun:"table:clicks"`

	ID               uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID            uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	LinkID           uuid.UUID  `bun:"link_id,notnull,type:uuid"`
	AppID            *uuid.UUID `bun:"app_id,type:uuid"`
	Domain           string     `bun:"domain,notnull"`
	OccurredAt       time.Time  `bun:"occurred_at,notnull"`
	Source           string     `bun:"source,notnull"`
	Platform         string     `bun:"platform,notnull"`
	OS               string     `bun:"os,notnull"`
	OSVersion        string     `bun:"os_version,notnull"`
	DeviceModel      string     `bun:"device_model,notnull"`
	Browser          string     `bun:"browser,notnull"`
	InAppBrowser     string     `bun:"in_app_browser,notnull"`
	IPKey            string     `bun:"ip_key,notnull"`
	UserAgent        string     `bun:"user_agent,notnull"`
	AcceptLanguage   string     `bun:"accept_language,notnull"`
	UTMSource        string     `bun:"utm_source,notnull"`
	UTMMedium        string     `bun:"utm_medium,notnull"`
	UTMCampaign      string     `bun:"utm_campaign,notnull"`
	UTMTerm          string     `bun:"utm_term,notnull"`
	UTMContent       string     `bun:"utm_content,notnull"`
	TapID            *uuid.UUID `bun:"tap_id,type:uuid"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install,type:uuid"`
	Country          string     `bun:"country,notnull,default:''"`
	RefererHost      string     `bun:"referer_host,notnull,default:''"`
}

// wideClick is the row of clicks before this migration, for Down.
type wideClick struct {
	bun.BaseModel `bun:"table:clicks"`

	ID               uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID            uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	LinkID           uuid.UUID  `bun:"link_id,notnull,type:uuid"`
	AppID            *uuid.UUID `bun:"app_id,type:uuid"`
	Domain           string     `bun:"domain,notnull"`
	Slug             string     `bun:"slug,notnull,default:''"`
	OccurredAt       time.Time  `bun:"occurred_at,notnull"`
	Source           string     `bun:"source,notnull"`
	Platform         string     `bun:"platform,notnull"`
	OS               string     `bun:"os,notnull"`
	OSVersion        string     `bun:"os_version,notnull"`
	DeviceModel      string     `bun:"device_model,notnull"`
	Browser          string     `bun:"browser,notnull"`
	InAppBrowser     string     `bun:"in_app_browser,notnull"`
	IP               string     `bun:"ip,notnull,default:''"`
	IPKey            string     `bun:"ip_key,notnull"`
	UserAgent        string     `bun:"user_agent,notnull"`
	AcceptLanguage   string     `bun:"accept_language,notnull"`
	Referer          string     `bun:"referer,notnull,default:''"`
	UTMSource        string     `bun:"utm_source,notnull"`
	UTMMedium        string     `bun:"utm_medium,notnull"`
	UTMCampaign      string     `bun:"utm_campaign,notnull"`
	UTMTerm          string     `bun:"utm_term,notnull"`
	UTMContent       string     `bun:"utm_content,notnull"`
	TapID            *uuid.UUID `bun:"tap_id,type:uuid"`
	ClaimedByInstall *uuid.UUID `bun:"claimed_by_install,type:uuid"`
	Country          string     `bun:"country,notnull,default:''"`
	Region           string     `bun:"region,notnull,default:''"`
	City             string     `bun:"city,notnull,default:''"`
	RefererHost      string     `bun:"referer_host,notnull,default:''"`
	IPClass          string     `bun:"ip_class,notnull,default:''"`
}

// clickIPMark is a row of click_ip_marks.
type clickIPMark struct {
	bun.BaseModel `bun:"table:click_ip_marks"`

	OrgID        uuid.UUID `bun:"org_id,pk,type:uuid"`
	ClearedUntil int64     `bun:"cleared_until,notnull"`
}

// Names of what this migration drops and Down restores.
const (
	clicksLinkIndex = "clicks_link_id_occurred_at_idx"
	clicksOrgIndex  = "clicks_org_id_occurred_at_idx"
	clicksKeyIndex  = "clicks_app_id_platform_ip_key_occurred_at_idx"
)

// droppedClickColumns are the columns this migration drops.
var droppedClickColumns = []string{"slug", "referer", "region", "city", "ip", "ip_class"}

func init() {
	Migrations.MustRegister(narrowClicksUp, narrowClicksDown)
}

func narrowClicksUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*clickIPMark)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		if err := setClickIPMarks(ctx, tx); err != nil {
			return err
		}
		if tx.Dialect().Name() != dialect.PG {
			return rebuildClicksSQLite(ctx, tx, (*narrowClick)(nil), false)
		}
		for _, idx := range []string{clicksLinkIndex, clickIPIndex} {
			if _, err := tx.NewDropIndex().Index(idx).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		fk, err := clicksLinkForeignKey(ctx, tx)
		if err != nil {
			return err
		}
		if fk != "" {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE clicks DROP CONSTRAINT ?", bun.Ident(fk)); err != nil {
				return err
			}
		}
		cols := make([]string, len(droppedClickColumns))
		for i, c := range droppedClickColumns {
			cols[i] = "DROP COLUMN " + c
		}
		_, err = tx.ExecContext(ctx, "ALTER TABLE clicks "+strings.Join(cols, ", "))
		return err
	})
}

// setClickIPMarks gives every organization its mark: the time of its
// oldest row of clicks that carries an IP (through the partial index of
// those rows), or now when none does. A later row older than the mark
// lowers it as it is written.
func setClickIPMarks(ctx context.Context, tx bun.Tx) error {
	var orgs []uuid.UUID
	if err := tx.NewSelect().Table("organizations").Column("id").Scan(ctx, &orgs); err != nil {
		return err
	}
	if len(orgs) == 0 {
		return nil
	}
	var oldest []struct {
		OrgID uuid.UUID `bun:"org_id"`
		At    time.Time `bun:"at"`
	}
	if err := tx.NewSelect().Table("clicks").ColumnExpr("org_id, min(occurred_at) AS at").
		Where(clickWithIP).GroupExpr("org_id").Scan(ctx, &oldest); err != nil {
		return err
	}
	at := make(map[uuid.UUID]int64, len(oldest))
	for _, o := range oldest {
		at[o.OrgID] = o.At.UnixMicro()
	}
	now := time.Now().UnixMicro()
	marks := make([]clickIPMark, len(orgs))
	for i, id := range orgs {
		marks[i] = clickIPMark{OrgID: id, ClearedUntil: now}
		if t, ok := at[id]; ok {
			marks[i].ClearedUntil = t
		}
	}
	_, err := tx.NewInsert().Model(&marks).Exec(ctx)
	return err
}

// clicksLinkForeignKey returns the name of the foreign key of clicks to
// links on PostgreSQL, or "" when there is none.
func clicksLinkForeignKey(ctx context.Context, tx bun.Tx) (string, error) {
	var names []string
	err := tx.NewRaw(`SELECT conname FROM pg_constraint
		WHERE conrelid = 'clicks'::regclass AND confrelid = 'links'::regclass AND contype = 'f'`).Scan(ctx, &names)
	if err != nil || len(names) == 0 {
		return "", err
	}
	return names[0], nil
}

// rebuildClicksSQLite replaces clicks on SQLite with a table of model's
// columns (narrowClick or wideClick; wide adds the foreign key to links and
// Down's indexes), copying the rows: the columns both tables have are
// copied, the others take their default.
func rebuildClicksSQLite(ctx context.Context, tx bun.Tx, model any, wide bool) error {
	q := tx.NewCreateTable().Model(model).ModelTableExpr("clicks_rebuilt").
		ForeignKey(orgCascade).ForeignKey(appSetNull)
	if wide {
		q = q.ForeignKey(linkCascade)
	}
	if _, err := q.Exec(ctx); err != nil {
		return err
	}
	cols := make([]string, 0, 32)
	for _, f := range tx.Dialect().Tables().Get(reflect.TypeFor[narrowClick]()).Fields {
		cols = append(cols, `"`+f.Name+`"`)
	}
	list := strings.Join(cols, ", ")
	steps := []string{
		`INSERT INTO clicks_rebuilt (` + list + `) SELECT ` + list + ` FROM clicks`,
		// Dropping clicks runs installs.click_id's ON DELETE SET NULL.
		`CREATE TEMP TABLE install_click_ids AS SELECT id, click_id FROM installs WHERE click_id IS NOT NULL`,
		`DROP TABLE clicks`,
		`ALTER TABLE clicks_rebuilt RENAME TO clicks`,
		`UPDATE installs SET click_id = (SELECT k.click_id FROM install_click_ids AS k WHERE k.id = installs.id)
			WHERE id IN (SELECT id FROM install_click_ids)`,
		`DROP TABLE install_click_ids`,
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("rebuild clicks: %w", err)
		}
	}
	return createClickIndexes(ctx, tx, wide)
}

// createClickIndexes creates the indexes of clicks that both layouts have,
// and with wide the two that this migration drops.
func createClickIndexes(ctx context.Context, tx bun.Tx, wide bool) error {
	indexes := []*bun.CreateIndexQuery{
		tx.NewCreateIndex().Table("clicks").Index(clicksOrgIndex).Column("org_id", "occurred_at"),
		tx.NewCreateIndex().Table("clicks").Index(clicksKeyIndex).Column("app_id", "platform", "ip_key", "occurred_at"),
		tx.NewCreateIndex().Table("clicks").Index(clicksTapIndex).Unique().Column("org_id", "tap_id").Where(tapIndexPredicate),
	}
	if wide {
		indexes = append(indexes,
			tx.NewCreateIndex().Table("clicks").Index(clicksLinkIndex).Column("link_id", "occurred_at"),
			tx.NewCreateIndex().Table("clicks").Index(clickIPIndex).Column("occurred_at").Where(clickWithIP))
	}
	for _, q := range indexes {
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func narrowClicksDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropTable().Model((*clickIPMark)(nil)).IfExists().Exec(ctx); err != nil {
			return err
		}
		// The rows of links deleted since stay until their compaction;
		// the foreign key refuses them.
		if _, err := tx.NewDelete().Table("clicks").
			Where("NOT EXISTS (SELECT 1 FROM links AS l WHERE l.id = clicks.link_id)").Exec(ctx); err != nil {
			return err
		}
		if tx.Dialect().Name() != dialect.PG {
			return rebuildClicksSQLite(ctx, tx, (*wideClick)(nil), true)
		}
		cols := make([]string, len(droppedClickColumns))
		for i, c := range droppedClickColumns {
			cols[i] = "ADD COLUMN " + c + " varchar NOT NULL DEFAULT ''"
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE clicks "+strings.Join(cols, ", ")); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE clicks ADD FOREIGN KEY "+linkCascade); err != nil {
			return err
		}
		for _, q := range []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Table("clicks").Index(clicksLinkIndex).Column("link_id", "occurred_at"),
			tx.NewCreateIndex().Table("clicks").Index(clickIPIndex).Column("occurred_at").Where(clickWithIP),
		} {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
