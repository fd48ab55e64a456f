package migrations

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The link list's tag filter and search (issue 21) read every link of the
// organization: the tag filter expanded each link's JSON tags, the search
// matched lower(...) LIKE '%...%' on slug, name, destination and every
// tag, hundreds of milliseconds to over a second at 100,000 links. This
// migration gives both an index:
//
//   - link_tags: one row per tag of a link, with the link's organization,
//     state and creation time, so that a tag's links (all, or the active
//     or the paused ones) are an index range in the list's newest-first
//     order and their count is read from the index. Triggers on links
//     write it in the transaction that writes the link (an insert, an
//     update of tags or state), so every write of a link does whichever
//     store method makes it, and so do the older binaries still running
//     while replicas are rolled to the new version after the migration;
//     the link's deletion removes its rows by cascade. Backfilled here,
//     after the triggers: on PostgreSQL, creating a trigger locks links
//     against writes until the migration's transaction ends, so the
//     backfill misses no link written meanwhile.
//   - SQLite: link_search, a contentless FTS5 table with the trigram
//     tokenizer (case folded, so Unicode letters fold too, where lower()
//     folds only ASCII) over slug, name, destination and the tags joined
//     by a line feed (a control character, which no tag may hold). Its
//     rowid is link_search_keys.id, an INTEGER PRIMARY KEY: the links
//     table has no integer key, and its implicit rowid may change with a
//     VACUUM. Triggers on links keep both, so every write of a link does,
//     whichever store method makes it. Backfilled here.
//   - PostgreSQL: pg_trgm GIN indexes on lower(slug), lower(name),
//     lower(destination_url) and lower(link_tags.tag), which serve the
//     search's LIKE patterns as they stand. pg_trgm is a trusted extension
//     from PostgreSQL 13, so a database owner may create it; when it
//     cannot be created (an older server, a role without the right, the
//     extension not shipped), the migration skips these indexes and the
//     search reads the organization's links as before, slower but the
//     same. Running the migrations again does not retry: an operator who
//     installs pg_trgm later creates the indexes by hand, with the
//     statements docs/operating.md gives (linkTrigramIndexes).

// linkTag is the frozen row of link_tags.
type linkTag struct {
	bun.BaseModel `bun:"table:link_tags"`

	LinkID    uuid.UUID `bun:"link_id,pk,type:uuid"`
	Tag       string    `bun:"tag,pk"`
	OrgID     uuid.UUID `bun:"org_id,notnull,type:uuid"`
	IsActive  bool      `bun:"is_active,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// linkTagsCascade deletes a link's tags with the link.
const linkTagsCascade = `("link_id") REFERENCES "links" ("id") ON DELETE CASCADE`

// linkTagsIndexes serve the tag filter: one tag's links of an
// organization newest or oldest first, and their count; the same of its
// active or its paused links.
var linkTagsIndexes = []struct {
	name    string
	columns []string
}{
	{"link_tags_org_id_tag_created_at_link_id_idx", []string{"org_id", "tag", "created_at", "link_id"}},
	{"link_tags_org_id_tag_is_active_created_at_link_id_idx", []string{"org_id", "tag", "is_active", "created_at", "link_id"}},
}

// linkTrigramIndexes are PostgreSQL's trigram indexes: name, table and
// the expression indexed.
var linkTrigramIndexes = []struct{ name, table, expr string }{
	{"links_slug_trgm_idx", "links", "lower(slug)"},
	{"links_name_trgm_idx", "links", "lower(name)"},
	{"links_destination_url_trgm_idx", "links", "lower(destination_url)"},
	{"link_tags_tag_trgm_idx", "link_tags", "lower(tag)"},
}

// sqliteLinkTags are SQLite's triggers that write link_tags.
var sqliteLinkTags = []string{
	`CREATE TRIGGER link_tags_insert AFTER INSERT ON links BEGIN
		INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
		SELECT DISTINCT new.id, value, new.org_id, new.is_active, new.created_at FROM json_each(new.tags);
	END`,
	`CREATE TRIGGER link_tags_update AFTER UPDATE OF tags, is_active ON links
	WHEN old.tags IS NOT new.tags OR old.is_active IS NOT new.is_active BEGIN
		DELETE FROM link_tags WHERE link_id = new.id;
		INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
		SELECT DISTINCT new.id, value, new.org_id, new.is_active, new.created_at FROM json_each(new.tags);
	END`,
}

// pgLinkTags are PostgreSQL's trigger functions and triggers that write
// link_tags: per statement on insert, so that a multi-row insert expands
// its tags in one statement; per row on update, only of a link whose tags
// or state changed.
var pgLinkTags = []string{
	`CREATE FUNCTION link_tags_insert() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
		SELECT DISTINCT a.id, t.value, a.org_id, a.is_active, a.created_at
		FROM link_tags_added AS a, jsonb_array_elements_text(a.tags::jsonb) AS t(value);
		RETURN NULL;
	END $$`,
	`CREATE TRIGGER link_tags_insert AFTER INSERT ON links
	REFERENCING NEW TABLE AS link_tags_added FOR EACH STATEMENT EXECUTE FUNCTION link_tags_insert()`,
	`CREATE FUNCTION link_tags_update() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		DELETE FROM link_tags WHERE link_id = NEW.id;
		INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
		SELECT DISTINCT NEW.id, t.value, NEW.org_id, NEW.is_active, NEW.created_at
		FROM jsonb_array_elements_text(NEW.tags::jsonb) AS t(value);
		RETURN NULL;
	END $$`,
	`CREATE TRIGGER link_tags_update AFTER UPDATE OF tags, is_active ON links FOR EACH ROW
	WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.is_active IS DISTINCT FROM NEW.is_active)
	EXECUTE FUNCTION link_tags_update()`,
}

// pgLinkTagsDown drops what pgLinkTags creates.
var pgLinkTagsDown = []string{
	`DROP TRIGGER IF EXISTS link_tags_insert ON links`,
	`DROP TRIGGER IF EXISTS link_tags_update ON links`,
	`DROP FUNCTION IF EXISTS link_tags_insert()`,
	`DROP FUNCTION IF EXISTS link_tags_update()`,
}

// sqliteLinkSearch creates SQLite's search table, its keys and the
// triggers that keep them, and fills them from the links.
var sqliteLinkSearch = []string{
	`CREATE TABLE link_search_keys (
		id INTEGER PRIMARY KEY,
		link_id VARCHAR NOT NULL UNIQUE
	)`,
	`CREATE VIRTUAL TABLE link_search USING fts5(
		slug, name, destination_url, tags,
		content='', contentless_delete=1, tokenize='trigram case_sensitive 0'
	)`,
	`CREATE TRIGGER links_search_insert AFTER INSERT ON links BEGIN
		INSERT INTO link_search_keys (link_id) VALUES (new.id);
		INSERT INTO link_search (rowid, slug, name, destination_url, tags)
		VALUES (last_insert_rowid(), new.slug, coalesce(new.name, ''), new.destination_url,
			(SELECT coalesce(group_concat(value, char(10)), '') FROM json_each(new.tags)));
	END`,
	`CREATE TRIGGER links_search_update AFTER UPDATE OF slug, name, destination_url, tags ON links BEGIN
		UPDATE link_search SET slug = new.slug, name = coalesce(new.name, ''),
			destination_url = new.destination_url,
			tags = (SELECT coalesce(group_concat(value, char(10)), '') FROM json_each(new.tags))
		WHERE rowid = (SELECT id FROM link_search_keys WHERE link_id = new.id);
	END`,
	`CREATE TRIGGER links_search_delete AFTER DELETE ON links BEGIN
		DELETE FROM link_search WHERE rowid = (SELECT id FROM link_search_keys WHERE link_id = old.id);
		DELETE FROM link_search_keys WHERE link_id = old.id;
	END`,
	`INSERT INTO link_search_keys (link_id) SELECT id FROM links ORDER BY org_id, created_at, id`,
	`INSERT INTO link_search (rowid, slug, name, destination_url, tags)
	SELECT k.id, l.slug, coalesce(l.name, ''), l.destination_url,
		(SELECT coalesce(group_concat(value, char(10)), '') FROM json_each(l.tags))
	FROM links AS l JOIN link_search_keys AS k ON k.link_id = l.id`,
}

// sqliteLinkSearchDown drops what sqliteLinkSearch creates.
var sqliteLinkSearchDown = []string{
	`DROP TRIGGER IF EXISTS link_tags_insert`,
	`DROP TRIGGER IF EXISTS link_tags_update`,
	`DROP TRIGGER IF EXISTS links_search_insert`,
	`DROP TRIGGER IF EXISTS links_search_update`,
	`DROP TRIGGER IF EXISTS links_search_delete`,
	`DROP TABLE IF EXISTS link_search`,
	`DROP TABLE IF EXISTS link_search_keys`,
}

func init() {
	Migrations.MustRegister(linkSearchUp, linkSearchDown)
}

func linkSearchUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		pg := tx.Dialect().Name() == dialect.PG
		_, err := tx.NewCreateTable().Model((*linkTag)(nil)).
			ForeignKey(linkTagsCascade).ForeignKey(orgCascade).Exec(ctx)
		if err != nil {
			return err
		}
		for _, ix := range linkTagsIndexes {
			if _, err := tx.NewCreateIndex().Table("link_tags").Index(ix.name).Column(ix.columns...).Exec(ctx); err != nil {
				return err
			}
		}
		triggers := sqliteLinkTags
		if pg {
			triggers = pgLinkTags
		}
		for _, q := range triggers {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		// A link's tags are distinct (linking.NormalizeTags); DISTINCT
		// keeps a hand-written duplicate from failing the migration.
		backfill := `INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
			SELECT DISTINCT l.id, t.value, l.org_id, l.is_active, l.created_at FROM links AS l, json_each(l.tags) AS t`
		if pg {
			backfill = `INSERT INTO link_tags (link_id, tag, org_id, is_active, created_at)
			SELECT DISTINCT l.id, t.value, l.org_id, l.is_active, l.created_at
			FROM links AS l, jsonb_array_elements_text(l.tags::jsonb) AS t(value)`
		}
		if _, err := tx.ExecContext(ctx, backfill); err != nil {
			return err
		}
		if !pg {
			for _, q := range sqliteLinkSearch {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			return nil
		}
		schema, err := createTrigram(ctx, tx)
		if err != nil || schema == "" {
			return err
		}
		for _, ix := range linkTrigramIndexes {
			q := fmt.Sprintf("CREATE INDEX %s ON %s USING gin (%s ?.gin_trgm_ops)", ix.name, ix.table, ix.expr)
			if _, err := tx.ExecContext(ctx, q, bun.Ident(schema)); err != nil {
				return err
			}
		}
		return nil
	})
}

// createTrigram creates pg_trgm when the database has not got it, inside a
// savepoint, and returns the schema that holds it; "" when it cannot be
// created, which is not an error (see the top of this file). An extension
// lives once in a database, in whichever schema created it, so its
// operator class is named with that schema.
func createTrigram(ctx context.Context, tx bun.Tx) (string, error) {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT link_search_trgm"); err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT link_search_trgm"); err != nil {
			return "", err
		}
		return "", nil
	}
	if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT link_search_trgm"); err != nil {
		return "", err
	}
	var schema string
	err := tx.QueryRowContext(ctx, `SELECT n.nspname FROM pg_extension AS e
		JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`).Scan(&schema)
	return schema, err
}

func linkSearchDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if tx.Dialect().Name() == dialect.PG {
			// The extension stays: other schemas of the database may use it.
			for _, ix := range linkTrigramIndexes {
				if _, err := tx.NewDropIndex().Index(ix.name).IfExists().Exec(ctx); err != nil {
					return err
				}
			}
			for _, q := range pgLinkTagsDown {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
		} else {
			for _, q := range sqliteLinkSearchDown {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
		}
		_, err := tx.NewDropTable().Model((*linkTag)(nil)).IfExists().Exec(ctx)
		return err
	})
}
