package migrations

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Apps: every field of SPEC.md's App resource and the app's subdomain. The
// row type below is frozen as of this migration.
//
// Columns are added with ALTER TABLE, which SQLite allows only for a NOT NULL
// column with a default: handle, link_domain and default_link_domain default
// to the empty string and legacy_apex_enabled to false. An app that existed
// before this migration gets the handle "app-" + its id without hyphens,
// unique because ids are; its link domains stay empty (the migration cannot
// know the service's default link domain) and are completed when it is read
// (linking.App.FillLinkDomains).
//
// The path and fingerprint lists are JSON arrays in text columns, NULL for
// null, so that null and [] stay apart. Unique indexes keep a handle unique
// across the service, and an iOS bundle id and an Android package name
// unique within an organization; NULLs never collide in either database, so
// any number of apps may leave them unset. The indexes decide concurrent
// writes, not a read before the write.

type appV2 struct {
	bun.BaseModel `bun:"table:apps"`

	ID                        uuid.UUID `bun:"id,pk,type:uuid"`
	OrgID                     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	Name                      string    `bun:"name,notnull"`
	IOSBundleID               *string   `bun:"ios_bundle_id"`
	IOSTeamID                 *string   `bun:"ios_team_id"`
	IOSAppStoreID             *string   `bun:"ios_app_store_id"`
	IOSAppStoreURL            *string   `bun:"ios_app_store_url"`
	IOSUniversalLinkPaths     *string   `bun:"ios_universal_link_paths"`
	AndroidPackageName        *string   `bun:"android_package_name"`
	AndroidSHA256Fingerprints *string   `bun:"android_sha256_fingerprints"`
	AndroidPlayStoreURL       *string   `bun:"android_play_store_url"`
	AndroidAppLinksPaths      *string   `bun:"android_app_links_paths"`
	Handle                    string    `bun:"handle,notnull"`
	LinkDomain                string    `bun:"link_domain,notnull"`
	DefaultLinkDomain         string    `bun:"default_link_domain,notnull"`
	LegacyApexEnabled         bool      `bun:"legacy_apex_enabled,notnull"`
	PreviousLinkDomain        *string   `bun:"previous_link_domain"`
}

// appsColumns are the columns this migration adds, in order.
var appsColumns = []struct{ name, def string }{
	{"ios_bundle_id", "text"},
	{"ios_team_id", "text"},
	{"ios_app_store_id", "text"},
	{"ios_app_store_url", "text"},
	{"ios_universal_link_paths", "text"},
	{"android_package_name", "text"},
	{"android_sha256_fingerprints", "text"},
	{"android_play_store_url", "text"},
	{"android_app_links_paths", "text"},
	{"handle", "text NOT NULL DEFAULT ''"},
	{"link_domain", "text NOT NULL DEFAULT ''"},
	{"default_link_domain", "text NOT NULL DEFAULT ''"},
	{"legacy_apex_enabled", "boolean NOT NULL DEFAULT FALSE"},
	{"previous_link_domain", "text"},
}

// appsIndexes are the unique indexes this migration creates.
var appsIndexes = []struct {
	name    string
	columns []string
}{
	{"apps_handle_key", []string{"handle"}},
	{"apps_org_id_ios_bundle_id_key", []string{"org_id", "ios_bundle_id"}},
	{"apps_org_id_android_package_name_key", []string{"org_id", "android_package_name"}},
}

func init() {
	Migrations.MustRegister(appsUp, appsDown)
}

func appsUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, c := range appsColumns {
			if _, err := tx.NewAddColumn().Model((*appV2)(nil)).ColumnExpr(c.name + " " + c.def).Exec(ctx); err != nil {
				return err
			}
		}
		var ids []uuid.UUID
		if err := tx.NewSelect().Model((*appV2)(nil)).Column("id").Scan(ctx, &ids); err != nil {
			return err
		}
		for _, id := range ids {
			handle := "app-" + strings.ReplaceAll(id.String(), "-", "")
			if _, err := tx.NewUpdate().Model((*appV2)(nil)).Set("handle = ?", handle).Where("id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		for _, ix := range appsIndexes {
			if _, err := tx.NewCreateIndex().Model((*appV2)(nil)).Index(ix.name).Unique().Column(ix.columns...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func appsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// SQLite drops no column that an index uses.
		for _, ix := range appsIndexes {
			if _, err := tx.NewDropIndex().Model((*appV2)(nil)).Index(ix.name).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		for i := len(appsColumns) - 1; i >= 0; i-- {
			if _, err := tx.NewDropColumn().Model((*appV2)(nil)).Column(appsColumns[i].name).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
