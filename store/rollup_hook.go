package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// onClicksStored is called by InsertClicks, inside the batch's
// transaction, with the clicks it stored (normalized, none CountOnly). The
// click rollups hook here; until they exist it does nothing.
func (s *Store) onClicksStored(ctx context.Context, tx bun.Tx, stored []analytics.Click) error {
	return nil
}

// onClicksRemoved is called, inside the transaction that removes them from
// their segments, with the clicks of a deleted link. The click rollups
// subtract them here; until they exist it does nothing.
func (s *Store) onClicksRemoved(ctx context.Context, tx bun.Tx, removed []analytics.Click) error {
	return nil
}
