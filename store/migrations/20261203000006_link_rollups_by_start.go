package migrations

import (
	"context"
	"reflect"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Link rollups keyed by their start (issue 15). click_link_rollups was
// keyed by (org_id, link_id, span, start): a batch of many links' clicks
// read and wrote its rows, and put the index entries of each new hour's
// and day's rows, in as many places of the key as it had links, a page
// each once the table holds weeks of rows. Keyed by (org_id, span, start,
// link_id), the rows a batch touches lie together, in the current hour and
// day, and the purge's cut is one range. A link's window is read by its
// starts (store/link_rollups.go).
//
// PostgreSQL replaces the primary key in place. SQLite cannot: the table
// is rebuilt with the new key and its rows copied in that order.

// linkRollupByStart is a row of click_link_rollups keyed as this migration
// keys it, frozen as of it.
type linkRollupByStart struct {
	bun.BaseModel `bun:"table:click_link_rollups"`

	OrgID  uuid.UUID `bun:"org_id,pk,type:uuid"`
	Span   int64     `bun:"span,pk,type:integer"`
	Start  int64     `bun:"start,pk"`
	LinkID uuid.UUID `bun:"link_id,pk,type:uuid"`
	Data   []byte    `bun:"data,notnull"`
}

func init() {
	Migrations.MustRegister(linkRollupsByStartUp, linkRollupsByStartDown)
}

func linkRollupsByStartUp(ctx context.Context, db *bun.DB) error {
	return rekeyLinkRollups(ctx, db, (*linkRollupByStart)(nil))
}

func linkRollupsByStartDown(ctx context.Context, db *bun.DB) error {
	return rekeyLinkRollups(ctx, db, (*clickLinkRollup)(nil))
}

// rekeyLinkRollups gives click_link_rollups the primary key of model (a
// pointer to a frozen row type): its key's columns in their order.
func rekeyLinkRollups(ctx context.Context, db *bun.DB, model any) error {
	var cols []string
	for _, f := range db.Dialect().Tables().Get(reflect.TypeOf(model).Elem()).PKs {
		cols = append(cols, string(f.SQLName))
	}
	key := strings.Join(cols, ", ")
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var steps []string
		if db.Dialect().Name() == dialect.PG {
			steps = []string{`ALTER TABLE click_link_rollups DROP CONSTRAINT click_link_rollups_pkey,
				ADD CONSTRAINT click_link_rollups_pkey PRIMARY KEY (` + key + `)`}
		} else {
			if _, err := tx.NewCreateTable().Model(model).ModelTableExpr("click_link_rollups_rekeyed").
				ForeignKey(orgCascade).Exec(ctx); err != nil {
				return err
			}
			steps = []string{
				`INSERT INTO click_link_rollups_rekeyed ("org_id", "link_id", "span", "start", "data")
					SELECT "org_id", "link_id", "span", "start", "data" FROM click_link_rollups ORDER BY ` + key,
				`DROP TABLE click_link_rollups`,
				`ALTER TABLE click_link_rollups_rekeyed RENAME TO click_link_rollups`,
			}
		}
		for _, s := range steps {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}
