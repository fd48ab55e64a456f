package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's link pages, under /dashboard/o/{org_id}/links:
//
//   - GET  /links               the list: q, tag, state, sort and page
//   - GET  /links/new           the create form; POST /links creates
//   - GET  /links/{id}          the link: short URL, state, settings, actions
//   - GET  /links/{id}/edit     the edit form; POST /links/{id} saves it
//   - POST /links/{id}/pause    and /resume
//   - GET  /links/{id}/delete   the confirmation; POST with confirm=yes deletes
//   - POST /links/{id}/move     the move choice of a link waiting to move
//
// A successful POST redirects (303) to the page that shows its result.
func (d *dashboard) linkRoutes(root routes) {
	const base = "/dashboard/o/:org/links"
	root.handle(http.MethodGet, base, d.orgPage(d.linkList))
	root.handle(http.MethodPost, base, d.orgPage(d.createLink))
	root.handle(http.MethodGet, base+"/new", d.orgPage(d.newLink))
	root.handle(http.MethodGet, base+"/:id", d.orgPage(d.linkPage))
	root.handle(http.MethodPost, base+"/:id", d.orgPage(d.updateLink))
	root.handle(http.MethodGet, base+"/:id/edit", d.orgPage(d.editLink))
	root.handle(http.MethodPost, base+"/:id/pause", d.orgPage(d.pauseLink))
	root.handle(http.MethodPost, base+"/:id/resume", d.orgPage(d.resumeLink))
	root.handle(http.MethodGet, base+"/:id/delete", d.orgPage(d.confirmDelete))
	root.handle(http.MethodPost, base+"/:id/delete", d.orgPage(d.deleteLink))
	root.handle(http.MethodPost, base+"/:id/move", d.orgPage(d.moveLink))
	root.handle(http.MethodGet, base+"/:id/qr", d.orgPage(d.linkQR))
}

// linkQR answers GET /links/{id}/qr: the QR code of the link's short URL
// as GET /v1/links/{id}/qr draws it (the same format and size parameters),
// offered as a download named after the slug.
func (d *dashboard) linkQR(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	o, err := parseQRQuery(req.URL.Query())
	if err != nil {
		return d.serviceError(w, req.Request, c, err)
	}
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="`+l.Slug+`-qr.`+o.format+`"`)
	return writeQR(w, req.Request, o, l.ShortURL)
}

// linkListPageSize is the list's page size; maxLinkListPage bounds the page
// number a URL may ask for.
const (
	linkListPageSize = 20
	maxLinkListPage  = 100000
)

var (
	linkStates = []web.Option{{Value: "all", Label: "All"}, {Value: "active", Label: "Active"}, {Value: "paused", Label: "Paused"}}
	linkSorts  = []web.Option{
		{Value: string(linking.LinkSortNewest), Label: "Newest first"},
		{Value: string(linking.LinkSortOldest), Label: "Oldest first"},
		{Value: string(linking.LinkSortUpdated), Label: "Changed last first"},
		{Value: string(linking.LinkSortSlug), Label: "Slug, A to Z"},
	}
)

// linkList answers GET /links. A bad filter is a 400 page that keeps the
// form as typed.
func (d *dashboard) linkList(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	q := r.URL.Query()
	list := &web.LinkList{Search: q.Get("q"), Tag: q.Get("tag"), State: q.Get("state"), Sort: q.Get("sort"),
		States: linkStates, Sorts: linkSorts, Path: c.base + "/links"}
	if list.State == "" {
		list.State = "all"
	}
	if list.Sort == "" {
		list.Sort = string(linking.LinkSortNewest)
	}
	list.Filtered = list.Search != "" || list.Tag != "" || list.State != "all"
	if c.may(auth.ScopeLinksWrite, auth.ActLinksCreate) {
		list.NewPath = c.base + "/links/new"
	}
	v := web.DashboardView{Frame: web.Frame{Title: "Links", Notice: linkNotice(q.Get("done"))}, Nav: c.nav("Links"), Links: list}

	in := linking.ListLinksInput{Sort: linking.LinkSort(list.Sort)}
	var problems []string
	if list.Search != "" {
		in.Search = &list.Search
	}
	if list.Tag != "" {
		in.Tag = &list.Tag
	}
	switch list.State {
	case "active", "paused":
		active := list.State == "active"
		in.IsActive = &active
	case "all":
	default:
		problems = append(problems, "State must be all, active or paused.")
	}
	page := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLinkListPage {
			problems = append(problems, "The page must be a number from 1 to "+strconv.Itoa(maxLinkListPage)+".")
		} else {
			page = n
		}
	}
	limit, offset := linkListPageSize, (page-1)*linkListPageSize
	in.Limit, in.Offset = &limit, &offset
	if len(problems) > 0 {
		v.Error = strings.Join(problems, " ")
		return d.render(w, r, c, http.StatusBadRequest, web.PageDashboardLinks, v)
	}
	res, err := d.a.opts.Links.List(r.Context(), c.p, in)
	if err != nil {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		v.Error = msg
		return d.render(w, r, c, status, web.PageDashboardLinks, v)
	}
	now := d.p.clock()
	for _, l := range res.Data {
		list.Rows = append(list.Rows, web.LinkRow{Path: c.base + "/links/" + l.ID.String(), Title: linkTitle(&l),
			ShortURL: l.ShortURL, Destination: l.DestinationURL, State: linkState(&l, now), Tags: l.Tags})
	}
	list.Total = res.Pagination.Total
	if len(list.Rows) > 0 {
		list.From, list.To = offset+1, offset+len(list.Rows)
	}
	pageURL := func(n int) string {
		u := url.Values{}
		for _, kv := range [][2]string{{"q", list.Search}, {"tag", list.Tag}, {"state", list.State}, {"sort", list.Sort}} {
			if kv[1] != "" {
				u.Set(kv[0], kv[1])
			}
		}
		u.Set("page", strconv.Itoa(n))
		return list.Path + "?" + u.Encode()
	}
	if page > 1 {
		list.Prev = pageURL(page - 1)
	}
	if res.Pagination.HasMore && page < maxLinkListPage {
		list.Next = pageURL(page + 1)
	}
	if list.Total == 0 && !list.Filtered && d.a.opts.Apps != nil {
		apps, err := d.a.opts.Apps.List(r.Context(), c.p, linking.ListAppsInput{})
		if err == nil && apps.Pagination.Total == 0 {
			list.NoApp = true
			if c.apps && canWriteApps(c) {
				list.NewAppPath = c.base + "/apps/new"
			}
		}
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardLinks, v)
}

// linkNotice is the confirmation of an action that redirected to a page
// (its done parameter); "" for any other value.
func linkNotice(done string) string {
	switch done {
	case "created":
		return "The link was created."
	case "saved":
		return "The changes were saved."
	case "paused":
		return "The link was paused: its short URL answers 404 until you resume it."
	case "resumed":
		return "The link was resumed."
	case "deleted":
		return "The link was deleted."
	case "moved":
		return "The move choice was saved."
	}
	return ""
}

// linkTitle is a link's name, or its slug when it has none.
func linkTitle(l *linking.Link) string {
	if l.Name != nil {
		return *l.Name
	}
	return l.Slug
}

// linkState names a link's state at now.
func linkState(l *linking.Link, now time.Time) string {
	switch {
	case !l.IsActive:
		return "Paused"
	case l.ExpiresAt != nil && !now.Before(*l.ExpiresAt):
		return "Expired"
	}
	return "Active"
}

// dashboardError returns the status and message a dashboard page shows for
// a service error, or ok false for an unexpected one.
func dashboardError(err error) (status int, msg string, ok bool) {
	e, coded := errcode.As(err)
	if !coded || e.Code == errcode.InternalError {
		return 0, "", false
	}
	msg = sentence(e.Message)
	if e.Code == errcode.ValidationError && len(e.Fields) > 0 {
		var parts []string
		for _, f := range e.Fields {
			parts = append(parts, sentence(f.Field+" "+f.Message))
		}
		msg = strings.Join(parts, " ")
	}
	return httperr.StatusOf(e.Code), msg, true
}

// sentence returns s with a capital first letter and a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// link reads link id of the path for c's member, writing the 404 page when
// the id is not a link of the organization (and returning nil).
func (d *dashboard) link(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*linking.LinkWithRedirects, error) {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return nil, d.notFound(w, req.Request, c, "There is no such link in this organization.")
	}
	l, err := d.a.opts.Links.Get(req.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.notFound(w, req.Request, c, "There is no such link in this organization.")
	}
	if err != nil {
		return nil, d.serviceError(w, req.Request, c, err)
	}
	return l, nil
}

// serviceError writes the message page of a service error, or returns an
// unexpected one.
func (d *dashboard) serviceError(w http.ResponseWriter, r *http.Request, c *dashCtx, err error) error {
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	title := "That did not work"
	if status == http.StatusForbidden {
		title = "Not allowed"
	}
	if status == http.StatusNotFound {
		title = "Not found"
	}
	return d.message(w, r, c, status, title, msg, c.base+"/links", "Back to the links")
}

// canWrite reports whether c's member may change l: the role's links.write
// reaches every link, or their own and l is theirs.
func canWrite(c *dashCtx, l *linking.Link) bool {
	reach, err := c.p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite)
	return err == nil && (reach == auth.All || reach == auth.Own && c.p.Owns(l.CreatedBy))
}

// linkPath is the page of link id.
func (c *dashCtx) linkPath(id uuid.UUID) string { return c.base + "/links/" + id.String() }

// linkPage answers GET /links/{id}.
func (d *dashboard) linkPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	v, err := d.linkView(req.Request, c, l)
	if err != nil {
		return err
	}
	v.Notice = linkNotice(req.URL.Query().Get("done"))
	return d.render(w, req.Request, c, http.StatusOK, web.PageDashboardLink, v)
}

// linkView is the view of link l's page.
func (d *dashboard) linkView(r *http.Request, c *dashCtx, l *linking.LinkWithRedirects) (web.DashboardView, error) {
	path := c.linkPath(l.ID)
	detail := &web.LinkDetail{Title: linkTitle(&l.Link), ShortURL: l.ShortURL, State: linkState(&l.Link, d.p.clock()),
		Tags: l.Tags, CanWrite: canWrite(c, &l.Link), Active: l.IsActive,
		EditPath: path + "/edit", PausePath: path + "/pause", ResumePath: path + "/resume", DeletePath: path + "/delete",
		ListPath: c.base + "/links"}
	add := func(label string, value *string) {
		if value != nil && *value != "" {
			detail.Fields = append(detail.Fields, [2]string{label, *value})
		}
	}
	add("Destination", &l.DestinationURL)
	add("Domain", &l.Domain)
	add("Slug", &l.Slug)
	if l.AppID != nil && d.a.opts.Apps != nil {
		app, err := d.a.opts.Apps.Get(r.Context(), c.p, *l.AppID)
		if err != nil && errcode.CodeOf(err) != errcode.NotFound {
			return web.DashboardView{}, err
		}
		if app != nil {
			add("App", &app.Name)
			if prev := app.PreviousLinkDomain; prev != nil && *prev == l.Domain && app.LinkDomain != l.Domain &&
				(app.RenameEndsAt == nil || d.p.clock().Before(*app.RenameEndsAt)) {
				detail.Move = &web.MoveForm{Action: path + "/move", From: *prev, To: app.LinkDomain}
			}
		}
	}
	add("iOS URL", l.IOSURL)
	add("iOS fallback URL", l.IOSFallbackURL)
	add("Android URL", l.AndroidURL)
	add("Android fallback URL", l.AndroidFallbackURL)
	add("Preview title", l.OGTitle)
	add("Preview description", l.OGDescription)
	add("Preview image URL", l.OGImageURL)
	add("UTM source", l.UTMSource)
	add("UTM medium", l.UTMMedium)
	add("UTM campaign", l.UTMCampaign)
	if l.MatchWindowHours != nil {
		add("Attribution match window", ptrTo(strconv.Itoa(*l.MatchWindowHours)+" hours"))
	}
	if l.ExpiresAt != nil {
		add("Expires", ptrTo(l.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")))
	}
	if l.PasswordHash != nil {
		add("Password", ptrTo("set: visitors enter it before they are sent on"))
	}
	if l.Parameters != nil {
		b, err := json.Marshal(l.Parameters)
		if err != nil {
			return web.DashboardView{}, err
		}
		add("Parameters", ptrTo(string(b)))
	}
	add("Created", ptrTo(l.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")))
	for _, rd := range l.RedirectedFrom {
		detail.RedirectedFrom = append(detail.RedirectedFrom, rd.URL)
	}
	qr, err := newQRCode(l.ShortURL)
	if err != nil {
		return web.DashboardView{}, err
	}
	png, err := qr.png(QRDefaultSize)
	if err != nil {
		return web.DashboardView{}, err
	}
	detail.QR = qrDataURL(png)
	if c.analytics {
		detail.AnalyticsPath = c.analyticsPath(&l.ID)
	}
	detail.QRPNGPath, detail.QRSVGPath = path+"/qr?size=1024", path+"/qr?format=svg&size=1024"
	return web.DashboardView{Frame: web.Frame{Title: detail.Title}, Nav: c.nav("Links"), Link: detail}, nil
}

func ptrTo[T any](v T) *T { return &v }

// pauseLink answers POST /links/{id}/pause.
func (d *dashboard) pauseLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	return d.setActive(w, req, c, false)
}

// resumeLink answers POST /links/{id}/resume.
func (d *dashboard) resumeLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	return d.setActive(w, req, c, true)
}

func (d *dashboard) setActive(w http.ResponseWriter, req bunrouter.Request, c *dashCtx, active bool) error {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return d.notFound(w, req.Request, c, "There is no such link in this organization.")
	}
	done := "resumed"
	if active {
		_, err = d.a.opts.Links.Activate(req.Context(), c.p, id)
	} else {
		_, err = d.a.opts.Links.Deactivate(req.Context(), c.p, id)
		done = "paused"
	}
	if err != nil {
		return d.serviceError(w, req.Request, c, err)
	}
	seeOther(w, c.linkPath(id)+"?done="+done)
	return nil
}

// confirmDelete answers GET /links/{id}/delete: the confirmation.
func (d *dashboard) confirmDelete(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	return d.showConfirmDelete(w, req.Request, c, &l.Link, http.StatusOK, "")
}

func (d *dashboard) showConfirmDelete(w http.ResponseWriter, r *http.Request, c *dashCtx, l *linking.Link, status int, msg string) error {
	if !canWrite(c, l) {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed",
			"Only the link's creator, an admin or an owner may delete it.", c.linkPath(l.ID), "Back to the link")
	}
	path := c.linkPath(l.ID)
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: "Delete " + linkTitle(l) + "?", Error: msg}, Nav: c.nav("Links"),
		Confirm: &web.Confirm{Action: path + "/delete", Cancel: path,
			Question: "Deleting the link " + l.ShortURL + " removes it and its click history for good, and frees its slug for another link.",
			Check:    "I understand that the link and its clicks cannot be brought back", Button: "Delete the link"}})
}

// deleteLink answers POST /links/{id}/delete, which needs confirm=yes.
func (d *dashboard) deleteLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmDelete(w, req.Request, c, &l.Link, http.StatusBadRequest,
			"Tick the box to confirm that the link is to be deleted.")
	}
	if _, err := d.a.opts.Links.Delete(req.Context(), c.p, l.ID); err != nil {
		return d.serviceError(w, req.Request, c, err)
	}
	seeOther(w, c.base+"/links?done=deleted")
	return nil
}

// moveLink answers POST /links/{id}/move: choice keep, or new_slug with
// new_slug.
func (d *dashboard) moveLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	in := linking.MoveChoiceInput{}
	if choice := req.PostForm.Get("choice"); choice != "" {
		in.Choice = &choice
		if choice == linking.MoveChoiceNewSlug {
			slug := strings.TrimSpace(req.PostForm.Get("new_slug"))
			in.NewSlug = &slug
		}
	}
	_, err = d.a.opts.Links.SetMoveChoice(req.Context(), c.p, l.ID, in)
	if err == nil {
		seeOther(w, c.linkPath(l.ID)+"?done=moved")
		return nil
	}
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	if status == http.StatusForbidden || status == http.StatusNotFound {
		return d.serviceError(w, req.Request, c, err)
	}
	v, verr := d.linkView(req.Request, c, l)
	if verr != nil {
		return verr
	}
	if v.Link.Move == nil {
		v.Error = msg
	} else {
		v.Link.Move.Error = msg
		v.Link.Move.NewSlug = req.PostForm.Get("new_slug")
		if in.Choice != nil {
			v.Link.Move.Choice = *in.Choice
		}
	}
	return d.render(w, req.Request, c, status, web.PageDashboardLink, v)
}

// The link form's fields, named as the API's fields are.
const (
	fieldTags           = "tags"
	fieldParameters     = "parameters"
	fieldRemovePassword = "remove_password"
)

// linkForm is a link form's typed values and errors, by field name.
type linkForm struct {
	values map[string]string
	errs   map[string]string
	// hasPassword says that the link being edited has a password.
	hasPassword bool
	remove      bool
}

// readLinkForm reads a posted link form.
func readLinkForm(r *http.Request) *linkForm {
	f := &linkForm{values: map[string]string{}, errs: map[string]string{}}
	for _, n := range linkFormFields {
		f.values[n] = r.PostForm.Get(n)
	}
	f.remove = r.PostForm.Get(fieldRemovePassword) == "yes"
	return f
}

// linkFormFields are the form's text fields.
var linkFormFields = []string{
	linking.FieldDestinationURL, linking.FieldSlug, linking.FieldName, linking.FieldDomain, linking.FieldAppID,
	linking.FieldIOSURL, linking.FieldIOSFallbackURL, linking.FieldAndroidURL, linking.FieldAndroidFallbackURL,
	linking.FieldOGTitle, linking.FieldOGDescription, linking.FieldOGImageURL,
	linking.FieldUTMSource, linking.FieldUTMMedium, linking.FieldUTMCampaign,
	fieldTags, linking.FieldExpiresAt, linking.FieldPassword, linking.FieldMatchWindowHours, fieldParameters,
}

// formTime is the datetime-local format of expires_at, read as UTC.
const formTime = "2006-01-02T15:04"

// linkFormOf returns the form of link l, as the edit form shows it.
func linkFormOf(l *linking.Link) *linkForm {
	f := &linkForm{values: map[string]string{}, errs: map[string]string{}, hasPassword: l.PasswordHash != nil}
	set := func(name string, v *string) {
		if v != nil {
			f.values[name] = *v
		}
	}
	f.values[linking.FieldDestinationURL] = l.DestinationURL
	set(linking.FieldName, l.Name)
	set(linking.FieldIOSURL, l.IOSURL)
	set(linking.FieldIOSFallbackURL, l.IOSFallbackURL)
	set(linking.FieldAndroidURL, l.AndroidURL)
	set(linking.FieldAndroidFallbackURL, l.AndroidFallbackURL)
	set(linking.FieldOGTitle, l.OGTitle)
	set(linking.FieldOGDescription, l.OGDescription)
	set(linking.FieldOGImageURL, l.OGImageURL)
	set(linking.FieldUTMSource, l.UTMSource)
	set(linking.FieldUTMMedium, l.UTMMedium)
	set(linking.FieldUTMCampaign, l.UTMCampaign)
	f.values[fieldTags] = strings.Join(l.Tags, ", ")
	if l.AppID != nil {
		f.values[linking.FieldAppID] = l.AppID.String()
	}
	if l.ExpiresAt != nil {
		f.values[linking.FieldExpiresAt] = l.ExpiresAt.UTC().Format(formTime)
	}
	if l.MatchWindowHours != nil {
		f.values[linking.FieldMatchWindowHours] = strconv.Itoa(*l.MatchWindowHours)
	}
	if l.Parameters != nil {
		if b, err := json.Marshal(l.Parameters); err == nil {
			f.values[fieldParameters] = string(b)
		}
	}
	return f
}

// text returns the trimmed value of field name, nil when empty.
func (f *linkForm) text(name string) *string {
	v := strings.TrimSpace(f.values[name])
	if v == "" {
		return nil
	}
	return &v
}

// tags returns the comma-separated tags, trimmed, empty ones dropped.
func (f *linkForm) tags() []string {
	out := []string{}
	for _, t := range strings.Split(f.values[fieldTags], ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// expiry returns the expiry typed, read as UTC; a field error when it is not
// a date and time.
func (f *linkForm) expiry() *time.Time {
	v := f.text(linking.FieldExpiresAt)
	if v == nil {
		return nil
	}
	if t, ok := parseFormTime(*v); ok {
		return &t
	}
	f.errs[linking.FieldExpiresAt] = "Must be a date and time, such as 2030-01-31T18:00 (UTC)."
	return nil
}

// appID returns the app chosen; a field error when it is not an id.
func (f *linkForm) appID() *uuid.UUID {
	v := f.text(linking.FieldAppID)
	if v == nil {
		return nil
	}
	id, err := uuid.Parse(*v)
	if err != nil {
		f.errs[linking.FieldAppID] = "Choose one of the apps."
		return nil
	}
	return &id
}

// matchWindow returns the match window typed; a field error when it is not
// a whole number.
func (f *linkForm) matchWindow() *int {
	v := f.text(linking.FieldMatchWindowHours)
	if v == nil {
		return nil
	}
	n, err := strconv.Atoi(*v)
	if err != nil {
		f.errs[linking.FieldMatchWindowHours] = "Must be a whole number of hours."
		return nil
	}
	return &n
}

// parameters returns the parameter configuration typed as JSON, decoded as
// strictly as the API decodes it; a field error when it cannot be.
func (f *linkForm) parameters() *params.LinkConfig {
	v := f.text(fieldParameters)
	if v == nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(*v))
	dec.DisallowUnknownFields()
	var cfg params.LinkConfig
	err := dec.Decode(&cfg)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err != nil {
		f.errs[fieldParameters] = "Must be one JSON object of the link parameter configuration (LinkParamConfig): " + err.Error() + "."
		return nil
	}
	return &cfg
}

// serviceErrors files a service error's fields under the form's fields,
// and returns the status and the message for the top of the form; ok false
// for an unexpected error.
func (f *linkForm) serviceErrors(err error) (status int, msg string, ok bool) {
	status, msg, ok = dashboardError(err)
	if !ok {
		return 0, "", false
	}
	e, _ := errcode.As(err)
	for _, fe := range e.Fields {
		name := fe.Field
		if i := strings.IndexAny(name, "[."); i > 0 {
			name = name[:i]
		}
		if _, known := f.values[name]; !known {
			continue
		}
		if f.errs[name] == "" {
			f.errs[name] = sentence(fe.Message)
		}
	}
	switch e.Code {
	case errcode.SlugTaken:
		f.errs[linking.FieldSlug] = sentence(e.Message)
	case errcode.InvalidDomain, errcode.DefaultDomainUnavailable:
		f.errs[linking.FieldDomain] = sentence(e.Message)
	case errcode.ParamConfigTooLarge:
		f.errs[fieldParameters] = sentence(e.Message)
	}
	if len(f.errs) > 0 && e.Code == errcode.ValidationError {
		msg = ""
	}
	return status, msg, true
}

// newLink answers GET /links/new.
func (d *dashboard) newLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	if _, err := c.p.Authorize(auth.ScopeLinksWrite, auth.ActLinksCreate); err != nil {
		return d.serviceError(w, req.Request, c, err)
	}
	f := &linkForm{values: map[string]string{}, errs: map[string]string{}}
	return d.showLinkForm(w, req.Request, c, nil, f, http.StatusOK, "")
}

// createLink answers POST /links.
func (d *dashboard) createLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	f := readLinkForm(r)
	in := linking.CreateLinkInput{
		Slug: f.text(linking.FieldSlug), Name: f.text(linking.FieldName), Domain: f.text(linking.FieldDomain),
		IOSURL: f.text(linking.FieldIOSURL), IOSFallbackURL: f.text(linking.FieldIOSFallbackURL),
		AndroidURL: f.text(linking.FieldAndroidURL), AndroidFallbackURL: f.text(linking.FieldAndroidFallbackURL),
		OGTitle: f.text(linking.FieldOGTitle), OGDescription: f.text(linking.FieldOGDescription), OGImageURL: f.text(linking.FieldOGImageURL),
		UTMSource: f.text(linking.FieldUTMSource), UTMMedium: f.text(linking.FieldUTMMedium), UTMCampaign: f.text(linking.FieldUTMCampaign),
		Tags: f.tags(), ExpiresAt: f.expiry(), AppID: f.appID(), MatchWindowHours: f.matchWindow(), Parameters: f.parameters(),
	}
	if v := f.text(linking.FieldDestinationURL); v != nil {
		in.DestinationURL = *v
	}
	if pw := f.values[linking.FieldPassword]; pw != "" {
		in.Password = &pw
	}
	if len(f.errs) > 0 {
		return d.showLinkForm(w, r, c, nil, f, http.StatusBadRequest, "")
	}
	l, err := d.a.opts.Links.Create(r.Context(), c.p, in)
	if err != nil {
		status, msg, ok := f.serviceErrors(err)
		if !ok {
			return err
		}
		return d.showLinkForm(w, r, c, nil, f, status, msg)
	}
	seeOther(w, c.linkPath(l.ID)+"?done=created")
	return nil
}

// editLink answers GET /links/{id}/edit.
func (d *dashboard) editLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	if !canWrite(c, &l.Link) {
		return d.message(w, req.Request, c, http.StatusForbidden, "Not allowed",
			"Only the link's creator, an admin or an owner may change it.", c.linkPath(l.ID), "Back to the link")
	}
	return d.showLinkForm(w, req.Request, c, &l.Link, linkFormOf(&l.Link), http.StatusOK, "")
}

// updateLink answers POST /links/{id}: the fields that differ from the link
// are sent to the service, an emptied one as null.
func (d *dashboard) updateLink(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	l, err := d.link(w, req, c)
	if l == nil || err != nil {
		return err
	}
	f := readLinkForm(r)
	f.hasPassword = l.PasswordHash != nil
	was := linkFormOf(&l.Link)
	var in linking.UpdateLinkInput
	str := func(name string) apitype.Optional[string] {
		v := f.text(name)
		if strings.TrimSpace(was.values[name]) == deref(v) {
			return apitype.Optional[string]{}
		}
		if v == nil {
			return apitype.Null[string]()
		}
		return apitype.Some(*v)
	}
	in.DestinationURL = str(linking.FieldDestinationURL)
	if in.DestinationURL.Null {
		in.DestinationURL = apitype.Some("")
	}
	in.Name = str(linking.FieldName)
	in.IOSURL = str(linking.FieldIOSURL)
	in.IOSFallbackURL = str(linking.FieldIOSFallbackURL)
	in.AndroidURL = str(linking.FieldAndroidURL)
	in.AndroidFallbackURL = str(linking.FieldAndroidFallbackURL)
	in.OGTitle = str(linking.FieldOGTitle)
	in.OGDescription = str(linking.FieldOGDescription)
	in.OGImageURL = str(linking.FieldOGImageURL)
	in.UTMSource = str(linking.FieldUTMSource)
	in.UTMMedium = str(linking.FieldUTMMedium)
	in.UTMCampaign = str(linking.FieldUTMCampaign)
	if tags := f.tags(); strings.Join(tags, "\x00") != strings.Join(l.Tags, "\x00") {
		in.Tags = apitype.Some(tags)
	}
	if f.values[linking.FieldExpiresAt] != was.values[linking.FieldExpiresAt] {
		if t := f.expiry(); t != nil {
			in.ExpiresAt = apitype.Some(*t)
		} else if f.errs[linking.FieldExpiresAt] == "" {
			in.ExpiresAt = apitype.Null[time.Time]()
		}
	}
	if f.text(linking.FieldAppID) != nil || was.values[linking.FieldAppID] != "" {
		if f.values[linking.FieldAppID] != was.values[linking.FieldAppID] {
			if id := f.appID(); id != nil {
				in.AppID = apitype.Some(*id)
			} else if f.errs[linking.FieldAppID] == "" {
				in.AppID = apitype.Null[uuid.UUID]()
			}
		}
	}
	if f.values[linking.FieldMatchWindowHours] != was.values[linking.FieldMatchWindowHours] {
		if n := f.matchWindow(); n != nil {
			in.MatchWindowHours = apitype.Some(*n)
		} else if f.errs[linking.FieldMatchWindowHours] == "" {
			in.MatchWindowHours = apitype.Null[int]()
		}
	}
	if cfg := f.parameters(); f.errs[fieldParameters] == "" {
		switch {
		case cfg == nil && l.Parameters != nil:
			in.Parameters = apitype.Null[params.LinkConfig]()
		case cfg != nil && !sameJSON(cfg, l.Parameters):
			in.Parameters = apitype.Some(*cfg)
		}
	}
	switch pw := f.values[linking.FieldPassword]; {
	case f.remove:
		in.Password = apitype.Null[string]()
	case pw != "":
		in.Password = apitype.Some(pw)
	}
	if len(f.errs) > 0 {
		return d.showLinkForm(w, r, c, &l.Link, f, http.StatusBadRequest, "")
	}
	if _, err := d.a.opts.Links.Update(r.Context(), c.p, l.ID, in); err != nil {
		status, msg, ok := f.serviceErrors(err)
		if !ok {
			return err
		}
		if status == http.StatusForbidden || status == http.StatusNotFound {
			return d.serviceError(w, r, c, err)
		}
		return d.showLinkForm(w, r, c, &l.Link, f, status, msg)
	}
	seeOther(w, c.linkPath(l.ID)+"?done=saved")
	return nil
}

// sameJSON reports whether cfg and was encode alike.
func sameJSON(cfg *params.LinkConfig, was *params.LinkConfig) bool {
	if was == nil {
		return false
	}
	a, errA := json.Marshal(cfg)
	b, errB := json.Marshal(was)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// showLinkForm writes the create form (l nil) or the edit form of l with
// f's values and errors, msg on top.
func (d *dashboard) showLinkForm(w http.ResponseWriter, r *http.Request, c *dashCtx, l *linking.Link, f *linkForm, status int, msg string) error {
	apps, domains, appDomains, err := d.linkChoices(r, c, f)
	if err != nil {
		return err
	}
	field := func(name, label, typ, hint string, max int) web.FormField {
		return web.FormField{Name: name, Label: label, Type: typ, Value: f.values[name], Error: f.errs[name], Hint: hint, MaxLength: max}
	}
	dest := field(linking.FieldDestinationURL, "Destination URL", "url", "Where desktop browsers go, and every visitor without a platform URL: an http or https URL.", 0)
	dest.Required = true
	address := []web.FormField{dest}
	if l == nil {
		address = append(address,
			field(linking.FieldSlug, "Slug", "text", "The short URL's path: 2 to 100 lowercase letters, digits and hyphens. Generated when empty.", 100),
			web.FormField{Name: linking.FieldAppID, Label: "App", Type: "select", Value: f.values[linking.FieldAppID], Error: f.errs[linking.FieldAppID], Options: apps,
				Hint: "The app whose links this is; a link with an app goes on the app's default link domain."},
			web.FormField{Name: linking.FieldDomain, Label: "Domain", Type: "select", Value: f.values[linking.FieldDomain], Error: f.errs[linking.FieldDomain], Options: domains,
				Hint: "Leave the default unless you want another domain the app may use. A link's domain never changes afterwards."})
	} else {
		address = append(address, web.FormField{Name: linking.FieldAppID, Label: "App", Type: "select", Value: f.values[linking.FieldAppID],
			Error: f.errs[linking.FieldAppID], Options: apps, Hint: "Another app must use the link's domain, " + l.Domain + "."})
	}
	address = append(address,
		field(linking.FieldName, "Name", "text", "Shown in the dashboard instead of the slug.", linking.MaxNameLength),
		field(fieldTags, "Tags", "text", "Up to 20, separated by commas.", 0))
	password := field(linking.FieldPassword, "Password", "password", "Visitors must enter it before they are sent on: at least 8 characters.", linking.MaxLinkPasswordLength)
	protection := []web.FormField{password}
	if l != nil {
		password.Label = "New password"
		password.Hint = "Leave empty to keep the current one."
		if !f.hasPassword {
			password.Hint = "The link has no password; set one here."
		}
		protection = []web.FormField{password}
		if f.hasPassword {
			protection = append(protection, web.FormField{Name: fieldRemovePassword, Label: "Remove the password", Type: "checkbox", Checked: f.remove})
		}
	}
	protection = append(protection,
		field(linking.FieldExpiresAt, "Expires (UTC)", "datetime-local", "After this the short URL answers 410 Gone. Empty: never.", 0),
		field(linking.FieldMatchWindowHours, "Attribution match window (hours)", "number", "How long after a click an install may still match it: 1 to 8760.", 0))
	form := &web.Form{Submit: "Create the link", Cancel: c.base + "/links", Action: c.base + "/links", Invalid: len(f.errs) > 0,
		Groups: []web.FieldGroup{
			{Legend: "Link", Fields: address},
			{Legend: "Apps", Fields: []web.FormField{
				field(linking.FieldIOSURL, "iOS URL", "url", "Opened on iPhones and iPads: a universal link or an app URL.", 0),
				field(linking.FieldIOSFallbackURL, "iOS fallback URL", "url", "When the app is not installed; the app's App Store URL when empty.", 0),
				field(linking.FieldAndroidURL, "Android URL", "url", "Opened on Android: an app link or an app URL.", 0),
				field(linking.FieldAndroidFallbackURL, "Android fallback URL", "url", "When the app is not installed.", 0),
			}},
			{Legend: linkPreviewGroup, Fields: []web.FormField{
				field(linking.FieldOGTitle, "Preview title", "text", "What chat apps and social sites show: at most 255 characters.", 255),
				field(linking.FieldOGDescription, "Preview description", "textarea", "", 0),
				field(linking.FieldOGImageURL, "Preview image URL", "url", "", 0),
			}},
			{Legend: "Campaign (UTM)", Fields: []web.FormField{
				field(linking.FieldUTMSource, "UTM source", "text", "Added to the destination as utm_source unless the URL or a parameter sets it.", linking.MaxUTMLength),
				field(linking.FieldUTMMedium, "UTM medium", "text", "", linking.MaxUTMLength),
				field(linking.FieldUTMCampaign, "UTM campaign", "text", "", linking.MaxUTMLength),
			}},
			{Legend: "Protection and attribution", Fields: protection},
			{Legend: "Parameters", Fields: []web.FormField{
				field(fieldParameters, "Parameter rules (JSON)", "textarea",
					`The link's query-parameter rules as the API's LinkParamConfig, such as {"injected":[{"key":"ref","value":"mail","mode":"always"}],"forwarding":null,"defaultMode":null,"inheritOrgInjected":true,"suppressedOrgKeys":[]}. Empty inherits the organization's defaults.`, 0),
			}},
		}}
	title := "Create a link"
	if l != nil {
		title = "Edit " + linkTitle(l)
		form.Submit, form.Cancel, form.Action = "Save the changes", c.linkPath(l.ID), c.linkPath(l.ID)
	}
	return d.render(w, r, c, status, web.PageDashboardForm, web.DashboardView{
		Frame: web.Frame{Title: title, Error: msg}, Nav: c.nav("Links"), Form: form,
		LinkPreview: d.linkPreview(l, f, appDomains)})
}

// linkPreviewGroup is the legend of the link form's preview fields, which
// the preview card follows.
const linkPreviewGroup = "Preview"

// linkPreview is the form's preview card (web.LinkPreview) for f's values:
// the title, description and image as the link domain's preview page would
// show them, and the domain the link is on (l's own, on the edit form) or,
// on the create form, the one chosen, else the chosen app's default link
// domain (appDomains, by app id), else the service's.
func (d *dashboard) linkPreview(l *linking.Link, f *linkForm, appDomains map[string]string) *web.LinkPreview {
	p := &web.LinkPreview{Group: linkPreviewGroup, DefaultDomain: d.a.opts.DefaultLinkDomain}
	for _, name := range []string{linking.FieldOGTitle, linking.FieldName, linking.FieldDestinationURL} {
		if v := f.text(name); v != nil {
			p.Title = *v
			break
		}
	}
	if v := f.text(linking.FieldOGDescription); v != nil {
		p.Description = *v
	}
	if v := f.text(linking.FieldOGImageURL); v != nil {
		if u, err := url.Parse(*v); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
			p.ImageHost = u.Host
		}
	}
	if l != nil {
		p.DefaultDomain, p.Domain = l.Domain, l.Domain
		return p
	}
	pairs := make([]string, 0, len(appDomains))
	for id, domain := range appDomains {
		pairs = append(pairs, id+"="+domain)
	}
	slices.Sort(pairs)
	p.AppDomains = strings.Join(pairs, " ")
	p.Domain = p.DefaultDomain
	if v := f.text(linking.FieldDomain); v != nil {
		p.Domain = *v
	} else if domain, ok := appDomains[f.values[linking.FieldAppID]]; ok {
		p.Domain = domain
	}
	return p
}

// maxAppChoices is how many apps the link form offers.
const maxAppChoices = 100

// linkChoices returns the form's app and domain options: the first
// maxAppChoices apps of the organization, and the domains links may go on
// (the default, each app's subdomain, the service's default link domain,
// live custom domains), for the domain rules to decide among. A value f
// holds that is not among them is kept, so that nothing typed is lost.
// appDomains are the apps' default link domains, by app id, for the
// preview card.
func (d *dashboard) linkChoices(r *http.Request, c *dashCtx, f *linkForm) (apps, domains []web.Option, appDomains map[string]string, err error) {
	appDomains = map[string]string{}
	apps = []web.Option{{Value: "", Label: "No app"}}
	domains = []web.Option{{Value: "", Label: "Default: the app's default link domain"}}
	seen := map[string]bool{"": true}
	addDomain := func(value, label string) {
		if value != "" && !seen[value] {
			seen[value] = true
			domains = append(domains, web.Option{Value: value, Label: label})
		}
	}
	if d.a.opts.Apps != nil {
		limit := maxAppChoices
		page, err := d.a.opts.Apps.List(r.Context(), c.p, linking.ListAppsInput{Limit: &limit})
		if err != nil && errcode.CodeOf(err) != errcode.Forbidden {
			return nil, nil, nil, err
		}
		if page != nil {
			for _, a := range page.Data {
				apps = append(apps, web.Option{Value: a.ID.String(), Label: a.Name})
				addDomain(a.LinkDomain, a.LinkDomain+" ("+a.Name+"'s subdomain)")
				appDomains[a.ID.String()] = a.DefaultLinkDomain
			}
		}
	}
	if def := d.a.opts.DefaultLinkDomain; def != "" {
		addDomain(def, def+" (the service's domain: links without an app, and legacy apps)")
	}
	if d.a.opts.Domains != nil {
		limit := maxAppChoices
		page, err := d.a.opts.Domains.List(r.Context(), c.p, &limit, nil)
		if err != nil && errcode.CodeOf(err) != errcode.Forbidden {
			return nil, nil, nil, err
		}
		if page != nil {
			for _, dm := range page.Data {
				if dm.Verified && dm.SuspendedAt == nil {
					addDomain(dm.Domain, dm.Domain+" (custom domain)")
				}
			}
		}
	}
	if v := f.values[linking.FieldDomain]; !seen[v] {
		addDomain(v, v)
	}
	if v := f.values[linking.FieldAppID]; v != "" {
		found := false
		for _, a := range apps {
			found = found || a.Value == v
		}
		if !found {
			apps = append(apps, web.Option{Value: v, Label: v})
		}
	}
	return apps, domains, appDomains, nil
}
