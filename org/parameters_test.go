package org_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
)

// memParams is an in-memory org.ParameterStore.
type memParams map[uuid.UUID]*params.OrgConfig

func (m memParams) OrgParameters(_ context.Context, id uuid.UUID) (*params.OrgConfig, error) {
	cfg, ok := m[id]
	if !ok {
		return nil, errcode.ErrNotFound
	}
	return cfg, nil
}

func (m memParams) SetOrgParameters(_ context.Context, id uuid.UUID, cfg *params.OrgConfig, _ time.Time) error {
	if _, ok := m[id]; !ok {
		return errcode.ErrNotFound
	}
	m[id] = cfg
	return nil
}

func TestOrgParameters(t *testing.T) {
	ctx := context.Background()
	id, other := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	store := memParams{id: nil, other: nil}
	svc := org.NewParameters(store, org.ParametersOptions{})
	all := &auth.Principal{OrgID: id, Scopes: auth.NewScopeSet(auth.RequestableScopes)}
	creator := uuid.Must(uuid.NewV7())
	as := func(role auth.Role, scopes ...auth.Scope) *auth.Principal {
		return &auth.Principal{OrgID: id, Scopes: auth.NewScopeSet(scopes), CreatedBy: &creator, Role: role}
	}

	cfg, err := svc.Get(ctx, all, id)
	require.NoError(t, err)
	assert.Equal(t, &params.OrgConfig{Injected: []params.InjectedParam{}}, cfg, "none set: empty")

	put := &params.OrgConfig{Injected: []params.InjectedParam{{Key: "ref", Value: "hop"}}, DefaultMode: params.ModeAlways}
	got, err := svc.Put(ctx, all, id, put)
	require.NoError(t, err)
	assert.Equal(t, put, got)
	cfg, err = svc.Get(ctx, as(auth.RoleMember, auth.ScopeOrgRead), id)
	require.NoError(t, err, "every role reads them")
	assert.Equal(t, put, cfg)

	_, err = svc.Put(ctx, as(auth.RoleAdmin, auth.ScopeLinksWrite), id, put)
	assert.NoError(t, err, "admins change them")
	_, err = svc.Put(ctx, as(auth.RoleMember, auth.ScopeLinksWrite), id, put)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "members may not")
	_, err = svc.Put(ctx, as(auth.RoleOwner, auth.ScopeOrgRead), id, put)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "links:write is needed")
	_, err = svc.Get(ctx, as(auth.RoleOwner, auth.ScopeLinksRead), id)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "org:read is needed")

	_, err = svc.Get(ctx, all, other)
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err), "another organization")
	_, err = svc.Put(ctx, all, other, put)
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err), "another organization")
	_, err = svc.Put(ctx, all, id, &params.OrgConfig{Injected: []params.InjectedParam{{Key: " "}}})
	assert.Equal(t, errcode.ValidationError, errcode.CodeOf(err))
}
