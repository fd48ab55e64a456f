package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	fositestorage "github.com/ory/fosite/storage"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/oauth"
)

// OAuthStore is the storage of the OAuth authorization server
// (oauth.Store): fosite's sessions, stored by token signature only, with
// clients and connections. It runs fosite's flows in transactions
// (fosite's storage.Transactional). Its clock decides the refresh grace
// window.
type OAuthStore struct {
	s     *Store
	clock func() time.Time
	grace time.Duration
}

var (
	_ oauth.Store                 = (*OAuthStore)(nil)
	_ fositestorage.Transactional = (*OAuthStore)(nil)
)

// OAuth returns the OAuth storage over s. A refresh token rotated less
// than grace ago (by clock) is still accepted, so that concurrent refreshes
// of one client both succeed; clock is time.Now when nil.
func (s *Store) OAuth(clock func() time.Time, grace time.Duration) *OAuthStore {
	if clock == nil {
		clock = time.Now
	}
	return &OAuthStore{s: s, clock: clock, grace: grace}
}

// Token kinds of oauth_tokens.
const (
	kindCode    = "code"
	kindPKCE    = "pkce"
	kindAccess  = "access"
	kindRefresh = "refresh"
)

type oauthClientRow struct {
	bun.BaseModel `bun:"table:oauth_clients,alias:c"`

	ID                      string    `bun:"id,pk"`
	SecretHash              string    `bun:"secret_hash"`
	Name                    string    `bun:"name"`
	RedirectURIs            string    `bun:"redirect_uris"`
	GrantTypes              string    `bun:"grant_types"`
	ResponseTypes           string    `bun:"response_types"`
	Scopes                  string    `bun:"scopes"`
	Audience                string    `bun:"audience"`
	TokenEndpointAuthMethod string    `bun:"token_endpoint_auth_method"`
	CreatedAt               time.Time `bun:"created_at"`
}

type oauthConnectionRow struct {
	bun.BaseModel `bun:"table:oauth_connections,alias:oc"`

	ID         uuid.UUID  `bun:"id,pk"`
	UserID     uuid.UUID  `bun:"user_id"`
	ClientID   string     `bun:"client_id"`
	OrgID      *uuid.UUID `bun:"org_id"`
	Scopes     string     `bun:"scopes"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	ClientName string     `bun:"client_name,scanonly"`
}

type oauthTokenRow struct {
	bun.BaseModel `bun:"table:oauth_tokens,alias:t"`

	Kind      string     `bun:"kind,pk"`
	Signature string     `bun:"signature,pk"`
	RequestID string     `bun:"request_id"`
	ClientID  string     `bun:"client_id"`
	Active    bool       `bun:"active"`
	Request   string     `bun:"request"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
	CreatedAt time.Time  `bun:"created_at"`
}

// storedRequest is a fosite request as JSON. Secrets that may sit in the
// form (client_secret, code, code_verifier, refresh_token) are dropped.
type storedRequest struct {
	ID                string          `json:"id"`
	RequestedAt       time.Time       `json:"requested_at"`
	RequestedScopes   []string        `json:"requested_scopes"`
	GrantedScopes     []string        `json:"granted_scopes"`
	RequestedAudience []string        `json:"requested_audience"`
	GrantedAudience   []string        `json:"granted_audience"`
	Form              url.Values      `json:"form"`
	Session           json.RawMessage `json:"session"`
}

var secretFormKeys = []string{"client_secret", "code", "code_verifier", "refresh_token", "password", "client_assertion"}

// oauthTxKey carries the transaction of BeginTX in a context.
type oauthTxKey struct{}

func (o *OAuthStore) db(ctx context.Context) bun.IDB {
	if tx, ok := ctx.Value(oauthTxKey{}).(*bun.Tx); ok {
		return tx
	}
	return o.s.db
}

// BeginTX implements fosite's storage.Transactional.
func (o *OAuthStore) BeginTX(ctx context.Context) (context.Context, error) {
	tx, err := o.s.db.BeginTx(ctx, nil)
	if err != nil {
		return ctx, o.s.err("oauth begin", err)
	}
	return context.WithValue(ctx, oauthTxKey{}, &tx), nil
}

// Commit implements fosite's storage.Transactional.
func (o *OAuthStore) Commit(ctx context.Context) error {
	tx, ok := ctx.Value(oauthTxKey{}).(*bun.Tx)
	if !ok {
		return errors.New("store: oauth commit: no transaction")
	}
	return o.s.err("oauth commit", tx.Commit())
}

// Rollback implements fosite's storage.Transactional.
func (o *OAuthStore) Rollback(ctx context.Context) error {
	tx, ok := ctx.Value(oauthTxKey{}).(*bun.Tx)
	if !ok {
		return errors.New("store: oauth rollback: no transaction")
	}
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return o.s.err("oauth rollback", err)
	}
	return nil
}

// inTx runs fn in the context's transaction, or in a new one.
func (o *OAuthStore) inTx(ctx context.Context, fn func(ctx context.Context, db bun.IDB) error) error {
	if tx, ok := ctx.Value(oauthTxKey{}).(*bun.Tx); ok {
		return fn(ctx, tx)
	}
	return o.s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fn(ctx, tx) })
}

func joinList(v []string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func splitList(s string) []string {
	var v []string
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

// CreateClient implements oauth.Store.
func (o *OAuthStore) CreateClient(ctx context.Context, c *oauth.Client) error {
	row := &oauthClientRow{ID: c.ID, SecretHash: string(c.SecretHash), Name: c.Name,
		RedirectURIs: joinList(c.RedirectURIs), GrantTypes: joinList(c.GrantTypes), ResponseTypes: joinList(c.ResponseTypes),
		Scopes: joinList(c.Scopes), Audience: joinList(c.Audience), TokenEndpointAuthMethod: c.TokenEndpointAuthMethod,
		CreatedAt: utc(c.CreatedAt)}
	_, err := o.db(ctx).NewInsert().Model(row).Exec(ctx)
	return o.s.err("create oauth client", err)
}

// GetClient implements fosite.ClientManager; fosite.ErrNotFound for an
// unknown id.
func (o *OAuthStore) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	row := new(oauthClientRow)
	err := o.db(ctx).NewSelect().Model(row).Where("c.id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, o.s.err("get oauth client", err)
	}
	c := &oauth.Client{ID: row.ID, SecretHash: []byte(row.SecretHash), Name: row.Name,
		RedirectURIs: splitList(row.RedirectURIs), GrantTypes: splitList(row.GrantTypes),
		ResponseTypes: splitList(row.ResponseTypes), Scopes: splitList(row.Scopes), Audience: splitList(row.Audience),
		TokenEndpointAuthMethod: row.TokenEndpointAuthMethod, CreatedAt: row.CreatedAt.UTC()}
	return c.Fosite(), nil
}

// ClientAssertionJWTValid implements fosite.ClientManager. JWT client
// assertions are not supported, so no jti is ever known.
func (o *OAuthStore) ClientAssertionJWTValid(ctx context.Context, jti string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager; JWT client
// assertions are not supported.
func (o *OAuthStore) SetClientAssertionJWT(ctx context.Context, jti string, exp time.Time) error {
	return errors.New("store: client assertions are not supported")
}

// createToken stores req under (kind, signature), expiring at the session's
// expiry of tokenType.
func (o *OAuthStore) createToken(ctx context.Context, kind, signature string, tokenType fosite.TokenType, req fosite.Requester) error {
	sess, err := json.Marshal(req.GetSession())
	if err != nil {
		return fmt.Errorf("store: encoding an oauth session: %w", err)
	}
	form := url.Values{}
	for k, v := range req.GetRequestForm() {
		form[k] = append([]string(nil), v...)
	}
	for _, k := range secretFormKeys {
		delete(form, k)
	}
	body, err := json.Marshal(storedRequest{ID: req.GetID(), RequestedAt: req.GetRequestedAt(),
		RequestedScopes: req.GetRequestedScopes(), GrantedScopes: req.GetGrantedScopes(),
		RequestedAudience: req.GetRequestedAudience(), GrantedAudience: req.GetGrantedAudience(),
		Form: form, Session: sess})
	if err != nil {
		return fmt.Errorf("store: encoding an oauth request: %w", err)
	}
	now := o.clock().UTC()
	exp := time.Time{}
	if req.GetSession() != nil {
		exp = req.GetSession().GetExpiresAt(tokenType)
	}
	if exp.IsZero() {
		exp = now.Add(oauth.RefreshTokenLifetime)
	}
	row := &oauthTokenRow{Kind: kind, Signature: signature, RequestID: req.GetID(), ClientID: req.GetClient().GetID(),
		Active: true, Request: string(body), ExpiresAt: exp.UTC(), CreatedAt: now}
	_, err = o.db(ctx).NewInsert().Model(row).Exec(ctx)
	return o.s.err("create oauth "+kind, err)
}

// getToken returns the row and request of (kind, signature), hydrating
// session (a new oauth.Session when nil); fosite.ErrNotFound when unknown.
func (o *OAuthStore) getToken(ctx context.Context, kind, signature string, session fosite.Session) (*oauthTokenRow, fosite.Requester, error) {
	row := new(oauthTokenRow)
	err := o.db(ctx).NewSelect().Model(row).Where("t.kind = ? AND t.signature = ?", kind, signature).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, nil, o.s.err("get oauth "+kind, err)
	}
	var sr storedRequest
	if err := json.Unmarshal([]byte(row.Request), &sr); err != nil {
		return nil, nil, fmt.Errorf("store: decoding an oauth request: %w", err)
	}
	if session == nil {
		session = &oauth.Session{}
	}
	if err := json.Unmarshal(sr.Session, session); err != nil {
		return nil, nil, fmt.Errorf("store: decoding an oauth session: %w", err)
	}
	client, err := o.GetClient(ctx, row.ClientID)
	if err != nil {
		return nil, nil, err
	}
	req := &fosite.Request{ID: sr.ID, RequestedAt: sr.RequestedAt, Client: client,
		RequestedScope: sr.RequestedScopes, GrantedScope: sr.GrantedScopes,
		RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: session}
	if req.Form == nil {
		req.Form = url.Values{}
	}
	return row, req, nil
}

// deactivate marks (kind, signature) inactive, recording its use at now the
// first time.
func (o *OAuthStore) deactivate(ctx context.Context, kind, signature string) error {
	now := o.clock().UTC()
	_, err := o.db(ctx).NewUpdate().Model((*oauthTokenRow)(nil)).
		Set("active = ?", false).Set("used_at = COALESCE(used_at, ?)", now).
		Where("kind = ? AND signature = ?", kind, signature).Exec(ctx)
	return o.s.err("deactivate oauth "+kind, err)
}

// CreateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (o *OAuthStore) CreateAuthorizeCodeSession(ctx context.Context, signature string, req fosite.Requester) error {
	return o.createToken(ctx, kindCode, signature, fosite.AuthorizeCode, req)
}

// GetAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage: a used or
// revoked code returns its request with fosite.ErrInvalidatedAuthorizeCode.
func (o *OAuthStore) GetAuthorizeCodeSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	row, req, err := o.getToken(ctx, kindCode, signature, session)
	if err != nil {
		return nil, err
	}
	if !row.Active {
		return req, fosite.ErrInvalidatedAuthorizeCode
	}
	return req, nil
}

// InvalidateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage:
// the code is marked used, not deleted.
func (o *OAuthStore) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	return o.deactivate(ctx, kindCode, signature)
}

// CreatePKCERequestSession implements pkce.PKCERequestStorage.
func (o *OAuthStore) CreatePKCERequestSession(ctx context.Context, signature string, req fosite.Requester) error {
	return o.createToken(ctx, kindPKCE, signature, fosite.AuthorizeCode, req)
}

// GetPKCERequestSession implements pkce.PKCERequestStorage.
func (o *OAuthStore) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	_, req, err := o.getToken(ctx, kindPKCE, signature, session)
	return req, err
}

// DeletePKCERequestSession implements pkce.PKCERequestStorage.
func (o *OAuthStore) DeletePKCERequestSession(ctx context.Context, signature string) error {
	_, err := o.db(ctx).NewDelete().Model((*oauthTokenRow)(nil)).Where("kind = ? AND signature = ?", kindPKCE, signature).Exec(ctx)
	return o.s.err("delete oauth pkce", err)
}

// CreateAccessTokenSession implements oauth2.AccessTokenStorage.
func (o *OAuthStore) CreateAccessTokenSession(ctx context.Context, signature string, req fosite.Requester) error {
	return o.createToken(ctx, kindAccess, signature, fosite.AccessToken, req)
}

// GetAccessTokenSession implements oauth2.AccessTokenStorage: a revoked
// token returns fosite.ErrInactiveToken.
func (o *OAuthStore) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	row, req, err := o.getToken(ctx, kindAccess, signature, session)
	if err != nil {
		return nil, err
	}
	if !row.Active {
		return req, fosite.ErrInactiveToken
	}
	return req, nil
}

// DeleteAccessTokenSession implements oauth2.AccessTokenStorage.
func (o *OAuthStore) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	_, err := o.db(ctx).NewDelete().Model((*oauthTokenRow)(nil)).Where("kind = ? AND signature = ?", kindAccess, signature).Exec(ctx)
	return o.s.err("delete oauth access token", err)
}

// CreateRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (o *OAuthStore) CreateRefreshTokenSession(ctx context.Context, signature, accessSignature string, req fosite.Requester) error {
	return o.createToken(ctx, kindRefresh, signature, fosite.RefreshToken, req)
}

// GetRefreshTokenSession implements oauth2.RefreshTokenStorage. A token
// rotated less than the grace window ago is still returned as active; any
// other inactive token (rotated earlier, or revoked) returns its request
// with fosite.ErrInactiveToken, which fosite treats as reuse.
func (o *OAuthStore) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	row, req, err := o.getToken(ctx, kindRefresh, signature, session)
	if err != nil {
		return nil, err
	}
	if row.Active {
		return req, nil
	}
	if row.RevokedAt == nil && row.UsedAt != nil && o.clock().Sub(*row.UsedAt) < o.grace {
		return req, nil
	}
	return req, fosite.ErrInactiveToken
}

// DeleteRefreshTokenSession implements oauth2.RefreshTokenStorage: the
// token is marked inactive, not deleted.
func (o *OAuthStore) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return o.deactivate(ctx, kindRefresh, signature)
}

// RotateRefreshToken implements oauth2.RefreshTokenStorage: the used
// refresh token is marked inactive with the time of its use.
func (o *OAuthStore) RotateRefreshToken(ctx context.Context, requestID, signature string) error {
	return o.deactivate(ctx, kindRefresh, signature)
}

// RevokeRefreshToken implements oauth2.TokenRevocationStorage by revoking
// the whole grant: every token of requestID and its connection.
func (o *OAuthStore) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return o.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		return o.revokeGrant(ctx, db, requestID, o.clock().UTC())
	})
}

func (o *OAuthStore) revokeGrant(ctx context.Context, db bun.IDB, requestID string, now time.Time) error {
	if _, err := db.NewUpdate().Model((*oauthTokenRow)(nil)).
		Set("active = ?", false).Set("revoked_at = COALESCE(revoked_at, ?)", now).
		Where("request_id = ?", requestID).Exec(ctx); err != nil {
		return o.s.err("revoke oauth tokens", err)
	}
	if id, err := uuid.Parse(requestID); err == nil {
		if _, err := db.NewUpdate().Model((*oauthConnectionRow)(nil)).Set("revoked_at = ?", now).
			Where("id = ? AND revoked_at IS NULL", id).Exec(ctx); err != nil {
			return o.s.err("revoke oauth connection", err)
		}
	}
	return nil
}

// RevokeAccessToken implements oauth2.TokenRevocationStorage: every access
// token of requestID stops working.
func (o *OAuthStore) RevokeAccessToken(ctx context.Context, requestID string) error {
	_, err := o.db(ctx).NewUpdate().Model((*oauthTokenRow)(nil)).
		Set("active = ?", false).Set("revoked_at = COALESCE(revoked_at, ?)", o.clock().UTC()).
		Where("request_id = ? AND kind = ?", requestID, kindAccess).Exec(ctx)
	return o.s.err("revoke oauth access tokens", err)
}

// CreateConnection implements oauth.Store.
func (o *OAuthStore) CreateConnection(ctx context.Context, c *oauth.Connection) error {
	row := &oauthConnectionRow{ID: c.ID, UserID: c.UserID, ClientID: c.ClientID, OrgID: c.OrgID,
		Scopes: strings.Join(c.Scopes, " "), CreatedAt: utc(c.CreatedAt), LastUsedAt: utcPtr(c.LastUsedAt), RevokedAt: utcPtr(c.RevokedAt)}
	_, err := o.db(ctx).NewInsert().Model(row).Exec(ctx)
	return o.s.err("create oauth connection", err)
}

func (o *OAuthStore) selectConnections(db bun.IDB) *bun.SelectQuery {
	return db.NewSelect().Model((*oauthConnectionRow)(nil)).ColumnExpr("oc.*").ColumnExpr("c.name AS client_name").
		Join("JOIN oauth_clients AS c ON c.id = oc.client_id")
}

func toConnection(r *oauthConnectionRow) oauth.Connection {
	return oauth.Connection{ID: r.ID, UserID: r.UserID, ClientID: r.ClientID, ClientName: r.ClientName, OrgID: r.OrgID,
		Scopes: strings.Fields(r.Scopes), CreatedAt: r.CreatedAt.UTC(), LastUsedAt: utcPtr(r.LastUsedAt), RevokedAt: utcPtr(r.RevokedAt)}
}

// Connection implements oauth.Store.
func (o *OAuthStore) Connection(ctx context.Context, id uuid.UUID) (*oauth.Connection, error) {
	row := new(oauthConnectionRow)
	err := o.selectConnections(o.db(ctx)).Where("oc.id = ?", id).Scan(ctx, row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, o.s.err("get oauth connection", err)
	}
	c := toConnection(row)
	return &c, nil
}

// UserConnections implements oauth.Store.
func (o *OAuthStore) UserConnections(ctx context.Context, userID uuid.UUID) ([]oauth.Connection, error) {
	var rows []oauthConnectionRow
	err := o.selectConnections(o.db(ctx)).Where("oc.user_id = ? AND oc.revoked_at IS NULL", userID).
		OrderExpr("oc.created_at DESC, oc.id DESC").Scan(ctx, &rows)
	if err != nil {
		return nil, o.s.err("list oauth connections", err)
	}
	out := make([]oauth.Connection, 0, len(rows))
	for i := range rows {
		out = append(out, toConnection(&rows[i]))
	}
	return out, nil
}

// RevokeConnection implements oauth.Store.
func (o *OAuthStore) RevokeConnection(ctx context.Context, userID, id uuid.UUID, now time.Time) error {
	return o.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		n, err := db.NewSelect().Model((*oauthConnectionRow)(nil)).
			Where("id = ? AND user_id = ? AND revoked_at IS NULL", id, userID).Count(ctx)
		if err != nil {
			return o.s.err("revoke oauth connection", err)
		}
		if n == 0 {
			return fosite.ErrNotFound
		}
		return o.revokeGrant(ctx, db, id.String(), now.UTC())
	})
}

// TouchConnection implements oauth.Store.
func (o *OAuthStore) TouchConnection(ctx context.Context, id uuid.UUID, now time.Time) error {
	_, err := o.db(ctx).NewUpdate().Model((*oauthConnectionRow)(nil)).Set("last_used_at = ?", now.UTC().Truncate(time.Millisecond)).
		Where("id = ?", id).Exec(ctx)
	return o.s.err("touch oauth connection", err)
}

// DeleteExpiredOAuth implements oauth.Store.
func (o *OAuthStore) DeleteExpiredOAuth(ctx context.Context, now time.Time) (int, error) {
	res, err := o.db(ctx).NewDelete().Model((*oauthTokenRow)(nil)).Where("expires_at < ?", now.UTC()).Exec(ctx)
	if err != nil {
		return 0, o.s.err("delete expired oauth tokens", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
