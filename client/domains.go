package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Domain is a custom domain (the Domain schema).
type Domain struct {
	ID       string `json:"id"`
	OrgID    string `json:"org_id"`
	Domain   string `json:"domain"`
	Verified bool   `json:"verified"`
	// SSLStatus is "pending" or "active".
	SSLStatus         string     `json:"ssl_status"`
	VerificationToken string     `json:"verification_token"`
	VerifiedAt        *time.Time `json:"verified_at"`
	SuspendedAt       *time.Time `json:"suspended_at"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

// DomainList is a page of custom domains.
type DomainList struct {
	Data       []Domain   `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// DomainVerification is the answer of VerifyDomain: DNS is set when the
// domain is not verified and says what the server found.
type DomainVerification struct {
	Verified bool           `json:"verified"`
	Domain   Domain         `json:"domain"`
	DNS      *DNSDiagnostic `json:"dns,omitempty"`
}

// DNSDiagnostic says why a domain is not verified yet.
type DNSDiagnostic struct {
	ExpectedCNAME string  `json:"expected_cname"`
	CurrentCNAME  *string `json:"current_cname"`
	Message       string  `json:"message"`
}

// CreateDomain adds a custom domain (POST /domains).
func (c *Client) CreateDomain(ctx context.Context, domain string) (*Domain, error) {
	body := struct {
		Domain string `json:"domain"`
	}{domain}
	return do[Domain](ctx, c, request{method: http.MethodPost, path: "/domains", body: body})
}

// ListDomains returns one page of the organization's custom domains
// (GET /domains).
func (c *Client) ListDomains(ctx context.Context, p Page) (*DomainList, error) {
	return do[DomainList](ctx, c, request{method: http.MethodGet, path: "/domains", query: pageQuery(p)})
}

// AllDomains walks every page of ListDomains from p.
func (c *Client) AllDomains(ctx context.Context, p Page) iter.Seq2[Domain, error] {
	return offsetSeq(p, func(pg Page) ([]Domain, Pagination, error) {
		l, err := c.ListDomains(ctx, pg)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// GetDomain returns a custom domain (GET /domains/{id}).
func (c *Client) GetDomain(ctx context.Context, id string) (*Domain, error) {
	return do[Domain](ctx, c, request{method: http.MethodGet, path: pathf("/domains/%s", id)})
}

// DeleteDomain removes a custom domain, returning it
// (DELETE /domains/{id}).
func (c *Client) DeleteDomain(ctx context.Context, id string) (*Domain, error) {
	return do[Domain](ctx, c, request{method: http.MethodDelete, path: pathf("/domains/%s", id)})
}

// VerifyDomain checks a custom domain's DNS now
// (POST /domains/{id}/verify).
func (c *Client) VerifyDomain(ctx context.Context, id string) (*DomainVerification, error) {
	return do[DomainVerification](ctx, c, request{method: http.MethodPost, path: pathf("/domains/%s/verify", id)})
}

// AskTLS asks whether a certificate may be obtained for domain, as an
// on-demand TLS proxy does (GET /internal/tls/ask): nil when it may, *Error
// 404 NOT_FOUND when it may not. It takes no key.
func (c *Client) AskTLS(ctx context.Context, domain string) error {
	q := url.Values{"domain": {domain}}
	return c.call(ctx, request{method: http.MethodGet, path: "/internal/tls/ask", query: q}, nil)
}

// pageQuery is the query of an offset page.
func pageQuery(p Page) url.Values {
	q := url.Values{}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}
