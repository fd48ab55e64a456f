package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/linking"
)

var _ linking.ResolveStore = (*Store)(nil)

// servedCustomDomain is the condition, on a link aliased l, that its domain
// serves it: a domain that is no custom domain at all (the default link
// domain, an app subdomain), or a custom domain that the link's organization
// has verified and that is not suspended.
const servedCustomDomain = `(NOT EXISTS (SELECT 1 FROM domains AS cd WHERE cd.domain = l.domain)
	OR EXISTS (SELECT 1 FROM domains AS cd WHERE cd.domain = l.domain AND cd.org_id = l.org_id
		AND cd.verified = ? AND cd.suspended_at IS NULL))`

// LinkByDomainSlug implements linking.ResolveStore, through the unique index
// links_domain_slug_key. A link on a custom domain that is unverified or
// suspended, or that its organization no longer has, is not found.
//
// The resolver reloads every link it serves once per TTL, with its app and
// its organization's parameters (AppByID, OrgParameters); the three run as
// prepared statements on SQLite (scanPrepared): over a thousand links under
// load, SQLite's parsing and compiling of the lookup's text was two-thirds
// of it.
func (s *Store) LinkByDomainSlug(ctx context.Context, domain, slug string) (*linking.Link, error) {
	var row linkRow
	err := s.scanPrepared(ctx, "link by domain and slug", func(ph []any) *bun.SelectQuery {
		return s.db.NewSelect().Model((*linkRow)(nil)).
			Where("l.domain = ? AND l.slug = ?", ph[0], ph[1]).
			Where(servedCustomDomain, ph[2])
	}, []any{domain, slug, true}, &row)
	if err != nil {
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
// A default_link_domain that is a custom domain counts only while the app's
// organization has it verified and not suspended.
func (s *Store) AppByLinkDomain(ctx context.Context, domain string) (*linking.App, error) {
	var row appRow
	err := s.db.NewSelect().Model(&row).
		Where(`a.link_domain = ? OR a.previous_link_domain = ? OR (a.default_link_domain = ?
			AND (NOT EXISTS (SELECT 1 FROM domains AS cd WHERE cd.domain = a.default_link_domain)
				OR EXISTS (SELECT 1 FROM domains AS cd WHERE cd.domain = a.default_link_domain
					AND cd.org_id = a.org_id AND cd.verified = ? AND cd.suspended_at IS NULL)))`,
			domain, domain, domain, true).
		OrderExpr("CASE WHEN a.link_domain = ? THEN 0 WHEN a.previous_link_domain = ? THEN 1 ELSE 2 END, a.id", domain, domain).
		Limit(1).
		Scan(ctx)
	if err != nil {
		return nil, s.err("app by link domain", err)
	}
	return toApp(&row)
}
