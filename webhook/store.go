package webhook

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/audit"
)

// Endpoint is a webhook: where an organization's events are posted.
type Endpoint struct {
	ID          uuid.UUID
	OrgID       uuid.UUID
	URL         string
	Description string
	// Events are the types the endpoint subscribes to; never empty.
	Events []Type
	// LinkIDs and AppIDs, when not empty, keep only the events of those
	// links or apps.
	LinkIDs, AppIDs []uuid.UUID
	// SealedSecret is the signing secret ("whsec_..."), encrypted with a
	// key derived from the server secret; see Service.
	SealedSecret string
	// SealedPreviousSecret is the secret before the last rotation, which
	// keeps signing until PreviousSecretUntil; empty when none.
	SealedPreviousSecret string
	PreviousSecretUntil  *time.Time
	// FailingSince is when the first delivery failed with no success
	// since; nil while the endpoint is healthy.
	FailingSince *time.Time
	// DisabledAt is when the endpoint was disabled for failing too long;
	// nil while it is enabled. A disabled endpoint gets no new events.
	DisabledAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Accepts reports whether e subscribes to ev: its type is one of e.Events
// (or it is a ping for e) and it passes the link and app filters.
func (e *Endpoint) Accepts(t Type, linkID, appID *uuid.UUID) bool {
	if e.DisabledAt != nil {
		return false
	}
	found := false
	for _, s := range e.Events {
		if s == t {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	return passes(e.LinkIDs, linkID) && passes(e.AppIDs, appID)
}

func passes(filter []uuid.UUID, id *uuid.UUID) bool {
	if len(filter) == 0 {
		return true
	}
	if id == nil {
		return false
	}
	for _, f := range filter {
		if f == *id {
			return true
		}
	}
	return false
}

// Status is a delivery's state.
type Status string

// The states of a delivery.
const (
	// StatusPending waits for its next attempt at NextAttemptAt.
	StatusPending Status = "pending"
	// StatusSucceeded got a 2xx answer.
	StatusSucceeded Status = "succeeded"
	// StatusFailed gave up: a permanent error or the retry window passed.
	StatusFailed Status = "failed"
)

// Delivery is one event to post to one endpoint, and what became of it.
type Delivery struct {
	ID        uuid.UUID `json:"id"`
	OrgID     uuid.UUID `json:"-"`
	WebhookID uuid.UUID `json:"webhook_id"`
	EventID   uuid.UUID `json:"event_id"`
	EventType Type      `json:"event_type"`
	Status    Status    `json:"status"`
	// Attempts counts the requests made so far.
	Attempts int `json:"attempts"`
	// NextAttemptAt is when a pending delivery is due; nil once it is done.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	LastAttemptAt *time.Time `json:"last_attempt_at"`
	// LastStatusCode is the HTTP status of the last answer; nil when the
	// last attempt got none (timeout, connection error) or none was made.
	LastStatusCode *int `json:"last_status_code"`
	// LastResponseMS is how long the last attempt took, in milliseconds.
	LastResponseMS *int `json:"last_response_ms"`
	// LastError says why the last attempt failed; empty after a success.
	LastError string    `json:"last_error"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Claimed is a delivery a worker holds under a lease, with what it needs to
// send it.
type Claimed struct {
	Delivery
	// Lease identifies the claim; FinishDelivery must present it.
	Lease    uuid.UUID
	Body     []byte
	Endpoint Endpoint
}

// Outcome is the result of one attempt, written by FinishDelivery.
type Outcome struct {
	// Status is the delivery's state after the attempt.
	Status Status
	// NextAttemptAt is when to try again; set when Status is pending.
	NextAttemptAt *time.Time
	AttemptedAt   time.Time
	StatusCode    *int
	ResponseMS    int
	Error         string
	// DisableBefore disables the endpoint when the attempt failed and the
	// endpoint has been failing since before this time. Zero never disables.
	DisableBefore time.Time
	// Disabled is the audit entry (webhook.disabled) written in the same
	// transaction when this outcome disables the endpoint, so that an
	// endpoint is never disabled without its entry nor the entry written
	// for an endpoint left enabled; none when nil.
	Disabled *audit.Event
}

// DeliveryPosition is a delivery's place in a list: (CreatedAt, ID), newest
// first.
type DeliveryPosition struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// Store is the storage of endpoints, the outbox and deliveries.
// Implementations scope every call by the organization given and wrap
// errcode.ErrNotFound for a row missing in it, errcode.ErrUnavailable when
// the database cannot be reached.
type Store interface {
	// CreateWebhook inserts e.
	CreateWebhook(ctx context.Context, e *Endpoint) error
	// Webhook returns endpoint id of orgID; ErrNotFound when it has none.
	Webhook(ctx context.Context, orgID, id uuid.UUID) (*Endpoint, error)
	// ListWebhooks returns the endpoints of orgID, oldest first.
	ListWebhooks(ctx context.Context, orgID uuid.UUID) ([]Endpoint, error)
	// UpdateWebhook writes every field of e but ID, OrgID and CreatedAt,
	// and DisabledAt and FailingSince only when withState is set (an
	// enable or disable): otherwise they keep what the database holds,
	// which the delivery worker changes meanwhile. ErrNotFound when orgID
	// has no endpoint e.ID.
	UpdateWebhook(ctx context.Context, e *Endpoint, withState bool) error
	// DeleteWebhook deletes endpoint id of orgID and its deliveries;
	// ErrNotFound when it has none.
	DeleteWebhook(ctx context.Context, orgID, id uuid.UUID) error

	// EnqueueEvents writes events to the outbox in one transaction: one
	// pending delivery, due at its event's OccurredAt, for every endpoint
	// of the event's organization that Accepts it. An event no endpoint
	// accepts writes nothing.
	EnqueueEvents(ctx context.Context, events []Event) error
	// EnqueuePing writes ev (a ping) as one delivery to endpoint webhookID
	// of ev.OrgID alone, whatever its subscriptions; ErrNotFound when the
	// organization has no such endpoint.
	EnqueuePing(ctx context.Context, webhookID uuid.UUID, ev Event) (*Delivery, error)

	// DeleteEventsBefore deletes up to limit events of the outbox made
	// before before, with their deliveries, and returns how many.
	DeleteEventsBefore(ctx context.Context, before time.Time, limit int) (int, error)

	// ClaimDeliveries leases up to limit pending deliveries due at now, of
	// enabled endpoints, until now+lease; a delivery under another live
	// lease is never returned. Earliest due first.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Claimed, error)
	// FinishDelivery records the outcome of claimed delivery id's attempt
	// and releases the lease, and updates its endpoint's FailingSince
	// (cleared on success); it reports whether the endpoint was disabled
	// by this outcome (see Outcome.DisableBefore), in which case
	// Outcome.Disabled is written to the audit log in the same
	// transaction. ErrNotFound when the
	// lease is no longer held.
	FinishDelivery(ctx context.Context, id, lease uuid.UUID, o Outcome) (disabled bool, err error)
	// Delivery returns delivery id of endpoint webhookID of orgID.
	Delivery(ctx context.Context, orgID, webhookID, id uuid.UUID) (*Delivery, error)
	// ListDeliveries returns up to limit deliveries of endpoint webhookID
	// of orgID, newest first, strictly before before when it is set.
	ListDeliveries(ctx context.Context, orgID, webhookID uuid.UUID, before *DeliveryPosition, limit int) ([]Delivery, error)
	// RetryDelivery makes delivery id pending again, due at now, whatever
	// its state, and drops any lease; ErrNotFound when endpoint webhookID
	// of orgID has no such delivery.
	RetryDelivery(ctx context.Context, orgID, webhookID, id uuid.UUID, now time.Time) (*Delivery, error)
}
