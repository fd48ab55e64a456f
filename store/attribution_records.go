package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
)

var _ attribution.RecordStore = (*Store)(nil)

// InstallByID implements attribution.RecordStore.
func (s *Store) InstallByID(ctx context.Context, orgID, id uuid.UUID, createdBy *uuid.UUID) (*attribution.Install, error) {
	q := s.db.NewSelect().Model((*installRow)(nil)).Where("i.org_id = ? AND i.id = ?", orgID, id)
	if createdBy != nil {
		q = q.Where("i.link_id IN (?)", s.db.NewSelect().Table("links").Column("id").
			Where("org_id = ? AND created_by = ?", orgID, *createdBy))
	}
	var row installRow
	if err := q.Limit(1).Scan(ctx, &row); err != nil {
		return nil, s.err("install by id", err)
	}
	in := row.install()
	return &in, nil
}

// AttemptByID implements attribution.RecordStore.
func (s *Store) AttemptByID(ctx context.Context, orgID, id uuid.UUID) (*attribution.Attempt, error) {
	var row attemptRow
	err := s.db.NewSelect().Model((*attemptRow)(nil)).Where("aa.org_id = ? AND aa.id = ?", orgID, id).Limit(1).Scan(ctx, &row)
	if err != nil {
		return nil, s.err("attempt by id", err)
	}
	a := row.attempt()
	return &a, nil
}

// InstallAttempts implements attribution.RecordStore, through the index on
// install_id.
func (s *Store) InstallAttempts(ctx context.Context, orgID, installID uuid.UUID, limit int) ([]attribution.Attempt, error) {
	var rows []attemptRow
	err := s.db.NewSelect().Model((*attemptRow)(nil)).Where("aa.install_id = ? AND aa.org_id = ?", installID, orgID).
		OrderExpr("aa.created_at DESC, aa.id DESC").Limit(int64(limit)).Scan(ctx, &rows)
	if err != nil {
		return nil, s.err("install attempts", err)
	}
	out := make([]attribution.Attempt, len(rows))
	for i := range rows {
		out[i] = rows[i].attempt()
	}
	return out, nil
}

// ClickTime implements attribution.RecordStore.
func (s *Store) ClickTime(ctx context.Context, orgID, id uuid.UUID) (time.Time, error) {
	var at time.Time
	err := s.db.NewSelect().Table("clicks").Column("occurred_at").Where("org_id = ? AND id = ?", orgID, id).
		Limit(1).Scan(ctx, &at)
	if err != nil {
		return time.Time{}, s.err("click time", err)
	}
	return at.UTC(), nil
}
