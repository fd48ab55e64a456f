package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The raw IP of an install is kept no longer than a click's (the purge
// clears both after analytics.IPRetention). A partial index of the installs
// that still carry one lets each hourly pass find them without reading the
// installs it cleared before.

// installIPIndex is the partial index of the installs that carry an IP.
const installIPIndex = "installs_with_ip_installed_at_idx"

func init() {
	Migrations.MustRegister(installIPIndexUp, installIPIndexDown)
}

func installIPIndexUp(ctx context.Context, db *bun.DB) error {
	_, err := db.NewCreateIndex().Table("installs").Index(installIPIndex).Column("installed_at").
		Where("ip <> ''").Exec(ctx)
	return err
}

func installIPIndexDown(ctx context.Context, db *bun.DB) error {
	_, err := db.NewDropIndex().Index(installIPIndex).IfExists().Exec(ctx)
	return err
}
