package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

// cursorPage is the cursor list envelope of SPEC.md.
type cursorPage struct {
	Data       any              `json:"data"`
	Pagination cursorPagination `json:"pagination"`
	Window     listWindow       `json:"window"`
}

type cursorPagination struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// listWindow is the window read: From after retention clamping (SPEC.md,
// rule 4), To exclusive.
type listWindow struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// listQuery is what the two lists' query parameters share, parsed.
type listQuery struct {
	app      attribution.AppFilter
	appPart  string // the app filter for the cursor digest
	from, to time.Time
	fromSet  bool
	toSet    bool
	limit    int
	cursor   *string
}

// parseListQuery reads app_id, from, to, limit and cursor from q, noting
// each bad value in q.
func parseListQuery(q *query) listQuery {
	lq := listQuery{limit: attribution.DefaultListLimit, appPart: "-"}
	if s := q.str("app_id"); s != nil {
		switch id, ok := parseUUID(*s); {
		case *s == "none":
			lq.app.None, lq.appPart = true, "none"
		case ok:
			lq.app.ID, lq.appPart = &id, id.String()
		default:
			q.fail("app_id", `must be a UUID or "none"`)
		}
	}
	lq.from, lq.fromSet = listInstant(q, "from")
	lq.to, lq.toSet = listInstant(q, "to")
	if n := q.integer("limit"); n != nil {
		if *n < 1 || *n > attribution.MaxListLimit {
			q.fail("limit", "must be 1 to 500")
		} else {
			lq.limit = *n
		}
	}
	lq.cursor = q.str("cursor")
	return lq
}

// listInstant reads parameter name as an RFC 3339 instant with an offset.
func listInstant(q *query, name string) (time.Time, bool) {
	s := q.str(name)
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		q.fail(name, "must be an ISO 8601 instant with an offset, such as 2026-01-02T15:04:05Z")
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
func (lq listQuery) window(o *org.Organization, now time.Time) (listWindow, error) {
	limits := org.LimitsOf(o.Plan)
	retention := now.Add(-limits.Retention)
	earliest := retention
	if limits.Lookback > 0 {
		earliest = now.Add(-limits.Lookback)
	}
	w := listWindow{From: earliest, To: now}
	if lq.fromSet {
		w.From = lq.from
	}
	if lq.toSet {
		w.To = lq.to
	}
	lookback := func() error {
		return errcode.Newf(errcode.LookbackExceeded, "this plan reads installs and attempts of the last %d days only",
			int(limits.Lookback/(24*time.Hour))).WithDetail("earliest_allowed", earliest)
	}
	if !lq.fromSet && !w.To.After(earliest) {
		// A `to` at or before the earliest readable instant, with the
		// default `from`: the whole window is out of reach.
		if limits.Lookback > 0 {
			return w, lookback()
		}
		w.From = w.To.Add(-time.Millisecond)
	}
	if !w.From.Before(w.To) {
		return w, errcode.Field("to", "must be after from")
	}
	if limits.Lookback > 0 && w.From.Before(earliest) {
		return w, lookback()
	}
	if !w.To.After(retention) {
		return w, errcode.New(errcode.RetentionWindowUnavailable, "the window ends before the start of this plan's data retention").
			WithDetail("earliest_allowed", retention)
	}
	if w.From.Before(retention) {
		w.From = retention
	}
	return w, nil
}

// listPage resolves the window and the position of a list request at now.
// With a cursor, after checking that it is one of this list with these
// filters and not older than CursorLifetime, the window is the one of the
// cursor's first page, which the rules were checked against then (so that
// a `from` at the edge of the look-back does not fail halfway through the
// pages). Without one, the window of the query under rules 1 and 3 to 5.
func (a *API) listPage(ctx context.Context, p *auth.Principal, lq listQuery, list listKind,
	digest [16]byte, now time.Time) (listWindow, *attribution.Position, error) {
	if lq.cursor != nil {
		st, err := a.cursors.decode(*lq.cursor, list, digest, now)
		if err != nil {
			return listWindow{}, nil, err
		}
		return listWindow{From: st.from, To: st.to}, &attribution.Position{Time: st.at, ID: st.id}, nil
	}
	o, err := a.opts.Orgs.ByID(ctx, p.OrgID)
	if err != nil {
		return listWindow{}, nil, err
	}
	w, err := lq.window(o, now)
	return w, nil, err
}

// nextCursor returns the cursor of the page after next, nil when there is
// none.
func (a *API) nextCursor(list listKind, digest [16]byte, w listWindow, next *attribution.Position, now time.Time) *string {
	if next == nil {
		return nil
	}
	c := a.cursors.encode(cursorState{list: list, filters: digest, from: w.From, to: w.To, at: next.Time, id: next.ID,
		issued: now})
	return &c
}

var errListScope = errcode.New(errcode.Forbidden, "this key needs the analytics:read or the links:read scope")

// authorizeList checks the scope (analytics:read or links:read, SPEC.md)
// and the role action, returning how far the caller reads.
func authorizeList(p *auth.Principal, action auth.Action) (auth.Reach, error) {
	scope := auth.ScopeAnalyticsRead
	if !p.Scopes.Has(scope) {
		scope = auth.ScopeLinksRead
	}
	if !p.Scopes.Has(scope) {
		return auth.None, errListScope
	}
	return p.Authorize(scope, action)
}

// listInstalls answers GET /v1/installs.
func (a *API) listInstalls(w http.ResponseWriter, req bunrouter.Request) error {
	page, err := a.Installs(req.Context(), principal(req), req.URL.Query())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// Installs returns the page of GET /v1/installs that query asks p for
// (SPEC.md, installs and attempts, rules 1 to 8): newest first by
// (installed_at, id); a member's key sees the installs of links that member
// created. The value is the cursor list envelope, ready to encode as JSON.
// The API needs Options.Attribution and Options.Orgs; the MCP tool
// list_installs calls it too, so both answer alike.
func (a *API) Installs(ctx context.Context, p *auth.Principal, values url.Values) (any, error) {
	reach, err := authorizeList(p, auth.ActInstallsRead)
	if err != nil {
		return nil, err
	}
	q := strictValues(values, "app_id", "link_id", "from", "to", "limit", "cursor")
	lq := parseListQuery(q)
	var linkID *uuid.UUID
	linkPart := "-"
	if s := q.str("link_id"); s != nil {
		if id, ok := parseUUID(*s); ok {
			linkID, linkPart = &id, id.String()
		} else {
			q.fail("link_id", "must be a UUID")
		}
	}
	if err := q.err(); err != nil {
		return nil, err
	}
	digest := filterDigest(listInstalls, lq.digestParts(p.OrgID, linkPart)...)
	now := a.now().UTC().Truncate(time.Millisecond)
	win, after, err := a.listPage(ctx, p, lq, listInstalls, digest, now)
	if err != nil {
		return nil, err
	}
	f := attribution.InstallFilter{OrgID: p.OrgID, App: lq.app, LinkID: linkID, From: win.From, To: win.To,
		Limit: lq.limit, After: after}
	if reach == auth.Own {
		f.CreatedBy = p.CreatedBy
	}
	page, err := a.opts.Attribution.ListInstalls(ctx, f)
	if err != nil {
		return nil, err
	}
	return cursorPage{
		Data:       page.Data,
		Pagination: cursorPagination{NextCursor: a.nextCursor(listInstalls, digest, win, page.Next, now), HasMore: page.HasMore},
		Window:     win,
	}, nil
}

// listAttempts answers GET /v1/attribution/attempts.
func (a *API) listAttempts(w http.ResponseWriter, req bunrouter.Request) error {
	page, err := a.Attempts(req.Context(), principal(req), req.URL.Query())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// Attempts returns the page of GET /v1/attribution/attempts that query asks
// p for (SPEC.md, installs and attempts, rules 1 to 8): newest first by
// (created_at, id); a member's key is refused (rule 8). Like Installs, it
// serves the MCP tool list_attribution_attempts too.
func (a *API) Attempts(ctx context.Context, p *auth.Principal, values url.Values) (any, error) {
	if _, err := authorizeList(p, auth.ActAttemptsRead); err != nil {
		return nil, err
	}
	q := strictValues(values, "app_id", "matched", "from", "to", "limit", "cursor")
	lq := parseListQuery(q)
	matched := q.boolean("matched")
	matchedPart := "-"
	if matched != nil {
		matchedPart = strconv.FormatBool(*matched)
	}
	if err := q.err(); err != nil {
		return nil, err
	}
	digest := filterDigest(listAttempts, lq.digestParts(p.OrgID, matchedPart)...)
	now := a.now().UTC().Truncate(time.Millisecond)
	win, after, err := a.listPage(ctx, p, lq, listAttempts, digest, now)
	if err != nil {
		return nil, err
	}
	page, err := a.opts.Attribution.ListAttempts(ctx, attribution.AttemptFilter{OrgID: p.OrgID,
		App: lq.app, Matched: matched, From: win.From, To: win.To, Limit: lq.limit, After: after})
	if err != nil {
		return nil, err
	}
	return cursorPage{
		Data:       page.Data,
		Pagination: cursorPagination{NextCursor: a.nextCursor(listAttempts, digest, win, page.Next, now), HasMore: page.HasMore},
		Window:     win,
	}, nil
}
