package migrations

import (
	"context"
	"net/netip"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/geo"
)

// Clicks get the location of their IP address: country (ISO 3166-1
// alpha-2), region (the ISO 3166-2 subdivision code) and city, empty when
// unknown. Existing clicks get their country from their stored IP with the
// built-in table; region and city need the operator's MaxMind-format
// database, which a migration does not read, so they stay empty.

// clickLocationColumns are the columns added, in order.
var clickLocationColumns = []string{"country", "region", "city"}

// clickLocationChunk is how many clicks one backfill statement reads.
const clickLocationChunk = 1000

func init() {
	Migrations.MustRegister(clickLocationUp, clickLocationDown)
}

func clickLocationUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, c := range clickLocationColumns {
			if _, err := tx.NewAddColumn().Table("clicks").ColumnExpr(c + " varchar NOT NULL DEFAULT ''").Exec(ctx); err != nil {
				return err
			}
		}
		return backfillClickCountries(ctx, tx)
	})
}

// backfillClickCountries sets the country of every click whose IP has one,
// reading the clicks in id order a chunk at a time.
func backfillClickCountries(ctx context.Context, tx bun.Tx) error {
	var after uuid.UUID
	for {
		var rows []struct {
			ID uuid.UUID `bun:"id"`
			IP string    `bun:"ip"`
		}
		err := tx.NewSelect().Table("clicks").Column("id", "ip").Where("id > ?", after).
			OrderExpr("id").Limit(clickLocationChunk).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		for _, r := range rows {
			ip, err := netip.ParseAddr(r.IP)
			if err != nil {
				continue
			}
			if country := geo.Country(ip); country != "" {
				if _, err := tx.NewUpdate().Table("clicks").Set("country = ?", country).Where("id = ?", r.ID).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if len(rows) < clickLocationChunk {
			return nil
		}
		after = rows[len(rows)-1].ID
	}
}

func clickLocationDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for i := len(clickLocationColumns) - 1; i >= 0; i-- {
			if _, err := tx.NewDropColumn().Table("clicks").Column(clickLocationColumns[i]).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
