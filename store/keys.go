package store

import (
	"bytes"
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/auth"
)

var _ auth.KeyStore = (*Store)(nil)

// keyRow is a row of api_keys. Scopes are stored space-separated, as OAuth
// writes them ("links:read links:write").
type keyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID         uuid.UUID `bun:",pk"`
	OrgID      uuid.UUID
	Type       string
	Name       string
	AppID      *uuid.UUID
	KeyPrefix  string
	KeyHash    string
	Scopes     string
	CreatedBy  *uuid.UUID
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time

	// CreatorRole is read by KeyByHash from the creator's membership.
	CreatorRole sql.NullString `bun:",scanonly"`
}

func fromKey(k *auth.Key) *keyRow {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	return &keyRow{
		ID:         k.ID,
		OrgID:      k.OrgID,
		Type:       string(k.Type),
		Name:       k.Name,
		AppID:      k.AppID,
		KeyPrefix:  k.Prefix,
		KeyHash:    k.Hash,
		Scopes:     strings.Join(scopes, " "),
		CreatedBy:  k.CreatedBy,
		LastUsedAt: utcPtr(k.LastUsedAt),
		ExpiresAt:  utcPtr(k.ExpiresAt),
		CreatedAt:  utc(k.CreatedAt),
		UpdatedAt:  utc(k.UpdatedAt),
	}
}

func toKey(r *keyRow) auth.Key {
	fields := strings.Fields(r.Scopes)
	scopes := make([]auth.Scope, len(fields))
	for i, s := range fields {
		scopes[i] = auth.Scope(s)
	}
	return auth.Key{
		ID:         r.ID,
		OrgID:      r.OrgID,
		Type:       auth.KeyType(r.Type),
		Name:       r.Name,
		AppID:      r.AppID,
		Prefix:     r.KeyPrefix,
		Hash:       r.KeyHash,
		Scopes:     scopes,
		CreatedBy:  r.CreatedBy,
		LastUsedAt: utcPtr(r.LastUsedAt),
		ExpiresAt:  utcPtr(r.ExpiresAt),
		CreatedAt:  utc(r.CreatedAt),
		UpdatedAt:  utc(r.UpdatedAt),
	}
}

// CreateKey implements auth.KeyStore.
func (s *Store) CreateKey(ctx context.Context, k *auth.Key) error {
	_, err := s.db.NewInsert().Model(fromKey(k)).Exec(ctx)
	return s.err("create key", err)
}

// KeyByHash implements auth.KeyStore. One query reads the key and its
// creator's membership.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*auth.Key, auth.Role, error) {
	var row keyRow
	err := s.db.NewSelect().Model(&row).
		ColumnExpr("k.*").
		ColumnExpr("m.role AS creator_role").
		Join("LEFT JOIN memberships AS m ON m.org_id = k.org_id AND m.user_id = k.created_by").
		Where("k.key_hash = ?", hash).
		Scan(ctx)
	if err != nil {
		return nil, "", s.err("key by hash", err)
	}
	k := toKey(&row)
	return &k, auth.Role(row.CreatorRole.String), nil
}

// KeyByID implements auth.KeyStore.
func (s *Store) KeyByID(ctx context.Context, orgID, id uuid.UUID) (*auth.Key, error) {
	var row keyRow
	err := s.db.NewSelect().Model(&row).Where("k.id = ? AND k.org_id = ?", id, orgID).Scan(ctx)
	if err != nil {
		return nil, s.err("key by id", err)
	}
	k := toKey(&row)
	return &k, nil
}

// KeyByIDAnyOrg returns key id whatever its organization, for operators (the
// CLI revokes keys by id alone); errcode.ErrNotFound when there is none.
// Services use KeyByID, which is scoped to the caller's organization.
func (s *Store) KeyByIDAnyOrg(ctx context.Context, id uuid.UUID) (*auth.Key, error) {
	var row keyRow
	if err := s.db.NewSelect().Model(&row).Where("k.id = ?", id).Scan(ctx); err != nil {
		return nil, s.err("key by id", err)
	}
	k := toKey(&row)
	return &k, nil
}

// ListKeys implements auth.KeyStore. Keys come in (created_at, id) order.
func (s *Store) ListKeys(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID) ([]auth.Key, error) {
	var rows []keyRow
	q := s.db.NewSelect().Model(&rows).Where("k.org_id = ?", orgID).OrderExpr("k.created_at, k.id")
	if createdBy != nil {
		q.Where("k.created_by = ?", *createdBy)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, s.err("list keys", err)
	}
	keys := make([]auth.Key, len(rows))
	for i := range rows {
		keys[i] = toKey(&rows[i])
	}
	return keys, nil
}

// DeleteKey implements auth.KeyStore.
func (s *Store) DeleteKey(ctx context.Context, orgID, id uuid.UUID) error {
	res, err := s.db.NewDelete().Model((*keyRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	return s.err("delete key", oneRow(res, err))
}

// TouchKeys implements auth.KeyStore. It writes in one transaction, in key id
// order, so that replicas touching the same keys never deadlock.
func (s *Store) TouchKeys(ctx context.Context, used map[uuid.UUID]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := slices.SortedFunc(maps.Keys(used), func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, id := range ids {
			at := used[id].UTC()
			_, err := tx.NewUpdate().Model((*keyRow)(nil)).
				Set("last_used_at = ?", at).
				Where("id = ?", id).
				Where("last_used_at IS NULL OR last_used_at < ?", at).
				Exec(ctx)
			if err != nil {
				return err
			}
		}
		return nil
	})
	return s.err("touch keys", err)
}
