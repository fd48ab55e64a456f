package auth

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// KeyStore is the storage that keys need. Implementations wrap
// errcode.ErrNotFound, errcode.ErrConflict and errcode.ErrUnavailable.
type KeyStore interface {
	// CreateKey inserts k. It wraps errcode.ErrConflict when the hash exists.
	CreateKey(ctx context.Context, k *Key) error
	// KeyByHash returns the key whose hash is hash, with its creator's current
	// role in the key's organization ("" when the key has no creator or the
	// creator is no longer a member). It wraps errcode.ErrNotFound when no key
	// has that hash.
	KeyByHash(ctx context.Context, hash string) (*Key, Role, error)
	// KeyByID returns the key id of organization orgID; errcode.ErrNotFound
	// when there is none in that organization.
	KeyByID(ctx context.Context, orgID, id uuid.UUID) (*Key, error)
	// ListKeys returns the keys of orgID, oldest first; only those created by
	// *createdBy when createdBy is not nil.
	ListKeys(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID) ([]Key, error)
	// DeleteKey deletes key id of organization orgID; errcode.ErrNotFound when
	// there is none in that organization.
	DeleteKey(ctx context.Context, orgID, id uuid.UUID) error
	// TouchKeys sets last_used_at of each key to the time given, if later.
	TouchKeys(ctx context.Context, used map[uuid.UUID]time.Time) error
	// AppExists reports whether appID is an app of orgID.
	AppExists(ctx context.Context, orgID, appID uuid.UUID) (bool, error)
}
