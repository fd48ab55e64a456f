package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
)

// oldAddressRow is a row of link_old_addresses (migration
// 20261123000033): an address a link was served at before it moved.
type oldAddressRow struct {
	bun.BaseModel `bun:"table:link_old_addresses,alias:oa"`

	Domain  string    `bun:"domain,pk"`
	Slug    string    `bun:"slug,pk"`
	LinkID  uuid.UUID `bun:"link_id"`
	OrgID   uuid.UUID `bun:"org_id"`
	BeganAt time.Time `bun:"began_at"`
}

// servedOldDomain is servedCustomDomain for the old address aliased oa: its
// domain is no custom domain, or one that its organization has verified and
// that is not suspended.
const servedOldDomain = `(NOT EXISTS (SELECT 1 FROM domains AS od WHERE od.domain = oa.domain)
	OR EXISTS (SELECT 1 FROM domains AS od WHERE od.domain = oa.domain AND od.org_id = oa.org_id
		AND od.verified = ? AND od.suspended_at IS NULL))`

// addressLockClass is the first key of the transaction-level advisory locks
// that lockAddress takes on PostgreSQL (the two-key form, whose key space
// does not overlap the one-key form of the migration lock).
const addressLockClass = 0x686f70 // "hop"

// lockAddress makes the transactions that take the address domain/slug, as
// a link (CreateLink) or as an old address (RecordOldAddress), run in turn,
// so that the check of the other table and the insert are not interleaved
// with another transaction's: on PostgreSQL with a transaction-level
// advisory lock on a hash of the address (two addresses that share a hash
// only wait for each other), on SQLite by the write lock every transaction
// takes at BEGIN.
func lockAddress(ctx context.Context, tx bun.Tx, domain, slug string) error {
	if tx.Dialect().Name() != dialect.PG {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(?))", addressLockClass, domain+"/"+slug)
	return err
}

// errOldAddressTaken is CreateLink's conflict when the link's address is an
// old address of a moved link.
var errOldAddressTaken = fmt.Errorf("%w: the address is an old address of a moved link", errcode.ErrConflict)

// errAddressTaken is RecordOldAddress's conflict when another link is at the address.
var errAddressTaken = fmt.Errorf("%w: another link is at the address", errcode.ErrConflict)

// otherLinkAt reports whether a link other than except is at domain/slug,
// through the index links_domain_slug_key.
func otherLinkAt(ctx context.Context, db bun.IDB, domain, slug string, except uuid.UUID) (bool, error) {
	return db.NewSelect().Model((*linkRow)(nil)).
		Where("l.domain = ? AND l.slug = ? AND l.id <> ?", domain, slug, except).Exists(ctx)
}

// oldAddressExists reports whether domain/slug is an old address.
func oldAddressExists(ctx context.Context, tx bun.IDB, domain, slug string) (bool, error) {
	return tx.NewSelect().Model((*oldAddressRow)(nil)).Where("oa.domain = ? AND oa.slug = ?", domain, slug).Exists(ctx)
}

// RecordOldAddress implements linking.LinkStore, in one transaction under
// lockAddress: the link must be in a.OrgID, no other link may be at the
// address, and the primary key (domain, slug) refuses an address that is
// already an old one.
func (s *Store) RecordOldAddress(ctx context.Context, a *linking.OldAddress) error {
	row := &oldAddressRow{Domain: a.Domain, Slug: a.Slug, LinkID: a.LinkID, OrgID: a.OrgID, BeganAt: utc(a.BeganAt)}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := lockAddress(ctx, tx, a.Domain, a.Slug); err != nil {
			return err
		}
		if _, _, err := linkAddress(ctx, tx, a.OrgID, a.LinkID); err != nil {
			return err // sql.ErrNoRows when the link is not in a.OrgID
		}
		taken, err := otherLinkAt(ctx, tx, a.Domain, a.Slug, a.LinkID)
		if err != nil {
			return err
		}
		if taken {
			return errAddressTaken
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	return s.err("record old address", err)
}

// OldAddresses implements linking.LinkStore, through the index
// link_old_addresses_link_id_began_at_idx.
func (s *Store) OldAddresses(ctx context.Context, orgID, linkID uuid.UUID) ([]linking.OldAddress, error) {
	var rows []oldAddressRow
	err := s.db.NewSelect().Model(&rows).
		Where("oa.link_id = ? AND oa.org_id = ?", linkID, orgID).
		OrderExpr("oa.began_at, oa.domain, oa.slug").
		Scan(ctx)
	if err != nil {
		return nil, s.err("old addresses", err)
	}
	out := make([]linking.OldAddress, len(rows))
	for i, r := range rows {
		out[i] = linking.OldAddress{Domain: r.Domain, Slug: r.Slug, LinkID: r.LinkID, OrgID: r.OrgID, BeganAt: utc(r.BeganAt)}
	}
	return out, nil
}

// LinkByOldAddress implements linking.ResolveStore, through the primary key
// of link_old_addresses and the links' primary key. Both the old domain and
// the link's current one must serve (servedOldDomain, servedCustomDomain).
func (s *Store) LinkByOldAddress(ctx context.Context, domain, slug string) (*linking.Link, error) {
	var row linkRow
	err := s.db.NewSelect().Model(&row).
		Join("JOIN link_old_addresses AS oa ON oa.link_id = l.id").
		Where("oa.domain = ? AND oa.slug = ?", domain, slug).
		Where(servedCustomDomain, true).
		Where(servedOldDomain, true).
		Scan(ctx)
	if err != nil {
		return nil, s.err("link by old address", err)
	}
	l, err := toLink(&row)
	if err != nil {
		return nil, err
	}
	return &l, nil
}
