package auth

import (
	"context"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// Forgetter drops cached authentications; the Authenticator is one.
type Forgetter interface {
	ForgetKey(id uuid.UUID)
}

// Keys manages API and SDK keys: creation, listing, reading and revocation,
// with both authorization layers applied.
type Keys struct {
	store  KeyStore
	forget Forgetter
	clock  func() time.Time
	random io.Reader
}

// KeysOptions configure a Keys service. Every zero value means the
// documented default.
type KeysOptions struct {
	// Forget is told of every revoked key, so that the authentication cache
	// of this process (an *Authenticator) refuses it at once. If nil,
	// nothing is told.
	Forget Forgetter
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random is the source of raw keys; crypto/rand when nil.
	Random io.Reader
}

// NewKeys returns the key service over store.
func NewKeys(store KeyStore, opts KeysOptions) *Keys {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Keys{store: store, forget: opts.Forget, clock: opts.Clock, random: opts.Random}
}

// CreateKeyInput is the body of POST /keys.
type CreateKeyInput struct {
	Name      string     `json:"name"`
	Scopes    []Scope    `json:"scopes"`
	ExpiresAt *time.Time `json:"expires_at"`
	// Type is "api" (or empty) for an API key and "sdk" for an SDK key.
	Type  KeyType    `json:"type"`
	AppID *uuid.UUID `json:"app_id"`
	// Test makes a svc_test_ key instead of a svc_live_ one.
	Test bool `json:"-"`
}

// IssuedKey is a newly created key with its raw value, shown once.
type IssuedKey struct {
	Key
	RawKey string `json:"raw_key"`
}

// NewKey builds a key record and its raw value for organization orgID without
// storing it. It validates in against SPEC.md's POST /keys rules, except that
// app_id's membership of the organization is the caller's to check.
func NewKey(random io.Reader, now time.Time, orgID uuid.UUID, createdBy *uuid.UUID, in CreateKeyInput) (*IssuedKey, error) {
	var fields []errcode.FieldError
	bad := func(field, msg string) { fields = append(fields, errcode.FieldError{Field: field, Message: msg}) }

	if n := utf8.RuneCountInString(in.Name); n < 1 || n > 100 {
		bad("name", "must be 1 to 100 characters")
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		bad("expires_at", "must be in the future")
	}
	var scopes []Scope
	switch in.Type {
	case "", KeyTypeAPI:
		in.Type = KeyTypeAPI
		if len(in.Scopes) == 0 {
			bad("scopes", "must name at least one scope")
		}
		for _, s := range in.Scopes {
			switch {
			case s == ScopeAttributionWrite:
				bad("scopes", "attribution:write can only be carried by SDK keys")
			case !s.Valid():
				bad("scopes", "unknown scope "+string(s))
			}
		}
		if in.AppID != nil {
			bad("app_id", "only an SDK key can be tied to an app")
		}
		scopes = NormalizeScopes(in.Scopes)
	case KeyTypeSDK:
		if len(in.Scopes) > 0 && !slices.Equal(NormalizeScopes(in.Scopes), SDKScopes) {
			bad("scopes", "SDK keys have the fixed scopes links:read and attribution:write")
		}
		if in.ExpiresAt != nil {
			bad("expires_at", "SDK keys never expire")
		}
		scopes = slices.Clone(SDKScopes)
	default:
		bad("type", "must be api or sdk")
	}
	if len(fields) > 0 {
		return nil, errcode.Validation(fields...)
	}

	prefix := LivePrefix
	if in.Test {
		prefix = TestPrefix
	}
	raw, err := GenerateKey(random, prefix)
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Millisecond)
	var expires *time.Time
	if in.ExpiresAt != nil {
		e := in.ExpiresAt.UTC().Truncate(time.Millisecond)
		expires = &e
	}
	return &IssuedKey{
		Key: Key{
			ID:        id,
			OrgID:     orgID,
			Type:      in.Type,
			Name:      in.Name,
			AppID:     in.AppID,
			Prefix:    prefix,
			Hash:      HashKey(raw),
			Scopes:    scopes,
			CreatedBy: createdBy,
			ExpiresAt: expires,
			CreatedAt: now,
			UpdatedAt: now,
		},
		RawKey: raw,
	}, nil
}

// Create creates a key in p's organization. The new key's creator is p's
// creator (none for a key without one). An API key may carry only scopes that
// p's key carries and, for a key with a creator, that the creator's role holds.
func (s *Keys) Create(ctx context.Context, p *Principal, in CreateKeyInput) (*IssuedKey, error) {
	if _, err := p.Authorize(ScopeKeysWrite, ActKeysWrite); err != nil {
		return nil, err
	}
	k, err := NewKey(s.random, s.clock(), p.OrgID, p.CreatedBy, in)
	if err != nil {
		return nil, err
	}
	// A key never hands out more than its maker holds: an API key's scopes
	// must be scopes of the creating key, and of its creator's role. SDK keys
	// carry their fixed, narrow scopes and need keys:write alone.
	if k.Type == KeyTypeAPI {
		for _, sc := range k.Scopes {
			if !p.Scopes.Has(sc) {
				return nil, errcode.Newf(errcode.Forbidden, "this key may not create a key with the %s scope, which it lacks", sc)
			}
		}
	}
	if p.CreatedBy != nil {
		for _, sc := range k.Scopes {
			if !RoleGrants(p.Role, sc) {
				return nil, errcode.Newf(errcode.Forbidden, "the %s role may not create a key with the %s scope", p.Role, sc)
			}
		}
	}
	if k.AppID != nil {
		ok, err := s.store.AppExists(ctx, p.OrgID, *k.AppID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errcode.Field("app_id", "is not an app of this organization")
		}
	}
	if err := s.store.CreateKey(ctx, &k.Key); err != nil {
		return nil, err
	}
	return k, nil
}

// List returns the keys p may see: every key of the organization, or only
// the keys its creator created when the creator's role reaches its own keys only.
func (s *Keys) List(ctx context.Context, p *Principal) ([]Key, error) {
	reach, err := p.Authorize(ScopeKeysRead, ActKeysRead)
	if err != nil {
		return nil, err
	}
	var only *uuid.UUID
	if reach == Own {
		only = p.CreatedBy
	}
	return s.store.ListKeys(ctx, p.OrgID, only)
}

// Get returns key id of p's organization; NOT_FOUND when there is none there.
func (s *Keys) Get(ctx context.Context, p *Principal, id uuid.UUID) (*Key, error) {
	reach, err := p.Authorize(ScopeKeysRead, ActKeysRead)
	if err != nil {
		return nil, err
	}
	return s.get(ctx, p, reach, id)
}

func (s *Keys) get(ctx context.Context, p *Principal, reach Reach, id uuid.UUID) (*Key, error) {
	k, err := s.store.KeyByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "key not found")
	}
	if reach == Own && !p.Owns(k.CreatedBy) {
		return nil, errcode.New(errcode.Forbidden, "members manage only the keys they created")
	}
	return k, nil
}

// Revoke deletes key id of p's organization for good: its next use gets 401.
func (s *Keys) Revoke(ctx context.Context, p *Principal, id uuid.UUID) error {
	reach, err := p.Authorize(ScopeKeysWrite, ActKeysWrite)
	if err != nil {
		return err
	}
	if _, err := s.get(ctx, p, reach, id); err != nil {
		return err
	}
	err = s.store.DeleteKey(ctx, p.OrgID, id)
	if err != nil {
		return errcode.NotFoundAs(err, "key not found")
	}
	if s.forget != nil {
		s.forget.ForgetKey(id)
	}
	return nil
}

// CreateFor creates a key in organization orgID on an operator's behalf (the
// CLI). With createdBy nil the key has no creator and may carry any
// requestable scope; otherwise role must be the creator's current role in the
// organization, and the key may carry only scopes that role holds.
func (s *Keys) CreateFor(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, role Role, in CreateKeyInput) (*IssuedKey, error) {
	p := &Principal{OrgID: orgID, Scopes: NewScopeSet(AllScopes), CreatedBy: createdBy, Role: role}
	return s.Create(ctx, p, in)
}

// ListFor returns every key of organization orgID, for the operator's CLI.
func (s *Keys) ListFor(ctx context.Context, orgID uuid.UUID) ([]Key, error) {
	return s.store.ListKeys(ctx, orgID, nil)
}
