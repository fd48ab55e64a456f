package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
)

var _ org.ParameterStore = (*Store)(nil)

// OrgParameters implements org.ParameterStore. organizations.parameters holds
// the defaults as JSON, NULL when none are set.
func (s *Store) OrgParameters(ctx context.Context, orgID uuid.UUID) (*params.OrgConfig, error) {
	var raw sql.NullString
	err := s.scanPrepared(ctx, "organization parameters", func(ph []any) *bun.SelectQuery {
		return s.db.NewSelect().Model((*orgRow)(nil)).ColumnExpr("o.parameters").Where("o.id = ?", ph[0])
	}, []any{orgID}, &raw)
	if err != nil {
		return nil, s.err("organization parameters", err)
	}
	if !raw.Valid {
		return nil, nil
	}
	var cfg params.OrgConfig
	if err := cfg.UnmarshalJSON([]byte(raw.String)); err != nil {
		return nil, fmt.Errorf("store: organization %s: decoding parameters: %w", orgID, err)
	}
	return &cfg, nil
}

// SetOrgParameters implements org.ParameterStore.
func (s *Store) SetOrgParameters(ctx context.Context, orgID uuid.UUID, cfg *params.OrgConfig, now time.Time) error {
	var value *string
	if cfg != nil {
		b, err := cfg.MarshalJSON()
		if err != nil {
			return fmt.Errorf("store: encoding organization parameters: %w", err)
		}
		v := string(b)
		value = &v
	}
	res, err := s.db.NewUpdate().Model((*orgRow)(nil)).
		Set("parameters = ?", value).
		Set("updated_at = ?", now.UTC()).
		Where("id = ?", orgID).
		Exec(ctx)
	return s.err("set organization parameters", oneRow(res, err))
}
