package oauth

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/pkce"
)

// Client is a registered OAuth client (RFC 7591).
type Client struct {
	// ID is the client_id, random and unguessable.
	ID string
	// SecretHash is fosite's hash of a confidential client's secret; empty
	// for a public client.
	SecretHash []byte
	// Name is client_name as registered; shown on the consent page.
	Name string
	// RedirectURIs are matched exactly, except that a loopback IP
	// literal's port may differ (RFC 8252, section 7.3).
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
	// Scopes are the scopes the client may request.
	Scopes []string
	// Audience is the canonical MCP resource; every client has it.
	Audience []string
	// TokenEndpointAuthMethod is none (public), client_secret_basic or
	// client_secret_post.
	TokenEndpointAuthMethod string
	CreatedAt               time.Time
}

// Public reports whether the client has no secret.
func (c *Client) Public() bool { return c.TokenEndpointAuthMethod == AuthMethodNone }

// Fosite returns the client as fosite sees it.
func (c *Client) Fosite() fosite.Client {
	return &namedClient{DefaultOpenIDConnectClient: &fosite.DefaultOpenIDConnectClient{
		DefaultClient: &fosite.DefaultClient{
			ID: c.ID, Secret: c.SecretHash, RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes,
			ResponseTypes: c.ResponseTypes, Scopes: c.Scopes, Audience: c.Audience, Public: c.Public(),
		},
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
	}, name: c.Name}
}

// namedClient is a fosite client that knows its registered name.
type namedClient struct {
	*fosite.DefaultOpenIDConnectClient
	name string
}

// GetName returns the client_name registered.
func (c *namedClient) GetName() string { return c.name }

// Connection is one consent: a user allowed a client to act for one of
// their organizations (OrgID) or for all of them (OrgID nil). Every token
// issued from the consent carries the connection's id as its request id, so
// revoking the connection ends all of them.
type Connection struct {
	ID       uuid.UUID
	UserID   uuid.UUID
	ClientID string
	// ClientName is filled by the reads, from the client.
	ClientName string
	OrgID      *uuid.UUID
	// Scopes are the granted auth scope names.
	Scopes     []string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Store is the storage of the authorization server. Besides fosite's
// interfaces (whose methods return fosite's own errors: fosite.ErrNotFound
// for an unknown signature or client, fosite.ErrInvalidatedAuthorizeCode
// together with the request for a used code, fosite.ErrInactiveToken
// together with the request for a used or revoked refresh token), it keeps
// clients and connections. Revoking a refresh token (RevokeRefreshToken)
// revokes the whole grant: the connection and every token of its request.
type Store interface {
	fosite.ClientManager
	oauth2.CoreStorage
	oauth2.TokenRevocationStorage
	pkce.PKCERequestStorage

	// CreateClient stores a new client.
	CreateClient(ctx context.Context, c *Client) error
	// CreateConnection stores a new connection.
	CreateConnection(ctx context.Context, c *Connection) error
	// Connection returns the connection id; fosite.ErrNotFound when there
	// is none.
	Connection(ctx context.Context, id uuid.UUID) (*Connection, error)
	// UserConnections returns userID's connections that are not revoked,
	// newest first.
	UserConnections(ctx context.Context, userID uuid.UUID) ([]Connection, error)
	// RevokeConnection revokes userID's connection id at now, with every
	// token of it, in one transaction; fosite.ErrNotFound when userID has
	// no such connection not yet revoked.
	RevokeConnection(ctx context.Context, userID, id uuid.UUID, now time.Time) error
	// TouchConnection sets the connection's last use to now.
	TouchConnection(ctx context.Context, id uuid.UUID, now time.Time) error
	// DeleteExpiredOAuth deletes the token rows that expired before now
	// and returns how many.
	DeleteExpiredOAuth(ctx context.Context, now time.Time) (int, error)
}
