package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// appRow is a row of apps. Only the columns that keys need exist so far.
type appRow struct {
	bun.BaseModel `bun:"table:apps,alias:a"`

	ID        uuid.UUID `bun:",pk"`
	OrgID     uuid.UUID
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppExists implements auth.KeyStore.
func (s *Store) AppExists(ctx context.Context, orgID, appID uuid.UUID) (bool, error) {
	ok, err := s.db.NewSelect().Model((*appRow)(nil)).Where("a.id = ? AND a.org_id = ?", appID, orgID).Exists(ctx)
	return ok, s.err("app exists", err)
}
