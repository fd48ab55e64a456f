package migrations

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The OAuth authorization server's tables. The row types below are frozen as
// of this migration.
//
// oauth_clients holds the dynamically registered clients; a confidential
// client's secret is stored only as fosite's hash of it. oauth_connections
// holds one row per consent (a grant): who consented, to which client, for
// which organization (NULL: all of the user's organizations), with which
// scopes, when it was last used and whether it was revoked. oauth_tokens
// holds fosite's sessions of authorization codes, PKCE challenges, access
// and refresh tokens keyed by (kind, token signature): the tokens
// themselves are never stored. request_id is the connection's id, shared by
// every token of the grant. Codes and refresh tokens are marked inactive
// when used (used_at) or revoked (revoked_at), never deleted then; expired
// rows are deleted by a periodic clean-up.

type oauthClientV1 struct {
	bun.BaseModel `bun:"table:oauth_clients"`

	ID                      string    `bun:"id,pk"`
	SecretHash              string    `bun:"secret_hash,notnull"`
	Name                    string    `bun:"name,notnull"`
	RedirectURIs            string    `bun:"redirect_uris,notnull"`
	GrantTypes              string    `bun:"grant_types,notnull"`
	ResponseTypes           string    `bun:"response_types,notnull"`
	Scopes                  string    `bun:"scopes,notnull"`
	Audience                string    `bun:"audience,notnull"`
	TokenEndpointAuthMethod string    `bun:"token_endpoint_auth_method,notnull"`
	CreatedAt               time.Time `bun:"created_at,notnull"`
}

type oauthConnectionV1 struct {
	bun.BaseModel `bun:"table:oauth_connections"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	UserID     uuid.UUID  `bun:"user_id,notnull,type:uuid"`
	ClientID   string     `bun:"client_id,notnull"`
	OrgID      *uuid.UUID `bun:"org_id,type:uuid"`
	Scopes     string     `bun:"scopes,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

type oauthTokenV1 struct {
	bun.BaseModel `bun:"table:oauth_tokens"`

	Kind      string     `bun:"kind,pk"`
	Signature string     `bun:"signature,pk"`
	RequestID string     `bun:"request_id,notnull"`
	ClientID  string     `bun:"client_id,notnull"`
	Active    bool       `bun:"active,notnull"`
	Request   string     `bun:"request,notnull"`
	ExpiresAt time.Time  `bun:"expires_at,notnull"`
	UsedAt    *time.Time `bun:"used_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
	CreatedAt time.Time  `bun:"created_at,notnull"`
}

const (
	oauthConnectionUserCascade   = `("user_id") REFERENCES "users" ("id") ON DELETE CASCADE`
	oauthConnectionClientCascade = `("client_id") REFERENCES "oauth_clients" ("id") ON DELETE CASCADE`
	oauthConnectionOrgCascade    = `("org_id") REFERENCES "organizations" ("id") ON DELETE CASCADE`
)

func init() {
	Migrations.MustRegister(oauthUp, oauthDown)
}

func oauthUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*oauthClientV1)(nil)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateTable().Model((*oauthConnectionV1)(nil)).
			ForeignKey(oauthConnectionUserCascade).ForeignKey(oauthConnectionClientCascade).
			ForeignKey(oauthConnectionOrgCascade).Exec(ctx); err != nil {
			return err
		}
		// The user's connections page.
		if _, err := tx.NewCreateIndex().Model((*oauthConnectionV1)(nil)).Index("oauth_connections_user_id_idx").
			Column("user_id", "created_at").Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewCreateTable().Model((*oauthTokenV1)(nil)).Exec(ctx); err != nil {
			return err
		}
		// Revoking a grant marks every token of its request inactive.
		if _, err := tx.NewCreateIndex().Model((*oauthTokenV1)(nil)).Index("oauth_tokens_request_id_idx").
			Column("request_id").Exec(ctx); err != nil {
			return err
		}
		// The periodic clean-up of expired rows.
		_, err := tx.NewCreateIndex().Model((*oauthTokenV1)(nil)).Index("oauth_tokens_expires_at_idx").
			Column("expires_at").Exec(ctx)
		return err
	})
}

func oauthDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, m := range []any{(*oauthTokenV1)(nil), (*oauthConnectionV1)(nil), (*oauthClientV1)(nil)} {
			if _, err := tx.NewDropTable().Model(m).IfExists().Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
