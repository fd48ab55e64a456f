package store

import (
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/analytics"
)

// whereClicks narrows q, a query over clicks under the alias "c", to
// organization orgID's clicks in w (From inclusive, To exclusive) that
// pass f. The analytics queries and the exports read clicks through it, so
// a filter means the same in both. Tag keeps the clicks of links that carry
// the tag now.
func (s *Store) whereClicks(q *bun.SelectQuery, orgID uuid.UUID, w analytics.Window, f analytics.Filter) *bun.SelectQuery {
	q.Where("c.org_id = ?", orgID).Where("c.occurred_at >= ?", w.From).Where("c.occurred_at < ?", w.To)
	if f.LinkID != nil {
		q.Where("c.link_id = ?", *f.LinkID)
	}
	if f.AppID != nil {
		q.Where("c.app_id = ?", *f.AppID)
	}
	for _, eq := range []struct {
		column string
		value  *string
	}{
		{"c.domain", f.Domain}, {"c.source", f.Source}, {"c.platform", f.Platform}, {"c.country", f.Country},
		{"c.utm_source", f.UTMSource}, {"c.utm_medium", f.UTMMedium}, {"c.utm_campaign", f.UTMCampaign},
	} {
		if eq.value != nil {
			q.Where(eq.column+" = ?", *eq.value)
		}
	}
	if f.Tag != nil {
		tagged := "EXISTS (SELECT 1 FROM links AS tl, json_each(tl.tags) AS t WHERE tl.id = c.link_id AND t.value = ?)"
		if s.db.Dialect().Name() == dialect.PG {
			tagged = "EXISTS (SELECT 1 FROM links AS tl, jsonb_array_elements_text(tl.tags::jsonb) AS t(value) WHERE tl.id = c.link_id AND t.value = ?)"
		}
		q.Where(tagged, *f.Tag)
	}
	return q
}
