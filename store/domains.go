package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/webhook"
)

var _ linking.DomainStore = (*Store)(nil)

// domainRow is a row of domains.
type domainRow struct {
	bun.BaseModel `bun:"table:domains,alias:d"`

	ID                uuid.UUID  `bun:"id,pk"`
	OrgID             uuid.UUID  `bun:"org_id"`
	Domain            string     `bun:"domain"`
	Verified          bool       `bun:"verified"`
	VerificationToken string     `bun:"verification_token"`
	VerifiedAt        *time.Time `bun:"verified_at"`
	SuspendedAt       *time.Time `bun:"suspended_at"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
}

func fromDomain(d *linking.Domain) *domainRow {
	return &domainRow{
		ID: d.ID, OrgID: d.OrgID, Domain: d.Domain, Verified: d.Verified,
		VerificationToken: d.VerificationToken,
		VerifiedAt:        utcPtr(d.VerifiedAt), SuspendedAt: utcPtr(d.SuspendedAt),
		CreatedAt: utc(d.CreatedAt), UpdatedAt: utc(d.UpdatedAt),
	}
}

func toDomain(r *domainRow) *linking.Domain {
	return &linking.Domain{
		ID: r.ID, OrgID: r.OrgID, Domain: r.Domain, Verified: r.Verified,
		VerificationToken: r.VerificationToken,
		VerifiedAt:        utcPtr(r.VerifiedAt), SuspendedAt: utcPtr(r.SuspendedAt),
		CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}

// liveDomain is the condition, on a row aliased d, of a verified and
// unsuspended custom domain.
const liveDomain = "d.verified = ? AND d.suspended_at IS NULL"

// CreateDomain implements linking.DomainStore. On PostgreSQL the
// organization's row is locked (FOR NO KEY UPDATE) before the checks, so
// that concurrent creates of one organization take turns; SQLite's
// transactions take the write lock at BEGIN. The unique index
// domains_org_id_domain_key backs the duplicate check.
func (s *Store) CreateDomain(ctx context.Context, d *linking.Domain, maxDomains int) error {
	row := fromDomain(d)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", d.OrgID)
		if tx.Dialect().Name() == dialect.PG {
			q.For("NO KEY UPDATE")
		}
		var id uuid.UUID
		if err := q.Scan(ctx, &id); err != nil {
			return err
		}
		dup, err := tx.NewSelect().Model((*domainRow)(nil)).Where("d.org_id = ? AND d.domain = ?", d.OrgID, d.Domain).Exists(ctx)
		if err != nil {
			return err
		}
		if dup {
			return linking.ErrDomainDuplicate
		}
		claimed, err := tx.NewSelect().Model((*domainRow)(nil)).
			Where("d.domain = ? AND d.verified = ? AND d.org_id <> ?", d.Domain, true, d.OrgID).Exists(ctx)
		if err != nil {
			return err
		}
		if claimed {
			return linking.ErrDomainClaimed
		}
		n, err := tx.NewSelect().Model((*domainRow)(nil)).Where("d.org_id = ?", d.OrgID).Count(ctx)
		if err != nil {
			return err
		}
		if n >= int64(maxDomains) {
			return linking.ErrDomainLimit
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	switch {
	case errors.Is(err, linking.ErrDomainDuplicate), errors.Is(err, linking.ErrDomainClaimed), errors.Is(err, linking.ErrDomainLimit):
		return fmt.Errorf("store: create domain: %w", err)
	case err != nil && uniqueViolation(err):
		// A concurrent create of the same name by the same organization.
		return fmt.Errorf("%w (%w)", s.err("create domain", err), linking.ErrDomainDuplicate)
	}
	return s.err("create domain", err)
}

// DomainByID implements linking.DomainStore.
func (s *Store) DomainByID(ctx context.Context, orgID, id uuid.UUID) (*linking.Domain, error) {
	var row domainRow
	if err := s.db.NewSelect().Model(&row).Where("d.id = ? AND d.org_id = ?", id, orgID).Scan(ctx); err != nil {
		return nil, s.err("domain by id", err)
	}
	return toDomain(&row), nil
}

// ListDomains implements linking.DomainStore, in (created_at, id) order.
func (s *Store) ListDomains(ctx context.Context, orgID uuid.UUID, limit, offset int) ([]*linking.Domain, int, error) {
	var rows []domainRow
	q := s.db.NewSelect().Model(&rows).Where("d.org_id = ?", orgID)
	q.OrderExpr("d.created_at, d.id").Limit(int64(limit)).Offset(int64(offset))
	total, err := q.ScanAndCount(ctx)
	if err != nil {
		return nil, 0, s.err("list domains", err)
	}
	out := make([]*linking.Domain, len(rows))
	for i := range rows {
		out[i] = toDomain(&rows[i])
	}
	return out, int(total), nil
}

// DeleteDomain implements linking.DomainStore; the links' clicks go with
// them as with DeleteLink (link_delete.go).
func (s *Store) DeleteDomain(ctx context.Context, orgID, id uuid.UUID) (*linking.Domain, error) {
	var row domainRow
	var stones []tombstoneRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewDelete().Model(&row).Where("d.id = ? AND d.org_id = ?", id, orgID).Returning("*").Scan(ctx); err != nil {
			return err
		}
		var err error
		if stones, err = tombstoneLinks(ctx, tx, orgID, "domain = ?", row.Domain); err != nil {
			return err
		}
		var gone []struct {
			ID    uuid.UUID  `bun:"id"`
			Slug  string     `bun:"slug"`
			AppID *uuid.UUID `bun:"app_id"`
		}
		if err := tx.NewDelete().Model((*linkRow)(nil)).Where("l.org_id = ? AND l.domain = ?", orgID, row.Domain).
			Returning("id, slug, app_id").Scan(ctx, &gone); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Each link deleted with its domain is announced as a delete of
		// that link would be.
		at := time.Now()
		events := make([]webhook.Event, 0, len(gone))
		for _, l := range gone {
			ev, err := linkDeletedEvent(orgID, l.ID, row.Domain, l.Slug, l.AppID, at)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		return s.emit(ctx, tx, events...)
	})
	if err != nil {
		return nil, s.err("delete domain", err)
	}
	s.compactLinks(ctx, stones)
	return toDomain(&row), nil
}

// MarkDomainVerified implements linking.DomainStore; the partial unique
// index domains_verified_domain_key refuses a second verified row of a name.
func (s *Store) MarkDomainVerified(ctx context.Context, orgID, id uuid.UUID, at time.Time) (*linking.Domain, error) {
	var row domainRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewUpdate().Model(&row).
			Set("verified = ?", true).
			Set("verified_at = ?", utc(at)).
			Set("updated_at = ?", utc(at)).
			Where("d.id = ? AND d.org_id = ? AND d.verified = ?", id, orgID, false).
			Returning("*").
			Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			// Already verified (by a concurrent call): announced then.
			return tx.NewSelect().Model(&row).Where("d.id = ? AND d.org_id = ?", id, orgID).Scan(ctx)
		}
		if err != nil {
			return err
		}
		ev, err := domainEvent(webhook.DomainVerified, toDomain(&row), at)
		if err != nil {
			return err
		}
		return s.emit(ctx, tx, ev)
	})
	if err != nil && uniqueViolation(err) {
		return nil, fmt.Errorf("%w (%w)", s.err("verify domain", err), linking.ErrDomainClaimed)
	}
	if err != nil {
		return nil, s.err("verify domain", err)
	}
	return toDomain(&row), nil
}

// LiveCustomDomains implements linking.DomainStore and linking.CustomDomains.
func (s *Store) LiveCustomDomains(ctx context.Context, orgID uuid.UUID) ([]string, error) {
	var names []string
	err := s.db.NewSelect().Model((*domainRow)(nil)).Column("d.domain").
		Where("d.org_id = ? AND "+liveDomain, orgID, true).
		OrderExpr("d.domain").
		Scan(ctx, &names)
	if err != nil {
		return nil, s.err("live custom domains", err)
	}
	return names, nil
}

// LiveDomain implements linking.DomainStore.
func (s *Store) LiveDomain(ctx context.Context, name string) (*linking.Domain, error) {
	var row domainRow
	if err := s.db.NewSelect().Model(&row).Where("d.domain = ? AND "+liveDomain, name, true).Limit(1).Scan(ctx); err != nil {
		return nil, s.err("live domain", err)
	}
	return toDomain(&row), nil
}

// SetDomainsSuspended implements linking.DomainStore.
func (s *Store) SetDomainsSuspended(ctx context.Context, orgID uuid.UUID, suspend bool, at time.Time) (int, error) {
	var rows []domainRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model((*domainRow)(nil)).Set("updated_at = ?", utc(at)).Where("d.org_id = ?", orgID)
		if suspend {
			q.Set("suspended_at = ?", utc(at)).Where("d.suspended_at IS NULL")
		} else {
			q.Set("suspended_at = NULL").Where("d.suspended_at IS NOT NULL")
		}
		if err := q.Returning("*").Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		typ := webhook.DomainSuspended
		if !suspend {
			typ = webhook.DomainRestored
		}
		events := make([]webhook.Event, 0, len(rows))
		for i := range rows {
			ev, err := domainEvent(typ, toDomain(&rows[i]), at)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		return s.emit(ctx, tx, events...)
	})
	if err != nil {
		return 0, s.err("suspend domains", err)
	}
	return len(rows), nil
}
