package webhook

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/cursor"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/secretkey"
)

// Bounds of an endpoint.
const (
	// MaxEndpoints is the most endpoints an organization may have.
	MaxEndpoints = 20
	// MaxDescriptionLength bounds description, in characters.
	MaxDescriptionLength = 500
	// MaxFilterIDs bounds link_ids and app_ids each.
	MaxFilterIDs = 100
	// PreviousSecretLifetime is how long a rotated secret keeps signing.
	PreviousSecretLifetime = 24 * time.Hour
	// DefaultDeliveryLimit and MaxDeliveryLimit bound a deliveries page.
	DefaultDeliveryLimit = 50
	MaxDeliveryLimit     = 100
)

// Webhook is an endpoint as the API shows it: never its secrets.
type Webhook struct {
	ID          uuid.UUID   `json:"id"`
	OrgID       uuid.UUID   `json:"org_id"`
	URL         string      `json:"url"`
	Description string      `json:"description"`
	Events      []Type      `json:"events"`
	LinkIDs     []uuid.UUID `json:"link_ids"`
	AppIDs      []uuid.UUID `json:"app_ids"`
	// Enabled is false once the endpoint was disabled for failing.
	Enabled      bool       `json:"enabled"`
	DisabledAt   *time.Time `json:"disabled_at"`
	FailingSince *time.Time `json:"failing_since"`
	// PreviousSecretExpiresAt is when the secret before the last rotation
	// stops signing; null when none signs.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
}

// WithSecret is a Webhook with its signing secret, which only create and
// rotate-secret answer.
type WithSecret struct {
	Webhook
	Secret string `json:"secret"`
}

func view(e *Endpoint, now time.Time) *Webhook {
	w := &Webhook{ID: e.ID, OrgID: e.OrgID, URL: e.URL, Description: e.Description,
		Events: nonNil(e.Events), LinkIDs: nonNil(e.LinkIDs), AppIDs: nonNil(e.AppIDs),
		Enabled: e.DisabledAt == nil, DisabledAt: e.DisabledAt, FailingSince: e.FailingSince,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.SealedPreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		w.PreviousSecretExpiresAt = e.PreviousSecretUntil
	}
	return w
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// CreateInput is the body of POST /v1/webhooks.
type CreateInput struct {
	URL         apitype.Optional[string]      `json:"url"`
	Events      apitype.Optional[[]Type]      `json:"events"`
	Description apitype.Optional[string]      `json:"description"`
	LinkIDs     apitype.Optional[[]uuid.UUID] `json:"link_ids"`
	AppIDs      apitype.Optional[[]uuid.UUID] `json:"app_ids"`
}

// UpdateInput is the body of PATCH /v1/webhooks/{id}: absent fields keep
// their value. Enabled true enables a disabled endpoint again (and forgets
// its failures); false disables it.
type UpdateInput struct {
	URL         apitype.Optional[string]      `json:"url"`
	Events      apitype.Optional[[]Type]      `json:"events"`
	Description apitype.Optional[string]      `json:"description"`
	LinkIDs     apitype.Optional[[]uuid.UUID] `json:"link_ids"`
	AppIDs      apitype.Optional[[]uuid.UUID] `json:"app_ids"`
	Enabled     apitype.Optional[bool]        `json:"enabled"`
}

// ServiceOptions configure a Service. Every zero value means the
// documented default.
type ServiceOptions struct {
	// AllowPrivate accepts http URLs and hosts on private networks
	// (--webhook-allow-private).
	AllowPrivate bool
	// Resolver resolves endpoint hosts when they are saved;
	// net.DefaultResolver when nil.
	Resolver Resolver
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Random draws secrets and nonces; crypto/rand when nil.
	Random io.Reader
}

// Service manages an organization's endpoints and reads their deliveries.
// It is safe for concurrent use.
type Service struct {
	store   Store
	box     *secretBox
	cursors cursor.Signer
	opts    ServiceOptions
}

// NewService returns the service over store; serverSecret (at least
// MinServerSecretSize bytes) seals signing secrets and keys cursors.
func NewService(store Store, serverSecret []byte, opts ServiceOptions) (*Service, error) {
	box, err := newSecretBox(serverSecret)
	if err != nil {
		return nil, err
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	return &Service{store: store, box: box, opts: opts,
		cursors: cursor.NewSigner(secretkey.Derive(serverSecret, "hoplink webhook deliveries cursor v1"))}, nil
}

func (s *Service) now() time.Time { return s.opts.Clock().UTC().Truncate(time.Millisecond) }

var errNotFound = errcode.New(errcode.NotFound, "webhook not found")

// fields are the validated values of a create or update body.
type fields struct {
	url, description string
	events           []Type
	linkIDs, appIDs  []uuid.UUID
}

func (s *Service) check(ctx context.Context, f *fields, urlSet bool) error {
	var errs errcode.FieldErrors
	if urlSet {
		if msg := CheckURL(f.url, s.opts.AllowPrivate); msg != "" {
			errs.Add("url", msg)
		} else if msg := CheckHost(ctx, s.opts.Resolver, f.url, s.opts.AllowPrivate); msg != "" {
			errs.Add("url", msg)
		}
	}
	if len(f.events) == 0 {
		errs.Add("events", "must name at least one event type")
	}
	for _, t := range f.events {
		if !t.Valid() {
			errs.Add("events", fmt.Sprintf("%q is not an event type", t))
			break
		}
	}
	f.events = slices.Compact(slices.Sorted(slices.Values(f.events)))
	if utf8.RuneCountInString(f.description) > MaxDescriptionLength {
		errs.Add("description", fmt.Sprintf("must be at most %d characters", MaxDescriptionLength))
	}
	if len(f.linkIDs) > MaxFilterIDs {
		errs.Add("link_ids", fmt.Sprintf("must have at most %d items", MaxFilterIDs))
	}
	if len(f.appIDs) > MaxFilterIDs {
		errs.Add("app_ids", fmt.Sprintf("must have at most %d items", MaxFilterIDs))
	}
	return errs.Err()
}

// Create adds an endpoint and returns it with its signing secret, which is
// never shown again. It needs webhooks:write (owners and admins).
// VALIDATION_ERROR names url (not https, or resolving to a refused address
// without AllowPrivate), events (missing, empty or unknown), description
// or the filters; FORBIDDEN past MaxEndpoints.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in CreateInput) (*WithSecret, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	var missing errcode.FieldErrors
	if !in.URL.Set || in.URL.Null {
		missing.Add("url", "is required")
	}
	if !in.Events.Set || in.Events.Null {
		missing.Add("events", "is required")
	}
	if err := missing.Err(); err != nil {
		return nil, err
	}
	f := fields{url: in.URL.Value, description: in.Description.Value, events: in.Events.Value,
		linkIDs: in.LinkIDs.Value, appIDs: in.AppIDs.Value}
	if err := s.check(ctx, &f, true); err != nil {
		return nil, err
	}
	existing, err := s.store.ListWebhooks(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	if len(existing) >= MaxEndpoints {
		return nil, errcode.Newf(errcode.Forbidden, "an organization may have at most %d webhooks", MaxEndpoints)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	secret, err := NewSecret(s.opts.Random)
	if err != nil {
		return nil, err
	}
	sealed, err := s.box.seal(s.opts.Random, secret, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	e := &Endpoint{ID: id, OrgID: p.OrgID, URL: f.url, Description: f.description, Events: f.events,
		LinkIDs: emptyNil(f.linkIDs), AppIDs: emptyNil(f.appIDs), SealedSecret: sealed, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateWebhook(ctx, e); err != nil {
		return nil, err
	}
	return &WithSecret{Webhook: *view(e, now), Secret: secret}, nil
}

func emptyNil[T comparable](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Compact(s)
}

// List returns the organization's endpoints, oldest first. It needs
// webhooks:read.
func (s *Service) List(ctx context.Context, p *auth.Principal) ([]*Webhook, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksRead, auth.ActWebhooksRead); err != nil {
		return nil, err
	}
	eps, err := s.store.ListWebhooks(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]*Webhook, len(eps))
	for i := range eps {
		out[i] = view(&eps[i], now)
	}
	return out, nil
}

func (s *Service) endpoint(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Endpoint, error) {
	e, err := s.store.Webhook(ctx, p.OrgID, id)
	if err != nil {
		return nil, notFound(err)
	}
	return e, nil
}

func notFound(err error) error {
	if errors.Is(err, errcode.ErrNotFound) {
		return errNotFound
	}
	return err
}

// Get returns endpoint id. It needs webhooks:read; NOT_FOUND when the
// organization has no such endpoint.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Webhook, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksRead, auth.ActWebhooksRead); err != nil {
		return nil, err
	}
	e, err := s.endpoint(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return view(e, s.now()), nil
}

// Update changes the fields in sets. It needs webhooks:write; NOT_FOUND,
// or VALIDATION_ERROR as Create (null is refused for url and events).
func (s *Service) Update(ctx context.Context, p *auth.Principal, id uuid.UUID, in UpdateInput) (*Webhook, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	var nulls errcode.FieldErrors
	if in.URL.Set && in.URL.Null {
		nulls.Add("url", "may not be null")
	}
	if in.Events.Set && in.Events.Null {
		nulls.Add("events", "may not be null")
	}
	if in.Enabled.Set && in.Enabled.Null {
		nulls.Add("enabled", "may not be null")
	}
	if err := nulls.Err(); err != nil {
		return nil, err
	}
	e, err := s.endpoint(ctx, p, id)
	if err != nil {
		return nil, err
	}
	f := fields{url: e.URL, description: e.Description, events: e.Events, linkIDs: e.LinkIDs, appIDs: e.AppIDs}
	if in.URL.Set {
		f.url = in.URL.Value
	}
	if in.Events.Set {
		f.events = in.Events.Value
	}
	if in.Description.Set {
		f.description = in.Description.Value
	}
	if in.LinkIDs.Set {
		f.linkIDs = in.LinkIDs.Value
	}
	if in.AppIDs.Set {
		f.appIDs = in.AppIDs.Value
	}
	if err := s.check(ctx, &f, in.URL.Set); err != nil {
		return nil, err
	}
	now := s.now()
	e.URL, e.Description, e.Events, e.LinkIDs, e.AppIDs = f.url, f.description, f.events, emptyNil(f.linkIDs), emptyNil(f.appIDs)
	if in.Enabled.Set {
		switch {
		case in.Enabled.Value:
			e.DisabledAt, e.FailingSince = nil, nil
		case e.DisabledAt == nil:
			e.DisabledAt = &now
		}
	}
	e.UpdatedAt = now
	if err := s.store.UpdateWebhook(ctx, e, in.Enabled.Set); err != nil {
		return nil, notFound(err)
	}
	return view(e, now), nil
}

// Delete deletes endpoint id and its deliveries and returns it. It needs
// webhooks:write; NOT_FOUND.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Webhook, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	e, err := s.endpoint(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteWebhook(ctx, p.OrgID, id); err != nil {
		return nil, notFound(err)
	}
	return view(e, s.now()), nil
}

// RotateSecret gives endpoint id a new signing secret, returned once; the
// current secret keeps signing beside it for PreviousSecretLifetime, so
// receivers can switch without losing deliveries. It needs webhooks:write;
// NOT_FOUND.
func (s *Service) RotateSecret(ctx context.Context, p *auth.Principal, id uuid.UUID) (*WithSecret, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	e, err := s.endpoint(ctx, p, id)
	if err != nil {
		return nil, err
	}
	secret, err := NewSecret(s.opts.Random)
	if err != nil {
		return nil, err
	}
	sealed, err := s.box.seal(s.opts.Random, secret, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now.Add(PreviousSecretLifetime)
	e.SealedPreviousSecret, e.PreviousSecretUntil, e.SealedSecret, e.UpdatedAt = e.SealedSecret, &until, sealed, now
	if err := s.store.UpdateWebhook(ctx, e, false); err != nil {
		return nil, notFound(err)
	}
	return &WithSecret{Webhook: *view(e, now), Secret: secret}, nil
}

// Test queues a ping to endpoint id, whatever its subscriptions, and
// returns the delivery; a disabled endpoint gets it once enabled. It needs
// webhooks:write; NOT_FOUND.
func (s *Service) Test(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Delivery, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	ev, err := NewEvent(p.OrgID, Ping, s.now(), nil, nil, PingData{WebhookID: id})
	if err != nil {
		return nil, err
	}
	d, err := s.store.EnqueuePing(ctx, id, ev)
	return d, notFound(err)
}

// DeliveryQuery selects a page of deliveries.
type DeliveryQuery struct {
	// Limit is 1 to MaxDeliveryLimit; DefaultDeliveryLimit when zero.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}

// DeliveryPage is a page of deliveries, newest first.
type DeliveryPage struct {
	Data       []Delivery
	NextCursor string
	HasMore    bool
}

// Deliveries returns a page of endpoint id's deliveries, newest first. It
// needs webhooks:read; NOT_FOUND; VALIDATION_ERROR on limit;
// CURSOR_INVALID.
func (s *Service) Deliveries(ctx context.Context, p *auth.Principal, id uuid.UUID, q DeliveryQuery) (*DeliveryPage, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksRead, auth.ActWebhooksRead); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultDeliveryLimit
	}
	if q.Limit < 1 || q.Limit > MaxDeliveryLimit {
		return nil, errcode.Field("limit", fmt.Sprintf("must be between 1 and %d", MaxDeliveryLimit))
	}
	bind := cursor.Binding{OrgID: p.OrgID}
	var before *DeliveryPosition
	if q.Cursor != "" {
		pos, err := s.cursors.OpenPosition(q.Cursor, bind)
		if err != nil {
			return nil, errcode.New(errcode.CursorInvalid, "the cursor is invalid or belongs to another list")
		}
		before = &DeliveryPosition{CreatedAt: pos.Time, ID: pos.ID}
	}
	if _, err := s.endpoint(ctx, p, id); err != nil {
		return nil, err
	}
	ds, err := s.store.ListDeliveries(ctx, p.OrgID, id, before, q.Limit+1)
	if err != nil {
		return nil, err
	}
	page := &DeliveryPage{Data: ds}
	if len(ds) > q.Limit {
		page.Data, page.HasMore = ds[:q.Limit], true
		last := page.Data[q.Limit-1]
		page.NextCursor = s.cursors.SealPosition(cursor.Position{Time: last.CreatedAt, ID: last.ID}, bind)
	}
	return page, nil
}

// Retry makes delivery deliveryID of endpoint id due now again, whatever
// its state; the receiver gets the same webhook-id. It needs
// webhooks:write; NOT_FOUND.
func (s *Service) Retry(ctx context.Context, p *auth.Principal, id, deliveryID uuid.UUID) (*Delivery, error) {
	if _, err := p.Authorize(auth.ScopeWebhooksWrite, auth.ActWebhooksWrite); err != nil {
		return nil, err
	}
	d, err := s.store.RetryDelivery(ctx, p.OrgID, id, deliveryID, s.now())
	if errors.Is(err, errcode.ErrNotFound) {
		return nil, errcode.New(errcode.NotFound, "delivery not found")
	}
	return d, err
}
