package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's installs and attempts pages, under /dashboard/o/{org_id}:
//
//   - GET /installs        the installs list (tab one)
//   - GET /attempts        the attribution attempts list (tab two)
//   - GET /installs/{id}   an install, how it was matched, its attempts
//   - GET /attempts/{id}   an attempt and why it matched or did not
//
// The lists are attribution.Lists' as GET /v1/installs and GET
// /v1/attribution/attempts serve them, with the member's principal: the
// same scope and role checks (a member reads the installs of their own
// links and no attempt), the same filters (app, link or outcome, from, to),
// the plan's look-back and retention, and the API's cursors. The API's
// cursors go forward only; a page's address carries the cursors of the
// pages before it (back, at most maxBackCursors), so that Previous goes
// back through them.

// Bounds of the lists' pages.
const (
	// recordPageSize is how many records a page shows.
	recordPageSize = 50
	// maxBackCursors bounds the cursors a page's address keeps for
	// Previous; past it the oldest are dropped, and Previous ends on the
	// first page sooner.
	maxBackCursors = 20
	// maxCursorLen bounds one cursor in an address; the API's are far
	// shorter.
	maxCursorLen = 512
	// backSeparator joins the back cursors, which are base64url and so
	// never hold it.
	backSeparator = "."
)

// recordTime is how the record pages write an instant: to the second, as
// attempts of one install come seconds apart.
const recordTime = "2006-01-02 15:04:05 UTC"

func (d *dashboard) installRoutes(root routes) {
	if d.a.opts.Lists == nil {
		return
	}
	const base = "/dashboard/o/:org"
	root.handle(http.MethodGet, base+"/installs", d.orgPage(d.installsPage))
	root.handle(http.MethodGet, base+"/installs/:id", d.orgPage(d.installPage))
	root.handle(http.MethodGet, base+"/attempts", d.orgPage(d.attemptsPage))
	root.handle(http.MethodGet, base+"/attempts/:id", d.orgPage(d.attemptPage))
}

// hasInstalls reports whether c's member is offered the installs pages.
func (d *dashboard) hasInstalls(c *dashCtx) bool {
	if d.a.opts.Lists == nil {
		return false
	}
	return c.may(auth.ScopeAnalyticsRead, auth.ActInstallsRead)
}

// readsAttempts reports whether c's member may read attempts (SPEC.md,
// installs and attempts, rule 8: not a member).
func readsAttempts(c *dashCtx) bool {
	return c.may(auth.ScopeAnalyticsRead, auth.ActAttemptsRead)
}

// recordFilter is a list page's query: the filters, the cursor and the
// cursors of the pages before.
type recordFilter struct {
	app, link, matched, from, to string
	cursor                       string
	back                         []string
}

// values returns the filters as a query, empty ones left out.
func (f *recordFilter) values() url.Values {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("app", f.app)
	set("link", f.link)
	set("matched", f.matched)
	set("from", f.from)
	set("to", f.to)
	return v
}

// filtered reports whether a filter is set.
func (f *recordFilter) filtered() bool { return len(f.values()) > 0 }

// url returns path with f's filters, cursor and back cursors.
func (f *recordFilter) url(path, cursor string, back []string) string {
	v := f.values()
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(back) > 0 {
		v.Set("back", strings.Join(back, backSeparator))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// pager sets list's Prev, Next and First for a page whose next cursor is
// next ("" for none).
func (f *recordFilter) pager(path, next string) (prev, nextURL, first string) {
	if next != "" {
		back := f.back
		if f.cursor != "" {
			back = append(append([]string(nil), f.back...), f.cursor)
		}
		if len(back) > maxBackCursors {
			back = back[len(back)-maxBackCursors:]
		}
		nextURL = f.url(path, next, back)
	}
	if f.cursor != "" {
		if n := len(f.back); n > 0 {
			prev = f.url(path, f.back[n-1], f.back[:n-1])
			first = f.url(path, "", nil)
		} else {
			prev = f.url(path, "", nil)
		}
	}
	return prev, nextURL, first
}

// The query parameters of the list pages: those every list takes, and each
// list's own.
var (
	listParams     = []string{"from", "to", "cursor", "back"}
	installsParams = append([]string{"app", "link"}, listParams...)
	attemptsParams = append([]string{"app", "matched"}, listParams...)
)

// readListFilter reads the query of a list page whose parameters are
// names. A problem with the address itself (an unknown or repeated
// parameter, a cursor too long) is returned as a message.
func readListFilter(q url.Values, names []string) (*recordFilter, string) {
	f := &recordFilter{}
	if err := strictValues(q, names...).err(); err != nil {
		_, msg, _ := dashboardError(err)
		return f, msg
	}
	f.app, f.from, f.to = q.Get("app"), q.Get("from"), q.Get("to")
	f.link, f.matched = strings.TrimSpace(q.Get("link")), q.Get("matched")
	f.cursor = q.Get("cursor")
	if b := q.Get("back"); b != "" {
		f.back = strings.Split(b, backSeparator)
	}
	if len(f.cursor) > maxCursorLen || len(f.back) > maxBackCursors {
		return f, "This page's address is not one the list gave: start again from the first page."
	}
	for _, c := range f.back {
		if c == "" || len(c) > maxCursorLen {
			return f, "This page's address is not one the list gave: start again from the first page."
		}
	}
	for _, v := range []*string{&f.app, &f.link, &f.from, &f.to, &f.matched} {
		if len(*v) > 64 {
			*v = (*v)[:64]
		}
	}
	return f, ""
}

// listQuery returns f as the lists' query, or the form's messages.
func (f *recordFilter) listQuery() (attribution.ListQuery, []string) {
	limit := strconv.Itoa(recordPageSize)
	lq := attribution.ListQuery{Limit: &limit}
	var msgs []string
	if f.app != "" {
		lq.AppID = &f.app
	}
	instant := func(label, v string) *string {
		if v == "" {
			return nil
		}
		t, ok := parseFormTime(v)
		if !ok {
			msgs = append(msgs, label+" must be a date and time, such as 2030-01-31T18:00 (UTC).")
			return nil
		}
		s := t.Format(time.RFC3339)
		return &s
	}
	lq.From, lq.To = instant("From", f.from), instant("To", f.to)
	if f.cursor != "" {
		lq.Cursor = &f.cursor
	}
	return lq, msgs
}

// recordFieldLabels name the lists' fields as the form labels them.
var recordFieldLabels = map[string]string{
	"app_id": "App", "link_id": "Link id", "matched": "Outcome", "from": "From", "to": "To",
	"limit": "The page size", "cursor": "The page's address",
}

// listRefusal returns the status and message of a list's refusal, or ok
// false for an unexpected error.
func listRefusal(err error) (int, string, bool) {
	e, coded := errcode.As(err)
	if !coded || e.Code == errcode.InternalError {
		return 0, "", false
	}
	status := httperr.StatusOf(e.Code)
	switch {
	case e.Code == errcode.CursorInvalid:
		return status, "This page's address has expired or was changed: start again from the first page.", true
	case e.Code == errcode.ValidationError && len(e.Fields) > 0:
		var parts []string
		for _, fe := range e.Fields {
			label, ok := recordFieldLabels[fe.Field]
			if !ok {
				label = fe.Field
			}
			parts = append(parts, sentence(label+" "+fe.Message))
		}
		return status, strings.Join(parts, " "), true
	}
	return status, sentence(e.Message), true
}

// recordNames names the apps and links of a page's records, reading each
// once.
type recordNames struct {
	d     *dashboard
	r     *http.Request
	c     *dashCtx
	apps  map[uuid.UUID]string
	links map[uuid.UUID]*string // nil: the link is gone
	opts  []web.Option
}

// newRecordNames reads the organization's apps (the filter's options).
func (d *dashboard) newRecordNames(r *http.Request, c *dashCtx) (*recordNames, error) {
	n := &recordNames{d: d, r: r, c: c, apps: map[uuid.UUID]string{}, links: map[uuid.UUID]*string{},
		opts: []web.Option{{Value: "", Label: "Every app"}, {Value: "none", Label: "No app"}}}
	if d.a.opts.Apps == nil {
		return n, nil
	}
	limit := 100
	apps, err := d.a.opts.Apps.List(r.Context(), c.p, linking.ListAppsInput{Limit: &limit})
	if err != nil && errcode.CodeOf(err) != errcode.Forbidden {
		return nil, err
	}
	if apps != nil {
		for _, a := range apps.Data {
			n.apps[a.ID] = a.Name
			n.opts = append(n.opts, web.Option{Value: a.ID.String(), Label: a.Name})
		}
	}
	return n, nil
}

// app names app id.
func (n *recordNames) app(id *uuid.UUID) string {
	if id == nil {
		return "No app"
	}
	if name, ok := n.apps[*id]; ok {
		return name
	}
	return id.String()
}

// link returns the title of link id and its page, or gone true when the
// link is deleted.
func (n *recordNames) link(id *uuid.UUID) (title, path string, gone bool, err error) {
	if id == nil {
		return "", "", true, nil
	}
	t, seen := n.links[*id]
	if !seen {
		l, err := n.d.a.opts.Links.Get(n.r.Context(), n.c.p, *id)
		switch {
		case errcode.CodeOf(err) == errcode.NotFound:
		case err != nil:
			return "", "", false, err
		default:
			s := linkTitle(&l.Link)
			t = &s
		}
		n.links[*id] = t
	}
	if t == nil {
		return "", "", true, nil
	}
	return *t, n.c.linkPath(*id), false, nil
}

// preload looks up the links of ids that link has not seen yet in one
// call (LinkService.Lookup), so that a page of records names its links
// with one statement rather than two for each.
func (n *recordNames) preload(ids []*uuid.UUID) error {
	var todo []uuid.UUID
	for _, id := range ids {
		if id == nil {
			continue
		}
		if _, seen := n.links[*id]; !seen && !slices.Contains(todo, *id) {
			todo = append(todo, *id)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	found, err := n.d.a.opts.Links.Lookup(n.r.Context(), n.c.p, todo)
	if err != nil {
		return err
	}
	for _, id := range todo {
		var t *string
		if l, ok := found[id]; ok {
			s := linkTitle(l)
			t = &s
		}
		n.links[id] = t
	}
	return nil
}

// installsPage answers GET /installs.
func (d *dashboard) installsPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	return d.recordList(w, req.Request, c, false)
}

// attemptsPage answers GET /attempts.
func (d *dashboard) attemptsPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	return d.recordList(w, req.Request, c, true)
}

// recordList writes the installs list, or the attempts list when attempts.
func (d *dashboard) recordList(w http.ResponseWriter, r *http.Request, c *dashCtx, attempts bool) error {
	if !c.installs {
		return d.notFound(w, r, c, "There are no installs to show you here.")
	}
	names := installsParams
	if attempts {
		names = attemptsParams
	}
	f, bad := readListFilter(r.URL.Query(), names)
	list := &web.RecordList{Attempts: attempts, InstallsPath: c.base + "/installs",
		App: f.app, Link: f.link, Matched: f.matched, From: f.from, To: f.to, Filtered: f.filtered(),
		MatchedOptions: []web.Option{{Value: "", Label: "Matched or not"}, {Value: "true", Label: "Matched"}, {Value: "false", Label: "Not matched"}}}
	if readsAttempts(c) {
		list.AttemptsPath = c.base + "/attempts"
	}
	path := list.InstallsPath
	title := "Installs"
	if attempts {
		path, title = c.base+"/attempts", "Attribution attempts"
	}
	view := web.DashboardView{Frame: web.Frame{Title: title}, Nav: c.nav("Installs"), Records: list}
	known, err := d.newRecordNames(r, c)
	if err != nil {
		return err
	}
	list.Apps = known.opts
	refuse := func(status int, msg string) error {
		view.Error = msg
		if f.cursor != "" {
			list.First = f.url(path, "", nil)
		}
		return d.render(w, r, c, status, web.PageDashboardInstalls, view)
	}
	if bad != "" {
		return refuse(http.StatusBadRequest, bad)
	}
	if attempts && list.AttemptsPath == "" {
		return refuse(http.StatusForbidden, "Your role does not read attribution attempts; owners and admins do.")
	}
	lq, msgs := f.listQuery()
	if len(msgs) > 0 {
		return refuse(http.StatusBadRequest, strings.Join(msgs, " "))
	}
	var next *string
	var window attribution.Window
	if attempts {
		q := attribution.AttemptsQuery{ListQuery: lq}
		if f.matched != "" {
			q.Matched = &f.matched
		}
		page, err := d.a.opts.Lists.Attempts(r.Context(), c.p, q)
		if err != nil {
			if status, msg, ok := listRefusal(err); ok {
				return refuse(status, msg)
			}
			return err
		}
		for i := range page.Data {
			list.Tries = append(list.Tries, attemptRow(c, known, &page.Data[i]))
		}
		next, window = page.Pagination.NextCursor, page.Window
	} else {
		q := attribution.InstallsQuery{ListQuery: lq}
		if f.link != "" {
			q.LinkID = &f.link
		}
		page, err := d.a.opts.Lists.Installs(r.Context(), c.p, q)
		if err != nil {
			if status, msg, ok := listRefusal(err); ok {
				return refuse(status, msg)
			}
			return err
		}
		ids := make([]*uuid.UUID, len(page.Data))
		for i := range page.Data {
			ids[i] = page.Data[i].LinkID
		}
		if err := known.preload(ids); err != nil {
			return err
		}
		for i := range page.Data {
			row, err := installRow(c, known, &page.Data[i])
			if err != nil {
				return err
			}
			list.Installs = append(list.Installs, row)
		}
		next, window = page.Pagination.NextCursor, page.Window
		reach, _ := c.p.Authorize(auth.ScopeAnalyticsRead, auth.ActInstallsRead)
		list.Own = reach == auth.Own
	}
	list.Window = "From " + window.From.UTC().Format(dashDate) + " to " + window.To.UTC().Format(dashDate) + "."
	nextCursor := ""
	if next != nil {
		nextCursor = *next
	}
	list.Prev, list.Next, list.First = f.pager(path, nextCursor)
	return d.render(w, r, c, http.StatusOK, web.PageDashboardInstalls, view)
}

// installRow is install in as the list shows it.
func installRow(c *dashCtx, names *recordNames, in *attribution.Install) (web.InstallRow, error) {
	title, path, gone, err := names.link(in.LinkID)
	if err != nil {
		return web.InstallRow{}, err
	}
	if gone {
		title = "Deleted link"
	}
	return web.InstallRow{Path: c.base + "/installs/" + in.ID.String(), Installed: in.InstalledAt.UTC().Format(recordTime),
		Link: title, LinkPath: path, App: names.app(in.AppID), Match: installMatch(in), Reinstall: reinstall(in.IsReinstall)}, nil
}

// attemptRow is attempt a as a list shows it.
func attemptRow(c *dashCtx, names *recordNames, a *attribution.Attempt) web.AttemptRow {
	row := web.AttemptRow{Path: c.base + "/attempts/" + a.ID.String(), Created: a.CreatedAt.UTC().Format(recordTime),
		Platform: platformName(a.Platform), App: names.app(a.AppID), Matched: a.Matched, Outcome: "Not matched",
		Summary: attemptSummary(a)}
	if a.AppID == nil {
		row.App = "Not told"
	}
	if a.Matched {
		row.Outcome = "Matched"
	}
	return row
}

func installMatch(in *attribution.Install) string {
	if in.MatchGuaranteed {
		return "Deterministic"
	}
	return "Probabilistic"
}

func reinstall(b *bool) string {
	switch {
	case b == nil:
		return "Not known"
	case *b:
		return "Yes"
	}
	return "No"
}

func platformName(p attribution.Platform) string {
	switch p {
	case attribution.PlatformIOS:
		return "iOS"
	case attribution.PlatformAndroid:
		return "Android"
	}
	return string(p)
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// recordNotFound writes the 404 page of a record.
func (d *dashboard) recordNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx, kind string) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such "+kind+" in this organization.",
		c.base+"/installs", "Back to the installs")
}

// recordRefused writes the page of a record the service refused.
func (d *dashboard) recordRefused(w http.ResponseWriter, r *http.Request, c *dashCtx, err error) error {
	status, msg, ok := listRefusal(err)
	if !ok {
		return err
	}
	title := "Not allowed"
	if status != http.StatusForbidden {
		title = "That did not work"
	}
	return d.message(w, r, c, status, title, msg, c.base+"/installs", "Back to the installs")
}

// installPage answers GET /installs/{id}.
func (d *dashboard) installPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !c.installs {
		return d.notFound(w, r, c, "There are no installs to show you here.")
	}
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return d.recordNotFound(w, r, c, "install")
	}
	in, err := d.a.opts.Lists.Install(r.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return d.recordNotFound(w, r, c, "install")
	}
	if err != nil {
		return d.recordRefused(w, r, c, err)
	}
	names, err := d.newRecordNames(r, c)
	if err != nil {
		return err
	}
	v := &web.RecordDetail{Kind: "install", ListPath: c.base + "/installs"}
	facts := &attemptFacts{}
	if v.LinkTitle, v.LinkPath, v.LinkGone, err = names.link(in.LinkID); err != nil {
		return err
	}
	facts.link, facts.linkGone = v.LinkTitle, v.LinkGone
	v.Facts = [][2]string{{"Installed", in.InstalledAt.UTC().Format(recordTime)}, {"Match", installMatch(&in.Install)},
		{"Reinstall", reinstall(in.IsReinstall)}, {"App", names.app(in.AppID)}}
	if in.ClickedAt != nil {
		delay := in.InstalledAt.Sub(*in.ClickedAt)
		facts.delay = &delay
		v.Facts = append(v.Facts, [2]string{"Clicked", in.ClickedAt.UTC().Format(recordTime) + " (" + duration(delay) + " before)"})
	}
	if in.ClickID != nil {
		v.Facts = append(v.Facts, [2]string{"Click id", in.ClickID.String()})
	}
	v.Facts = append(v.Facts, [2]string{"Install id", in.ID.String()},
		[2]string{"Device id stored", yesNo(in.HasDeviceID)}, [2]string{"Fingerprint stored", yesNo(in.HasDeviceFingerprint)},
		[2]string{"Routing answer stored", yesNo(in.HasMatchedPayload)})

	var claim *attribution.Attempt
	for i := range in.Attempts {
		a := &in.Attempts[i]
		v.Attempts = append(v.Attempts, attemptRow(c, names, a))
		if a.MatchSource != nil && *a.MatchSource == attribution.SourceClaim {
			claim = a
		}
	}
	if claim != nil {
		facts.a = claim
		v.Explanation = explainAttempt(facts)
		v.Signals = signalWords(claim.Signals)
	} else {
		mt := attribution.MatchProbabilistic
		if in.MatchGuaranteed {
			mt = attribution.MatchDeterministic
		}
		facts.a = &attribution.Attempt{Matched: true, MatchType: &mt}
		v.Explanation = []string{"Matched " + matchTypeName(mt) + "ally to " + facts.clickPhrase() + "."}
		if in.Attempts == nil {
			v.Explanation = append(v.Explanation, "Owners and admins see the attempt that explains how.")
		} else {
			v.Explanation = append(v.Explanation, "The attempt that created it is no longer stored.")
		}
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardRecord, web.DashboardView{
		Frame: web.Frame{Title: "Install of " + in.InstalledAt.UTC().Format(recordTime)}, Nav: c.nav("Installs"), Record: v})
}

// attemptPage answers GET /attempts/{id}.
func (d *dashboard) attemptPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !c.installs {
		return d.notFound(w, r, c, "There are no attempts to show you here.")
	}
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return d.recordNotFound(w, r, c, "attempt")
	}
	a, err := d.a.opts.Lists.Attempt(r.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return d.recordNotFound(w, r, c, "attempt")
	}
	if err != nil {
		return d.recordRefused(w, r, c, err)
	}
	names, err := d.newRecordNames(r, c)
	if err != nil {
		return err
	}
	v := &web.RecordDetail{Kind: "attempt", ListPath: c.base + "/attempts"}
	facts := &attemptFacts{a: &a.Attempt}
	outcome := "Not matched"
	if a.Matched {
		outcome = "Matched"
	}
	v.Facts = [][2]string{{"Time", a.CreatedAt.UTC().Format(recordTime)}, {"Outcome", outcome},
		{"Platform", platformName(a.Platform)}, {"App", names.app(a.AppID)}, {"Network address", ipClassFact(a.IPClass)}}
	if a.AppID == nil {
		v.Facts[3][1] = "Not told"
	}
	if a.MatchType != nil {
		v.Facts = append(v.Facts, [2]string{"Match", sentence(matchTypeName(*a.MatchType))})
	}
	if a.MatchSource != nil {
		src, ok := matchSources[*a.MatchSource]
		if !ok {
			src = string(*a.MatchSource)
		}
		v.Facts = append(v.Facts, [2]string{"Answer", sentence(src)})
	}
	if a.FailReason != nil {
		v.Facts = append(v.Facts, [2]string{"Reason code", string(*a.FailReason)})
	}
	if cc := a.Candidates; cc != (attribution.CandidateCounts{}) {
		v.Facts = append(v.Facts, [2]string{"Candidate clicks", strconv.Itoa(cc.Found) + " found, " + strconv.Itoa(cc.Eligible) +
			" could have led to it, " + strconv.Itoa(cc.Unclaimed) + " unclaimed, " + count(cc.Scored, "device", "devices") + " scored"})
	}
	if a.TopConfidence != nil {
		s := percent(*a.TopConfidence) + " for the best candidate"
		if a.RunnerUpConfidence != nil {
			s += ", " + percent(*a.RunnerUpConfidence) + " for the runner-up"
		}
		v.Facts = append(v.Facts, [2]string{"Confidence", s})
	}
	if in := a.Install; in != nil {
		v.InstallPath = c.base + "/installs/" + in.ID.String()
		if v.LinkTitle, v.LinkPath, v.LinkGone, err = names.link(in.LinkID); err != nil {
			return err
		}
		facts.link, facts.linkGone = v.LinkTitle, v.LinkGone
		if a.ClickedAt != nil {
			delay := in.InstalledAt.Sub(*a.ClickedAt)
			facts.delay = &delay
		}
	}
	v.Explanation = explainAttempt(facts)
	v.Signals = signalWords(a.Signals)
	return d.render(w, r, c, http.StatusOK, web.PageDashboardRecord, web.DashboardView{
		Frame: web.Frame{Title: "Attempt of " + a.CreatedAt.UTC().Format(recordTime)}, Nav: c.nav("Installs"), Record: v})
}
