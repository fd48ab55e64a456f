package migrations

import (
	"context"
	"net/netip"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Clicks get ip_class, the network class of their IP address ("ipv4",
// "ipv6", "cgnat" for 100.64.0.0/10, "private" for addresses that do not
// route on the internet, "" when the IP is not an address), which a click
// keeps once the purge has cleared its IP address and IP key after seven
// days (issue 15, item 5). Existing clicks get it from their stored IP. The
// classes are computed here as analytics.NetworkClass computes them today,
// frozen as of this migration.
//
// The partial index on occurred_at of the clicks that still carry an IP
// lets the purge find the clicks whose IP it must clear without reading
// the ones it cleared before: it holds only the last days' clicks.

// clickIPIndex is the partial index of the clicks that carry an IP.
const clickIPIndex = "clicks_with_ip_occurred_at_idx"

// clickWithIP is the predicate of clickIPIndex; a query must say it in
// these words for SQLite to use the index.
const clickWithIP = "(ip <> '' OR ip_key <> '')"

// clickIPClassChunk is how many clicks one backfill statement reads.
const clickIPClassChunk = 1000

func init() {
	Migrations.MustRegister(clickIPClassUp, clickIPClassDown)
}

func clickIPClassUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewAddColumn().Table("clicks").ColumnExpr("ip_class varchar NOT NULL DEFAULT ''").Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateIndex().Table("clicks").Index(clickIPIndex).Column("occurred_at").
			Where(clickWithIP).Exec(ctx); err != nil {
			return err
		}
		return backfillClickIPClasses(ctx, tx)
	})
}

// backfillClickIPClasses sets the class of every click whose IP is an
// address, reading the clicks in id order a chunk at a time and updating
// each chunk's clicks of one class in one statement.
func backfillClickIPClasses(ctx context.Context, tx bun.Tx) error {
	var after uuid.UUID
	for {
		var rows []struct {
			ID uuid.UUID `bun:"id"`
			IP string    `bun:"ip"`
		}
		err := tx.NewSelect().Table("clicks").Column("id", "ip").Where("id > ?", after).
			OrderExpr("id").Limit(clickIPClassChunk).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		byClass := map[string][]uuid.UUID{}
		for _, r := range rows {
			if class := networkClassV1(r.IP); class != "" {
				byClass[class] = append(byClass[class], r.ID)
			}
		}
		for class, ids := range byClass {
			if _, err := tx.NewUpdate().Table("clicks").Set("ip_class = ?", class).
				Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
				return err
			}
		}
		if len(rows) < clickIPClassChunk {
			return nil
		}
		after = rows[len(rows)-1].ID
	}
}

// cgnatPrefix is RFC 6598's shared address space.
var cgnatPrefix = netip.MustParsePrefix("100.64.0.0/10")

// networkClassV1 is analytics.NetworkClass as of this migration.
func networkClassV1(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	addr = addr.Unmap().WithZone("")
	switch {
	case addr.Is4() && cgnatPrefix.Contains(addr):
		return "cgnat"
	case addr.IsPrivate() || addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsUnspecified():
		return "private"
	case addr.Is4():
		return "ipv4"
	default:
		return "ipv6"
	}
}

func clickIPClassDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropIndex().Index(clickIPIndex).IfExists().Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDropColumn().Table("clicks").Column("ip_class").Exec(ctx)
		return err
	})
}
