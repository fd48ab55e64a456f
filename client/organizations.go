package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Organization is the tenant (the Organization schema).
type Organization struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
	// Plan is "free", "starter", "growth" or "scale".
	Plan               string    `json:"plan"`
	MonthlyClickLimit  int       `json:"monthly_click_limit"`
	BillingPeriodStart time.Time `json:"billing_period_start"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// OrgParameters are the organization's query-parameter defaults, which
// every link inherits.
type OrgParameters struct {
	Injected []InjectedParam `json:"injected"`
	// Forwarding nil forwards nothing.
	Forwarding *Forwarding `json:"forwarding"`
	// DefaultMode is "always", "default" or nil.
	DefaultMode *string `json:"defaultMode"`
}

// SecurityPolicy is the organization's dashboard sign-in policy.
type SecurityPolicy struct {
	RequireTwoFactor     bool `json:"require_two_factor"`
	SessionLifetimeHours int  `json:"session_lifetime_hours"`
	IdleTimeoutMinutes   int  `json:"idle_timeout_minutes"`
}

// AuditEvent is one entry of the audit log.
type AuditEvent struct {
	ID         string         `json:"id"`
	OccurredAt time.Time      `json:"occurred_at"`
	Action     string         `json:"action"`
	ActorType  string         `json:"actor_type"`
	ActorID    *string        `json:"actor_id"`
	TargetType string         `json:"target_type"`
	TargetID   string         `json:"target_id"`
	IP         string         `json:"ip"`
	UserAgent  string         `json:"user_agent"`
	Details    map[string]any `json:"details"`
}

// AuditEventList is a page of the audit log.
type AuditEventList struct {
	Data       []AuditEvent     `json:"data"`
	Pagination CursorPagination `json:"pagination"`
}

// ListAuditEventsParams filters ListAuditEvents; zero values are not sent.
type ListAuditEventsParams struct {
	From, To time.Time
	Limit    int
	Cursor   string
}

// GetOrganization returns the caller's organization
// (GET /organizations/{id}).
func (c *Client) GetOrganization(ctx context.Context, id string) (*Organization, error) {
	return do[Organization](ctx, c, request{method: http.MethodGet, path: pathf("/organizations/%s", id)})
}

// DeleteOrganization deletes the caller's organization and everything in
// it (DELETE /organizations/{id}); confirmationName must equal its name.
func (c *Client) DeleteOrganization(ctx context.Context, id, confirmationName string) (*Organization, error) {
	h := http.Header{}
	h.Set("X-Confirmation-Name", confirmationName)
	return do[Organization](ctx, c, request{method: http.MethodDelete, path: pathf("/organizations/%s", id), header: h})
}

// GetOrganizationParameters returns the organization's query-parameter
// defaults (GET /organizations/{id}/parameters).
func (c *Client) GetOrganizationParameters(ctx context.Context, id string) (*OrgParameters, error) {
	return do[OrgParameters](ctx, c, request{method: http.MethodGet, path: pathf("/organizations/%s/parameters", id)})
}

// PutOrganizationParameters replaces the organization's query-parameter
// defaults (PUT /organizations/{id}/parameters).
func (c *Client) PutOrganizationParameters(ctx context.Context, id string, in OrgParameters) (*OrgParameters, error) {
	if in.Injected == nil {
		in.Injected = []InjectedParam{}
	}
	return do[OrgParameters](ctx, c, request{method: http.MethodPut, path: pathf("/organizations/%s/parameters", id), body: in})
}

// GetOrganizationSecurity returns the organization's security policy
// (GET /organizations/{id}/security).
func (c *Client) GetOrganizationSecurity(ctx context.Context, id string) (*SecurityPolicy, error) {
	return do[SecurityPolicy](ctx, c, request{method: http.MethodGet, path: pathf("/organizations/%s/security", id)})
}

// PutOrganizationSecurity replaces the organization's security policy
// (PUT /organizations/{id}/security).
func (c *Client) PutOrganizationSecurity(ctx context.Context, id string, in SecurityPolicy) (*SecurityPolicy, error) {
	return do[SecurityPolicy](ctx, c, request{method: http.MethodPut, path: pathf("/organizations/%s/security", id), body: in})
}

// ListAuditEvents returns one page of the audit log, newest first
// (GET /audit-events).
func (c *Client) ListAuditEvents(ctx context.Context, p ListAuditEventsParams) (*AuditEventList, error) {
	q := url.Values{}
	setTime(q, "from", p.From)
	setTime(q, "to", p.To)
	setInt(q, "limit", p.Limit)
	setString(q, "cursor", p.Cursor)
	return do[AuditEventList](ctx, c, request{method: http.MethodGet, path: "/audit-events", query: q})
}

// AllAuditEvents walks the audit log from p, following the cursors.
func (c *Client) AllAuditEvents(ctx context.Context, p ListAuditEventsParams) iter.Seq2[AuditEvent, error] {
	return cursorSeq(p.Cursor, func(cursor string) ([]AuditEvent, CursorPagination, error) {
		p.Cursor = cursor
		l, err := c.ListAuditEvents(ctx, p)
		if err != nil {
			return nil, CursorPagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}
