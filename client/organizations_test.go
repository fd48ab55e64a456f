package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

func TestOrganization(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanStarter)
	c, id := tn.c, tn.org.ID.String()

	o, err := c.GetOrganization(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, tn.org.Name, o.Name)
	assert.Equal(t, "starter", o.Plan)
	other := s.newTenant(t, org.PlanFree)
	apiError(t, firstErr(c.GetOrganization(ctx, other.org.ID.String())), http.StatusNotFound, client.CodeNotFound)

	p, err := c.PutOrganizationParameters(ctx, id, client.OrgParameters{
		Injected:   []client.InjectedParam{{Key: "ref", Value: "hoplink"}},
		Forwarding: &client.Forwarding{Enabled: true, Allowlist: []string{"gclid"}},
	})
	require.NoError(t, err)
	assert.Equal(t, "ref", p.Injected[0].Key)
	assert.Nil(t, p.Injected[0].Mode)
	p, err = c.GetOrganizationParameters(ctx, id)
	require.NoError(t, err)
	require.NotNil(t, p.Forwarding)
	assert.Equal(t, []string{"gclid"}, p.Forwarding.Allowlist)
	e := apiError(t, firstErr(c.PutOrganizationParameters(ctx, id, client.OrgParameters{
		Injected: []client.InjectedParam{{Key: "ref", Value: "x", Mode: client.Ptr("sometimes")}}})),
		http.StatusBadRequest, client.CodeValidationError)
	assert.NotEmpty(t, e.Fields)

	sec, err := c.GetOrganizationSecurity(ctx, id)
	require.NoError(t, err)
	sec.SessionLifetimeHours = 12
	sec.IdleTimeoutMinutes = 60
	sec, err = c.PutOrganizationSecurity(ctx, id, *sec)
	require.NoError(t, err)
	assert.Equal(t, 12, sec.SessionLifetimeHours)
	assert.Equal(t, 60, sec.IdleTimeoutMinutes)

	// The audit log records the policy change and the keys made.
	for range 3 {
		_, err := c.CreateKey(ctx, client.CreateKeyRequest{Name: "k", Scopes: []string{"links:read"}})
		require.NoError(t, err)
	}
	page, err := c.ListAuditEvents(ctx, client.ListAuditEventsParams{Limit: 2})
	require.NoError(t, err)
	assert.Len(t, page.Data, 2)
	assert.True(t, page.Pagination.HasMore)
	var actions []string
	for ev, err := range c.AllAuditEvents(ctx, client.ListAuditEventsParams{Limit: 1, From: time.Now().Add(-time.Hour)}) {
		require.NoError(t, err)
		actions = append(actions, ev.Action)
	}
	assert.Equal(t, []string{"key.created", "key.created", "key.created", "security_policy.changed"}, actions)
	for _, err := range c.AllAuditEvents(ctx, client.ListAuditEventsParams{Cursor: "forged"}) {
		apiError(t, err, http.StatusBadRequest, client.CodeCursorInvalid)
	}

	apiError(t, firstErr(c.DeleteOrganization(ctx, id, "wrong name")), http.StatusForbidden, client.CodeConfirmationMismatch)
	gone, err := c.DeleteOrganization(ctx, id, tn.org.Name)
	require.NoError(t, err)
	assert.Equal(t, id, gone.ID)
	apiError(t, firstErr(c.GetOrganization(ctx, id)), http.StatusUnauthorized, client.CodeUnauthorized)
}
