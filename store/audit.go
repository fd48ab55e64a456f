package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hoplink/hoplink/audit"
)

var _ audit.Store = (*Store)(nil)

// auditRow is a row of audit_events; Details is a JSON object of strings.
type auditRow struct {
	bun.BaseModel `bun:"table:audit_events,alias:ae"`

	ID         uuid.UUID `bun:",pk"`
	OrgID      *uuid.UUID
	OccurredAt time.Time
	Action     string
	ActorType  string
	ActorID    *uuid.UUID
	TargetType string
	TargetID   string
	IP         string `bun:"ip"`
	UserAgent  string
	Details    string
}

func fromAuditEvent(e *audit.Event) (*auditRow, error) {
	details := "{}"
	if len(e.Details) > 0 {
		b, err := json.Marshal(e.Details)
		if err != nil {
			return nil, err
		}
		details = string(b)
	}
	return &auditRow{
		ID: e.ID, OrgID: e.OrgID, OccurredAt: utc(e.OccurredAt), Action: string(e.Action),
		ActorType: string(e.ActorType), ActorID: e.ActorID, TargetType: e.TargetType, TargetID: e.TargetID,
		IP: e.IP, UserAgent: e.UserAgent, Details: details,
	}, nil
}

func toAuditEvent(r *auditRow) audit.Event {
	e := audit.Event{
		ID: r.ID, OrgID: r.OrgID, OccurredAt: utc(r.OccurredAt), Action: audit.Action(r.Action),
		ActorType: audit.ActorType(r.ActorType), ActorID: r.ActorID, TargetType: r.TargetType, TargetID: r.TargetID,
		IP: r.IP, UserAgent: r.UserAgent, Details: map[string]string{},
	}
	// Details are written by fromAuditEvent only; a row that does not hold
	// a JSON object of strings reads as having none.
	_ = json.Unmarshal([]byte(r.Details), &e.Details)
	return e
}

// InsertAuditEvents implements audit.Store.
func (s *Store) InsertAuditEvents(ctx context.Context, events []audit.Event) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]*auditRow, len(events))
	for i := range events {
		r, err := fromAuditEvent(&events[i])
		if err != nil {
			return s.err("insert audit events", err)
		}
		rows[i] = r
	}
	_, err := s.db.NewInsert().Model(&rows).Exec(ctx)
	return s.err("insert audit events", err)
}

// UserOrgIDs implements audit.Store.
func (s *Store) UserOrgIDs(ctx context.Context, userID uuid.UUID) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.NewSelect().Table("memberships").Column("org_id").Where("user_id = ?", userID).
		OrderExpr("org_id").Scan(ctx, &ids)
	return ids, s.err("user organizations", err)
}

// ListAuditEvents implements audit.Store.
func (s *Store) ListAuditEvents(ctx context.Context, f audit.ListFilter) ([]audit.Event, error) {
	var rows []auditRow
	q := s.db.NewSelect().Model(&rows).Where("ae.org_id = ?", f.OrgID)
	if f.From != nil {
		q = q.Where("ae.occurred_at >= ?", utc(*f.From))
	}
	if f.To != nil {
		q = q.Where("ae.occurred_at < ?", utc(*f.To))
	}
	if f.Before != nil {
		at := utc(f.Before.OccurredAt)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("ae.occurred_at < ?", at).
				WhereOr("ae.occurred_at = ? AND ae.id < ?", at, f.Before.ID)
		})
	}
	err := q.OrderExpr("ae.occurred_at DESC, ae.id DESC").Limit(int64(f.Limit)).Scan(ctx)
	if err != nil {
		return nil, s.err("list audit events", err)
	}
	out := make([]audit.Event, len(rows))
	for i := range rows {
		out[i] = toAuditEvent(&rows[i])
	}
	return out, nil
}
