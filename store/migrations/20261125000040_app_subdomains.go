package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// App subdomain renames (issue 17; SPEC.md, app subdomain management and
// the rename error codes). The row types below are frozen as of this
// migration.
//
// apps gains the rename period of its last rename: rename_opened_at and
// rename_ends_at (NULL when no period is open, that is when
// previous_link_domain is NULL too), rename_extensions (how many
// extensions the open period has had), and link_state, a counter that
// every change of the app's subdomain state (rename, period end, default
// link domain) raises, so that a writer that read the state can tell that
// it changed since.
//
// app_handle_holds keeps each released handle for 7 days: only the app
// that released it (app_id) may take it back until held_until. The hold
// goes with its app (ON DELETE CASCADE) and with its organization.

type appHandleHold struct {
	bun.BaseModel `bun:"table:app_handle_holds"`

	Handle     string    `bun:"handle,pk"`
	AppID      uuid.UUID `bun:"app_id,notnull,type:uuid"`
	OrgID      uuid.UUID `bun:"org_id,notnull,type:uuid"`
	ReleasedAt time.Time `bun:"released_at,notnull"`
	HeldUntil  time.Time `bun:"held_until,notnull"`
}

// appSubdomainColumns are the columns this migration adds to apps; the
// type of the timestamps is the dialect's.
func appSubdomainColumns(d dialect.Name) [][2]string {
	ts := "timestamptz"
	if d != dialect.PG {
		ts = "timestamp"
	}
	return [][2]string{
		{"rename_opened_at", ts},
		{"rename_ends_at", ts},
		{"rename_extensions", "integer NOT NULL DEFAULT 0"},
		{"link_state", "bigint NOT NULL DEFAULT 0"},
	}
}

func init() {
	Migrations.MustRegister(appSubdomainsUp, appSubdomainsDown)
}

func appSubdomainsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, c := range appSubdomainColumns(tx.Dialect().Name()) {
			if _, err := tx.NewAddColumn().Table("apps").ColumnExpr(c[0] + " " + c[1]).Exec(ctx); err != nil {
				return err
			}
		}
		_, err := tx.NewCreateTable().Model((*appHandleHold)(nil)).
			ForeignKey(`("app_id") REFERENCES "apps" ("id") ON DELETE CASCADE`).
			ForeignKey(orgCascade).Exec(ctx)
		if err != nil {
			return err
		}
		for _, c := range []string{"app_id", "org_id"} {
			_, err = tx.NewCreateIndex().Model((*appHandleHold)(nil)).Index("app_handle_holds_" + c + "_idx").
				Column(c).Exec(ctx)
			if err != nil {
				return err
			}
		}
		// The periodic sweep finds the periods that have ended.
		_, err = tx.NewCreateIndex().Table("apps").Index("apps_rename_ends_at_idx").Column("rename_ends_at").Exec(ctx)
		return err
	})
}

func appSubdomainsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDropTable().Model((*appHandleHold)(nil)).IfExists().Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewDropIndex().Index("apps_rename_ends_at_idx").IfExists().Exec(ctx); err != nil {
			return err
		}
		for _, c := range appSubdomainColumns(tx.Dialect().Name()) {
			if _, err := tx.NewDropColumn().Table("apps").Column(c[0]).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
