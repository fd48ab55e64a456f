package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
)

// selectCapture keeps the SELECT statements a store runs.
type selectCapture struct {
	mu    sync.Mutex
	stmts []string
}

func (c *selectCapture) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *selectCapture) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.HasPrefix(e.Query, "SELECT") {
		c.stmts = append(c.stmts, e.Query)
	}
}

// openCapturing opens and migrates a store on dsn whose statements capture
// keeps, closed when the test ends.
func openCapturing(t *testing.T, dsn string, capture *selectCapture) *store.Store {
	s, err := store.Open(t.Context(), dsn, store.WithQueryHook(capture))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Migrate(t.Context()))
	return s
}

// plan returns the plan of query as text: EXPLAIN QUERY PLAN on SQLite;
// on PostgreSQL EXPLAIN with sequential scans and sorts disabled, so that
// a test's few rows show which index can serve the query rather than what
// the planner prefers for them.
func plan(t *testing.T, s *store.Store, query string) string {
	t.Helper()
	ctx := t.Context()
	tx, err := s.DB().BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	explain := "EXPLAIN QUERY PLAN "
	if s.Dialect() == "pg" {
		_, err = tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off")
		require.NoError(t, err)
		_, err = tx.ExecContext(ctx, "SET LOCAL enable_sort = off")
		require.NoError(t, err)
		explain = "EXPLAIN "
	}
	rows, err := tx.QueryContext(ctx, explain+query)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		for _, v := range vals {
			switch v := v.(type) {
			case string:
				lines = append(lines, v)
			case []byte:
				lines = append(lines, string(v))
			}
		}
	}
	require.NoError(t, rows.Err())
	return strings.Join(lines, "\n")
}

// The link list's orders and its state filter read an index each
// (migration 20261202000002): the page's rows in order, and the state's
// count, without sorting or filtering every link of the organization; the
// tag filter reads link_tags' index and the search the trigram index
// (migration 20261203000002), for the page and for the count.
func TestListLinksReadsItsIndexes(t *testing.T) {
	t.Parallel()
	capture := &selectCapture{}
	t.Run("sqlite", func(t *testing.T) { testListLinksIndexes(t, openCapturing(t, ":memory:", capture), capture) })
	t.Run("postgres", func(t *testing.T) {
		testListLinksIndexes(t, openCapturing(t, storetest.PostgresDSN(t), capture), capture)
	})
}

// testListLinksIndexes reads the plans of the link list on s, whose
// statements capture keeps.
func testListLinksIndexes(t *testing.T, s *store.Store, capture *selectCapture) {
	ctx, c := t.Context(), newClock()
	o := createOrg(t, s, c, "acme")
	for i := range 60 {
		l := newLink(c, o.ID, "hop.example", fmt.Sprintf("l%02d", i))
		l.IsActive = i%6 != 0
		l.Tags = []string{[]string{"red", "blue"}[i%2]}
		createLink(t, s, l)
	}
	if s.Dialect() == "pg" {
		// The statistics autovacuum would gather: which index serves
		// the state filter is a matter of cost.
		_, err := s.DB().ExecContext(ctx, "ANALYZE links")
		require.NoError(t, err)
	}
	paused := false
	// PostgreSQL chooses between the trigram indexes and the
	// organization's by cost, and with 60 links the organization's wins:
	// the trigram indexes' expressions are checked below, and their choice
	// at 100,000 links by the dashboard's benchmark (BENCHMARKS.md).
	search := "link_search" // SQLite's FTS5 table
	if s.Dialect() == "pg" {
		search = "Bitmap Index Scan"
	}
	tests := []struct {
		name  string
		f     linking.LinkFilter
		index string
	}{
		{"slug order", linking.LinkFilter{Sort: linking.LinkSortSlug}, "links_org_id_slug_domain_id_idx"},
		{"last change first", linking.LinkFilter{Sort: linking.LinkSortUpdated}, "links_org_id_updated_at_id_idx"},
		{"paused, newest first", linking.LinkFilter{IsActive: &paused}, "links_org_id_is_active_created_at_id_idx"},
		// Migration 20261203000002.
		// Either of link_tags' two indexes (org_id, tag, ...).
		{"a tag", linking.LinkFilter{Tag: "red"}, "link_tags_org_id_tag_"},
		{"a tag, by slug", linking.LinkFilter{Tag: "red", Sort: linking.LinkSortSlug}, "link_tags_org_id_tag_"},
		{"a tag, paused", linking.LinkFilter{Tag: "red", IsActive: &paused}, "link_tags_org_id_tag_"},
		{"a search", linking.LinkFilter{Search: "example.com/l"}, search},
		{"a search, paused", linking.LinkFilter{Search: "example.com/l", IsActive: &paused}, search},
	}
	for _, tt := range tests {
		capture.mu.Lock()
		capture.stmts = nil
		capture.mu.Unlock()
		tt.f.OrgID, tt.f.Limit = o.ID, 20
		_, _, err := s.ListLinks(ctx, tt.f)
		require.NoError(t, err, tt.name)
		capture.mu.Lock()
		stmts := capture.stmts
		capture.mu.Unlock()
		require.NotEmpty(t, stmts, tt.name)
		for _, q := range stmts {
			if !strings.Contains(q, "count(") && !strings.Contains(q, "ORDER BY") {
				continue
			}
			if strings.Contains(q, "count(") && tt.f.IsActive == nil && tt.f.Tag == "" && tt.f.Search == "" {
				continue // every link of the organization: the creation index counts them
			}
			assert.Contains(t, plan(t, s, q), tt.index, "%s: %s", tt.name, q)
		}
	}
	if s.Dialect() != "pg" {
		return
	}
	// With 60 links the planner prefers a btree even to serve these
	// expressions alone: the indexes' definitions are read instead.
	for index, expr := range map[string]string{
		"links_slug_trgm_idx":            "lower((slug)::text)",
		"links_name_trgm_idx":            "lower((name)::text)",
		"links_destination_url_trgm_idx": "lower((destination_url)::text)",
		"link_tags_tag_trgm_idx":         "lower((tag)::text)",
	} {
		var def string
		err := s.DB().QueryRowContext(ctx, "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?", index).Scan(&def)
		require.NoError(t, err, index)
		assert.Contains(t, def, "USING gin ("+expr+" public.gin_trgm_ops)", index)
	}
}
