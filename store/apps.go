package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/webhook"
)

var _ linking.AppStore = (*Store)(nil)

// appRow is a row of apps. The path and fingerprint lists are JSON arrays in
// text columns, NULL for null.
type appRow struct {
	bun.BaseModel `bun:"table:apps,alias:a"`

	ID                        uuid.UUID  `bun:"id,pk"`
	OrgID                     uuid.UUID  `bun:"org_id"`
	Name                      string     `bun:"name"`
	IOSBundleID               *string    `bun:"ios_bundle_id"`
	IOSTeamID                 *string    `bun:"ios_team_id"`
	IOSAppStoreID             *string    `bun:"ios_app_store_id"`
	IOSAppStoreURL            *string    `bun:"ios_app_store_url"`
	IOSUniversalLinkPaths     *string    `bun:"ios_universal_link_paths"`
	AndroidPackageName        *string    `bun:"android_package_name"`
	AndroidSHA256Fingerprints *string    `bun:"android_sha256_fingerprints"`
	AndroidPlayStoreURL       *string    `bun:"android_play_store_url"`
	AndroidAppLinksPaths      *string    `bun:"android_app_links_paths"`
	Handle                    string     `bun:"handle"`
	LinkDomain                string     `bun:"link_domain"`
	DefaultLinkDomain         string     `bun:"default_link_domain"`
	LegacyApexEnabled         bool       `bun:"legacy_apex_enabled"`
	PreviousLinkDomain        *string    `bun:"previous_link_domain"`
	CreatedAt                 time.Time  `bun:"created_at"`
	UpdatedAt                 time.Time  `bun:"updated_at"`
	RenameOpenedAt            *time.Time `bun:"rename_opened_at"`
	RenameEndsAt              *time.Time `bun:"rename_ends_at"`
	RenameExtensions          int        `bun:"rename_extensions"`
	LinkState                 int64      `bun:"link_state"`
}

// The unique indexes of apps (store/migrations: 20261122000002_apps).
var appIndexes = []struct {
	name   string // PostgreSQL reports the index's name
	column string // SQLite reports the columns: "apps.org_id, apps.ios_bundle_id"
	err    error
}{
	{"apps_handle_key", "apps.handle", linking.ErrAppHandleTaken},
	{"apps_org_id_ios_bundle_id_key", "apps.ios_bundle_id", linking.ErrAppBundleIDTaken},
	{"apps_org_id_android_package_name_key", "apps.android_package_name", linking.ErrAppPackageNameTaken},
}

func fromApp(a *linking.App) (*appRow, error) {
	paths, err := jsonList(a.IOSUniversalLinkPaths)
	if err != nil {
		return nil, err
	}
	fps, err := jsonList(a.AndroidSHA256Fingerprints)
	if err != nil {
		return nil, err
	}
	appLinks, err := jsonList(a.AndroidAppLinksPaths)
	if err != nil {
		return nil, err
	}
	return &appRow{
		ID:                        a.ID,
		OrgID:                     a.OrgID,
		Name:                      a.Name,
		IOSBundleID:               a.IOSBundleID,
		IOSTeamID:                 a.IOSTeamID,
		IOSAppStoreID:             a.IOSAppStoreID,
		IOSAppStoreURL:            a.IOSAppStoreURL,
		IOSUniversalLinkPaths:     paths,
		AndroidPackageName:        a.AndroidPackageName,
		AndroidSHA256Fingerprints: fps,
		AndroidPlayStoreURL:       a.AndroidPlayStoreURL,
		AndroidAppLinksPaths:      appLinks,
		Handle:                    a.Handle,
		LinkDomain:                a.LinkDomain,
		DefaultLinkDomain:         a.DefaultLinkDomain,
		LegacyApexEnabled:         a.LegacyApexEnabled,
		PreviousLinkDomain:        a.PreviousLinkDomain,
		CreatedAt:                 utc(a.CreatedAt),
		UpdatedAt:                 utc(a.UpdatedAt),
		RenameOpenedAt:            utcPtr(a.RenameOpenedAt),
		RenameEndsAt:              utcPtr(a.RenameEndsAt),
		RenameExtensions:          a.RenameExtensions,
		LinkState:                 a.LinkState,
	}, nil
}

func toApp(r *appRow) (*linking.App, error) {
	paths, err := parseList(r.IOSUniversalLinkPaths)
	if err != nil {
		return nil, err
	}
	fps, err := parseList(r.AndroidSHA256Fingerprints)
	if err != nil {
		return nil, err
	}
	appLinks, err := parseList(r.AndroidAppLinksPaths)
	if err != nil {
		return nil, err
	}
	return &linking.App{
		ID:                        r.ID,
		OrgID:                     r.OrgID,
		Name:                      r.Name,
		IOSBundleID:               r.IOSBundleID,
		IOSTeamID:                 r.IOSTeamID,
		IOSAppStoreID:             r.IOSAppStoreID,
		IOSAppStoreURL:            r.IOSAppStoreURL,
		IOSUniversalLinkPaths:     paths,
		AndroidPackageName:        r.AndroidPackageName,
		AndroidSHA256Fingerprints: fps,
		AndroidPlayStoreURL:       r.AndroidPlayStoreURL,
		AndroidAppLinksPaths:      appLinks,
		Handle:                    r.Handle,
		LinkDomain:                r.LinkDomain,
		DefaultLinkDomain:         r.DefaultLinkDomain,
		LegacyApexEnabled:         r.LegacyApexEnabled,
		PreviousLinkDomain:        r.PreviousLinkDomain,
		CreatedAt:                 utc(r.CreatedAt),
		UpdatedAt:                 utc(r.UpdatedAt),
		RenameOpenedAt:            utcPtr(r.RenameOpenedAt),
		RenameEndsAt:              utcPtr(r.RenameEndsAt),
		RenameExtensions:          r.RenameExtensions,
		LinkState:                 r.LinkState,
	}, nil
}

// jsonList returns list as a JSON array, or nil (NULL) for a nil list.
func jsonList(list []string) (*string, error) {
	if list == nil {
		return nil, nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("store: encoding a list: %w", err)
	}
	s := string(b)
	return &s, nil
}

// parseList is jsonList reversed: NULL is nil, "[]" an empty, non-nil list.
func parseList(s *string) ([]string, error) {
	if s == nil {
		return nil, nil
	}
	list := []string{}
	if err := json.Unmarshal([]byte(*s), &list); err != nil {
		return nil, fmt.Errorf("store: decoding a list: %w", err)
	}
	return list, nil
}

func toApps(rows []appRow) ([]*linking.App, error) {
	apps := make([]*linking.App, len(rows))
	for i := range rows {
		a, err := toApp(&rows[i])
		if err != nil {
			return nil, err
		}
		apps[i] = a
	}
	return apps, nil
}

// appError normalises a write error of apps: a unique index refusing the row
// also wraps the linking error that names the index.
func (s *Store) appError(op string, err error) error {
	err = s.err(op, err)
	if err == nil || !uniqueViolation(err) {
		return err
	}
	for _, ix := range appIndexes {
		if violates(err, ix.name, ix.column) {
			return fmt.Errorf("%w (%w)", err, ix.err)
		}
	}
	return err
}

// violates reports whether err is a unique violation of the index named
// index (PostgreSQL names it) whose last column is column (SQLite names the
// columns as table.column, comma-separated).
func violates(err error, index, column string) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('n') == index
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return strings.HasSuffix(liteErr.Error(), column) || strings.Contains(liteErr.Error(), column+" ")
	}
	return false
}

// AppExists implements auth.KeyStore.
func (s *Store) AppExists(ctx context.Context, orgID, appID uuid.UUID) (bool, error) {
	ok, err := s.db.NewSelect().Model((*appRow)(nil)).Where("a.id = ? AND a.org_id = ?", appID, orgID).Exists(ctx)
	return ok, s.err("app exists", err)
}

// AppByID implements linking.AppStore.
func (s *Store) AppByID(ctx context.Context, orgID, id uuid.UUID) (*linking.App, error) {
	var row appRow
	err := s.scanPrepared(ctx, "app by id", func(ph []any) *bun.SelectQuery {
		return s.db.NewSelect().Model((*appRow)(nil)).Where("a.id = ? AND a.org_id = ?", ph[0], ph[1])
	}, []any{id, orgID}, &row)
	if err != nil {
		return nil, s.err("app by id", err)
	}
	return toApp(&row)
}

// AppByHandle implements linking.AppStore.
func (s *Store) AppByHandle(ctx context.Context, handle string) (*linking.App, error) {
	var row appRow
	if err := s.db.NewSelect().Model(&row).Where("a.handle = ?", handle).Scan(ctx); err != nil {
		return nil, s.err("app by handle", err)
	}
	return toApp(&row)
}

// CountApps implements linking.AppStore.
func (s *Store) CountApps(ctx context.Context, orgID uuid.UUID) (int, error) {
	n, err := s.db.NewSelect().Model((*appRow)(nil)).Where("a.org_id = ?", orgID).Count(ctx)
	return int(n), s.err("count apps", err)
}

// CreateApp implements linking.AppStore. On PostgreSQL the organization's row
// is locked (SELECT ... FOR UPDATE) before the count, so concurrent creates
// of one organization take turns; SQLite transactions begin IMMEDIATE and so
// take turns anyway. The organization gone is errcode.ErrNotFound.
func (s *Store) CreateApp(ctx context.Context, a *linking.App, maxApps int) error {
	row, err := fromApp(a)
	if err != nil {
		return err
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var orgID uuid.UUID
		q := tx.NewSelect().Table("organizations").Column("id").Where("id = ?", a.OrgID)
		if s.db.Dialect().Name() == dialect.PG {
			q.For("UPDATE")
		}
		if err := q.Scan(ctx, &orgID); err != nil {
			return err
		}
		n, err := tx.NewSelect().Model((*appRow)(nil)).Where("a.org_id = ?", a.OrgID).Count(ctx)
		if err != nil {
			return err
		}
		if n >= int64(maxApps) {
			return linking.ErrAppLimit
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	if errors.Is(err, linking.ErrAppLimit) {
		return fmt.Errorf("store: create app: %w", err)
	}
	return s.appError("create app", err)
}

// ListApps implements linking.AppStore. Apps come in (created_at, id) order;
// the search lowers both sides (PostgreSQL lowers every letter, SQLite ASCII
// letters only) and matches % and _ literally.
func (s *Store) ListApps(ctx context.Context, f linking.AppFilter) ([]*linking.App, int, error) {
	var rows []appRow
	q := s.db.NewSelect().Model(&rows).Where("a.org_id = ?", f.OrgID)
	if f.Search != "" {
		pattern := "%" + likeEscaper.Replace(strings.ToLower(f.Search)) + "%"
		q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where(`lower(a.name) LIKE ? ESCAPE '\'`, pattern).
				WhereOr(`lower(a.ios_bundle_id) LIKE ? ESCAPE '\'`, pattern).
				WhereOr(`lower(a.android_package_name) LIKE ? ESCAPE '\'`, pattern)
		})
	}
	q.OrderExpr("a.created_at, a.id").Limit(int64(f.Limit)).Offset(int64(f.Offset))
	total, err := q.ScanAndCount(ctx)
	if err != nil {
		return nil, 0, s.err("list apps", err)
	}
	apps, err := toApps(rows)
	return apps, int(total), err
}

// likeEscaper escapes the LIKE wildcards and the escape character itself.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// UpdateApp implements linking.AppStore.
func (s *Store) UpdateApp(ctx context.Context, a *linking.App) error {
	row, err := fromApp(a)
	if err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(row).
		Column("name", "ios_bundle_id", "ios_team_id", "ios_app_store_id", "ios_app_store_url",
			"ios_universal_link_paths", "android_package_name", "android_sha256_fingerprints",
			"android_play_store_url", "android_app_links_paths", "updated_at").
		Where("a.id = ? AND a.org_id = ?", a.ID, a.OrgID).
		Exec(ctx)
	return s.appError("update app", oneRow(res, err))
}

// DeleteApp implements linking.AppStore. The links leave the app here,
// before the foreign key's ON DELETE SET NULL would find them, so that
// their updated_at moves and each is announced (link.updated, filtered by
// the app it left) in the transaction of the deletion; an organization
// whose endpoints take no link.updated pays one statement for them.
func (s *Store) DeleteApp(ctx context.Context, d linking.AppDeletion) (*linking.App, error) {
	var row appRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var links []linkRow
		err := tx.NewUpdate().Model((*linkRow)(nil)).Set("app_id = NULL").Set("updated_at = ?", utc(d.At)).
			Where("l.org_id = ? AND l.app_id = ?", d.OrgID, d.ID).
			Returning("*").Scan(ctx, &links)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := tx.NewDelete().Model(&row).Where("a.id = ? AND a.org_id = ?", d.ID, d.OrgID).Returning("*").Scan(ctx); err != nil {
			return err
		}
		if len(links) == 0 {
			return nil
		}
		if wanted, err := s.wantsEvent(ctx, tx, d.OrgID, webhook.LinkUpdated); err != nil || !wanted {
			return err
		}
		events := make([]webhook.Event, 0, len(links))
		for i := range links {
			l, err := toLink(&links[i])
			if err != nil {
				return err
			}
			l.ShortURL = linking.ShortURL(d.ShortURLBase, l.Domain, l.Slug)
			ev, err := linkEvent(webhook.LinkUpdated, &l, d.At)
			if err != nil {
				return err
			}
			left := d.ID
			ev.AppID = &left // an endpoint filtered by the app learns its link left it
			events = append(events, ev)
		}
		return s.emit(ctx, tx, events...)
	})
	if err != nil {
		return nil, s.err("delete app", err)
	}
	return toApp(&row)
}

// SetAppLegacy implements linking.AppStore.
func (s *Store) SetAppLegacy(ctx context.Context, id uuid.UUID, legacy bool, now time.Time) (*linking.App, error) {
	var row appRow
	err := s.db.NewUpdate().Model(&row).
		Set("legacy_apex_enabled = ?", legacy).
		Set("updated_at = ?", utc(now)).
		Where("a.id = ?", id).
		Returning("*").
		Scan(ctx)
	if err != nil {
		return nil, s.err("set app legacy", err)
	}
	return toApp(&row)
}
