package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's click exports, under /dashboard/o/{org_id}/analytics:
//
//   - POST /exports              starts an export of the analytics page's
//     window (days) and link filter (link), and redirects to its page
//   - GET  /exports              the recent exports, newest first (page)
//   - GET  /exports/{id}         an export's state; it reloads itself while
//     the export waits or runs (refresh=off stops that)
//   - GET  /exports/{id}/download the CSV, once complete
//
// They call analytics.Exports as /v1/analytics/exports does, with the
// member's principal: the same scope and role checks (a member exports and
// sees their own links' clicks and their own exports), the plan's look-back,
// and the same CSV, streamed (writeExportCSV). Like the API, starting an
// export records no audit event.
func (d *dashboard) exportRoutes(root routes) {
	if d.a.opts.Exports == nil {
		return
	}
	const base = "/dashboard/o/:org/analytics/exports"
	root.handle(http.MethodPost, base, d.orgPage(d.startDashExport))
	root.handle(http.MethodGet, base, d.orgPage(d.exportList))
	root.handle(http.MethodGet, base+"/:id", d.orgPage(d.exportPage))
	root.handle(http.MethodGet, base+"/:id/download", d.orgPage(d.downloadDashExport))
}

// exportRefreshSeconds is how often an export's page reloads itself while
// the export waits or runs: the worker looks for a job every second and a
// job waits five seconds after its window's end.
const exportRefreshSeconds = 5

// exportListPageSize is the exports list's page size.
const exportListPageSize = 20

// exportsPath is the exports list; exportPath the page of export id.
func (c *dashCtx) exportsPath() string { return c.base + "/analytics/exports" }

func (c *dashCtx) exportPath(id uuid.UUID) string { return c.exportsPath() + "/" + id.String() }

// analyticsWindowPath is the analytics page of link id (every link when
// nil) over the window of days.
func (c *dashCtx) analyticsWindowPath(id *uuid.UUID, days string) string {
	q := url.Values{"days": {days}}
	if id != nil {
		q.Set("link", id.String())
	}
	return c.base + "/analytics?" + q.Encode()
}

// startDashExport answers POST /exports: days (a window the analytics page
// offers) and link (a link of the organization, or empty for every link).
// The window starts where the page's does (analyticsWindow) and ends now:
// the page's runs to the end of the hour, which a job would wait for.
func (d *dashboard) startDashExport(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	days := r.PostForm.Get("days")
	if !hasOption(analyticsDays, days) {
		return d.message(w, r, c, http.StatusBadRequest, "The export was not started", "Choose one of the windows offered.",
			c.analyticsPath(nil), "Back to the analytics")
	}
	var in analytics.StartExportInput
	var linkID *uuid.UUID
	if s := r.PostForm.Get("link"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return d.notFound(w, r, c, "There is no such link in this organization.")
		}
		if _, err := d.a.opts.Links.Get(r.Context(), c.p, id); err != nil {
			if errcode.CodeOf(err) == errcode.NotFound {
				return d.notFound(w, r, c, "There is no such link in this organization.")
			}
			return d.serviceError(w, r, c, err)
		}
		linkID, in.LinkID = &id, &id
	}
	n, _ := strconv.Atoi(days)
	to := d.p.clock()
	from, _ := analyticsWindow(to, n)
	in.From, in.To = &from, &to
	e, err := d.a.opts.Exports.Start(r.Context(), c.p, in)
	if err != nil {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		return d.message(w, r, c, status, "The export was not started", msg,
			c.analyticsWindowPath(linkID, days), "Back to the analytics")
	}
	seeOther(w, c.exportPath(e.ID))
	return nil
}

// exportList answers GET /exports: twenty a page (page, 1 to
// maxLinkListPage).
func (d *dashboard) exportList(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	q := r.URL.Query()
	if err := strictValues(q, "page").err(); err != nil {
		_, msg, _ := dashboardError(err)
		return d.message(w, r, c, http.StatusBadRequest, "Recent exports", msg, c.exportsPath(), "The recent exports")
	}
	page := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLinkListPage {
			return d.message(w, r, c, http.StatusBadRequest, "Recent exports",
				"The page must be a number from 1 to "+strconv.Itoa(maxLinkListPage)+".", c.exportsPath(), "The recent exports")
		}
		page = n
	}
	limit, offset := exportListPageSize, (page-1)*exportListPageSize
	res, err := d.a.opts.Exports.List(r.Context(), c.p, &limit, &offset)
	if err != nil {
		return d.serviceError(w, r, c, err)
	}
	list := &web.ExportList{Total: res.Pagination.Total, AnalyticsPath: c.analyticsPath(nil),
		Own: auth.ReachOf(c.m.Role, auth.ActAnalyticsRead) == auth.Own}
	names := linkNames{}
	for _, e := range res.Data {
		scope, _, err := d.exportScope(r, c, e, names)
		if err != nil {
			return err
		}
		list.Rows = append(list.Rows, web.ExportRow{Path: c.exportPath(e.ID), Created: e.CreatedAt.UTC().Format(dashDate),
			Window: e.Window.From.UTC().Format(dashDay) + " to " + e.Window.To.UTC().Format(dashDay),
			Scope:  scope, State: exportState(e), Rows: formatRows(e.Rows)})
	}
	if len(list.Rows) > 0 {
		list.From, list.To = offset+1, offset+len(list.Rows)
	}
	pageURL := func(n int) string { return c.exportsPath() + "?page=" + strconv.Itoa(n) }
	if page > 1 {
		list.Prev, list.First = pageURL(page-1), pageURL(1)
	}
	if res.Pagination.HasMore && page < maxLinkListPage {
		list.Next = pageURL(page + 1)
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardExports, web.DashboardView{
		Frame: web.Frame{Title: "Recent exports"}, Nav: c.nav("Analytics"), Exports: list})
}

// dashDay is how the dashboard writes an instant to the minute without its
// zone, in a column that names it.
const dashDay = "2006-01-02 15:04"

// exportPage answers GET /exports/{id}. While the export waits or runs, the
// answer carries Refresh: the browser reloads it, with or without
// JavaScript, until it ends; refresh=off leaves that out, for a reader who
// wants the page to stay still (docs/decisions.md).
func (d *dashboard) exportPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	q := r.URL.Query()
	if err := strictValues(q, "refresh").err(); err != nil || (q.Has("refresh") && q.Get("refresh") != "off") {
		return d.message(w, r, c, http.StatusBadRequest, "Click export", "The only choice this page takes is refresh=off.",
			c.exportsPath(), "The recent exports")
	}
	e, err := d.export(w, req, c)
	if e == nil || err != nil {
		return err
	}
	scope, scopePath, err := d.exportScope(r, c, e, linkNames{})
	if err != nil {
		return err
	}
	path := c.exportPath(e.ID)
	v := &web.ExportView{Path: path, State: exportState(e), Rows: formatRows(e.Rows),
		Created: e.CreatedAt.UTC().Format(dashDate), From: e.Window.From.UTC().Format(dashDate), To: e.Window.To.UTC().Format(dashDate),
		Scope: scope, ScopePath: scopePath, RefreshSeconds: exportRefreshSeconds,
		ListPath: c.exportsPath(), AnalyticsPath: c.analyticsPath(nil)}
	if e.Failure != nil {
		v.Failure = sentence(*e.Failure)
	}
	if e.ExpiresAt != nil {
		v.Expires = e.ExpiresAt.UTC().Format(dashDate)
	}
	if v.State == web.ExportComplete {
		v.DownloadPath = path + "/download"
	}
	if v.Waiting() {
		v.Refreshing = q.Get("refresh") != "off"
		v.ToggleRefresh = path + "?refresh=off"
		if !v.Refreshing {
			v.ToggleRefresh = path
		}
	}
	if v.Refreshing {
		w.Header().Set("Refresh", strconv.Itoa(exportRefreshSeconds))
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardExport, web.DashboardView{
		Frame: web.Frame{Title: "Click export"}, Nav: c.nav("Analytics"), Export: v})
}

// downloadDashExport answers GET /exports/{id}/download with the CSV, as
// GET /v1/analytics/exports/{id}/download does; an export not complete, or
// expired, is a page that says so.
func (d *dashboard) downloadDashExport(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return d.exportNotFound(w, r, c)
	}
	dl, err := d.a.opts.Exports.Download(r.Context(), c.p, id)
	if err == nil {
		d.a.writeExportCSV(w, r, id, dl)
		return nil
	}
	switch errcode.CodeOf(err) {
	case errcode.NotFound:
		return d.exportNotFound(w, r, c)
	case errcode.ExportNotComplete, errcode.Gone:
		status, msg, _ := dashboardError(err)
		return d.message(w, r, c, status, "No file to download", msg, c.exportPath(id), "Back to the export")
	}
	return d.serviceError(w, r, c, err)
}

// export reads export id of the path for c's member, writing the 404 page
// when it is not an export the member may see (and returning nil).
func (d *dashboard) export(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*analytics.Export, error) {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return nil, d.exportNotFound(w, req.Request, c)
	}
	e, err := d.a.opts.Exports.Get(req.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.exportNotFound(w, req.Request, c)
	}
	if err != nil {
		return nil, d.serviceError(w, req.Request, c, err)
	}
	return e, nil
}

func (d *dashboard) exportNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such export in this organization.",
		c.exportsPath(), "The recent exports")
}

// exportState is e's state as the dashboard shows it: the API's, or
// expired for a complete export whose download is no longer served.
func exportState(e *analytics.Export) string {
	if e.Status == analytics.ExportComplete && e.DownloadURL == nil {
		return web.ExportExpired
	}
	return string(e.Status)
}

// linkNames are the titles of the links a page has looked up, by id; ""
// for a link that is gone.
type linkNames map[uuid.UUID]string

// exportScope says in words which clicks e keeps: a link's (by its title,
// with the path of its page) or every link's, and the other filters an
// export started through the API may carry.
func (d *dashboard) exportScope(r *http.Request, c *dashCtx, e *analytics.Export, names linkNames) (scope, path string, err error) {
	f := e.Filters
	scope = "Every link"
	if id := f.LinkID; id != nil {
		name, seen := names[*id]
		if !seen {
			l, err := d.a.opts.Links.Get(r.Context(), c.p, *id)
			switch {
			case err == nil:
				name = linkTitle(&l.Link)
			case errcode.CodeOf(err) != errcode.NotFound:
				return "", "", err
			}
			names[*id] = name
		}
		scope = "A deleted link"
		if name != "" {
			scope, path = "The link "+name, c.linkPath(*id)
		}
	}
	var more []string
	for _, v := range []struct {
		label string
		value *string
	}{
		{"domain", f.Domain}, {"tag", f.Tag}, {"source", f.Source}, {"platform", f.Platform}, {"country", f.Country},
		{"UTM source", f.UTMSource}, {"UTM medium", f.UTMMedium}, {"UTM campaign", f.UTMCampaign},
	} {
		if v.value != nil {
			more = append(more, v.label+" "+*v.value)
		}
	}
	if f.AppID != nil {
		more = append(more, "app "+f.AppID.String())
	}
	if len(more) > 0 {
		scope += ", " + strings.Join(more, ", ")
	}
	return scope, path, nil
}

// formatRows writes a row count with thousands separators.
func formatRows(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
