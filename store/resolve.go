package store

import (
	"context"

	"github.com/hoplink/hoplink/linking"
)

var _ linking.ResolveStore = (*Store)(nil)

// LinkByDomainSlug implements linking.ResolveStore, through the unique index
// links_domain_slug_key.
func (s *Store) LinkByDomainSlug(ctx context.Context, domain, slug string) (*linking.Link, error) {
	var row linkRow
	if err := s.db.NewSelect().Model(&row).Where("l.domain = ? AND l.slug = ?", domain, slug).Scan(ctx); err != nil {
		return nil, s.err("link by domain and slug", err)
	}
	l, err := toLink(&row)
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// AppByLinkDomain implements linking.ResolveStore. Each of the three columns
// has an index (migration 20261122000006), and linking.Resolver caches its
// answers (found or not) per domain, so it runs at most once per domain per TTL.
func (s *Store) AppByLinkDomain(ctx context.Context, domain string) (*linking.App, error) {
	var row appRow
	err := s.db.NewSelect().Model(&row).
		Where("a.link_domain = ? OR a.previous_link_domain = ? OR a.default_link_domain = ?", domain, domain, domain).
		OrderExpr("CASE WHEN a.link_domain = ? THEN 0 WHEN a.previous_link_domain = ? THEN 1 ELSE 2 END, a.id", domain, domain).
		Limit(1).
		Scan(ctx)
	if err != nil {
		return nil, s.err("app by link domain", err)
	}
	return toApp(&row)
}
