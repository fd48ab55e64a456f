package audit

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/cursor"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/secretkey"
)

// Page sizes of List.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// MinSecretSize is the least size of the server secret that keys cursors.
const MinSecretSize = 32

// Position is an event's place in the log's order: (OccurredAt, ID).
type Position struct {
	OccurredAt time.Time
	ID         uuid.UUID
}

// ListFilter selects one page of an organization's events.
type ListFilter struct {
	OrgID uuid.UUID
	// From is inclusive and To exclusive; nil leaves that end open.
	From, To *time.Time
	// Before, when set, keeps events strictly before it in the order.
	Before *Position
	// Limit is the most events to return.
	Limit int
}

// Store is the storage of the audit log. Implementations wrap
// errcode.ErrUnavailable when the database cannot be reached.
type Store interface {
	// InsertAuditEvents writes events in one transaction.
	InsertAuditEvents(ctx context.Context, events []Event) error
	// UserOrgIDs returns the organizations userID is a member of; empty when
	// none or when the user does not exist.
	UserOrgIDs(ctx context.Context, userID uuid.UUID) ([]uuid.UUID, error)
	// ListAuditEvents returns the events of f.OrgID that f selects, newest
	// first by (occurred_at, id), at most f.Limit of them.
	ListAuditEvents(ctx context.Context, f ListFilter) ([]Event, error)
}

// Recorder writes audit events. It is safe for concurrent use.
type Recorder struct {
	store Store
	clock func() time.Time
}

// RecorderOptions configure a Recorder. Every zero value means the
// documented default.
type RecorderOptions struct {
	// Clock stamps the events; time.Now when nil.
	Clock func() time.Time
}

// NewRecorder returns a Recorder over store. The admin CLI records with
// one; the servers use a Service, which also lists.
func NewRecorder(store Store, opts RecorderOptions) *Recorder {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Recorder{store: store, clock: opts.Clock}
}

// Service records and lists audit events. It is safe for concurrent use.
type Service struct {
	*Recorder
	store   Store
	cursors cursor.Signer
}

// ServiceOptions configure a Service. Every zero value means the documented
// default.
type ServiceOptions struct {
	// Clock stamps the events; time.Now when nil.
	Clock func() time.Time
}

// NewService returns the audit service over store. serverSecret (at least
// MinSecretSize bytes) keys the HMAC of list cursors.
func NewService(store Store, serverSecret []byte, opts ServiceOptions) (*Service, error) {
	if len(serverSecret) < MinSecretSize {
		return nil, fmt.Errorf("audit: the server secret must be at least %d bytes", MinSecretSize)
	}
	return &Service{Recorder: NewRecorder(store, RecorderOptions(opts)), store: store,
		cursors: cursor.NewSigner(secretkey.Derive(serverSecret, "hoplink audit cursor v1"))}, nil
}

// subject returns the user an event without an organization is about: its
// actor when that is a user, else its target when that is a user.
func (e *Event) subject() *uuid.UUID {
	if e.ActorType == ActorUser && e.ActorID != nil {
		return e.ActorID
	}
	if e.TargetType == "user" {
		if id, err := uuid.Parse(e.TargetID); err == nil {
			return &id
		}
	}
	return nil
}

// Record writes e, giving it an id and, when it has none, the time now. An
// event with no OrgID about a user (its actor, or else its target, is a
// user) is written once for each organization the user belongs to (once
// with no organization when none); see the package doc. IP and UserAgent
// are cut to their bounds.
func (s *Recorder) Record(ctx context.Context, e Event) error {
	if e.OccurredAt.IsZero() {
		e.OccurredAt = s.clock()
	}
	e.OccurredAt = e.OccurredAt.UTC().Truncate(time.Millisecond)
	e.IP = Clip(e.IP, MaxIPLength)
	e.UserAgent = Clip(e.UserAgent, MaxUserAgentLength)
	orgs := []*uuid.UUID{e.OrgID}
	if user := e.subject(); e.OrgID == nil && user != nil {
		ids, err := s.store.UserOrgIDs(ctx, *user)
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			orgs = orgs[:0]
			for i := range ids {
				orgs = append(orgs, &ids[i])
			}
		}
	}
	events := make([]Event, len(orgs))
	for i, o := range orgs {
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("audit: event id: %w", err)
		}
		ev := e
		ev.ID, ev.OrgID = id, o
		events[i] = ev
	}
	return s.store.InsertAuditEvents(ctx, events)
}

// Query is one request for a page of the log.
type Query struct {
	// From is inclusive and To exclusive; From must be before To.
	From, To *time.Time
	// Limit is 1 to MaxLimit; DefaultLimit when zero.
	Limit int
	// Cursor is the NextCursor of the previous page, with the same From and To.
	Cursor string
}

// Page is one page of events, newest first.
type Page struct {
	Events []Event
	// NextCursor reads the next page; empty when HasMore is false.
	NextCursor string
	HasMore    bool
}

var errCursor = errcode.New(errcode.CursorInvalid, "the cursor is invalid or belongs to another list or filter")

// List returns a page of the events of p's organization. It needs the
// org:read scope and the audit.read role action (owners and admins).
// VALIDATION_ERROR when From is not before To or Limit is out of range;
// CURSOR_INVALID when the cursor is not one this list gave for these filters.
func (s *Service) List(ctx context.Context, p *auth.Principal, q Query) (*Page, error) {
	if _, err := p.Authorize(auth.ScopeOrgRead, auth.ActAuditRead); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return nil, errcode.Field("limit", fmt.Sprintf("must be from 1 to %d", MaxLimit))
	}
	if q.From != nil && q.To != nil && !q.From.Before(*q.To) {
		return nil, errcode.Field("from", "must be before to")
	}
	f := ListFilter{OrgID: p.OrgID, From: q.From, To: q.To, Limit: q.Limit + 1}
	bound := cursor.Binding{OrgID: p.OrgID, From: q.From, To: q.To}
	if q.Cursor != "" {
		pos, err := s.cursors.OpenPosition(q.Cursor, bound)
		if err != nil {
			return nil, errCursor
		}
		f.Before = &Position{OccurredAt: pos.Time, ID: pos.ID}
	}
	events, err := s.store.ListAuditEvents(ctx, f)
	if err != nil {
		return nil, err
	}
	page := &Page{Events: events}
	if len(events) > q.Limit {
		page.Events, page.HasMore = events[:q.Limit], true
		last := page.Events[q.Limit-1]
		page.NextCursor = s.cursors.SealPosition(cursor.Position{Time: last.OccurredAt, ID: last.ID}, bound)
	}
	if page.Events == nil {
		page.Events = []Event{}
	}
	return page, nil
}

// Clip cuts s to at most n bytes without splitting a UTF-8 character. It
// is how an event's, and an account session's, client IP address and user
// agent are bounded before they are stored.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
