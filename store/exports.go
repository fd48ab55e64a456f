package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/analytics"
)

var _ analytics.ExportStore = (*Store)(nil)

// exportRow is a row of click_exports.
type exportRow struct {
	bun.BaseModel `bun:"table:click_exports,alias:ce"`

	ID             uuid.UUID  `bun:"id,pk"`
	OrgID          uuid.UUID  `bun:"org_id"`
	CreatedBy      *uuid.UUID `bun:"created_by"`
	LinksOf        *uuid.UUID `bun:"links_of"`
	Filters        string     `bun:"filters"`
	WindowFrom     time.Time  `bun:"window_from"`
	WindowTo       time.Time  `bun:"window_to"`
	Status         string     `bun:"status"`
	RowCount       int64      `bun:"row_count"`
	Failure        *string    `bun:"failure"`
	AfterTime      *time.Time `bun:"after_time"`
	AfterID        *uuid.UUID `bun:"after_id"`
	Attempts       int        `bun:"attempts"`
	LeaseOwner     string     `bun:"lease_owner"`
	LeaseExpiresAt *time.Time `bun:"lease_expires_at"`
	CreatedAt      time.Time  `bun:"created_at"`
	CompletedAt    *time.Time `bun:"completed_at"`
	ExpiresAt      *time.Time `bun:"expires_at"`
}

func fromExportJob(j *analytics.ExportJob) (exportRow, error) {
	filters, err := json.Marshal(j.Filters)
	if err != nil {
		return exportRow{}, err
	}
	r := exportRow{
		ID: j.ID, OrgID: j.OrgID, CreatedBy: j.CreatedBy, LinksOf: j.LinksOf, Filters: string(filters),
		WindowFrom: j.Window.From.UTC(), WindowTo: j.Window.To.UTC(), Status: string(j.Status), RowCount: j.Rows,
		Failure: j.Failure, Attempts: j.Attempts, LeaseOwner: j.LeaseOwner, LeaseExpiresAt: utcPtr(j.LeaseExpiresAt),
		CreatedAt: j.CreatedAt.UTC(), CompletedAt: utcPtr(j.CompletedAt), ExpiresAt: utcPtr(j.ExpiresAt),
	}
	if j.After != nil {
		at, id := j.After.Time.UTC(), j.After.ID
		r.AfterTime, r.AfterID = &at, &id
	}
	return r, nil
}

func (r *exportRow) job() (*analytics.ExportJob, error) {
	j := &analytics.ExportJob{
		Export: analytics.Export{
			ID: r.ID, Status: analytics.ExportStatus(r.Status), Rows: r.RowCount,
			Window:    analytics.Window{From: r.WindowFrom.UTC(), To: r.WindowTo.UTC()},
			Failure:   r.Failure,
			CreatedAt: r.CreatedAt.UTC(), CompletedAt: utcPtr(r.CompletedAt), ExpiresAt: utcPtr(r.ExpiresAt),
		},
		OrgID: r.OrgID, CreatedBy: r.CreatedBy, LinksOf: r.LinksOf, Attempts: r.Attempts,
		LeaseOwner: r.LeaseOwner, LeaseExpiresAt: utcPtr(r.LeaseExpiresAt),
	}
	if err := json.Unmarshal([]byte(r.Filters), &j.Filters); err != nil {
		return nil, fmt.Errorf("store: export %s: filters: %w", r.ID, err)
	}
	if r.AfterTime != nil && r.AfterID != nil {
		j.After = &analytics.ExportPosition{Time: r.AfterTime.UTC(), ID: *r.AfterID}
	}
	return j, nil
}

// CreateExport implements analytics.ExportStore.
func (s *Store) CreateExport(ctx context.Context, job *analytics.ExportJob) error {
	row, err := fromExportJob(job)
	if err != nil {
		return fmt.Errorf("store: create export: %w", err)
	}
	_, err = s.db.NewInsert().Model(&row).Exec(ctx)
	return s.err("create export", err)
}

// ExportByID implements analytics.ExportStore.
func (s *Store) ExportByID(ctx context.Context, orgID, id uuid.UUID) (*analytics.ExportJob, error) {
	var row exportRow
	if err := s.db.NewSelect().Model(&row).Where("ce.id = ? AND ce.org_id = ?", id, orgID).Scan(ctx); err != nil {
		return nil, s.err("export by id", err)
	}
	return row.job()
}

// ListExports implements analytics.ExportStore.
func (s *Store) ListExports(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, limit, offset int) ([]*analytics.ExportJob, int, error) {
	var rows []exportRow
	q := s.db.NewSelect().Model(&rows).Where("ce.org_id = ?", orgID)
	if createdBy != nil {
		q.Where("ce.created_by = ?", *createdBy)
	}
	total, err := q.OrderExpr("ce.created_at DESC, ce.id DESC").Limit(int64(limit)).Offset(int64(offset)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, s.err("list exports", err)
	}
	out := make([]*analytics.ExportJob, 0, len(rows))
	for i := range rows {
		j, err := rows[i].job()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, j)
	}
	return out, int(total), nil
}

// claimable narrows q to the jobs a worker may claim at now: pending, or
// running under a lease expired at now; and whose window ended at or
// before settled.
func claimable(q bun.QueryBuilder, now, settled time.Time) bun.QueryBuilder {
	return q.Where("(ce.status = ? OR (ce.status = ? AND ce.lease_expires_at < ?))",
		string(analytics.ExportPending), string(analytics.ExportRunning), now.UTC()).
		Where("ce.window_to <= ?", settled.UTC())
}

// ClaimExport implements analytics.ExportStore. It reads a few candidates,
// oldest first, and takes the first that a conditional UPDATE (the same
// conditions, re-checked by the database on the row it updates) still
// finds claimable: of two workers racing for one job, one updates it and
// the other updates nothing and moves on.
func (s *Store) ClaimExport(ctx context.Context, owner string, now, settled, leaseUntil time.Time) (*analytics.ExportJob, error) {
	var ids []uuid.UUID
	q := s.db.NewSelect().Model((*exportRow)(nil)).Column("ce.id")
	claimable(q.QueryBuilder(), now, settled)
	if err := q.OrderExpr("ce.created_at, ce.id").Limit(5).Scan(ctx, &ids); err != nil {
		return nil, s.err("claim export", err)
	}
	for _, id := range ids {
		var row exportRow
		u := s.db.NewUpdate().Model(&row).
			Set("status = ?", string(analytics.ExportRunning)).
			Set("lease_owner = ?", owner).
			Set("lease_expires_at = ?", leaseUntil.UTC()).
			Set("attempts = ce.attempts + 1").
			Where("ce.id = ?", id)
		claimable(u.QueryBuilder(), now, settled)
		err := u.Returning("*").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			continue // another worker took it
		}
		if err != nil {
			return nil, s.err("claim export", err)
		}
		return row.job()
	}
	return nil, nil
}

// held updates the job id that owner holds; an error wrapping
// analytics.ErrLeaseLost when it changed nothing.
func (s *Store) held(ctx context.Context, op string, id uuid.UUID, owner string, set func(*bun.UpdateQuery)) error {
	u := s.db.NewUpdate().Model((*exportRow)(nil)).
		Where("ce.id = ? AND ce.status = ? AND ce.lease_owner = ?", id, string(analytics.ExportRunning), owner)
	set(u)
	res, err := u.Exec(ctx)
	if err != nil {
		return s.err(op, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: %s: %w", op, analytics.ErrLeaseLost)
	}
	return nil
}

// CheckpointExport implements analytics.ExportStore.
func (s *Store) CheckpointExport(ctx context.Context, id uuid.UUID, owner string, rows int64, after analytics.ExportPosition, leaseUntil time.Time) error {
	return s.held(ctx, "checkpoint export", id, owner, func(u *bun.UpdateQuery) {
		u.Set("row_count = ?", rows).Set("after_time = ?", after.Time.UTC()).Set("after_id = ?", after.ID).
			Set("lease_expires_at = ?", leaseUntil.UTC())
	})
}

// FinishExport implements analytics.ExportStore.
func (s *Store) FinishExport(ctx context.Context, id uuid.UUID, owner string, status analytics.ExportStatus, rows int64,
	failure *string, at, expiresAt time.Time) error {
	return s.held(ctx, "finish export", id, owner, func(u *bun.UpdateQuery) {
		u.Set("status = ?", string(status)).Set("row_count = ?", rows).Set("failure = ?", failure).
			Set("completed_at = ?", at.UTC()).Set("expires_at = ?", expiresAt.UTC()).
			Set("lease_owner = ''").Set("lease_expires_at = NULL")
	})
}

// ReleaseExport implements analytics.ExportStore.
func (s *Store) ReleaseExport(ctx context.Context, id uuid.UUID, owner string) error {
	err := s.held(ctx, "release export", id, owner, func(u *bun.UpdateQuery) {
		u.Set("status = ?", string(analytics.ExportPending)).Set("lease_owner = ''").Set("lease_expires_at = NULL")
	})
	if errors.Is(err, analytics.ErrLeaseLost) {
		return nil
	}
	return err
}

// DeleteExports implements analytics.ExportStore.
func (s *Store) DeleteExports(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.NewDelete().Model((*exportRow)(nil)).Where("ce.expires_at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, s.err("delete exports", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// The clicks of an export are read by scanClicks from the segments, in
// (occurred_at, id) order, the position of a click being that pair: a
// count or a page resumes after the last click it passed on, decoding
// from the segments that hold it. Nothing is kept between calls, so any
// replica can continue a job or serve a download.

// CountExportClicks implements analytics.ExportStore.
func (s *Store) CountExportClicks(ctx context.Context, scope analytics.ExportScope, after *analytics.ExportPosition,
	limit int) (int, *analytics.ExportPosition, error) {
	n := 0
	var last *analytics.ExportPosition
	err := s.scanClicksAfter(ctx, scope.OrgID, scope.Window, scope.Filter, scope.LinksOf, after, func(c *analytics.Click) error {
		n++
		if n == limit {
			last = &analytics.ExportPosition{Time: c.OccurredAt.UTC(), ID: c.ID}
			return errStopScan
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return n, last, nil
}

// ScanExportClicks implements analytics.ExportStore.
func (s *Store) ScanExportClicks(ctx context.Context, scope analytics.ExportScope, after *analytics.ExportPosition,
	fn func(*analytics.ExportClick) error) error {
	var ec analytics.ExportClick
	return s.scanClicksAfter(ctx, scope.OrgID, scope.Window, scope.Filter, scope.LinksOf, after, func(c *analytics.Click) error {
		ec = analytics.ExportClick{
			Position: analytics.ExportPosition{Time: c.OccurredAt.UTC(), ID: c.ID},
			Row: analytics.ExportRow{
				Time: c.OccurredAt, LinkID: c.LinkID, Domain: c.Domain, Slug: c.Slug, Source: string(c.Source),
				Platform: c.Platform, OS: c.OS, OSVersion: c.OSVersion, DeviceModel: c.DeviceModel,
				Browser: c.Browser, InAppBrowser: c.InAppBrowser, Country: c.Country, Referer: c.Referer,
				UTMSource: c.UTMSource, UTMMedium: c.UTMMedium, UTMCampaign: c.UTMCampaign,
				UTMTerm: c.UTMTerm, UTMContent: c.UTMContent,
			},
		}
		return fn(&ec)
	})
}
