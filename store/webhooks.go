package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/webhook"
)

var _ webhook.Store = (*Store)(nil)

// webhookRow is a row of webhooks; Events, LinkIDs and AppIDs are JSON
// arrays, PreviousSecret is empty when no rotated secret signs.
type webhookRow struct {
	bun.BaseModel `bun:"table:webhooks,alias:w"`

	ID                  uuid.UUID `bun:",pk"`
	OrgID               uuid.UUID
	URL                 string `bun:"url"`
	Description         string
	Events              string
	LinkIDs             string `bun:"link_ids"`
	AppIDs              string `bun:"app_ids"`
	Secret              string
	PreviousSecret      string
	PreviousSecretUntil *time.Time
	FailingSince        *time.Time
	DisabledAt          *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// webhookEventRow is a row of webhook_events, the outbox.
type webhookEventRow struct {
	bun.BaseModel `bun:"table:webhook_events,alias:we"`

	ID         uuid.UUID `bun:",pk"`
	OrgID      uuid.UUID
	Type       string
	OccurredAt time.Time
	Body       string
}

// webhookDeliveryRow is a row of webhook_deliveries.
type webhookDeliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries,alias:wd"`

	ID             uuid.UUID `bun:",pk"`
	OrgID          uuid.UUID
	WebhookID      uuid.UUID
	EventID        uuid.UUID
	EventType      string
	Status         string
	Attempts       int
	NextAttemptAt  *time.Time
	LeaseID        *uuid.UUID
	LeaseUntil     *time.Time
	LastAttemptAt  *time.Time
	LastStatusCode *int
	LastResponseMS *int `bun:"last_response_ms"`
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func fromEndpoint(e *webhook.Endpoint) (*webhookRow, error) {
	events, err := json.Marshal(nonNil(e.Events))
	if err != nil {
		return nil, err
	}
	links, err := json.Marshal(nonNil(e.LinkIDs))
	if err != nil {
		return nil, err
	}
	apps, err := json.Marshal(nonNil(e.AppIDs))
	if err != nil {
		return nil, err
	}
	return &webhookRow{
		ID: e.ID, OrgID: e.OrgID, URL: e.URL, Description: e.Description, Events: string(events),
		LinkIDs: string(links), AppIDs: string(apps), Secret: e.SealedSecret, PreviousSecret: e.SealedPreviousSecret,
		PreviousSecretUntil: utcPtr(e.PreviousSecretUntil), FailingSince: utcPtr(e.FailingSince),
		DisabledAt: utcPtr(e.DisabledAt), CreatedAt: utc(e.CreatedAt), UpdatedAt: utc(e.UpdatedAt),
	}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func toEndpoint(r *webhookRow) (webhook.Endpoint, error) {
	e := webhook.Endpoint{
		ID: r.ID, OrgID: r.OrgID, URL: r.URL, Description: r.Description, SealedSecret: r.Secret,
		SealedPreviousSecret: r.PreviousSecret, PreviousSecretUntil: utcPtr(r.PreviousSecretUntil),
		FailingSince: utcPtr(r.FailingSince), DisabledAt: utcPtr(r.DisabledAt),
		CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
	if err := json.Unmarshal([]byte(r.Events), &e.Events); err != nil {
		return e, fmt.Errorf("webhook %s events: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.LinkIDs), &e.LinkIDs); err != nil {
		return e, fmt.Errorf("webhook %s link_ids: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.AppIDs), &e.AppIDs); err != nil {
		return e, fmt.Errorf("webhook %s app_ids: %w", r.ID, err)
	}
	if len(e.LinkIDs) == 0 {
		e.LinkIDs = nil
	}
	if len(e.AppIDs) == 0 {
		e.AppIDs = nil
	}
	return e, nil
}

func toDelivery(r *webhookDeliveryRow) webhook.Delivery {
	return webhook.Delivery{
		ID: r.ID, OrgID: r.OrgID, WebhookID: r.WebhookID, EventID: r.EventID, EventType: webhook.Type(r.EventType),
		Status: webhook.Status(r.Status), Attempts: r.Attempts, NextAttemptAt: utcPtr(r.NextAttemptAt),
		LastAttemptAt: utcPtr(r.LastAttemptAt), LastStatusCode: r.LastStatusCode, LastResponseMS: r.LastResponseMS,
		LastError: r.LastError, CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}

// CreateWebhook implements webhook.Store.
func (s *Store) CreateWebhook(ctx context.Context, e *webhook.Endpoint) error {
	r, err := fromEndpoint(e)
	if err != nil {
		return s.err("create webhook", err)
	}
	_, err = s.db.NewInsert().Model(r).Exec(ctx)
	s.subs.forget()
	return s.err("create webhook", err)
}

// Webhook implements webhook.Store.
func (s *Store) Webhook(ctx context.Context, orgID, id uuid.UUID) (*webhook.Endpoint, error) {
	var r webhookRow
	err := s.db.NewSelect().Model(&r).Where("w.org_id = ? AND w.id = ?", orgID, id).Scan(ctx)
	if err != nil {
		return nil, s.err("webhook", err)
	}
	e, err := toEndpoint(&r)
	if err != nil {
		return nil, s.err("webhook", err)
	}
	return &e, nil
}

// ListWebhooks implements webhook.Store.
func (s *Store) ListWebhooks(ctx context.Context, orgID uuid.UUID) ([]webhook.Endpoint, error) {
	return s.listWebhooks(ctx, s.db, orgID)
}

func (s *Store) listWebhooks(ctx context.Context, db bun.IDB, orgID uuid.UUID) ([]webhook.Endpoint, error) {
	var rows []webhookRow
	err := db.NewSelect().Model(&rows).Where("w.org_id = ?", orgID).OrderExpr("w.created_at, w.id").Scan(ctx)
	if err != nil {
		return nil, s.err("list webhooks", err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i := range rows {
		if out[i], err = toEndpoint(&rows[i]); err != nil {
			return nil, s.err("list webhooks", err)
		}
	}
	return out, nil
}

// UpdateWebhook implements webhook.Store.
func (s *Store) UpdateWebhook(ctx context.Context, e *webhook.Endpoint, withState bool) error {
	r, err := fromEndpoint(e)
	if err != nil {
		return s.err("update webhook", err)
	}
	exclude := []string{"id", "org_id", "created_at"}
	if !withState {
		exclude = append(exclude, "disabled_at", "failing_since")
	}
	res, err := s.db.NewUpdate().Model(r).ExcludeColumn(exclude...).
		Where("w.org_id = ? AND w.id = ?", e.OrgID, e.ID).Exec(ctx)
	s.subs.forget()
	return s.err("update webhook", oneRow(res, err))
}

// DeleteWebhook implements webhook.Store.
func (s *Store) DeleteWebhook(ctx context.Context, orgID, id uuid.UUID) error {
	res, err := s.db.NewDelete().Model((*webhookRow)(nil)).Where("org_id = ? AND id = ?", orgID, id).Exec(ctx)
	s.subs.forget()
	return s.err("delete webhook", oneRow(res, err))
}

// EnqueueEvents implements webhook.Store.
func (s *Store) EnqueueEvents(ctx context.Context, events []webhook.Event) error {
	if len(events) == 0 {
		return nil
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return s.enqueueWebhookEvents(ctx, tx, events)
	})
	return s.err("enqueue webhook events", err)
}

// enqueueWebhookEvents writes events to the outbox through db, which is the
// transaction of the change that caused them when a store method emits
// them: one delivery per endpoint that accepts an event, and the event's
// row only when some endpoint does. The endpoints of each organization are
// read once.
func (s *Store) enqueueWebhookEvents(ctx context.Context, db bun.IDB, events []webhook.Event) error {
	endpoints := map[uuid.UUID][]webhook.Endpoint{}
	var eventRows []webhookEventRow
	var deliveries []webhookDeliveryRow
	for _, ev := range events {
		eps, ok := endpoints[ev.OrgID]
		if !ok {
			var err error
			if eps, err = s.listWebhooks(ctx, db, ev.OrgID); err != nil {
				return err
			}
			endpoints[ev.OrgID] = eps
		}
		n := len(deliveries)
		for i := range eps {
			if eps[i].Accepts(ev.Type, ev.LinkID, ev.AppID) {
				d, err := newDeliveryRow(ev, eps[i].ID)
				if err != nil {
					return err
				}
				deliveries = append(deliveries, d)
			}
		}
		if len(deliveries) > n {
			eventRows = append(eventRows, webhookEventRow{ID: ev.ID, OrgID: ev.OrgID, Type: string(ev.Type),
				OccurredAt: utc(ev.OccurredAt), Body: string(ev.Body)})
		}
	}
	// In statements of outboxInsertBatch rows, so that a bulk change (an
	// app's links moved or left) writes statements of a bounded size.
	for start := 0; start < len(eventRows); start += outboxInsertBatch {
		part := eventRows[start:min(start+outboxInsertBatch, len(eventRows))]
		if _, err := db.NewInsert().Model(&part).Exec(ctx); err != nil {
			return err
		}
	}
	for start := 0; start < len(deliveries); start += outboxInsertBatch {
		part := deliveries[start:min(start+outboxInsertBatch, len(deliveries))]
		if _, err := db.NewInsert().Model(&part).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// outboxInsertBatch is the most rows one insert into the outbox writes.
const outboxInsertBatch = 500

func newDeliveryRow(ev webhook.Event, webhookID uuid.UUID) (webhookDeliveryRow, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return webhookDeliveryRow{}, err
	}
	at := utc(ev.OccurredAt)
	return webhookDeliveryRow{ID: id, OrgID: ev.OrgID, WebhookID: webhookID, EventID: ev.ID,
		EventType: string(ev.Type), Status: string(webhook.StatusPending), NextAttemptAt: &at,
		CreatedAt: at, UpdatedAt: at}, nil
}

// EnqueuePing implements webhook.Store.
func (s *Store) EnqueuePing(ctx context.Context, webhookID uuid.UUID, ev webhook.Event) (*webhook.Delivery, error) {
	d, err := newDeliveryRow(ev, webhookID)
	if err != nil {
		return nil, s.err("enqueue ping", err)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*webhookRow)(nil)).Where("w.org_id = ? AND w.id = ?", ev.OrgID, webhookID).Count(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("webhook %s: %w", webhookID, sql.ErrNoRows)
		}
		row := webhookEventRow{ID: ev.ID, OrgID: ev.OrgID, Type: string(ev.Type), OccurredAt: utc(ev.OccurredAt), Body: string(ev.Body)}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&d).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, s.err("enqueue ping", err)
	}
	out := toDelivery(&d)
	return &out, nil
}

// DeleteEventsBefore implements webhook.Store: the events of the outbox
// made before before go, up to limit, with their deliveries (ON DELETE
// CASCADE). An event's id is a UUIDv7 made with it, so the key's order is
// the events' age and the statement reads the key's range alone.
func (s *Store) DeleteEventsBefore(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	sub := s.db.NewSelect().Table("webhook_events").Column("id").
		Where("id < ?", uuidV7Floor(before)).OrderExpr("id").Limit(int64(limit))
	res, err := s.db.NewDelete().TableExpr("webhook_events").Where("id IN (?)", sub).Exec(ctx)
	if err != nil {
		return 0, s.err("delete webhook events", err)
	}
	n, err := res.RowsAffected()
	return int(n), s.err("delete webhook events", err)
}

// uuidV7Floor is the least UUIDv7 of t's millisecond: every UUIDv7 made
// before it sorts below it, as text and as a uuid.
func uuidV7Floor(t time.Time) uuid.UUID {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	for i := 5; i >= 0; i-- {
		u[i] = byte(ms)
		ms >>= 8
	}
	u[6] = 0x70 // version 7
	u[8] = 0x80 // RFC 9562 variant
	return u
}

// ClaimDeliveries implements webhook.Store. It picks candidates, then takes
// each with an update that holds only while no live lease covers the row:
// on both databases the update re-checks the row it writes, so of two
// workers racing for one delivery exactly one sees a row changed.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]webhook.Claimed, error) {
	now = utc(now)
	var ids []uuid.UUID
	err := s.db.NewSelect().Model((*webhookDeliveryRow)(nil)).Column("wd.id").
		Join("JOIN webhooks AS w ON w.id = wd.webhook_id").
		Where("wd.status = ?", webhook.StatusPending).Where("wd.next_attempt_at <= ?", now).
		Where("(wd.lease_until IS NULL OR wd.lease_until <= ?)", now).Where("w.disabled_at IS NULL").
		OrderExpr("wd.next_attempt_at, wd.id").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, s.err("claim deliveries", err)
	}
	leaseID, err := uuid.NewV7()
	if err != nil {
		return nil, s.err("claim deliveries", err)
	}
	until := now.Add(lease)
	var won []uuid.UUID
	for _, id := range ids {
		res, err := s.db.NewUpdate().Model((*webhookDeliveryRow)(nil)).
			Set("lease_id = ?", leaseID).Set("lease_until = ?", until).
			Where("id = ? AND status = ?", id, webhook.StatusPending).
			Where("(lease_until IS NULL OR lease_until <= ?)", now).Exec(ctx)
		if err = oneRow(res, err); err == nil {
			won = append(won, id)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, s.err("claim deliveries", err)
		}
	}
	if len(won) == 0 {
		return nil, nil
	}
	var rows []webhookDeliveryRow
	if err := s.db.NewSelect().Model(&rows).Where("wd.id IN (?)", bun.List(won)).
		OrderExpr("wd.next_attempt_at, wd.id").Scan(ctx); err != nil {
		return nil, s.err("claim deliveries", err)
	}
	bodies := map[uuid.UUID]string{}
	hooks := map[uuid.UUID]webhook.Endpoint{}
	var eventIDs, hookIDs []uuid.UUID
	for _, r := range rows {
		eventIDs = append(eventIDs, r.EventID)
		hookIDs = append(hookIDs, r.WebhookID)
	}
	var events []webhookEventRow
	if err := s.db.NewSelect().Model(&events).Where("we.id IN (?)", bun.List(eventIDs)).Scan(ctx); err != nil {
		return nil, s.err("claim deliveries", err)
	}
	for _, e := range events {
		bodies[e.ID] = e.Body
	}
	var endpoints []webhookRow
	if err := s.db.NewSelect().Model(&endpoints).Where("w.id IN (?)", bun.List(hookIDs)).Scan(ctx); err != nil {
		return nil, s.err("claim deliveries", err)
	}
	for i := range endpoints {
		e, err := toEndpoint(&endpoints[i])
		if err != nil {
			return nil, s.err("claim deliveries", err)
		}
		hooks[e.ID] = e
	}
	out := make([]webhook.Claimed, 0, len(rows))
	for i := range rows {
		hook, ok := hooks[rows[i].WebhookID]
		if !ok { // deleted since the claim: its deliveries went with it
			continue
		}
		out = append(out, webhook.Claimed{Delivery: toDelivery(&rows[i]), Lease: leaseID,
			Body: []byte(bodies[rows[i].EventID]), Endpoint: hook})
	}
	return out, nil
}

// FinishDelivery implements webhook.Store.
func (s *Store) FinishDelivery(ctx context.Context, id, lease uuid.UUID, o webhook.Outcome) (bool, error) {
	disabled := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		at := utc(o.AttemptedAt)
		var webhookID uuid.UUID
		err := tx.NewUpdate().Model((*webhookDeliveryRow)(nil)).
			Set("status = ?", o.Status).Set("attempts = attempts + 1").Set("next_attempt_at = ?", utcPtr(o.NextAttemptAt)).
			Set("lease_id = NULL").Set("lease_until = NULL").Set("last_attempt_at = ?", at).
			Set("last_status_code = ?", o.StatusCode).Set("last_response_ms = ?", o.ResponseMS).
			Set("last_error = ?", o.Error).Set("updated_at = ?", at).
			Where("id = ? AND lease_id = ?", id, lease).Returning("webhook_id").Scan(ctx, &webhookID)
		if err != nil {
			return err
		}
		if o.Status == webhook.StatusSucceeded {
			_, err = tx.NewUpdate().Model((*webhookRow)(nil)).Set("failing_since = NULL").
				Where("id = ? AND failing_since IS NOT NULL", webhookID).Exec(ctx)
			return err
		}
		_, err = tx.NewUpdate().Model((*webhookRow)(nil)).Set("failing_since = ?", at).
			Where("id = ? AND failing_since IS NULL", webhookID).Exec(ctx)
		if err != nil || o.DisableBefore.IsZero() {
			return err
		}
		res, err := tx.NewUpdate().Model((*webhookRow)(nil)).Set("disabled_at = ?", at).Set("updated_at = ?", at).
			Where("id = ? AND disabled_at IS NULL AND failing_since < ?", webhookID, utc(o.DisableBefore)).Exec(ctx)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n != 1 {
			return err
		}
		disabled = true
		if o.Disabled == nil {
			return nil
		}
		row, err := fromAuditEvent(o.Disabled)
		if err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	if err != nil {
		disabled = false
	}
	if disabled {
		s.subs.forget()
	}
	return disabled, s.err("finish delivery", err)
}

// Delivery implements webhook.Store.
func (s *Store) Delivery(ctx context.Context, orgID, webhookID, id uuid.UUID) (*webhook.Delivery, error) {
	var r webhookDeliveryRow
	err := s.db.NewSelect().Model(&r).Where("wd.org_id = ? AND wd.webhook_id = ? AND wd.id = ?", orgID, webhookID, id).Scan(ctx)
	if err != nil {
		return nil, s.err("delivery", err)
	}
	d := toDelivery(&r)
	return &d, nil
}

// ListDeliveries implements webhook.Store.
func (s *Store) ListDeliveries(ctx context.Context, orgID, webhookID uuid.UUID, before *webhook.DeliveryPosition, limit int) ([]webhook.Delivery, error) {
	var rows []webhookDeliveryRow
	q := s.db.NewSelect().Model(&rows).Where("wd.org_id = ? AND wd.webhook_id = ?", orgID, webhookID)
	if before != nil {
		at := utc(before.CreatedAt)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("wd.created_at < ?", at).WhereOr("wd.created_at = ? AND wd.id < ?", at, before.ID)
		})
	}
	if err := q.OrderExpr("wd.created_at DESC, wd.id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, s.err("list deliveries", err)
	}
	out := make([]webhook.Delivery, len(rows))
	for i := range rows {
		out[i] = toDelivery(&rows[i])
	}
	return out, nil
}

// RetryDelivery implements webhook.Store.
//
// A live lease is kept: a delivery being posted is not claimed again
// before that attempt ends (its outcome then stands), so that one event is
// never posted twice at once.
func (s *Store) RetryDelivery(ctx context.Context, orgID, webhookID, id uuid.UUID, now time.Time) (*webhook.Delivery, error) {
	now = utc(now)
	res, err := s.db.NewUpdate().Model((*webhookDeliveryRow)(nil)).
		Set("status = ?", webhook.StatusPending).Set("next_attempt_at = ?", now).Set("updated_at = ?", now).
		Where("org_id = ? AND webhook_id = ? AND id = ?", orgID, webhookID, id).Exec(ctx)
	if err := oneRow(res, err); err != nil {
		return nil, s.err("retry delivery", err)
	}
	return s.Delivery(ctx, orgID, webhookID, id)
}
