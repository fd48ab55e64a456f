package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// auditRoutes registers GET /v1/audit-events.
func (a *API) auditRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/audit-events", a.listAuditEvents)
}

type auditPagination struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

type auditEventList struct {
	Data       []audit.Event   `json:"data"`
	Pagination auditPagination `json:"pagination"`
}

// listAuditEvents answers GET /v1/audit-events: query from, to (instants
// with an offset), limit and cursor.
func (a *API) listAuditEvents(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "from", "to", "limit", "cursor")
	var in audit.Query
	in.From = instant(q, "from")
	in.To = instant(q, "to")
	if n := q.integer("limit"); n != nil {
		in.Limit = *n
		if *n == 0 {
			q.fail("limit", "must be from 1 to 100")
		}
	}
	if c := q.str("cursor"); c != nil {
		in.Cursor = *c
		if *c == "" {
			return errcode.New(errcode.CursorInvalid, "the cursor is empty")
		}
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Audit.List(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	out := auditEventList{Data: page.Events, Pagination: auditPagination{HasMore: page.HasMore}}
	if page.HasMore {
		out.Pagination.NextCursor = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// instant reads the query parameter name as an RFC 3339 instant with an
// offset; a malformed value is a field error of q.
func instant(q *query, name string) *time.Time {
	s := q.str(name)
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		q.fail(name, "must be an RFC 3339 instant with an offset, such as 2026-01-02T15:04:05Z")
		return nil
	}
	return &t
}

// recordKeyEvent writes an audit event whose actor is the request's key,
// with the client's IP address and user agent. A failure is logged: the
// action it records has already happened.
func (a *API) recordKeyEvent(req bunrouter.Request, e audit.Event) {
	if a.opts.Audit == nil {
		return
	}
	if p := principal(req); p != nil {
		e.ActorType, e.ActorID = audit.ActorKey, &p.KeyID
		if e.OrgID == nil {
			e.OrgID = &p.OrgID
		}
	}
	a.recordEvent(req.Request, e)
}

// recordEvent writes e with the client's IP address and user agent, logging
// a failure.
func (a *API) recordEvent(r *http.Request, e audit.Event) {
	if a.opts.Audit == nil {
		return
	}
	if ip := ClientIPFrom(r.Context()); ip.IsValid() {
		e.IP = ip.String()
	}
	e.UserAgent = r.UserAgent()
	// The event is written even when the client has gone away.
	ctx := context.WithoutCancel(r.Context())
	if err := a.opts.Audit.Record(ctx, e); err != nil {
		a.log.ErrorContext(ctx, "writing an audit event", "action", e.Action, "err", err)
	}
}

func keyCreatedEvent(k *auth.IssuedKey) audit.Event {
	scopes := ""
	for i, s := range k.Scopes {
		if i > 0 {
			scopes += ","
		}
		scopes += string(s)
	}
	return audit.Event{Action: audit.KeyCreated, TargetType: "key", TargetID: k.ID.String(),
		Details: map[string]string{"name": k.Name, "type": string(k.Type), "scopes": scopes}}
}

func idEvent(action audit.Action, targetType string, id uuid.UUID) audit.Event {
	return audit.Event{Action: action, TargetType: targetType, TargetID: id.String()}
}
