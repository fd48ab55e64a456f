package store

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/webhook"
)

var _ linking.MoveChoiceStore = (*Store)(nil)

// moveChoiceRow is a row of link_move_choices (migration 20261124000011):
// the saved move choice of a link on its app's previous subdomain.
type moveChoiceRow struct {
	bun.BaseModel `bun:"table:link_move_choices,alias:mc"`

	LinkID    uuid.UUID `bun:"link_id,pk"`
	OrgID     uuid.UUID `bun:"org_id"`
	Domain    string    `bun:"domain"`
	Choice    string    `bun:"choice"`
	NewSlug   *string   `bun:"new_slug"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// upsertMoveChoice inserts c, or replaces the link's saved choice with it
// (keeping the first created_at).
func upsertMoveChoice(ctx context.Context, db bun.IDB, c *linking.MoveChoice) error {
	row := &moveChoiceRow{LinkID: c.LinkID, OrgID: c.OrgID, Domain: c.Domain, Choice: c.Choice, NewSlug: c.NewSlug,
		CreatedAt: utc(c.CreatedAt), UpdatedAt: utc(c.UpdatedAt)}
	_, err := db.NewInsert().Model(row).
		On("CONFLICT (link_id) DO UPDATE").
		Set("domain = EXCLUDED.domain").
		Set("choice = EXCLUDED.choice").
		Set("new_slug = EXCLUDED.new_slug").
		Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}

// linkAddress returns the domain and slug of link id of orgID, or
// sql.ErrNoRows when there is none in orgID.
func linkAddress(ctx context.Context, db bun.IDB, orgID, id uuid.UUID) (domain, slug string, err error) {
	var row linkRow
	err = db.NewSelect().Model(&row).Column("l.domain", "l.slug").
		Where("l.id = ? AND l.org_id = ?", id, orgID).Scan(ctx)
	return row.Domain, row.Slug, err
}

// slugHeld reports whether slug is held on the current subdomain of the app
// whose previous subdomain is previous: a link other than except is on
// previous with that slug and waiting to move, that is with no keep choice
// saved on previous (a keep made on another domain no longer counts). MoveLink
// and CreateLinkOnMoveTarget both ask it, so that a move and a create count
// the same links as waiting. The index links_domain_slug_key finds the link.
func slugHeld(ctx context.Context, db bun.IDB, previous, slug string, except uuid.UUID) (bool, error) {
	return db.NewSelect().Model((*linkRow)(nil)).
		Where("l.domain = ? AND l.slug = ? AND l.id <> ?", previous, slug, except).
		Where("NOT EXISTS (SELECT 1 FROM link_move_choices AS mc WHERE mc.link_id = l.id AND mc.domain = l.domain AND mc.choice = ?)",
			linking.MoveChoiceKeep).
		Exists(ctx)
}

// SaveMoveChoice implements linking.MoveChoiceStore.
func (s *Store) SaveMoveChoice(ctx context.Context, c *linking.MoveChoice) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		domain, _, err := linkAddress(ctx, tx, c.OrgID, c.LinkID)
		if err != nil {
			return err
		}
		if domain != c.Domain {
			return linking.ErrLinkMoved
		}
		return upsertMoveChoice(ctx, tx, c)
	})
	return s.err("save move choice", err)
}

// MoveChoiceOf implements linking.MoveChoiceStore.
func (s *Store) MoveChoiceOf(ctx context.Context, orgID, linkID uuid.UUID) (*linking.MoveChoice, error) {
	var row moveChoiceRow
	err := s.db.NewSelect().Model(&row).Where("mc.link_id = ? AND mc.org_id = ?", linkID, orgID).Scan(ctx)
	if err != nil {
		return nil, s.err("move choice", err)
	}
	return &linking.MoveChoice{LinkID: row.LinkID, OrgID: row.OrgID, Domain: row.Domain, Choice: row.Choice,
		NewSlug: row.NewSlug, CreatedAt: utc(row.CreatedAt), UpdatedAt: utc(row.UpdatedAt)}, nil
}

// DeleteMoveChoice implements linking.MoveChoiceStore.
func (s *Store) DeleteMoveChoice(ctx context.Context, orgID, linkID uuid.UUID) error {
	_, err := s.db.NewDelete().Model((*moveChoiceRow)(nil)).Where("link_id = ? AND org_id = ?", linkID, orgID).Exec(ctx)
	return s.err("delete move choice", err)
}

// MoveLink implements linking.MoveChoiceStore in one transaction that holds
// lockAddress on both addresses (in a fixed order), so that a concurrent
// CreateLink, RecordOldAddress or MoveLink of either waits for it. The
// unique index links_domain_slug_key still decides, as ErrMoveTargetTaken,
// should a link reach the new address by another path.
func (s *Store) MoveLink(ctx context.Context, m *linking.LinkMove) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		addrs := [][2]string{{m.FromDomain, m.FromSlug}, {m.ToDomain, m.ToSlug}}
		sort.Slice(addrs, func(i, j int) bool {
			return addrs[i][0]+"/"+addrs[i][1] < addrs[j][0]+"/"+addrs[j][1]
		})
		for _, a := range addrs {
			if err := lockAddress(ctx, tx, a[0], a[1]); err != nil {
				return err
			}
		}
		domain, slug, err := linkAddress(ctx, tx, m.OrgID, m.LinkID)
		if err != nil {
			return err
		}
		if domain != m.FromDomain || slug != m.FromSlug {
			return linking.ErrLinkMoved
		}
		taken, err := otherLinkAt(ctx, tx, m.ToDomain, m.ToSlug, m.LinkID)
		if err != nil {
			return err
		}
		if !taken {
			if taken, err = oldAddressExists(ctx, tx, m.ToDomain, m.ToSlug); err != nil {
				return err
			}
		}
		if taken {
			return linking.ErrMoveTargetTaken
		}
		if m.Previous != "" {
			held, err := slugHeld(ctx, tx, m.Previous, m.ToSlug, m.LinkID)
			if err != nil {
				return err
			}
			if held {
				return linking.ErrMoveTargetHeld
			}
		}
		res, err := tx.NewUpdate().Model((*linkRow)(nil)).
			Set("domain = ?", m.ToDomain).
			Set("slug = ?", m.ToSlug).
			Set("updated_at = ?", utc(m.At)).
			Where("id = ? AND org_id = ? AND domain = ? AND slug = ?", m.LinkID, m.OrgID, m.FromDomain, m.FromSlug).
			Exec(ctx)
		if uniqueViolation(err) {
			return linking.ErrMoveTargetTaken
		}
		if err := oneRow(res, err); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return linking.ErrLinkMoved
			}
			return err
		}
		old := &oldAddressRow{Domain: m.FromDomain, Slug: m.FromSlug, LinkID: m.LinkID, OrgID: m.OrgID, BeganAt: utc(m.At)}
		if _, err := tx.NewInsert().Model(old).Exec(ctx); err != nil {
			return err
		}
		// A move changes the link's address: announced as an update.
		var moved linkRow
		if err := tx.NewSelect().Model(&moved).Where("l.id = ? AND l.org_id = ?", m.LinkID, m.OrgID).Scan(ctx); err != nil {
			return err
		}
		l, err := toLink(&moved)
		if err != nil {
			return err
		}
		l.ShortURL = m.ShortURL
		ev, err := linkEvent(webhook.LinkUpdated, &l, m.At)
		if err != nil {
			return err
		}
		if err := s.emit(ctx, tx, ev); err != nil {
			return err
		}
		if m.Choice != nil {
			return upsertMoveChoice(ctx, tx, m.Choice)
		}
		_, err = tx.NewDelete().Model((*moveChoiceRow)(nil)).Where("link_id = ?", m.LinkID).Exec(ctx)
		return err
	})
	if errors.Is(err, linking.ErrLinkMoved) || errors.Is(err, linking.ErrMoveTargetTaken) || errors.Is(err, linking.ErrMoveTargetHeld) {
		return err
	}
	return s.err("move link", err)
}
