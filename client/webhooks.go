package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Webhook is an endpoint that receives the organization's events.
type Webhook struct {
	ID          string `json:"id"`
	OrgID       string `json:"org_id"`
	URL         string `json:"url"`
	Description string `json:"description"`
	// Events are WebhookEventType values such as "link.created".
	Events                  []string   `json:"events"`
	LinkIDs                 []string   `json:"link_ids"`
	AppIDs                  []string   `json:"app_ids"`
	Enabled                 bool       `json:"enabled"`
	DisabledAt              *time.Time `json:"disabled_at"`
	FailingSince            *time.Time `json:"failing_since"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
}

// WebhookWithSecret is a webhook with its signing secret, shown by
// CreateWebhook and RotateWebhookSecret only.
type WebhookWithSecret struct {
	Webhook
	Secret string `json:"secret"`
}

// WebhookList is the organization's webhooks (no pagination).
type WebhookList struct {
	Data []Webhook `json:"data"`
}

// CreateWebhookRequest is the body of CreateWebhook. Empty fields are not
// sent.
type CreateWebhookRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description,omitempty"`
	// LinkIDs and AppIDs, when set, limit the link and install events to
	// those links and apps.
	LinkIDs []string `json:"link_ids,omitempty"`
	AppIDs  []string `json:"app_ids,omitempty"`
}

// UpdateWebhookRequest is the body of UpdateWebhook: unset fields keep
// their values and Null clears one.
type UpdateWebhookRequest struct {
	URL         *string            `json:"url,omitempty"`
	Events      []string           `json:"events,omitempty"`
	Description Nullable[string]   `json:"description,omitzero"`
	LinkIDs     Nullable[[]string] `json:"link_ids,omitzero"`
	AppIDs      Nullable[[]string] `json:"app_ids,omitzero"`
	Enabled     *bool              `json:"enabled,omitempty"`
}

// WebhookDelivery is one event's delivery to a webhook.
type WebhookDelivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhook_id"`
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	// Status is "pending", "succeeded" or "failed".
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	LastAttemptAt  *time.Time `json:"last_attempt_at"`
	LastStatusCode *int       `json:"last_status_code"`
	LastResponseMs *int       `json:"last_response_ms"`
	LastError      string     `json:"last_error"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

// WebhookDeliveryList is a page of a webhook's deliveries.
type WebhookDeliveryList struct {
	Data       []WebhookDelivery `json:"data"`
	Pagination CursorPagination  `json:"pagination"`
}

// ListWebhookDeliveriesParams pages ListWebhookDeliveries; zero values are
// not sent.
type ListWebhookDeliveriesParams struct {
	Limit  int
	Cursor string
}

// CreateWebhook adds a webhook (POST /webhooks).
func (c *Client) CreateWebhook(ctx context.Context, in CreateWebhookRequest) (*WebhookWithSecret, error) {
	return do[WebhookWithSecret](ctx, c, request{method: http.MethodPost, path: "/webhooks", body: in})
}

// ListWebhooks returns the organization's webhooks (GET /webhooks).
func (c *Client) ListWebhooks(ctx context.Context) (*WebhookList, error) {
	return do[WebhookList](ctx, c, request{method: http.MethodGet, path: "/webhooks"})
}

// GetWebhook returns a webhook (GET /webhooks/{id}).
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	return do[Webhook](ctx, c, request{method: http.MethodGet, path: pathf("/webhooks/%s", id)})
}

// UpdateWebhook changes a webhook (PATCH /webhooks/{id}).
func (c *Client) UpdateWebhook(ctx context.Context, id string, in UpdateWebhookRequest) (*Webhook, error) {
	return do[Webhook](ctx, c, request{method: http.MethodPatch, path: pathf("/webhooks/%s", id), body: in})
}

// DeleteWebhook removes a webhook, returning it (DELETE /webhooks/{id}).
func (c *Client) DeleteWebhook(ctx context.Context, id string) (*Webhook, error) {
	return do[Webhook](ctx, c, request{method: http.MethodDelete, path: pathf("/webhooks/%s", id)})
}

// RotateWebhookSecret gives a webhook a new signing secret
// (POST /webhooks/{id}/rotate-secret).
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (*WebhookWithSecret, error) {
	return do[WebhookWithSecret](ctx, c, request{method: http.MethodPost, path: pathf("/webhooks/%s/rotate-secret", id)})
}

// TestWebhook queues a ping event to a webhook (POST /webhooks/{id}/test).
func (c *Client) TestWebhook(ctx context.Context, id string) (*WebhookDelivery, error) {
	return do[WebhookDelivery](ctx, c, request{method: http.MethodPost, path: pathf("/webhooks/%s/test", id)})
}

// ListWebhookDeliveries returns one page of a webhook's deliveries, newest
// first (GET /webhooks/{id}/deliveries).
func (c *Client) ListWebhookDeliveries(ctx context.Context, id string, p ListWebhookDeliveriesParams) (*WebhookDeliveryList, error) {
	q := url.Values{}
	setInt(q, "limit", p.Limit)
	setString(q, "cursor", p.Cursor)
	return do[WebhookDeliveryList](ctx, c, request{method: http.MethodGet, path: pathf("/webhooks/%s/deliveries", id), query: q})
}

// AllWebhookDeliveries walks a webhook's deliveries from p, following the
// cursors.
func (c *Client) AllWebhookDeliveries(ctx context.Context, id string, p ListWebhookDeliveriesParams) iter.Seq2[WebhookDelivery, error] {
	return cursorSeq(p.Cursor, func(cursor string) ([]WebhookDelivery, CursorPagination, error) {
		p.Cursor = cursor
		l, err := c.ListWebhookDeliveries(ctx, id, p)
		if err != nil {
			return nil, CursorPagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// RetryWebhookDelivery sends a delivery again
// (POST /webhooks/{id}/deliveries/{delivery_id}/retry).
func (c *Client) RetryWebhookDelivery(ctx context.Context, id, deliveryID string) (*WebhookDelivery, error) {
	return do[WebhookDelivery](ctx, c, request{method: http.MethodPost,
		path: pathf("/webhooks/%s/deliveries/%s/retry", id, deliveryID)})
}
