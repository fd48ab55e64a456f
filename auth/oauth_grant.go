package auth

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// OAuthGrant is what an OAuth access token presented to the MCP endpoint stands for.
type OAuthGrant struct {
	UserID       uuid.UUID  // the signed-in user who consented
	ClientID     string     // the OAuth client
	ConnectionID uuid.UUID  // the grant (connection) it belongs to; revoking it ends every token
	Scopes       []string   // the scopes granted (auth scope names)
	OrgID        *uuid.UUID // the organization chosen at consent; nil for "all my organizations"
	ExpiresAt    time.Time
}

// OAuthTokenVerifier checks OAuth access tokens for the MCP endpoint.
type OAuthTokenVerifier interface {
	// VerifyAccessToken returns the grant of token when it is an active access token whose audience
	// includes resource (the canonical {public_url}/mcp) and whose connection is not revoked.
	// It returns an error wrapping ErrInvalidToken otherwise (unknown, expired, revoked, wrong audience).
	VerifyAccessToken(ctx context.Context, token, resource string) (*OAuthGrant, error)
}

// ErrInvalidToken is wrapped by every refusal of OAuthTokenVerifier.VerifyAccessToken.
var ErrInvalidToken = errors.New("auth: invalid or expired access token")
