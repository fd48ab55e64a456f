package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The foundation: organizations, users, memberships, a minimal apps table and
// API and SDK keys. The row types below are frozen as of this migration.
//
// Column types: uuid is PostgreSQL's uuid; SQLite keeps its text form, which
// numeric affinity never converts (it is not a number). Times are timestamptz
// on PostgreSQL and, on SQLite, bun's UTC text form, which sorts and compares
// in time order.

type organization struct {
	bun.BaseModel `bun:"table:organizations"`

	ID                 uuid.UUID `bun:"id,pk,type:uuid"`
	Name               string    `bun:"name,notnull"`
	Slug               string    `bun:"slug,notnull,unique"`
	Plan               string    `bun:"plan,notnull"`
	MonthlyClickLimit  int64     `bun:"monthly_click_limit,notnull"`
	BillingPeriodStart time.Time `bun:"billing_period_start,notnull"`
	CreatedAt          time.Time `bun:"created_at,notnull"`
	UpdatedAt          time.Time `bun:"updated_at,notnull"`
}

type user struct {
	bun.BaseModel `bun:"table:users"`

	ID           uuid.UUID `bun:"id,pk,type:uuid"`
	Email        string    `bun:"email,notnull,unique"`
	PasswordHash string    `bun:"password_hash,notnull"`
	CreatedAt    time.Time `bun:"created_at,notnull"`
	UpdatedAt    time.Time `bun:"updated_at,notnull"`
}

type membership struct {
	bun.BaseModel `bun:"table:memberships"`

	OrgID     uuid.UUID `bun:"org_id,pk,type:uuid"`
	UserID    uuid.UUID `bun:"user_id,pk,type:uuid"`
	Role      string    `bun:"role,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

type app struct {
	bun.BaseModel `bun:"table:apps"`

	ID        uuid.UUID `bun:"id,pk,type:uuid"`
	OrgID     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	Name      string    `bun:"name,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// apiKey.CreatedBy has no foreign key on purpose: a key whose creator left
// keeps its creator id, so that the role check can refuse it.
type apiKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	OrgID      uuid.UUID  `bun:"org_id,notnull,type:uuid"`
	Type       string     `bun:"type,notnull"`
	Name       string     `bun:"name,notnull"`
	AppID      *uuid.UUID `bun:"app_id,type:uuid"`
	KeyPrefix  string     `bun:"key_prefix,notnull"`
	KeyHash    string     `bun:"key_hash,notnull,unique"`
	Scopes     string     `bun:"scopes,notnull,type:text"`
	CreatedBy  *uuid.UUID `bun:"created_by,type:uuid"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	ExpiresAt  *time.Time `bun:"expires_at"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	UpdatedAt  time.Time  `bun:"updated_at,notnull"`
}

func init() {
	Migrations.MustRegister(foundationUp, foundationDown)
}

const (
	orgCascade  = `("org_id") REFERENCES "organizations" ("id") ON DELETE CASCADE`
	userCascade = `("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`
	appCascade  = `("app_id") REFERENCES "apps" ("id") ON DELETE CASCADE`
)

func foundationUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		tables := []*bun.CreateTableQuery{
			tx.NewCreateTable().Model((*organization)(nil)),
			tx.NewCreateTable().Model((*user)(nil)),
			tx.NewCreateTable().Model((*membership)(nil)).ForeignKey(orgCascade).ForeignKey(userCascade),
			tx.NewCreateTable().Model((*app)(nil)).ForeignKey(orgCascade),
			tx.NewCreateTable().Model((*apiKey)(nil)).ForeignKey(orgCascade).ForeignKey(appCascade),
		}
		for _, q := range tables {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		// Foreign-key columns are indexed so that cascades do not scan.
		indexes := []*bun.CreateIndexQuery{
			tx.NewCreateIndex().Model((*membership)(nil)).Index("memberships_user_id_idx").Column("user_id"),
			tx.NewCreateIndex().Model((*app)(nil)).Index("apps_org_id_idx").Column("org_id"),
			tx.NewCreateIndex().Model((*apiKey)(nil)).Index("api_keys_org_id_created_at_idx").Column("org_id", "created_at"),
			tx.NewCreateIndex().Model((*apiKey)(nil)).Index("api_keys_app_id_idx").Column("app_id"),
		}
		for _, q := range indexes {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func foundationDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, model := range []any{(*apiKey)(nil), (*app)(nil), (*membership)(nil), (*user)(nil), (*organization)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
