package webhook

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Type names an event type, the "type" of a delivery's body.
type Type string

// Every event type an endpoint may subscribe to, and ping, which only
// POST /v1/webhooks/{id}/test sends.
const (
	InstallAttributed   Type = "install.attributed"
	InstallUnattributed Type = "install.unattributed"
	LinkCreated         Type = "link.created"
	LinkUpdated         Type = "link.updated"
	LinkDeleted         Type = "link.deleted"
	LinkClicked         Type = "link.clicked"
	DomainVerified      Type = "domain.verified"
	DomainSuspended     Type = "domain.suspended"
	DomainRestored      Type = "domain.restored"
	MemberJoined        Type = "member.joined"
	MemberRemoved       Type = "member.removed"
	Ping                Type = "ping"
)

// Types lists every type an endpoint may subscribe to, in the order the
// documentation gives them. Ping is not among them: every endpoint gets the
// pings it asks for.
func Types() []Type {
	return []Type{InstallAttributed, InstallUnattributed, LinkCreated, LinkUpdated, LinkDeleted,
		LinkClicked, DomainVerified, DomainSuspended, DomainRestored, MemberJoined, MemberRemoved}
}

// Valid reports whether t is a type an endpoint may subscribe to.
func (t Type) Valid() bool { return slices.Contains(Types(), t) }

// Event is one change to announce. Store.EnqueueEvents writes it to the
// outbox for every endpoint of OrgID that subscribes to Type and whose
// filters let it through.
type Event struct {
	// ID is the event's id and every delivery's webhook-id header.
	ID    uuid.UUID
	OrgID uuid.UUID
	Type  Type
	// OccurredAt is the body's timestamp.
	OccurredAt time.Time
	// LinkID and AppID are what the endpoint filters link_ids and app_ids
	// match; nil when the event concerns no link or no app. An event with
	// no link passes a link filter only when it has no link either: an
	// endpoint filtered by links gets no domain or member events.
	LinkID, AppID *uuid.UUID
	// Body is the JSON request body: {"type", "timestamp", "data"}.
	Body []byte
}

// envelope is the body of every delivery (Standard Webhooks).
type envelope struct {
	Type      Type      `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// NewEvent returns the event of type t in orgID at time at, its body
// holding data, which must marshal to a JSON object (one of the *Data
// types of this package). The id is a new UUIDv7.
func NewEvent(orgID uuid.UUID, t Type, at time.Time, linkID, appID *uuid.UUID, data any) (Event, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Event{}, fmt.Errorf("webhook: event id: %w", err)
	}
	at = at.UTC().Truncate(time.Millisecond)
	body, err := json.Marshal(envelope{Type: t, Timestamp: at, Data: data})
	if err != nil {
		return Event{}, fmt.Errorf("webhook: event body: %w", err)
	}
	return Event{ID: id, OrgID: orgID, Type: t, OccurredAt: at, LinkID: linkID, AppID: appID, Body: body}, nil
}

// InstallAttributedData is the data of install.attributed: an install
// matched to the click that led to it.
type InstallAttributedData struct {
	InstallID uuid.UUID  `json:"install_id"`
	AppID     *uuid.UUID `json:"app_id"`
	LinkID    uuid.UUID  `json:"link_id"`
	// ClickID is null when the match carried no click identifier.
	ClickID *uuid.UUID `json:"click_id"`
	// MatchType is "deterministic" or "probabilistic".
	MatchType       string  `json:"match_type"`
	MatchConfidence float64 `json:"match_confidence"`
	// MatchSignal says what matched: "device_id", "referrer",
	// "fingerprint" and so on (attribution's signal names).
	MatchSignal string    `json:"match_signal"`
	Platform    string    `json:"platform"`
	IsReinstall *bool     `json:"is_reinstall"`
	InstalledAt time.Time `json:"installed_at"`
}

// InstallUnattributedData is the data of install.unattributed: an
// attribution attempt that matched no click.
type InstallUnattributedData struct {
	AttemptID  uuid.UUID  `json:"attempt_id"`
	AppID      *uuid.UUID `json:"app_id"`
	Platform   string     `json:"platform"`
	FailReason string     `json:"fail_reason"`
}

// LinkData is the data of link.created and link.updated: the link as it is
// after the change, without its password or parameter rules.
type LinkData struct {
	ID             uuid.UUID  `json:"id"`
	ShortURL       string     `json:"short_url"`
	Domain         string     `json:"domain"`
	Slug           string     `json:"slug"`
	Name           *string    `json:"name"`
	DestinationURL string     `json:"destination_url"`
	AppID          *uuid.UUID `json:"app_id"`
	IsActive       bool       `json:"is_active"`
	Tags           []string   `json:"tags"`
	ExpiresAt      *time.Time `json:"expires_at"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

// LinkDeletedData is the data of link.deleted.
type LinkDeletedData struct {
	ID     uuid.UUID  `json:"id"`
	Domain string     `json:"domain"`
	Slug   string     `json:"slug"`
	AppID  *uuid.UUID `json:"app_id"`
}

// ClickData is one click of link.clicked: no IP address and no user agent,
// only what the analytics breakdowns show.
type ClickData struct {
	ClickID   uuid.UUID `json:"click_id"`
	LinkID    uuid.UUID `json:"link_id"`
	ClickedAt time.Time `json:"clicked_at"`
	// Source is "redirect" (a visitor of the short link) or "app_open" (an
	// SDK resolve).
	Source string `json:"source"`
	// Platform is "ios", "android", "desktop" or "unknown".
	Platform string `json:"platform"`
	// Country is an ISO 3166-1 alpha-2 code, empty when unknown.
	Country string `json:"country"`
}

// LinkClickedData is the data of link.clicked: up to MaxClicksPerEvent
// clicks of one link.
type LinkClickedData struct {
	Clicks []ClickData `json:"clicks"`
}

// MaxClicksPerEvent is the most clicks one link.clicked event carries.
const MaxClicksPerEvent = 100

// DomainData is the data of domain.verified, domain.suspended (a plan
// change took custom domains away: the domain's links answer 404) and
// domain.restored (a plan change gave them back).
type DomainData struct {
	ID         uuid.UUID  `json:"id"`
	Domain     string     `json:"domain"`
	Verified   bool       `json:"verified"`
	VerifiedAt *time.Time `json:"verified_at"`
	// SuspendedAt is when the domain was suspended; nil while it is not.
	SuspendedAt *time.Time `json:"suspended_at"`
}

// MemberData is the data of member.joined and member.removed.
type MemberData struct {
	UserID uuid.UUID `json:"user_id"`
	Email  string    `json:"email"`
	Role   string    `json:"role"`
}

// PingData is the data of ping.
type PingData struct {
	WebhookID uuid.UUID `json:"webhook_id"`
}
