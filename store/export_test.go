package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/analytics"
)

// CountClicks counts organization orgID's clicks in w that pass f, through
// whereClicks, for the external tests of the filters.
func (s *Store) CountClicks(ctx context.Context, orgID uuid.UUID, w analytics.Window, f analytics.Filter) (int, error) {
	var n int
	q := s.db.NewSelect().TableExpr("clicks AS c").ColumnExpr("count(*)")
	err := s.whereClicks(q, orgID, w, f).Scan(ctx, &n)
	return n, err
}
