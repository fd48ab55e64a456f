package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/webhook"
)

var (
	_ linking.AppSubdomainStore = (*Store)(nil)
	_ linking.AppLinkStore      = (*Store)(nil)
)

// handleHoldRow is a row of app_handle_holds (migration 20261125000040): a
// released handle, held for the app that released it.
type handleHoldRow struct {
	bun.BaseModel `bun:"table:app_handle_holds,alias:hh"`

	Handle     string    `bun:"handle,pk"`
	AppID      uuid.UUID `bun:"app_id"`
	OrgID      uuid.UUID `bun:"org_id"`
	ReleasedAt time.Time `bun:"released_at"`
	HeldUntil  time.Time `bun:"held_until"`
}

// lockApp reads app id of orgID in tx, locking its row on PostgreSQL (SQLite
// transactions take turns anyway), so that the subdomain writes of one app
// take turns; sql.ErrNoRows when there is none in orgID.
func lockApp(ctx context.Context, tx bun.Tx, orgID, id uuid.UUID) (*appRow, error) {
	var row appRow
	q := tx.NewSelect().Model(&row).Where("a.id = ? AND a.org_id = ?", id, orgID)
	if tx.Dialect().Name() == dialect.PG {
		q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, err
	}
	return &row, nil
}

// SetAppDefaultLinkDomain implements linking.AppSubdomainStore: one update
// guarded by the app's link_state, so that a default chosen from a stale
// read is never written.
func (s *Store) SetAppDefaultLinkDomain(ctx context.Context, orgID, id uuid.UUID, domain string, linkState int64, now time.Time) (*linking.App, error) {
	var row appRow
	err := s.db.NewUpdate().Model(&row).
		Set("default_link_domain = ?", domain).
		Set("link_state = a.link_state + 1").
		Set("updated_at = ?", utc(now)).
		Where("a.id = ? AND a.org_id = ? AND a.link_state = ?", id, orgID, linkState).
		Returning("*").
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		exists, xerr := s.db.NewSelect().Model((*appRow)(nil)).Where("a.id = ? AND a.org_id = ?", id, orgID).Exists(ctx)
		if xerr != nil {
			return nil, s.err("set app default link domain", xerr)
		}
		if exists {
			return nil, linking.ErrAppStateChanged
		}
	}
	if err != nil {
		return nil, s.err("set app default link domain", err)
	}
	return toApp(&row)
}

// handleInUse is HandleInUse within db.
func handleInUse(ctx context.Context, db bun.IDB, appID uuid.UUID, handle, domain string, now time.Time) error {
	taken, err := db.NewSelect().Model((*appRow)(nil)).
		Where("a.id <> ?", appID).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("a.handle = ?", handle).WhereOr("a.link_domain = ?", domain).WhereOr("a.previous_link_domain = ?", domain)
		}).Exists(ctx)
	if err != nil {
		return err
	}
	if !taken {
		// Links left behind on a released subdomain keep it taken.
		taken, err = db.NewSelect().Model((*linkRow)(nil)).
			Where("l.domain = ? AND (l.app_id IS NULL OR l.app_id <> ?)", domain, appID).Exists(ctx)
		if err != nil {
			return err
		}
	}
	if taken {
		return linking.ErrAppHandleTaken
	}
	held, err := db.NewSelect().Model((*handleHoldRow)(nil)).
		Where("hh.handle = ? AND hh.app_id <> ? AND hh.held_until > ?", handle, appID, utc(now)).Exists(ctx)
	if err != nil {
		return err
	}
	if held {
		return linking.ErrAppHandleHeld
	}
	return nil
}

// HandleInUse implements linking.AppSubdomainStore.
func (s *Store) HandleInUse(ctx context.Context, appID uuid.UUID, handle, domain string, now time.Time) error {
	err := handleInUse(ctx, s.db, appID, handle, domain, now)
	if errors.Is(err, linking.ErrAppHandleTaken) || errors.Is(err, linking.ErrAppHandleHeld) {
		return err
	}
	return s.err("handle in use", err)
}

// CountLinksOnDomain implements linking.AppSubdomainStore.
func (s *Store) CountLinksOnDomain(ctx context.Context, domain string) (int, error) {
	n, err := s.db.NewSelect().Model((*linkRow)(nil)).Where("l.domain = ?", domain).Count(ctx)
	return int(n), s.err("count links on domain", err)
}

// RenameApp implements linking.AppSubdomainStore in one transaction that
// locks the app's row (lockApp).
func (s *Store) RenameApp(ctx context.Context, r *linking.AppRename) (*linking.App, error) {
	var out appRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := lockApp(ctx, tx, r.OrgID, r.AppID)
		if err != nil {
			return err
		}
		if row.LinkState != r.LinkState {
			return linking.ErrAppStateChanged
		}
		if row.PreviousLinkDomain != nil {
			return linking.ErrRenamePeriodOpen
		}
		if err := handleInUse(ctx, tx, r.AppID, r.Handle, r.ToLinkDomain, r.At); err != nil {
			return err
		}
		if !r.Confirm {
			n, err := tx.NewSelect().Model((*linkRow)(nil)).Where("l.domain = ?", r.FromLinkDomain).Count(ctx)
			if err != nil {
				return err
			}
			if n > 0 {
				return &linking.ConfirmationError{Links: int(n)}
			}
		}
		if _, err := tx.NewDelete().Model((*handleHoldRow)(nil)).Where("handle = ?", r.Handle).Exec(ctx); err != nil {
			return err
		}
		return tx.NewUpdate().Model(&out).
			Set("handle = ?", r.Handle).
			Set("link_domain = ?", r.ToLinkDomain).
			Set("previous_link_domain = ?", r.FromLinkDomain).
			Set("default_link_domain = CASE WHEN a.default_link_domain IN ('', ?) THEN ? ELSE a.default_link_domain END",
				r.FromLinkDomain, r.ToLinkDomain).
			Set("rename_opened_at = ?", utc(r.At)).
			Set("rename_ends_at = ?", utc(r.EndsAt)).
			Set("rename_extensions = 0").
			Set("link_state = a.link_state + 1").
			Set("updated_at = ?", utc(r.At)).
			Where("a.id = ?", r.AppID).
			Returning("*").
			Scan(ctx)
	})
	var ce *linking.ConfirmationError
	switch {
	case err == nil:
		return toApp(&out)
	case errors.As(err, &ce), errors.Is(err, linking.ErrAppStateChanged), errors.Is(err, linking.ErrRenamePeriodOpen),
		errors.Is(err, linking.ErrAppHandleTaken), errors.Is(err, linking.ErrAppHandleHeld):
		return nil, err
	case uniqueViolation(err):
		return nil, linking.ErrAppHandleTaken
	}
	return nil, s.err("rename app", err)
}

// ExtendRename implements linking.AppSubdomainStore.
func (s *Store) ExtendRename(ctx context.Context, orgID, id uuid.UUID, by time.Duration, max int, now time.Time) (*linking.App, error) {
	var out appRow
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := lockApp(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if row.PreviousLinkDomain == nil || row.RenameEndsAt == nil || !row.RenameEndsAt.After(now) {
			return linking.ErrRenamePeriodNotOpen
		}
		if row.RenameExtensions >= max {
			return linking.ErrRenameExtensionLimit
		}
		return tx.NewUpdate().Model(&out).
			Set("rename_ends_at = ?", utc(row.RenameEndsAt.Add(by))).
			Set("rename_extensions = a.rename_extensions + 1").
			Set("link_state = a.link_state + 1").
			Set("updated_at = ?", utc(now)).
			Where("a.id = ?", id).
			Returning("*").
			Scan(ctx)
	})
	if errors.Is(err, linking.ErrRenamePeriodNotOpen) || errors.Is(err, linking.ErrRenameExtensionLimit) {
		return nil, err
	}
	if err != nil {
		return nil, s.err("extend rename", err)
	}
	return toApp(&out)
}

// previousLink is a link on an app's previous subdomain with what decides
// its fate on the app's current one.
type previousLink struct {
	ID   uuid.UUID `bun:"id"`
	Slug string    `bun:"slug"`
	// Kept: a keep choice is saved on the previous subdomain.
	Kept bool `bun:"kept"`
	// Taken: a link or an old address is at the slug on the current one.
	Taken bool `bun:"taken"`
}

// waiting reports whether l waits for a move choice: no keep choice, and
// its slug taken (or reserved) on the app's subdomain.
func (l previousLink) waiting() bool {
	return !l.Kept && (l.Taken || linking.IsReservedSlug(l.Slug, true))
}

// previousLinks returns the links of app appID on previous, with their
// keep choices and whether their slug is taken on current.
func previousLinks(ctx context.Context, db bun.IDB, orgID, appID uuid.UUID, previous, current string) ([]previousLink, error) {
	var out []previousLink
	err := db.NewSelect().Model((*linkRow)(nil)).
		Column("l.id", "l.slug").
		ColumnExpr("EXISTS (SELECT 1 FROM link_move_choices AS mc WHERE mc.link_id = l.id AND mc.domain = l.domain AND mc.choice = ?) AS kept",
			linking.MoveChoiceKeep).
		ColumnExpr(`(EXISTS (SELECT 1 FROM links AS t WHERE t.domain = ? AND t.slug = l.slug)
			OR EXISTS (SELECT 1 FROM link_old_addresses AS oa WHERE oa.domain = ? AND oa.slug = l.slug AND oa.link_id <> l.id)) AS taken`,
			current, current).
		Where("l.org_id = ? AND l.app_id = ? AND l.domain = ?", orgID, appID, previous).
		OrderExpr("l.created_at, l.id").
		Scan(ctx, &out)
	return out, err
}

// PreviousLinkCounts implements linking.AppSubdomainStore.
func (s *Store) PreviousLinkCounts(ctx context.Context, orgID, appID uuid.UUID, previous, current string) (linking.PreviousLinks, error) {
	var c linking.PreviousLinks
	links, err := previousLinks(ctx, s.db, orgID, appID, previous, current)
	if err != nil {
		return c, s.err("previous link counts", err)
	}
	for _, l := range links {
		switch {
		case l.Kept:
			c.Kept++
		case l.waiting():
			c.Waiting++
		default:
			c.Moving++
		}
	}
	return c, nil
}

// WaitingLinks implements linking.AppSubdomainStore: the links
// PreviousLinkCounts counts as waiting, told apart by the same test.
func (s *Store) WaitingLinks(ctx context.Context, orgID, appID uuid.UUID, previous, current string, limit int) ([]linking.WaitingLink, error) {
	links, err := previousLinks(ctx, s.db, orgID, appID, previous, current)
	if err != nil {
		return nil, s.err("waiting links", err)
	}
	var out []linking.WaitingLink
	for _, l := range links {
		if len(out) == limit {
			break
		}
		if l.waiting() {
			out = append(out, linking.WaitingLink{ID: l.ID, Slug: l.Slug})
		}
	}
	return out, nil
}

// EndRenamePeriod implements linking.AppSubdomainStore in one transaction
// that locks the app's row (lockApp) and, on PostgreSQL, each address a
// link moves to (lockAddress), as MoveLink does.
func (s *Store) EndRenamePeriod(ctx context.Context, e *linking.RenameEnd) (*linking.RenameEnded, error) {
	var out *linking.RenameEnded
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		row, err := lockApp(ctx, tx, e.OrgID, e.AppID)
		if err != nil {
			return err
		}
		if row.PreviousLinkDomain == nil || *row.PreviousLinkDomain != e.Previous ||
			row.RenameEndsAt == nil || row.RenameEndsAt.After(e.At) {
			return nil
		}
		links, err := previousLinks(ctx, tx, e.OrgID, e.AppID, e.Previous, e.Current)
		if err != nil {
			return err
		}
		res := &linking.RenameEnded{}
		announce, err := s.wantsEvent(ctx, tx, e.OrgID, webhook.LinkUpdated)
		if err != nil {
			return err
		}
		var events []webhook.Event
		for _, l := range links {
			if l.Kept {
				continue
			}
			if l.Taken || linking.IsReservedSlug(l.Slug, true) {
				res.LeftBehind++
				continue
			}
			if err := lockAddress(ctx, tx, e.Current, l.Slug); err != nil {
				return err
			}
			if taken, err := otherLinkAt(ctx, tx, e.Current, l.Slug, l.ID); err != nil || taken {
				if taken {
					res.LeftBehind++
				}
				if err != nil {
					return err
				}
				continue
			}
			// A link moving back to where it was (an app that took its
			// handle back) is its own old address there: the address is
			// live again.
			if _, err := tx.NewDelete().Model((*oldAddressRow)(nil)).
				Where("domain = ? AND slug = ? AND link_id = ?", e.Current, l.Slug, l.ID).Exec(ctx); err != nil {
				return err
			}
			var moved linkRow
			err := tx.NewUpdate().Model(&moved).
				Set("domain = ?", e.Current).
				Set("updated_at = ?", utc(e.At)).
				Where("l.id = ? AND l.domain = ?", l.ID, e.Previous).
				Returning("*").
				Scan(ctx)
			updated := err == nil
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if announce && updated {
				ml, err := toLink(&moved)
				if err != nil {
					return err
				}
				ml.ShortURL = linking.ShortURL(e.ShortURLBase, ml.Domain, ml.Slug)
				ev, err := linkEvent(webhook.LinkUpdated, &ml, e.At)
				if err != nil {
					return err
				}
				events = append(events, ev)
			}
			old := &oldAddressRow{Domain: e.Previous, Slug: l.Slug, LinkID: l.ID, OrgID: e.OrgID, BeganAt: utc(e.At)}
			if _, err := tx.NewInsert().Model(old).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewDelete().Model((*moveChoiceRow)(nil)).Where("link_id = ?", l.ID).Exec(ctx); err != nil {
				return err
			}
			res.Moved = append(res.Moved, linking.LinkMove{OrgID: e.OrgID, LinkID: l.ID, FromDomain: e.Previous, FromSlug: l.Slug,
				ToDomain: e.Current, ToSlug: l.Slug, At: e.At})
		}
		// The moved links are announced as link.updated at their new
		// address, as a move choice's move is, one event each.
		if err := s.emit(ctx, tx, events...); err != nil {
			return err
		}
		hold := &handleHoldRow{Handle: e.OldHandle, AppID: e.AppID, OrgID: e.OrgID, ReleasedAt: utc(e.At), HeldUntil: utc(e.HoldUntil)}
		_, err = tx.NewInsert().Model(hold).
			On("CONFLICT (handle) DO UPDATE").
			Set("app_id = EXCLUDED.app_id").
			Set("org_id = EXCLUDED.org_id").
			Set("released_at = EXCLUDED.released_at").
			Set("held_until = EXCLUDED.held_until").
			Exec(ctx)
		if err != nil {
			return err
		}
		_, err = tx.NewUpdate().Model((*appRow)(nil)).
			Set("previous_link_domain = NULL").
			Set("rename_opened_at = NULL").
			Set("rename_ends_at = NULL").
			Set("rename_extensions = 0").
			Set("link_state = a.link_state + 1").
			Set("updated_at = ?", utc(e.At)).
			Where("a.id = ?", e.AppID).
			Exec(ctx)
		if err != nil {
			return err
		}
		out = res
		return nil
	})
	if err != nil {
		return nil, s.err("end rename period", err)
	}
	return out, nil
}

// EndedRenamePeriods implements linking.AppSubdomainStore through the
// index apps_rename_ends_at_idx.
func (s *Store) EndedRenamePeriods(ctx context.Context, now time.Time, after *linking.App, limit int) ([]*linking.App, error) {
	var rows []appRow
	q := s.db.NewSelect().Model(&rows).
		Where("a.rename_ends_at IS NOT NULL AND a.rename_ends_at <= ?", utc(now))
	if after != nil && after.RenameEndsAt != nil {
		at := utc(*after.RenameEndsAt)
		q.Where("(a.rename_ends_at > ? OR (a.rename_ends_at = ? AND a.id > ?))", at, at, after.ID)
	}
	err := q.OrderExpr("a.rename_ends_at, a.id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, s.err("ended rename periods", err)
	}
	return toApps(rows)
}

// AppAnyOrg returns app id whatever its organization, for operators;
// errcode.ErrNotFound when there is none.
func (s *Store) AppAnyOrg(ctx context.Context, id uuid.UUID) (*linking.App, error) {
	var row appRow
	if err := s.db.NewSelect().Model(&row).Where("a.id = ?", id).Scan(ctx); err != nil {
		return nil, s.err("app any org", err)
	}
	return toApp(&row)
}

// appGuard is the subdomain state of an app that a link create was decided
// under (CreateAppLink).
type appGuard struct {
	orgID, id uuid.UUID
	state     int64
}

// check refuses, with linking.ErrAppStateChanged, when the app's
// link_state is no longer g.state (or the app is gone). On PostgreSQL the
// app's row is read FOR SHARE, so that a rename, which locks it FOR
// UPDATE, waits for the create or the create for the rename; SQLite
// transactions take turns anyway.
func (g *appGuard) check(ctx context.Context, tx bun.Tx) error {
	var state int64
	q := tx.NewSelect().Model((*appRow)(nil)).Column("a.link_state").Where("a.id = ? AND a.org_id = ?", g.id, g.orgID)
	if tx.Dialect().Name() == dialect.PG {
		q.For("SHARE")
	}
	err := q.Scan(ctx, &state)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && state != g.state) {
		return linking.ErrAppStateChanged
	}
	return err
}

// CreateAppLink implements linking.AppLinkStore: createLink (as
// CreateLinkOnMoveTarget when previous is not empty) whose transaction
// first checks the app's subdomain state.
func (s *Store) CreateAppLink(ctx context.Context, l *linking.Link, quota linking.LinkQuota, previous string, appState int64) error {
	if l.AppID == nil {
		return s.createLink(ctx, l, quota, previous, nil)
	}
	return s.createLink(ctx, l, quota, previous, &appGuard{orgID: l.OrgID, id: *l.AppID, state: appState})
}
