package client

import (
	"context"
	"net/http"
	"time"
)

// APIKey is a key's record (the ApiKey schema); its raw value is shown only
// by CreateKey.
type APIKey struct {
	ID string `json:"id"`
	// Type is "api" or "sdk".
	Type  string  `json:"type"`
	Name  string  `json:"name"`
	AppID *string `json:"app_id"`
	// KeyPrefix is "svc_live_" or "svc_test_".
	KeyPrefix  string     `json:"key_prefix"`
	Scopes     []string   `json:"scopes"`
	CreatedBy  *string    `json:"created_by"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// CreatedKey is a new key with its raw value, shown this once.
type CreatedKey struct {
	APIKey
	RawKey string `json:"raw_key"`
}

// CreateKeyRequest is the body of CreateKey. Empty fields are not sent.
type CreateKeyRequest struct {
	Name string `json:"name"`
	// Scopes of an API key; an SDK key's are fixed.
	Scopes    []string   `json:"scopes,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Type is "api" (the default) or "sdk".
	Type string `json:"type,omitempty"`
	// AppID ties an SDK key to one app.
	AppID *string `json:"app_id,omitempty"`
}

// KeyList is the organization's keys (GET /keys has no pagination).
type KeyList struct {
	Data []APIKey `json:"data"`
}

// CreateKey creates an API or SDK key (POST /keys).
func (c *Client) CreateKey(ctx context.Context, in CreateKeyRequest) (*CreatedKey, error) {
	return do[CreatedKey](ctx, c, request{method: http.MethodPost, path: "/keys", body: in})
}

// ListKeys returns the organization's keys, or a member's own (GET /keys).
func (c *Client) ListKeys(ctx context.Context) (*KeyList, error) {
	return do[KeyList](ctx, c, request{method: http.MethodGet, path: "/keys"})
}

// GetKey returns a key's record (GET /keys/{id}).
func (c *Client) GetKey(ctx context.Context, id string) (*APIKey, error) {
	return do[APIKey](ctx, c, request{method: http.MethodGet, path: pathf("/keys/%s", id)})
}

// RevokeKey revokes a key for good (DELETE /keys/{id}).
func (c *Client) RevokeKey(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: pathf("/keys/%s", id)}, nil)
}
