package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/webhook"
)

var _ linking.LinkStore = (*Store)(nil)

// linkRow is a row of links. tags is a JSON array of strings and parameters
// a LinkParamConfig in JSON, NULL when the link inherits its organization's
// defaults.
type linkRow struct {
	bun.BaseModel `bun:"table:links,alias:l"`

	ID                 uuid.UUID  `bun:"id,pk"`
	OrgID              uuid.UUID  `bun:"org_id"`
	AppID              *uuid.UUID `bun:"app_id"`
	Domain             string     `bun:"domain"`
	Slug               string     `bun:"slug"`
	Name               *string    `bun:"name"`
	DestinationURL     string     `bun:"destination_url"`
	IOSURL             *string    `bun:"ios_url"`
	IOSFallbackURL     *string    `bun:"ios_fallback_url"`
	AndroidURL         *string    `bun:"android_url"`
	AndroidFallbackURL *string    `bun:"android_fallback_url"`
	OGTitle            *string    `bun:"og_title"`
	OGDescription      *string    `bun:"og_description"`
	OGImageURL         *string    `bun:"og_image_url"`
	UTMSource          *string    `bun:"utm_source"`
	UTMMedium          *string    `bun:"utm_medium"`
	UTMCampaign        *string    `bun:"utm_campaign"`
	MatchWindowHours   *int       `bun:"match_window_hours"`
	ExpiresAt          *time.Time `bun:"expires_at"`
	IsActive           bool       `bun:"is_active"`
	Tags               string     `bun:"tags"`
	Parameters         *string    `bun:"parameters"`
	PasswordHash       *string    `bun:"password_hash"`
	CreatedBy          *uuid.UUID `bun:"created_by"`
	CreatedAt          time.Time  `bun:"created_at"`
	UpdatedAt          time.Time  `bun:"updated_at"`
}

// linkUpdateColumns are the columns UpdateLink writes.
var linkUpdateColumns = []string{
	"app_id", "name", "destination_url", "ios_url", "ios_fallback_url", "android_url",
	"android_fallback_url", "og_title", "og_description", "og_image_url", "utm_source", "utm_medium",
	"utm_campaign", "match_window_hours", "expires_at", "is_active", "tags", "parameters",
	"password_hash", "updated_at",
}

func fromLink(l *linking.Link) (*linkRow, error) {
	tags := l.Tags
	if tags == nil {
		tags = []string{}
	}
	tagsJSON, err := json.Marshal(tags)
	if err != nil {
		return nil, fmt.Errorf("store: encoding tags: %w", err)
	}
	var cfg *string
	if l.Parameters != nil {
		b, err := l.Parameters.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("store: encoding parameters: %w", err)
		}
		s := string(b)
		cfg = &s
	}
	return &linkRow{
		ID:                 l.ID,
		OrgID:              l.OrgID,
		AppID:              l.AppID,
		Domain:             l.Domain,
		Slug:               l.Slug,
		Name:               l.Name,
		DestinationURL:     l.DestinationURL,
		IOSURL:             l.IOSURL,
		IOSFallbackURL:     l.IOSFallbackURL,
		AndroidURL:         l.AndroidURL,
		AndroidFallbackURL: l.AndroidFallbackURL,
		OGTitle:            l.OGTitle,
		OGDescription:      l.OGDescription,
		OGImageURL:         l.OGImageURL,
		UTMSource:          l.UTMSource,
		UTMMedium:          l.UTMMedium,
		UTMCampaign:        l.UTMCampaign,
		MatchWindowHours:   l.MatchWindowHours,
		ExpiresAt:          utcPtr(l.ExpiresAt),
		IsActive:           l.IsActive,
		Tags:               string(tagsJSON),
		Parameters:         cfg,
		PasswordHash:       l.PasswordHash,
		CreatedBy:          l.CreatedBy,
		CreatedAt:          utc(l.CreatedAt),
		UpdatedAt:          utc(l.UpdatedAt),
	}, nil
}

func toLink(r *linkRow) (linking.Link, error) {
	tags := []string{}
	if err := json.Unmarshal([]byte(r.Tags), &tags); err != nil {
		return linking.Link{}, fmt.Errorf("store: link %s: decoding tags: %w", r.ID, err)
	}
	if tags == nil {
		tags = []string{}
	}
	var cfg *params.LinkConfig
	if r.Parameters != nil {
		cfg = new(params.LinkConfig)
		if err := cfg.UnmarshalJSON([]byte(*r.Parameters)); err != nil {
			return linking.Link{}, fmt.Errorf("store: link %s: decoding parameters: %w", r.ID, err)
		}
	}
	return linking.Link{
		ID:                 r.ID,
		OrgID:              r.OrgID,
		Slug:               r.Slug,
		Name:               r.Name,
		Domain:             r.Domain,
		DestinationURL:     r.DestinationURL,
		IOSURL:             r.IOSURL,
		IOSFallbackURL:     r.IOSFallbackURL,
		AndroidURL:         r.AndroidURL,
		AndroidFallbackURL: r.AndroidFallbackURL,
		OGTitle:            r.OGTitle,
		OGDescription:      r.OGDescription,
		OGImageURL:         r.OGImageURL,
		AppID:              r.AppID,
		UTMSource:          r.UTMSource,
		UTMMedium:          r.UTMMedium,
		UTMCampaign:        r.UTMCampaign,
		MatchWindowHours:   r.MatchWindowHours,
		ExpiresAt:          utcPtr(r.ExpiresAt),
		IsActive:           r.IsActive,
		Tags:               tags,
		Parameters:         cfg,
		PasswordHash:       r.PasswordHash,
		CreatedBy:          r.CreatedBy,
		CreatedAt:          utc(r.CreatedAt),
		UpdatedAt:          utc(r.UpdatedAt),
	}, nil
}

// CreateLink implements linking.LinkStore. With a quota, the transaction
// first locks the organization's row (PostgreSQL: FOR NO KEY UPDATE, which
// does not block the foreign-key checks of other tables; SQLite's
// transactions already take the write lock at BEGIN), so that concurrent
// creates of one organization count and insert in turn. The unique index
// links_domain_slug_key decides between concurrent creates of one slug; an
// address that is an old address of a moved link is refused too, checked
// under lockAddress so that a concurrent RecordOldAddress of it waits.
func (s *Store) CreateLink(ctx context.Context, l *linking.Link, quota linking.LinkQuota) error {
	return s.createLink(ctx, l, quota, "", nil)
}

// CreateLinkOnMoveTarget implements linking.MoveChoiceStore: CreateLink
// that, after the old address and under the same lockAddress of l's
// address, also refuses a link at it (errcode.ErrConflict, checked first so
// that it wins) and a slug held for a link waiting on previous (slugHeld,
// as MoveLink counts it; linking.ErrSlugHeld). A link of previous starts to
// hold its slug again only when its keep choice is cleared, and the clear
// (LinkService.ClearMoveChoice) first tries MoveLink to l's very address,
// which takes the same lock: on PostgreSQL too this check and that move run
// in turn, as every SQLite transaction does.
func (s *Store) CreateLinkOnMoveTarget(ctx context.Context, l *linking.Link, quota linking.LinkQuota, previous string) error {
	return s.createLink(ctx, l, quota, previous, nil)
}

// createLink is CreateLink, and CreateLinkOnMoveTarget when previous is not
// empty; with an app guard, the app's subdomain state is checked first in
// the same transaction (CreateAppLink).
func (s *Store) createLink(ctx context.Context, l *linking.Link, quota linking.LinkQuota, previous string, app *appGuard) error {
	row, err := fromLink(l)
	if err != nil {
		return err
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if app != nil {
			if err := app.check(ctx, tx); err != nil {
				return err
			}
		}
		if quota.Max > 0 {
			if tx.Dialect().Name() == dialect.PG {
				var id uuid.UUID
				err := tx.NewSelect().Model((*orgRow)(nil)).Column("o.id").Where("o.id = ?", l.OrgID).
					For("NO KEY UPDATE").Scan(ctx, &id)
				if err != nil {
					return err
				}
			}
			n, err := tx.NewSelect().Model((*linkRow)(nil)).
				Where("l.org_id = ? AND l.created_at >= ?", l.OrgID, utc(quota.Since)).
				Count(ctx)
			if err != nil {
				return err
			}
			if n >= int64(quota.Max) {
				return linking.ErrLinkLimit
			}
		}
		if err := lockAddress(ctx, tx, l.Domain, l.Slug); err != nil {
			return err
		}
		moved, err := oldAddressExists(ctx, tx, l.Domain, l.Slug)
		if err != nil {
			return err
		}
		if moved {
			return errOldAddressTaken
		}
		if previous != "" {
			taken, err := otherLinkAt(ctx, tx, l.Domain, l.Slug, l.ID)
			if err != nil {
				return err
			}
			if taken {
				return errAddressTaken
			}
			held, err := slugHeld(ctx, tx, previous, l.Slug, l.ID)
			if err != nil {
				return err
			}
			if held {
				return linking.ErrSlugHeld
			}
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		ev, err := linkEvent(webhook.LinkCreated, l, l.CreatedAt)
		if err != nil {
			return err
		}
		return s.emit(ctx, tx, ev)
	})
	return s.err("create link", err)
}

// LinkByID implements linking.LinkStore.
func (s *Store) LinkByID(ctx context.Context, orgID, id uuid.UUID) (*linking.Link, error) {
	var row linkRow
	if err := s.db.NewSelect().Model(&row).Where("l.id = ? AND l.org_id = ?", id, orgID).Scan(ctx); err != nil {
		return nil, s.err("link by id", err)
	}
	l, err := toLink(&row)
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// LinksByIDs implements linking.LinkStore.
func (s *Store) LinksByIDs(ctx context.Context, orgID uuid.UUID, ids []uuid.UUID) ([]linking.Link, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// By the primary key alone, the organization checked here: with
	// org_id in the statement, SQLite (no statistics) reads the
	// organization's links through an (org_id, ...) index instead, every
	// one of them.
	var rows []linkRow
	if err := s.db.NewSelect().Model(&rows).Where("l.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, s.err("links by ids", err)
	}
	links := make([]linking.Link, 0, len(rows))
	for i := range rows {
		if rows[i].OrgID != orgID {
			continue
		}
		l, err := toLink(&rows[i])
		if err != nil {
			return nil, err
		}
		links = append(links, l)
	}
	return links, nil
}

// UpdateLink implements linking.LinkStore.
func (s *Store) UpdateLink(ctx context.Context, l *linking.Link) error {
	row, err := fromLink(l)
	if err != nil {
		return err
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(row).Column(linkUpdateColumns...).
			Where("id = ? AND org_id = ?", l.ID, l.OrgID).
			Exec(ctx)
		if err := oneRow(res, err); err != nil {
			return err
		}
		ev, err := linkEvent(webhook.LinkUpdated, l, l.UpdatedAt)
		if err != nil {
			return err
		}
		return s.emit(ctx, tx, ev)
	})
	return s.err("update link", err)
}
