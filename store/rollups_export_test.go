package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

// CountClickSlotsScan is CountClickSlots over raw clicks, for the tests
// that compare the rollups with it.
func (s *Store) CountClickSlotsScan(ctx context.Context, set analytics.ClickSet) ([]analytics.SlotCount, error) {
	return s.countSlotsScan(ctx, set)
}

// CountClicksByScan is CountClicksBy over raw clicks.
func (s *Store) CountClicksByScan(ctx context.Context, set analytics.ClickSet, by analytics.Dimension) ([]analytics.ValueCount, error) {
	return s.countByScan(ctx, set, by)
}

// RemoveClicksFromRollups subtracts removed from the rollups in one
// transaction, as the removal of a deleted link's clicks does.
func (s *Store) RemoveClicksFromRollups(ctx context.Context, removed []analytics.Click) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		attributed, err := clickInstalls(ctx, tx, removed)
		if err != nil {
			return err
		}
		return s.onClicksRemoved(ctx, tx, removed, attributed)
	})
}

// AddToRollups adds clicks to the rollups in one transaction, as
// InsertClicks does for the clicks it stores, for the benchmark of the
// rollups' own cost.
func (s *Store) AddToRollups(ctx context.Context, clicks []analytics.Click) error {
	normal := make([]analytics.Click, len(clicks))
	for i := range clicks {
		normal[i] = clicks[i]
		normal[i].Normalize()
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return s.onClicksStored(ctx, tx, normal)
	})
}

// RollupValue is the value of d that the rollups count c by.
func RollupValue(c *analytics.Click, d analytics.Dimension) string { return rollupValue(c, d) }

// CountClicksByLinkRollups is CountClicksBy read from the link rollups;
// ok is false when set does not reduce to a few links.
func (s *Store) CountClicksByLinkRollups(ctx context.Context, set analytics.ClickSet, by analytics.Dimension) ([]analytics.ValueCount, bool, error) {
	links, ok, err := s.rollupLinks(ctx, set)
	if err != nil || !ok {
		return nil, ok, err
	}
	got, err := s.countByLinkRollups(ctx, set, by, links)
	return got, true, err
}

// MaxRollupLinks is the largest set of links the link rollups answer for.
const MaxRollupLinks = maxRollupLinks
