package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)

	w, err := c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: receiver.URL + "/hooks",
		Events: []string{"link.created", "link.deleted"}, Description: client.Ptr("crm")})
	require.NoError(t, err)
	assert.NotEmpty(t, w.Secret)
	assert.Equal(t, "crm", w.Description)
	assert.True(t, w.Enabled)
	e := apiError(t, firstErr(c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: receiver.URL,
		Events: []string{"no.such"}})), http.StatusBadRequest, client.CodeValidationError)
	assert.NotEmpty(t, e.Fields)

	list, err := c.ListWebhooks(ctx)
	require.NoError(t, err)
	require.Len(t, list.Data, 1)
	got, err := c.GetWebhook(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"link.created", "link.deleted"}, got.Events)

	// PATCH: Null clears the description, unset keeps the events.
	up, err := c.UpdateWebhook(ctx, w.ID, client.UpdateWebhookRequest{Description: client.Null[string](),
		Enabled: client.Ptr(false)})
	require.NoError(t, err)
	assert.Empty(t, up.Description)
	assert.False(t, up.Enabled)
	assert.Equal(t, got.Events, up.Events)

	rot, err := c.RotateWebhookSecret(ctx, w.ID)
	require.NoError(t, err)
	assert.NotEqual(t, w.Secret, rot.Secret)
	assert.NotNil(t, rot.PreviousSecretExpiresAt)

	var ids []string
	for range 3 {
		d, err := c.TestWebhook(ctx, w.ID)
		require.NoError(t, err)
		assert.Equal(t, "ping", d.EventType)
		ids = append([]string{d.ID}, ids...)
	}
	page, err := c.ListWebhookDeliveries(ctx, w.ID, client.ListWebhookDeliveriesParams{Limit: 2})
	require.NoError(t, err)
	assert.Len(t, page.Data, 2)
	assert.True(t, page.Pagination.HasMore)
	var seen []string
	for d, err := range c.AllWebhookDeliveries(ctx, w.ID, client.ListWebhookDeliveriesParams{Limit: 1}) {
		require.NoError(t, err)
		seen = append(seen, d.ID)
	}
	assert.Equal(t, ids, seen, "every delivery once, newest first")

	d, err := c.RetryWebhookDelivery(ctx, w.ID, ids[0])
	require.NoError(t, err)
	assert.Equal(t, "pending", d.Status)
	apiError(t, firstErr(c.RetryWebhookDelivery(ctx, w.ID, "nope")), http.StatusBadRequest, client.CodeInvalidID)

	del, err := c.DeleteWebhook(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, w.ID, del.ID)
	apiError(t, firstErr(c.GetWebhook(ctx, w.ID)), http.StatusNotFound, client.CodeNotFound)
}
