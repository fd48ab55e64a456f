package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanFree)
	c := tn.c

	k, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "ci", Scopes: []string{"links:read"}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(k.RawKey, "svc_live_"))
	assert.Equal(t, "api", k.Type)
	assert.Equal(t, []string{"links:read"}, k.Scopes)
	sdk, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "ios", Type: "sdk"})
	require.NoError(t, err)
	assert.Equal(t, "sdk", sdk.Type)
	e := apiError(t, firstErr(c.CreateKey(ctx, client.CreateKeyRequest{Name: "bad", Scopes: []string{"nope"}})),
		http.StatusBadRequest, client.CodeValidationError)
	assert.NotEmpty(t, e.Fields)

	list, err := c.ListKeys(ctx)
	require.NoError(t, err)
	assert.Len(t, list.Data, 3, "the bootstrap key and the two new ones")
	got, err := c.GetKey(ctx, k.ID)
	require.NoError(t, err)
	assert.Equal(t, k.APIKey.ID, got.ID)
	assert.Equal(t, "ci", got.Name)

	// A key without the scope is 403; an SDK key off the SDK routes too.
	reader := s.client(t, k.RawKey)
	apiError(t, firstErr(reader.ListKeys(ctx)), http.StatusForbidden, client.CodeForbidden)
	apiError(t, firstErr(s.client(t, sdk.RawKey).ListKeys(ctx)), http.StatusForbidden, client.CodeSDKKeyRouteForbidden)

	require.NoError(t, c.RevokeKey(ctx, k.ID))
	apiError(t, firstErr(reader.ListLinks(ctx, client.ListLinksParams{})), http.StatusUnauthorized, client.CodeUnauthorized)
	apiError(t, firstErr(c.GetKey(ctx, k.ID)), http.StatusNotFound, client.CodeNotFound)
	apiError(t, c.RevokeKey(ctx, k.ID), http.StatusNotFound, client.CodeNotFound)
}
