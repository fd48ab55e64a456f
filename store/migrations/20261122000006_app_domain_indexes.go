package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Indexes for finding an app by the host a request names: the link-domain
// handler looks an app up by link_domain, previous_link_domain or
// default_link_domain to serve its association files.

var appDomainIndexes = []struct{ name, column string }{
	{"apps_link_domain_idx", "link_domain"},
	{"apps_previous_link_domain_idx", "previous_link_domain"},
	{"apps_default_link_domain_idx", "default_link_domain"},
}

func init() {
	Migrations.MustRegister(appDomainIndexesUp, appDomainIndexesDown)
}

func appDomainIndexesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range appDomainIndexes {
			if _, err := tx.NewCreateIndex().Table("apps").Index(ix.name).Column(ix.column).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func appDomainIndexesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, ix := range appDomainIndexes {
			if _, err := tx.NewDropIndex().Index(ix.name).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
