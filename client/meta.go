package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// GetOpenAPIDocument returns the OpenAPI document the server serves, as
// JSON (GET /openapi.json).
func (c *Client) GetOpenAPIDocument(ctx context.Context) (json.RawMessage, error) {
	raw, err := do[json.RawMessage](ctx, c, request{method: http.MethodGet, path: "/openapi.json"})
	if err != nil {
		return nil, err
	}
	return *raw, nil
}
