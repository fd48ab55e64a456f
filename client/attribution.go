package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Install is an install record tied to a link.
type Install struct {
	ID                   string    `json:"id"`
	ClickID              *string   `json:"click_id"`
	LinkID               *string   `json:"link_id"`
	AppID                *string   `json:"app_id"`
	MatchGuaranteed      bool      `json:"match_guaranteed"`
	IsReinstall          *bool     `json:"is_reinstall"`
	InstalledAt          time.Time `json:"installed_at"`
	HasDeviceID          bool      `json:"has_device_id"`
	HasDeviceFingerprint bool      `json:"has_device_fingerprint"`
	HasMatchedPayload    bool      `json:"has_matched_payload"`
}

// AttributionAttempt is one SDK request asking which click led to an
// install, matched or not.
type AttributionAttempt struct {
	ID                 string            `json:"id"`
	Matched            bool              `json:"matched"`
	FailReason         *string           `json:"fail_reason"`
	MatchSource        *string           `json:"match_source"`
	IPClass            *string           `json:"ip_class"`
	CreatedAt          time.Time         `json:"created_at"`
	Platform           string            `json:"platform"`
	AppID              *string           `json:"app_id"`
	MatchType          *string           `json:"match_type"`
	InstallID          *string           `json:"install_id"`
	Candidates         AttemptCandidates `json:"candidates"`
	TopConfidence      *float64          `json:"top_confidence"`
	RunnerUpConfidence *float64          `json:"runner_up_confidence"`
	Signals            []string          `json:"signals"`
}

// AttemptCandidates counts the clicks an attempt considered.
type AttemptCandidates struct {
	Found     int `json:"found"`
	Eligible  int `json:"eligible"`
	Unclaimed int `json:"unclaimed"`
	Scored    int `json:"scored"`
}

// Window is the window a list or export read.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// InstallList is a page of install records.
type InstallList struct {
	Data       []Install        `json:"data"`
	Pagination CursorPagination `json:"pagination"`
	Window     Window           `json:"window"`
}

// AttributionAttemptList is a page of attribution attempts.
type AttributionAttemptList struct {
	Data       []AttributionAttempt `json:"data"`
	Pagination CursorPagination     `json:"pagination"`
	Window     Window               `json:"window"`
}

// ListInstallsParams filters ListInstalls; zero values are not sent. A
// cursor must be sent with the filters of the page that gave it.
type ListInstallsParams struct {
	// AppID is an app id or "none" (records with no app).
	AppID    string
	LinkID   string
	From, To time.Time
	Limit    int
	Cursor   string
}

// ListAttributionAttemptsParams filters ListAttributionAttempts; zero
// values are not sent.
type ListAttributionAttemptsParams struct {
	// AppID is an app id or "none" (records with no app).
	AppID    string
	Matched  *bool
	From, To time.Time
	Limit    int
	Cursor   string
}

// ListInstalls returns one page of install records, newest first
// (GET /installs).
func (c *Client) ListInstalls(ctx context.Context, p ListInstallsParams) (*InstallList, error) {
	q := url.Values{}
	setString(q, "app_id", p.AppID)
	setString(q, "link_id", p.LinkID)
	setTime(q, "from", p.From)
	setTime(q, "to", p.To)
	setInt(q, "limit", p.Limit)
	setString(q, "cursor", p.Cursor)
	return do[InstallList](ctx, c, request{method: http.MethodGet, path: "/installs", query: q})
}

// AllInstalls walks the install records from p, following the cursors.
func (c *Client) AllInstalls(ctx context.Context, p ListInstallsParams) iter.Seq2[Install, error] {
	return cursorSeq(p.Cursor, func(cursor string) ([]Install, CursorPagination, error) {
		p.Cursor = cursor
		l, err := c.ListInstalls(ctx, p)
		if err != nil {
			return nil, CursorPagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}

// ListAttributionAttempts returns one page of attribution attempts,
// newest first (GET /attribution/attempts).
func (c *Client) ListAttributionAttempts(ctx context.Context, p ListAttributionAttemptsParams) (*AttributionAttemptList, error) {
	q := url.Values{}
	setString(q, "app_id", p.AppID)
	setBool(q, "matched", p.Matched)
	setTime(q, "from", p.From)
	setTime(q, "to", p.To)
	setInt(q, "limit", p.Limit)
	setString(q, "cursor", p.Cursor)
	return do[AttributionAttemptList](ctx, c, request{method: http.MethodGet, path: "/attribution/attempts", query: q})
}

// AllAttributionAttempts walks the attribution attempts from p, following
// the cursors.
func (c *Client) AllAttributionAttempts(ctx context.Context, p ListAttributionAttemptsParams) iter.Seq2[AttributionAttempt, error] {
	return cursorSeq(p.Cursor, func(cursor string) ([]AttributionAttempt, CursorPagination, error) {
		p.Cursor = cursor
		l, err := c.ListAttributionAttempts(ctx, p)
		if err != nil {
			return nil, CursorPagination{}, err
		}
		return l.Data, l.Pagination, nil
	})
}
