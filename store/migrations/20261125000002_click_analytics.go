package migrations

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Click analytics (issue 15). Clicks get referer_host, the host of their
// referer (lower case, no port, "www." kept), so that the breakdown by
// referer host groups a column instead of parsing every referer; existing
// clicks get it from their referer. click_unstored counts, per
// organization and quarter hour (the UTC start of its 15 minutes), the
// clicks that were counted but not stored (past the monthly allowance, or
// over the recorder's buffer), so that the analytics totals report them
// as unstored_clicks instead of missing them. Quarter hours, not hours,
// because local days in zones with :30 and :45 offsets begin on them.

// clickUnstored is a row of click_unstored, frozen as of this migration.
type clickUnstored struct {
	bun.BaseModel `bun:"table:click_unstored"`

	OrgID uuid.UUID `bun:"org_id,pk,type:uuid"`
	Slot  time.Time `bun:"slot,pk"`
	Count int64     `bun:"count,notnull"`
}

// refererHostChunk is how many clicks one backfill statement reads.
const refererHostChunk = 1000

func init() {
	Migrations.MustRegister(clickAnalyticsUp, clickAnalyticsDown)
}

func clickAnalyticsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewAddColumn().Table("clicks").ColumnExpr("referer_host varchar NOT NULL DEFAULT ''").Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateTable().Model((*clickUnstored)(nil)).ForeignKey(orgCascade).Exec(ctx); err != nil {
			return err
		}
		return backfillRefererHosts(ctx, tx)
	})
}

// backfillRefererHosts sets the referer_host of every click with a
// referer, reading the clicks in id order a chunk at a time.
func backfillRefererHosts(ctx context.Context, tx bun.Tx) error {
	var after uuid.UUID
	for {
		var rows []struct {
			ID      uuid.UUID `bun:"id"`
			Referer string    `bun:"referer"`
		}
		err := tx.NewSelect().Table("clicks").Column("id", "referer").Where("id > ?", after).
			OrderExpr("id").Limit(refererHostChunk).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if host := refererHostV1(r.Referer); host != "" {
				if _, err := tx.NewUpdate().Table("clicks").Set("referer_host = ?", host).Where("id = ?", r.ID).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if len(rows) < refererHostChunk {
			return nil
		}
		after = rows[len(rows)-1].ID
	}
}

// refererHostV1 is analytics.RefererHost as of this migration, frozen.
func refererHostV1(referer string) string {
	if referer == "" {
		return ""
	}
	u, err := url.Parse(referer)
	if err != nil || u.Host == "" {
		return ""
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if len(h) > 256 || !utf8.ValidString(h) {
		return ""
	}
	return h
}

func clickAnalyticsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropTable().Model((*clickUnstored)(nil)).IfExists().Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDropColumn().Table("clicks").Column("referer_host").Exec(ctx)
		return err
	})
}
