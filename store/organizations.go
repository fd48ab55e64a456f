package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/org"
)

var _ org.Store = (*Store)(nil)

// orgRow is a row of organizations.
type orgRow struct {
	bun.BaseModel `bun:"table:organizations,alias:o"`

	ID                 uuid.UUID `bun:",pk"`
	Name               string
	Slug               string
	Plan               string
	MonthlyClickLimit  int
	BillingPeriodStart time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

func fromOrganization(o *org.Organization) *orgRow {
	return &orgRow{
		ID:                 o.ID,
		Name:               o.Name,
		Slug:               o.Slug,
		Plan:               string(o.Plan),
		MonthlyClickLimit:  o.MonthlyClickLimit,
		BillingPeriodStart: utc(o.BillingPeriodStart),
		CreatedAt:          utc(o.CreatedAt),
		UpdatedAt:          utc(o.UpdatedAt),
	}
}

func toOrganization(r *orgRow) org.Organization {
	return org.Organization{
		ID:                 r.ID,
		Name:               r.Name,
		Slug:               r.Slug,
		Plan:               org.Plan(r.Plan),
		MonthlyClickLimit:  r.MonthlyClickLimit,
		BillingPeriodStart: utc(r.BillingPeriodStart),
		CreatedAt:          utc(r.CreatedAt),
		UpdatedAt:          utc(r.UpdatedAt),
	}
}

// CreateOrganization implements org.Store.
func (s *Store) CreateOrganization(ctx context.Context, o *org.Organization, bootstrap *auth.Key) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(fromOrganization(o)).Exec(ctx); err != nil {
			return err
		}
		// A new organization has no day rows of link rollups to keep
		// whole: its links' rows are hour rows from its first day on
		// (link_rollup_folds.go).
		mark := &linkRollupFoldRow{OrgID: o.ID, DaysFrom: o.CreatedAt.UTC().Unix() / linkRollupDay * linkRollupDay}
		if _, err := tx.NewInsert().Model(mark).Exec(ctx); err != nil {
			return err
		}
		if bootstrap == nil {
			return nil
		}
		_, err := tx.NewInsert().Model(fromKey(bootstrap)).Exec(ctx)
		return err
	})
	return s.err("create organization", err)
}

// OrganizationByID implements org.Store.
func (s *Store) OrganizationByID(ctx context.Context, id uuid.UUID) (*org.Organization, error) {
	var row orgRow
	if err := s.db.NewSelect().Model(&row).Where("o.id = ?", id).Scan(ctx); err != nil {
		return nil, s.err("organization by id", err)
	}
	o := toOrganization(&row)
	return &o, nil
}

// ListOrganizations implements org.Store. Organizations come in
// (created_at, id) order.
func (s *Store) ListOrganizations(ctx context.Context) ([]org.Organization, error) {
	var rows []orgRow
	if err := s.db.NewSelect().Model(&rows).OrderExpr("o.created_at, o.id").Scan(ctx); err != nil {
		return nil, s.err("list organizations", err)
	}
	orgs := make([]org.Organization, len(rows))
	for i := range rows {
		orgs[i] = toOrganization(&rows[i])
	}
	return orgs, nil
}

// CountOrganizations implements org.Store.
func (s *Store) CountOrganizations(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*orgRow)(nil)).Count(ctx)
	return int(n), s.err("count organizations", err)
}

// UpdateOrganization implements org.Store.
func (s *Store) UpdateOrganization(ctx context.Context, o *org.Organization) error {
	res, err := s.db.NewUpdate().Model(fromOrganization(o)).
		Column("name", "plan", "monthly_click_limit", "billing_period_start", "updated_at").
		WherePK().
		Exec(ctx)
	return s.err("update organization", oneRow(res, err))
}

// DeleteOrganization implements org.Store.
func (s *Store) DeleteOrganization(ctx context.Context, id uuid.UUID) error {
	res, err := s.db.NewDelete().Model((*orgRow)(nil)).Where("id = ?", id).Exec(ctx)
	return s.err("delete organization", oneRow(res, err))
}
