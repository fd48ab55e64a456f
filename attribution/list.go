package attribution

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/cursor"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/secretkey"
)

// listLimit checks a list's limit: 0 is DefaultListLimit, else 1 to
// MaxListLimit.
func listLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultListLimit, nil
	case limit < 1 || limit > MaxListLimit:
		return 0, errcode.Field("limit", "must be 1 to 500")
	}
	return limit, nil
}

// ListInstalls returns a page of the organization's installs in f's window,
// newest first by (installed_at, id), continuing after f.After. The caller
// has parsed the query and applied retention and look-back; Lists.Installs
// does both.
func (m *Matcher) ListInstalls(ctx context.Context, f InstallFilter) (InstallPage, error) {
	return listInstalls(ctx, m.store, f)
}

// ListAttempts returns a page of the organization's attempts in f's
// window, newest first by (created_at, id), continuing after f.After.
func (m *Matcher) ListAttempts(ctx context.Context, f AttemptFilter) (AttemptPage, error) {
	return listAttempts(ctx, m.store, f)
}

func listInstalls(ctx context.Context, store ListStore, f InstallFilter) (InstallPage, error) {
	limit, err := listLimit(f.Limit)
	if err != nil {
		return InstallPage{}, err
	}
	rows, err := store.ListInstalls(ctx, f, limit+1)
	if err != nil {
		return InstallPage{}, fmt.Errorf("attribution: list installs: %w", err)
	}
	page := InstallPage{Data: rows}
	if len(rows) > limit {
		page.Data, page.HasMore = rows[:limit], true
		last := page.Data[limit-1]
		page.Next = &Position{Time: last.InstalledAt, ID: last.ID}
	}
	if page.Data == nil {
		page.Data = []Install{}
	}
	return page, nil
}

func listAttempts(ctx context.Context, store ListStore, f AttemptFilter) (AttemptPage, error) {
	limit, err := listLimit(f.Limit)
	if err != nil {
		return AttemptPage{}, err
	}
	rows, err := store.ListAttempts(ctx, f, limit+1)
	if err != nil {
		return AttemptPage{}, fmt.Errorf("attribution: list attempts: %w", err)
	}
	page := AttemptPage{Data: rows}
	if len(rows) > limit {
		page.Data, page.HasMore = rows[:limit], true
		last := page.Data[limit-1]
		page.Next = &Position{Time: last.CreatedAt, ID: last.ID}
	}
	if page.Data == nil {
		page.Data = []Attempt{}
	}
	return page, nil
}

// Orgs reads an organization's plan for the lists' look-back and retention;
// *org.Service implements it.
type Orgs interface {
	// ByID returns the organization id; a NOT_FOUND error when there is none.
	ByID(ctx context.Context, id uuid.UUID) (*org.Organization, error)
}

// ListsOptions configure Lists. The zero value is usable.
type ListsOptions struct {
	// Secret is the server secret; a key derived from it signs the cursors.
	// If empty, a random key is drawn for this process: cursors then
	// outlive neither a restart nor the replica that issued them.
	Secret []byte
	// Clock is the time of the lists' windows and cursors; time.Now when nil.
	Clock func() time.Time
}

// Lists serves the installs and attempts lists (SPEC.md, installs and
// attempts, rules 1 to 8) to every adapter: GET /v1/installs, GET
// /v1/attribution/attempts and the MCP tools list_installs and
// list_attribution_attempts call it alike, so they answer alike. It owns
// the scope and role checks, the parsing of the parameters, the plan's
// look-back and retention window and the signed cursors. It is safe for
// concurrent use.
type Lists struct {
	store   ListStore
	orgs    Orgs
	cursors cursor.Signer
	clock   func() time.Time
}

// NewLists returns the lists over store, reading plans from orgs.
func NewLists(store ListStore, orgs Orgs, opts ListsOptions) *Lists {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Lists{store: store, orgs: orgs, cursors: cursor.NewSigner(listCursorKey(opts.Secret)), clock: opts.Clock}
}

// listCursorKey derives the cursor key from secret; an empty secret draws
// a random one.
func listCursorKey(secret []byte) []byte {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	return secretkey.Derive(secret, "hoplink list cursor v1")
}

// The lists' cursor.List values; a cursor of one is refused by the other.
const (
	cursorInstalls cursor.List = 1
	cursorAttempts cursor.List = 2
)

// ListQuery is a request for one page of the installs or attempts list.
// Each parameter is the text the client sent (nil when absent), whether it
// came as a query parameter or as an MCP tool argument, so that every
// adapter is parsed and refused alike.
type ListQuery struct {
	// AppID is an app id (a UUID) or "none" for records without an app;
	// every app when nil.
	AppID *string
	// From is the inclusive start, an RFC 3339 instant with an offset; the
	// earliest instant the plan may read when nil.
	From *string
	// To is the exclusive end, after From; now when nil.
	To *string
	// Limit is a decimal integer from 1 to MaxListLimit; DefaultListLimit
	// when nil.
	Limit *string
	// Cursor is the NextCursor of the previous page, sent with the same
	// other parameters.
	Cursor *string
	// Invalid are the problems the adapter found reading its request (an
	// unknown or repeated query parameter). They are reported after the
	// scope and role checks, ahead of the parameters' own problems, in one
	// 400 VALIDATION_ERROR.
	Invalid []errcode.FieldError
}

// InstallsQuery is a request for one page of the installs list.
type InstallsQuery struct {
	ListQuery
	// LinkID keeps the installs of one link (a UUID); all when nil.
	LinkID *string
}

// AttemptsQuery is a request for one page of the attempts list.
type AttemptsQuery struct {
	ListQuery
	// Matched is "true" (matched attempts only) or "false" (unmatched
	// only); both when nil.
	Matched *string
}

// CursorPage is one page of a cursor list, newest first, as the SPEC.md
// cursor list envelope shows it.
type CursorPage[T any] struct {
	// Data is never nil.
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
	Window     Window     `json:"window"`
}

// Pagination says how to read the page after a CursorPage.
type Pagination struct {
	// NextCursor reads the next page; nil when HasMore is false.
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// Window is the window a list read: From after retention clamping (SPEC.md,
// rule 4), inclusive; To exclusive.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

var (
	errListScope = errcode.New(errcode.Forbidden, "this key needs the analytics:read or the links:read scope")

	errCursorInvalid = errcode.New(errcode.CursorInvalid,
		"cursor is not a next_cursor of this list with these filters")
	errCursorExpired = errcode.New(errcode.CursorInvalid,
		"cursor has expired; read the list again from its first page")
)

// authorize checks the scope (analytics:read or links:read, SPEC.md) and
// the role action, returning how far the caller reads.
func authorize(p *auth.Principal, action auth.Action) (auth.Reach, error) {
	scope := auth.ScopeAnalyticsRead
	if !p.Scopes.Has(scope) {
		scope = auth.ScopeLinksRead
	}
	if !p.Scopes.Has(scope) {
		return auth.None, errListScope
	}
	return p.Authorize(scope, action)
}

// Installs returns the page of installs that q asks p for (SPEC.md,
// installs and attempts, rules 1 to 8): newest first by (installed_at, id);
// a member's key sees the installs of links that member created. FORBIDDEN
// without the scope or role; VALIDATION_ERROR naming every bad parameter;
// LOOKBACK_EXCEEDED, RETENTION_WINDOW_UNAVAILABLE and CURSOR_INVALID as
// window and cursor say.
func (l *Lists) Installs(ctx context.Context, p *auth.Principal, q InstallsQuery) (*CursorPage[Install], error) {
	reach, err := authorize(p, auth.ActInstallsRead)
	if err != nil {
		return nil, err
	}
	var fields errcode.FieldErrors
	lq := parseListQuery(q.ListQuery, &fields)
	var linkID *uuid.UUID
	linkPart := "-"
	if q.LinkID != nil {
		if id, ok := parseUUID(*q.LinkID); ok {
			linkID, linkPart = &id, id.String()
		} else {
			fields.Add("link_id", "must be a UUID")
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	filters := cursor.FiltersOf(cursorInstalls, lq.digestParts(p.OrgID, linkPart)...)
	now := l.clock().UTC().Truncate(time.Millisecond)
	win, after, err := l.page(ctx, p, lq, cursorInstalls, filters, now)
	if err != nil {
		return nil, err
	}
	f := InstallFilter{OrgID: p.OrgID, App: lq.app, LinkID: linkID, From: win.From, To: win.To,
		Limit: lq.limit, After: after}
	if reach == auth.Own {
		f.CreatedBy = p.CreatedBy
	}
	page, err := listInstalls(ctx, l.store, f)
	if err != nil {
		return nil, err
	}
	return &CursorPage[Install]{
		Data:       page.Data,
		Pagination: Pagination{NextCursor: l.nextCursor(cursorInstalls, filters, win, page.Next, now), HasMore: page.HasMore},
		Window:     win,
	}, nil
}

// Attempts returns the page of attempts that q asks p for (SPEC.md,
// installs and attempts, rules 1 to 8): newest first by (created_at, id); a
// member's key is refused (rule 8). Its errors are those of Installs.
func (l *Lists) Attempts(ctx context.Context, p *auth.Principal, q AttemptsQuery) (*CursorPage[Attempt], error) {
	if _, err := authorize(p, auth.ActAttemptsRead); err != nil {
		return nil, err
	}
	var fields errcode.FieldErrors
	lq := parseListQuery(q.ListQuery, &fields)
	var matched *bool
	matchedPart := "-"
	if q.Matched != nil {
		switch *q.Matched {
		case "true", "false":
			b := *q.Matched == "true"
			matched, matchedPart = &b, strconv.FormatBool(b)
		default:
			fields.Add("matched", `must be "true" or "false"`)
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	filters := cursor.FiltersOf(cursorAttempts, lq.digestParts(p.OrgID, matchedPart)...)
	now := l.clock().UTC().Truncate(time.Millisecond)
	win, after, err := l.page(ctx, p, lq, cursorAttempts, filters, now)
	if err != nil {
		return nil, err
	}
	page, err := listAttempts(ctx, l.store, AttemptFilter{OrgID: p.OrgID, App: lq.app, Matched: matched,
		From: win.From, To: win.To, Limit: lq.limit, After: after})
	if err != nil {
		return nil, err
	}
	return &CursorPage[Attempt]{
		Data:       page.Data,
		Pagination: Pagination{NextCursor: l.nextCursor(cursorAttempts, filters, win, page.Next, now), HasMore: page.HasMore},
		Window:     win,
	}, nil
}

// listQuery is what the two lists' parameters share, parsed.
type listQuery struct {
	app      AppFilter
	appPart  string // the app filter for the cursor digest
	from, to time.Time
	fromSet  bool
	toSet    bool
	limit    int
	cursor   *string
}

// parseListQuery parses the shared parameters of q, noting q.Invalid and
// then each bad value in fields.
func parseListQuery(q ListQuery, fields *errcode.FieldErrors) listQuery {
	*fields = append(*fields, q.Invalid...)
	lq := listQuery{limit: DefaultListLimit, appPart: "-"}
	if q.AppID != nil {
		switch id, ok := parseUUID(*q.AppID); {
		case *q.AppID == "none":
			lq.app.None, lq.appPart = true, "none"
		case ok:
			lq.app.ID, lq.appPart = &id, id.String()
		default:
			fields.Add("app_id", `must be a UUID or "none"`)
		}
	}
	lq.from, lq.fromSet = parseInstant(q.From, "from", fields)
	lq.to, lq.toSet = parseInstant(q.To, "to", fields)
	if q.Limit != nil {
		n, err := strconv.Atoi(*q.Limit)
		switch {
		case err != nil:
			fields.Add("limit", "must be an integer")
		case n < 1 || n > MaxListLimit:
			fields.Add("limit", "must be 1 to 500")
		default:
			lq.limit = n
		}
	}
	lq.cursor = q.Cursor
	return lq
}

// parseInstant reads parameter name, s, as an RFC 3339 instant with an
// offset.
func parseInstant(s *string, name string, fields *errcode.FieldErrors) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		fields.Add(name, "must be an ISO 8601 instant with an offset, such as 2026-01-02T15:04:05Z")
		return time.Time{}, false
	}
	return t.UTC(), true
}

// parseUUID parses a UUID in its 36-character form.
func parseUUID(s string) (uuid.UUID, bool) {
	if len(s) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}

// digestParts returns the filters a cursor is bound to, in a fixed order;
// extra are the list's own filters.
func (lq listQuery) digestParts(orgID uuid.UUID, extra ...string) []string {
	at := func(t time.Time, set bool) string {
		if !set {
			return "-"
		}
		return strconv.FormatInt(t.UnixNano(), 10)
	}
	return append([]string{orgID.String(), lq.appPart, at(lq.from, lq.fromSet), at(lq.to, lq.toSet)}, extra...)
}

// window applies SPEC.md's rules 1 and 3 to 5 to the requested window of
// organization o at now: `from` defaults to the earliest instant the plan
// may read and `to` to now; `from` must be before `to` (400
// VALIDATION_ERROR); on a plan with a look-back (Free: 30 days) an earlier
// `from` is 403 LOOKBACK_EXCEEDED with details.earliest_allowed; a window
// that ends at or before the start of retention is 422
// RETENTION_WINDOW_UNAVAILABLE; a `from` before it is raised to it.
func (lq listQuery) window(o *org.Organization, now time.Time) (Window, error) {
	limits := org.LimitsOf(o.Plan)
	earliest := now.Add(-limits.Retention)
	if limits.Lookback > 0 {
		earliest = now.Add(-limits.Lookback)
	}
	w := Window{To: now}
	if lq.toSet {
		w.To = lq.to
	}
	var from *time.Time
	if lq.fromSet {
		from = &lq.from
	}
	var err error
	w.From, err = limits.ReadFrom(now, from, earliest, w.To, "installs and attempts")
	return w, err
}

// page resolves the window and the position of a list request at now.
// With a cursor, after checking that it is one of this list with these
// filters and not older than cursor.Lifetime, the window is the one of the
// cursor's first page, which the rules were checked against then (so that
// a `from` at the edge of the look-back does not fail halfway through the
// pages). Without one, the window of the query under rules 1 and 3 to 5.
func (l *Lists) page(ctx context.Context, p *auth.Principal, lq listQuery, list cursor.List,
	filters cursor.Filters, now time.Time) (Window, *Position, error) {
	if lq.cursor != nil {
		st, err := l.cursors.Open(*lq.cursor, list, filters, now)
		if errors.Is(err, cursor.ErrExpired) {
			return Window{}, nil, errCursorExpired
		}
		if err != nil {
			return Window{}, nil, errCursorInvalid
		}
		return Window{From: st.From, To: st.To}, &Position{Time: st.After.Time, ID: st.After.ID}, nil
	}
	o, err := l.orgs.ByID(ctx, p.OrgID)
	if err != nil {
		return Window{}, nil, err
	}
	w, err := lq.window(o, now)
	return w, nil, err
}

// nextCursor returns the cursor of the page after next, nil when there is
// none.
func (l *Lists) nextCursor(list cursor.List, filters cursor.Filters, w Window, next *Position, now time.Time) *string {
	if next == nil {
		return nil
	}
	c := l.cursors.Seal(cursor.State{List: list, Filters: filters, From: w.From, To: w.To,
		After: cursor.Position{Time: next.Time, ID: next.ID}, Issued: now})
	return &c
}
