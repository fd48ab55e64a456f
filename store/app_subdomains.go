package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/linking"
)

var _ linking.AppSubdomainStore = (*Store)(nil)

// SetAppDefaultLinkDomain implements linking.AppSubdomainStore.
func (s *Store) SetAppDefaultLinkDomain(ctx context.Context, orgID, id uuid.UUID, domain string, now time.Time) (*linking.App, error) {
	var row appRow
	err := s.db.NewUpdate().Model(&row).
		Set("default_link_domain = ?", domain).
		Set("updated_at = ?", utc(now)).
		Where("a.id = ? AND a.org_id = ?", id, orgID).
		Returning("*").
		Scan(ctx)
	if err != nil {
		return nil, s.err("set app default link domain", err)
	}
	return toApp(&row)
}
