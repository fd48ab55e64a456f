package auth

import (
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// KeyType tells API keys from SDK keys.
type KeyType string

// The two key types (SPEC.md, Authentication rule 3).
const (
	KeyTypeAPI KeyType = "api"
	KeyTypeSDK KeyType = "sdk"
)

// Key is the stored record of an API or SDK key. The raw key is never stored;
// Hash holds its SHA-256.
type Key struct {
	ID        uuid.UUID  `json:"id"`
	OrgID     uuid.UUID  `json:"-"`
	Type      KeyType    `json:"type"`
	Name      string     `json:"name"`
	AppID     *uuid.UUID `json:"app_id"`
	Prefix    string     `json:"key_prefix"`
	Hash      string     `json:"-"`
	Scopes    []Scope    `json:"scopes"`
	CreatedBy *uuid.UUID `json:"created_by"`
	// LastUsedAt is kept up to date within a minute, not on every request.
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// Expired reports whether k has expired at now.
func (k *Key) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// Principal is the authenticated caller of one request: a key, its
// organization, its scopes and, for a key with a creator, the creator's
// current role.
type Principal struct {
	KeyID  uuid.UUID
	OrgID  uuid.UUID
	Type   KeyType
	Scopes ScopeSet
	// AppID is the app an SDK key is tied to; nil for untied keys.
	AppID *uuid.UUID
	// CreatedBy is the member who created the key; nil skips the role check.
	CreatedBy *uuid.UUID
	// Role is the creator's current role in OrgID, or "" when the creator has
	// left the organization. Empty when CreatedBy is nil.
	Role Role
}

// Authorize checks both authorization layers for one action: the key must
// carry scope, and a key with a creator must have a creator who is still a
// member whose role allows action. It returns how far the action extends
// (All for keys without a creator) or a FORBIDDEN error.
func (p *Principal) Authorize(scope Scope, action Action) (Reach, error) {
	if !p.Scopes.Has(scope) {
		return None, errcode.Newf(errcode.Forbidden, "this key lacks the %s scope", scope)
	}
	if p.CreatedBy == nil {
		return All, nil
	}
	if err := p.CheckCreator(); err != nil {
		return None, err
	}
	reach := ReachOf(p.Role, action)
	if reach == None {
		return None, errcode.Newf(errcode.Forbidden, "the %s role may not do this", p.Role)
	}
	return reach, nil
}

// CheckCreator returns FORBIDDEN when p's key has a creator who has left the
// organization (SPEC.md, Authentication rule 8), and nil otherwise, keys
// without a creator included. Authorize applies it; a route that needs no
// scope, and so calls no Authorize, calls it alone.
func (p *Principal) CheckCreator() error {
	if p.CreatedBy != nil && p.Role == "" {
		return errCreatorLeft
	}
	return nil
}

var errCreatorLeft = errcode.New(errcode.Forbidden, "the member who created this key is no longer in the organization")

// Owns reports whether p's creator created a resource whose creator is createdBy.
func (p *Principal) Owns(createdBy *uuid.UUID) bool {
	return p.CreatedBy != nil && createdBy != nil && *p.CreatedBy == *createdBy
}
