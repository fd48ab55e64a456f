package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/linking"
)

// linkTagRow is a row of link_tags: one tag of a link, with the link's
// organization, state and creation time, so that the list's tag filter
// reads an index range of (org_id, tag, created_at, link_id) or (org_id,
// tag, is_active, created_at, link_id) and counts from it (migration
// 20261203000002). Triggers on links write the rows of a link in the
// transaction that inserts it or changes its tags or state; the link's
// deletion deletes them by cascade. The store only reads them.
type linkTagRow struct {
	bun.BaseModel `bun:"table:link_tags,alias:lt"`

	LinkID    uuid.UUID `bun:"link_id,pk"`
	Tag       string    `bun:"tag,pk"`
	OrgID     uuid.UUID `bun:"org_id"`
	IsActive  bool      `bun:"is_active"`
	CreatedAt time.Time `bun:"created_at"`
}

// minTrigramSearch is the shortest search, in characters, that a trigram
// index serves: SQLite's FTS5 trigram tokenizer matches nothing shorter,
// and pg_trgm extracts no trigram from a shorter LIKE pattern.
const minTrigramSearch = 3

// ListLinks implements linking.LinkStore.
//
// Each filter reads an index (migrations 20261202000002 and
// 20261203000002): the state filter (org_id, is_active, created_at, id);
// the tag filter link_tags; the search, from 3 characters on, SQLite's
// FTS5 table link_search (trigram tokenizer) or PostgreSQL's pg_trgm
// indexes, and with 1 or 2 characters the organization's links themselves
// (no trigram to look up), one pass over them and link_tags.
//
// The search is a substring of slug, name, destination_url or one tag,
// the query's % and _ literal, compared ignoring case: on PostgreSQL as
// the database's lower() lowers (its collation); on SQLite, from 3
// characters on, by the FTS5 tokenizer's Unicode case folding (É finds é,
// as lower() on SQLite would not), and with 1 or 2 characters by SQLite's
// lower() and LIKE, which fold ASCII letters only.
//
// The total is exact. It is not counted when the page itself shows it (a
// page shorter than the limit, not past the end). Without a tag or a
// search it is read from link_counts (all links, or the active ones, or
// the difference); with a tag and no search it is counted in link_tags'
// index; otherwise with the page's filters, from the search's matches.
func (s *Store) ListLinks(ctx context.Context, f linking.LinkFilter) ([]linking.Link, int, error) {
	var rows []linkRow
	q := s.db.NewSelect().Model(&rows)
	// A tag's links newest or oldest first are an index range of
	// link_tags, read in order; by slug or last change, the links' own
	// index in that order, each tested against the tag's links.
	byTag := byTagRows(f) && (f.Sort == "" || f.Sort == linking.LinkSortNewest || f.Sort == linking.LinkSortOldest)
	s.filterLinks(q, f, byTag)
	switch {
	case f.Sort == linking.LinkSortOldest && byTag:
		q.OrderExpr("lt.created_at ASC, lt.link_id ASC")
	case f.Sort == linking.LinkSortOldest:
		q.OrderExpr("l.created_at ASC, l.id ASC")
	case f.Sort == linking.LinkSortUpdated:
		q.OrderExpr("l.updated_at DESC, l.id DESC")
	case f.Sort == linking.LinkSortSlug:
		q.OrderExpr("l.slug ASC, l.domain ASC, l.id ASC")
	case byTag:
		q.OrderExpr("lt.created_at DESC, lt.link_id DESC")
	default:
		q.OrderExpr("l.created_at DESC, l.id DESC")
	}
	q.Limit(int64(f.Limit)).Offset(int64(f.Offset))
	if err := q.Scan(ctx); err != nil {
		return nil, 0, s.err("list links", err)
	}
	total := f.Offset + len(rows)
	if len(rows) == f.Limit || (len(rows) == 0 && f.Offset > 0) {
		n, err := s.countLinks(ctx, f)
		if err != nil {
			return nil, 0, s.err("count links", err)
		}
		total = n
	}
	links := make([]linking.Link, len(rows))
	for i := range rows {
		var err error
		if links[i], err = toLink(&rows[i]); err != nil {
			return nil, 0, err
		}
	}
	return links, total, nil
}

// byTagRows reports whether f's links are best read from link_tags: f
// has a tag and no search that a trigram index serves (which then finds
// fewer links, as a rule, than the tag).
func byTagRows(f linking.LinkFilter) bool {
	return f.Tag != "" && utf8.RuneCountInString(f.Search) < minTrigramSearch
}

// linkCountRow is a row of link_counts: how many links an organization
// has, and how many of them are active, kept by triggers on links
// (migration 20261203000003). An organization that never had a link has
// no row.
type linkCountRow struct {
	bun.BaseModel `bun:"table:link_counts,alias:lc"`

	OrgID  uuid.UUID `bun:"org_id,pk"`
	Links  int64     `bun:"links"`
	Active int64     `bun:"active"`
}

// countLinks returns how many links of f.OrgID match f.
func (s *Store) countLinks(ctx context.Context, f linking.LinkFilter) (int, error) {
	if f.Tag == "" && f.Search == "" {
		var c linkCountRow
		err := s.db.NewSelect().Model(&c).Where("lc.org_id = ?", f.OrgID).Scan(ctx)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return 0, nil
		case err != nil:
			return 0, err
		case f.IsActive == nil:
			return int(c.Links), nil
		case *f.IsActive:
			return int(c.Active), nil
		default:
			return int(c.Links - c.Active), nil
		}
	}
	if f.Tag != "" && f.Search == "" {
		q := s.db.NewSelect().Model((*linkTagRow)(nil)).Where("lt.org_id = ? AND lt.tag = ?", f.OrgID, f.Tag)
		if f.IsActive != nil {
			q.Where("lt.is_active = ?", *f.IsActive)
		}
		n, err := q.Count(ctx)
		return int(n), err
	}
	q := s.db.NewSelect().Model((*linkRow)(nil))
	s.filterLinks(q, f, byTagRows(f))
	n, err := q.Count(ctx)
	return int(n), err
}

// filterLinks adds f's conditions on links (alias l) to q; with byTag, q
// reads link_tags (alias lt) first and each of the tag's links by primary
// key.
func (s *Store) filterLinks(q *bun.SelectQuery, f linking.LinkFilter, byTag bool) {
	pg := s.db.Dialect().Name() == dialect.PG
	trigram := utf8.RuneCountInString(f.Search) >= minTrigramSearch
	switch {
	case byTag:
		// SQLite joins a CROSS JOIN's tables in the order written.
		q.ModelTableExpr("link_tags AS lt CROSS JOIN links AS l").
			Where("l.id = lt.link_id AND lt.org_id = ? AND lt.tag = ?", f.OrgID, f.Tag).
			Where("l.org_id = ?", f.OrgID)
		if f.IsActive != nil {
			q.Where("lt.is_active = ?", *f.IsActive)
		}
	case trigram && !pg:
		// The unary + keeps SQLite (no statistics) from reading the
		// organization's links through an (org_id, ...) index and testing
		// each against the search's matches: the matches are read first,
		// then their links by primary key. With PostgreSQL's statistics
		// the planner chooses.
		q.Where("+l.org_id = ?", f.OrgID)
	default:
		q.Where("l.org_id = ?", f.OrgID)
	}
	if f.IsActive != nil && !byTag {
		q.Where("l.is_active = ?", *f.IsActive)
	}
	if f.Tag != "" && !byTag {
		tagged := s.db.NewSelect().Model((*linkTagRow)(nil)).Column("lt.link_id").
			Where("lt.org_id = ? AND lt.tag = ?", f.OrgID, f.Tag)
		if f.IsActive != nil {
			tagged.Where("lt.is_active = ?", *f.IsActive)
		}
		q.Where("l.id IN (?)", tagged)
	}
	if f.Search == "" {
		return
	}
	pattern := "%" + escapeLike(f.Search) + "%"
	tagged := s.db.NewSelect().Model((*linkTagRow)(nil)).Column("lt.link_id").
		Where("lt.org_id = ?", f.OrgID).Where(`lower(lt.tag) LIKE lower(?) ESCAPE '\'`, pattern)
	switch {
	case !trigram:
		q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where(`lower(l.slug) LIKE lower(?) ESCAPE '\'`, pattern).
				WhereOr(`lower(l.name) LIKE lower(?) ESCAPE '\'`, pattern).
				WhereOr(`lower(l.destination_url) LIKE lower(?) ESCAPE '\'`, pattern).
				WhereOr("l.id IN (?)", tagged)
		})
	case pg:
		// One set per trigram index: an OR over the columns and a
		// subquery would be a filter on every link of the organization.
		column := func(expr string) *bun.SelectQuery {
			return s.db.NewSelect().TableExpr("links").Column("id").
				Where("org_id = ?", f.OrgID).Where(expr+` LIKE lower(?) ESCAPE '\'`, pattern)
		}
		q.Where("l.id IN (?)", column("lower(slug)").
			UnionAll(column("lower(name)")).
			UnionAll(column("lower(destination_url)")).
			UnionAll(tagged))
	default:
		q.Where("l.id IN (?)", s.db.NewSelect().TableExpr("link_search").
			Join("JOIN link_search_keys AS k ON k.id = link_search.rowid").Column("k.link_id").
			Where("link_search MATCH ?", ftsPhrase(f.Search)))
	}
}

// ftsPhrase is the FTS5 query that matches search as a substring of one
// column of link_search: one phrase, its double quotes doubled, which the
// trigram tokenizer reads literally. The tags column holds a link's tags
// joined by a line feed, so a search with a control character, which no
// tag holds, would find a run across two tags there: such a search looks
// only at the other columns.
func ftsPhrase(search string) string {
	phrase := `"` + strings.ReplaceAll(search, `"`, `""`) + `"`
	if strings.IndexFunc(search, unicode.IsControl) >= 0 {
		return "{slug name destination_url} : " + phrase
	}
	return phrase
}

// escapeLike escapes the LIKE wildcards % and _ and the escape character
// itself, so that a search matches them literally.
func escapeLike(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
