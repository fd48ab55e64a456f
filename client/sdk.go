package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// SDKKeyValidation is the answer of ValidateSDKKey.
type SDKKeyValidation struct {
	Valid bool   `json:"valid"`
	OrgID string `json:"org_id"`
}

// ResolvedLink is a link's deep-link configuration as ResolveLink returns
// it.
type ResolvedLink struct {
	ID                 string            `json:"id"`
	Slug               string            `json:"slug"`
	Domain             string            `json:"domain"`
	DestinationURL     string            `json:"destination_url"`
	IOSURL             *string           `json:"ios_url"`
	IOSFallbackURL     *string           `json:"ios_fallback_url"`
	AndroidURL         *string           `json:"android_url"`
	AndroidFallbackURL *string           `json:"android_fallback_url"`
	CustomParams       map[string]string `json:"custom_params"`
	CreatedAt          time.Time         `json:"created_at"`
}

// ResolveParams are the optional inputs of ResolveLink.
type ResolveParams struct {
	// Domain is the link domain; the server's default link domain when
	// empty.
	Domain string
	// Params is the tapped URL's raw query, without "?".
	Params string
	// TapID is one UUID per tap, the same on every retry of it, so that a
	// retried resolve records one click (X-Service-Tap-Id).
	TapID string
}

// MatchRequest is the device signals an SDK posts after an install.
// Optional fields are sent when not zero or nil.
type MatchRequest struct {
	// Platform is "ios" or "android".
	Platform string `json:"platform"`
	// FingerprintVersion is "basic" or "enriched".
	FingerprintVersion string `json:"fingerprint_version"`
	SDKVersion         string `json:"sdk_version"`
	Fingerprint        string `json:"fingerprint,omitempty"`
	DeviceID           string `json:"device_id,omitempty"`
	Referrer           string `json:"referrer,omitempty"`
	AcceptLanguage     string `json:"accept_language,omitempty"`
	ScreenWidth        *int   `json:"screen_width,omitempty"`
	ScreenHeight       *int   `json:"screen_height,omitempty"`
	TimezoneOffset     *int   `json:"timezone_offset,omitempty"`
	UserAgent          string `json:"user_agent,omitempty"`
	// AppID is the calling app (its id, iOS bundle id or Android package
	// name), sent as the X-Service-App-Id header
	// when not empty; an SDK key tied to another app gets 403
	// KEY_APP_MISMATCH.
	AppID string `json:"-"`
}

// MatchResponse is the answer of MatchAttribution: Matched false and
// nothing else, or a match.
type MatchResponse struct {
	Matched bool `json:"matched"`
	// MatchType is "deterministic" or "probabilistic".
	MatchType       string            `json:"match_type,omitempty"`
	MatchConfidence float64           `json:"match_confidence,omitempty"`
	LinkID          string            `json:"link_id,omitempty"`
	DeepLinkURL     *string           `json:"deep_link_url,omitempty"`
	DestinationURL  *string           `json:"destination_url,omitempty"`
	CustomParams    map[string]string `json:"custom_params,omitempty"`
	InstallID       string            `json:"install_id,omitempty"`
	AppID           *string           `json:"app_id,omitempty"`
}

// ValidateSDKKey checks the client's key and names its organization
// (GET /sdk/validate).
func (c *Client) ValidateSDKKey(ctx context.Context) (*SDKKeyValidation, error) {
	return do[SDKKeyValidation](ctx, c, request{method: http.MethodGet, path: "/sdk/validate"})
}

// ResolveLink returns the deep-link configuration of the link at slug
// (GET /links/resolve/{slug}). With an SDK key it records one click per
// tap.
func (c *Client) ResolveLink(ctx context.Context, slug string, p ResolveParams) (*ResolvedLink, error) {
	q := url.Values{}
	setString(q, "domain", p.Domain)
	setString(q, "params", p.Params)
	var h http.Header
	if p.TapID != "" {
		h = http.Header{"X-Service-Tap-Id": {p.TapID}}
	}
	return do[ResolvedLink](ctx, c, request{method: http.MethodGet, path: pathf("/links/resolve/%s", slug), query: q, header: h})
}

// MatchAttribution asks which click led to an install and records the
// install or the attempt (POST /attribution/match). It takes an SDK key.
// A request with a DeviceID or Fingerprint is retried as a read is: the
// server answers a repeat of it from the install the first one made
// (match_source "replay"), never with a second install.
func (c *Client) MatchAttribution(ctx context.Context, in MatchRequest) (*MatchResponse, error) {
	var h http.Header
	if in.AppID != "" {
		h = http.Header{"X-Service-App-Id": {in.AppID}}
	}
	return do[MatchResponse](ctx, c, request{method: http.MethodPost, path: "/attribution/match", body: in, header: h,
		replayable: in.DeviceID != "" || in.Fingerprint != ""})
}
