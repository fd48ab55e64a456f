package auth_test

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// memKeys is an in-memory auth.KeyStore that counts lookups, for unit tests of
// the cache. The real stores are tested in package store.
type memKeys struct {
	mu      sync.Mutex
	keys    map[uuid.UUID]auth.Key
	roles   map[uuid.UUID]auth.Role // member -> role, one organization
	apps    map[uuid.UUID]uuid.UUID // app -> org
	lookups int
	touched map[uuid.UUID]time.Time
	fail    error
}

func newMemKeys() *memKeys {
	return &memKeys{keys: map[uuid.UUID]auth.Key{}, roles: map[uuid.UUID]auth.Role{},
		apps: map[uuid.UUID]uuid.UUID{}, touched: map[uuid.UUID]time.Time{}}
}

func (m *memKeys) CreateKey(_ context.Context, k *auth.Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.keys {
		if o.Hash == k.Hash {
			return errcode.ErrConflict
		}
	}
	m.keys[k.ID] = *k
	return nil
}

func (m *memKeys) KeyByHash(_ context.Context, hash string) (*auth.Key, auth.Role, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lookups++
	if m.fail != nil {
		return nil, "", m.fail
	}
	for _, k := range m.keys {
		if k.Hash == hash {
			var role auth.Role
			if k.CreatedBy != nil {
				role = m.roles[*k.CreatedBy]
			}
			return &k, role, nil
		}
	}
	return nil, "", errcode.ErrNotFound
}

func (m *memKeys) KeyByID(_ context.Context, orgID, id uuid.UUID) (*auth.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok || k.OrgID != orgID {
		return nil, errcode.ErrNotFound
	}
	return &k, nil
}

func (m *memKeys) ListKeys(_ context.Context, orgID uuid.UUID, createdBy *uuid.UUID) ([]auth.Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []auth.Key
	for _, k := range m.keys {
		if k.OrgID == orgID && (createdBy == nil || (k.CreatedBy != nil && *k.CreatedBy == *createdBy)) {
			out = append(out, k)
		}
	}
	return out, nil
}

func (m *memKeys) DeleteKey(_ context.Context, orgID, id uuid.UUID) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok || k.OrgID != orgID {
		return errcode.ErrNotFound
	}
	delete(m.keys, id)
	return nil
}

func (m *memKeys) TouchKeys(_ context.Context, used map[uuid.UUID]time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, t := range used {
		m.touched[id] = t
	}
	return nil
}

func (m *memKeys) AppExists(_ context.Context, orgID, appID uuid.UUID) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.apps[appID] == orgID, nil
}

func (m *memKeys) lookupCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lookups
}
