package client

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Link is a short link (the Link schema).
type Link struct {
	ID                 string           `json:"id"`
	ShortURL           string           `json:"short_url"`
	Slug               string           `json:"slug"`
	Name               *string          `json:"name"`
	Domain             string           `json:"domain"`
	DestinationURL     string           `json:"destination_url"`
	IOSURL             *string          `json:"ios_url"`
	IOSFallbackURL     *string          `json:"ios_fallback_url"`
	AndroidURL         *string          `json:"android_url"`
	AndroidFallbackURL *string          `json:"android_fallback_url"`
	OGTitle            *string          `json:"og_title"`
	OGDescription      *string          `json:"og_description"`
	OGImageURL         *string          `json:"og_image_url"`
	AppID              *string          `json:"app_id"`
	UTMSource          *string          `json:"utm_source"`
	UTMMedium          *string          `json:"utm_medium"`
	UTMCampaign        *string          `json:"utm_campaign"`
	MatchWindowHours   *int             `json:"match_window_hours"`
	ExpiresAt          *time.Time       `json:"expires_at"`
	IsActive           bool             `json:"is_active"`
	Tags               []string         `json:"tags"`
	Parameters         *LinkParamConfig `json:"parameters"`
	CreatedAt          time.Time        `json:"created_at"`
	UpdatedAt          time.Time        `json:"updated_at"`
}

// LinkWithRedirects is a link as GET /links/{id} returns it: with the old
// addresses that redirect to it.
type LinkWithRedirects struct {
	Link
	RedirectedFrom []Redirect `json:"redirected_from"`
}

// Redirect is an old address of a link, which redirects (301) to it.
type Redirect struct {
	URL   string    `json:"url"`
	Since time.Time `json:"since"`
}

// LinkParamConfig is a link's query-parameter rules (SPEC.md
// LinkParamConfig).
type LinkParamConfig struct {
	Injected []InjectedParam `json:"injected"`
	// Forwarding nil inherits the organization's.
	Forwarding *Forwarding `json:"forwarding"`
	// DefaultMode is "always", "default" or nil (inherit).
	DefaultMode        *string  `json:"defaultMode"`
	InheritOrgInjected bool     `json:"inheritOrgInjected"`
	SuppressedOrgKeys  []string `json:"suppressedOrgKeys"`
}

// InjectedParam is a query parameter a link or organization adds.
type InjectedParam struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Mode is "always", "default" or nil (the config's DefaultMode).
	Mode *string `json:"mode"`
}

// Forwarding says which of a visitor's query parameters are forwarded.
type Forwarding struct {
	Enabled bool `json:"enabled"`
	// Allowlist nil forwards every parameter.
	Allowlist []string `json:"allowlist"`
}

// CreateLinkRequest is the body of CreateLink. Nil fields are not sent.
type CreateLinkRequest struct {
	DestinationURL     string           `json:"destination_url"`
	Slug               *string          `json:"slug,omitempty"`
	Name               *string          `json:"name,omitempty"`
	Domain             *string          `json:"domain,omitempty"`
	IOSURL             *string          `json:"ios_url,omitempty"`
	IOSFallbackURL     *string          `json:"ios_fallback_url,omitempty"`
	AndroidURL         *string          `json:"android_url,omitempty"`
	AndroidFallbackURL *string          `json:"android_fallback_url,omitempty"`
	OGTitle            *string          `json:"og_title,omitempty"`
	OGDescription      *string          `json:"og_description,omitempty"`
	OGImageURL         *string          `json:"og_image_url,omitempty"`
	Tags               []string         `json:"tags,omitempty"`
	ExpiresAt          *time.Time       `json:"expires_at,omitempty"`
	Password           *string          `json:"password,omitempty"`
	AppID              *string          `json:"app_id,omitempty"`
	UTMSource          *string          `json:"utm_source,omitempty"`
	UTMMedium          *string          `json:"utm_medium,omitempty"`
	UTMCampaign        *string          `json:"utm_campaign,omitempty"`
	MatchWindowHours   *int             `json:"match_window_hours,omitempty"`
	Parameters         *LinkParamConfig `json:"parameters,omitempty"`
}

// UpdateLinkRequest is the body of UpdateLink: unset fields keep their
// values, Null clears a field (a null password removes the password, null
// parameters inherit the organization's).
type UpdateLinkRequest struct {
	DestinationURL     *string                   `json:"destination_url,omitempty"`
	Name               Nullable[string]          `json:"name,omitzero"`
	IOSURL             Nullable[string]          `json:"ios_url,omitzero"`
	IOSFallbackURL     Nullable[string]          `json:"ios_fallback_url,omitzero"`
	AndroidURL         Nullable[string]          `json:"android_url,omitzero"`
	AndroidFallbackURL Nullable[string]          `json:"android_fallback_url,omitzero"`
	OGTitle            Nullable[string]          `json:"og_title,omitzero"`
	OGDescription      Nullable[string]          `json:"og_description,omitzero"`
	OGImageURL         Nullable[string]          `json:"og_image_url,omitzero"`
	Tags               Nullable[[]string]        `json:"tags,omitzero"`
	ExpiresAt          Nullable[time.Time]       `json:"expires_at,omitzero"`
	Password           Nullable[string]          `json:"password,omitzero"`
	AppID              Nullable[string]          `json:"app_id,omitzero"`
	UTMSource          Nullable[string]          `json:"utm_source,omitzero"`
	UTMMedium          Nullable[string]          `json:"utm_medium,omitzero"`
	UTMCampaign        Nullable[string]          `json:"utm_campaign,omitzero"`
	MatchWindowHours   Nullable[int]             `json:"match_window_hours,omitzero"`
	Parameters         Nullable[LinkParamConfig] `json:"parameters,omitzero"`
	IsActive           *bool                     `json:"is_active,omitempty"`
}

// ListLinksParams filters ListLinks; zero values are not sent.
type ListLinksParams struct {
	Page
	Tag      string
	IsActive *bool
	Search   string
}

// LinkList is a page of links.
type LinkList struct {
	Data       []Link     `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// MoveChoiceRequest is the body of SetLinkMoveChoice.
type MoveChoiceRequest struct {
	// Choice is "keep" or "new_slug".
	Choice  string  `json:"choice"`
	NewSlug *string `json:"new_slug,omitempty"`
}

// MoveChoice is a saved choice for a link on an app's previous subdomain.
type MoveChoice struct {
	LinkID    string    `json:"link_id"`
	Choice    string    `json:"choice"`
	NewSlug   *string   `json:"new_slug"`
	ShortURL  string    `json:"short_url"`
	UpdatedAt time.Time `json:"updated_at"`
}

// CreateLink creates a link (POST /links).
func (c *Client) CreateLink(ctx context.Context, in CreateLinkRequest) (*Link, error) {
	return do[Link](ctx, c, request{method: http.MethodPost, path: "/links", body: in})
}

// ListLinks returns one page of the organization's links (GET /links).
func (c *Client) ListLinks(ctx context.Context, p ListLinksParams) (*LinkList, error) {
	q := url.Values{}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	setString(q, "tag", p.Tag)
	setBool(q, "is_active", p.IsActive)
	setString(q, "search", p.Search)
	return do[LinkList](ctx, c, request{method: http.MethodGet, path: "/links", query: q})
}

// AllLinks walks every page of ListLinks from p.
func (c *Client) AllLinks(ctx context.Context, p ListLinksParams) iter.Seq2[Link, error] {
	return offsetSeq(p.Page, func(pg Page) ([]Link, Pagination, error) {
		p.Page = pg
		l, err := c.ListLinks(ctx, p)
		if err != nil {
			return nil, Pagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// GetLink returns a link with its old addresses (GET /links/{id}).
func (c *Client) GetLink(ctx context.Context, id string) (*LinkWithRedirects, error) {
	return do[LinkWithRedirects](ctx, c, request{method: http.MethodGet, path: pathf("/links/%s", id)})
}

// UpdateLink changes a link (PATCH /links/{id}).
func (c *Client) UpdateLink(ctx context.Context, id string, in UpdateLinkRequest) (*Link, error) {
	return do[Link](ctx, c, request{method: http.MethodPatch, path: pathf("/links/%s", id), body: in})
}

// DeleteLink deletes a link and its click history, returning the link
// (DELETE /links/{id}).
func (c *Client) DeleteLink(ctx context.Context, id string) (*Link, error) {
	return do[Link](ctx, c, request{method: http.MethodDelete, path: pathf("/links/%s", id)})
}

// QRCodeMaxBytes bounds the image GetLinkQRCode reads: the largest QR
// code the API draws (1024 pixels) is far smaller.
const QRCodeMaxBytes = 4 << 20

// GetLinkQRCode returns a QR code of the link's short URL (GET
// /links/{id}/qr): format "png" or "svg" ("" for the API's default, png)
// and size in pixels (0 for the API's default, 256; else 128 to 1024).
func (c *Client) GetLinkQRCode(ctx context.Context, id, format string, size int) ([]byte, error) {
	q := url.Values{}
	if format != "" {
		q.Set("format", format)
	}
	if size != 0 {
		q.Set("size", strconv.Itoa(size))
	}
	resp, err := c.send(ctx, request{method: http.MethodGet, path: pathf("/links/%s/qr", id), query: q})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	img, err := io.ReadAll(io.LimitReader(resp.Body, QRCodeMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(img) > QRCodeMaxBytes {
		return nil, fmt.Errorf("client: GET /links/%s/qr: the image exceeds %d bytes", id, QRCodeMaxBytes)
	}
	return img, nil
}

// ActivateLink sets a link's is_active (POST /links/{id}/activate).
func (c *Client) ActivateLink(ctx context.Context, id string) (*Link, error) {
	return do[Link](ctx, c, request{method: http.MethodPost, path: pathf("/links/%s/activate", id)})
}

// DeactivateLink pauses a link (POST /links/{id}/deactivate).
func (c *Client) DeactivateLink(ctx context.Context, id string) (*Link, error) {
	return do[Link](ctx, c, request{method: http.MethodPost, path: pathf("/links/%s/deactivate", id)})
}

// SetLinkMoveChoice saves what happens to a link on its app's previous
// subdomain (PUT /links/{id}/move-choice).
func (c *Client) SetLinkMoveChoice(ctx context.Context, id string, in MoveChoiceRequest) (*MoveChoice, error) {
	return do[MoveChoice](ctx, c, request{method: http.MethodPut, path: pathf("/links/%s/move-choice", id), body: in})
}

// ClearLinkMoveChoice forgets a saved move choice
// (DELETE /links/{id}/move-choice).
func (c *Client) ClearLinkMoveChoice(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: pathf("/links/%s/move-choice", id)}, nil)
}
