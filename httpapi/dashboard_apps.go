package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's app pages, under /dashboard/o/{org_id}/apps:
//
//   - GET  /apps                        the list: q and page
//   - GET  /apps/new                    the create form; POST /apps creates
//   - GET  /apps/{id}                   the app: its fields, its association
//     files' live state, its subdomain and rename state
//   - GET  /apps/{id}/edit              the edit form; POST /apps/{id} saves it
//   - GET  /apps/{id}/delete            the confirmation; POST with confirm=yes deletes
//   - GET  /apps/{id}/rename            the rename form; POST renames
//   - POST /apps/{id}/extend            extends the open rename period
//   - POST /apps/{id}/default-domain    sets the default link domain
//
// They call linking.AppService as /v1/apps does, with the member's
// principal, and a rename records app.renamed as PUT
// /v1/apps/{id}/subdomain records it, with the user as the actor. The
// association files shown are made by the code that serves them on the
// link domains (associationFile), and whether an address serves them is
// asked of the link domains' resolver (Options.Resolver).
func (d *dashboard) appRoutes(root routes) {
	if d.a.opts.Apps == nil {
		return
	}
	const base = "/dashboard/o/:org/apps"
	root.handle(http.MethodGet, base, d.orgPage(d.appList))
	root.handle(http.MethodPost, base, d.orgPage(d.createApp))
	root.handle(http.MethodGet, base+"/new", d.orgPage(d.newApp))
	root.handle(http.MethodGet, base+"/:id", d.orgPage(d.appPage))
	root.handle(http.MethodPost, base+"/:id", d.orgPage(d.updateApp))
	root.handle(http.MethodGet, base+"/:id/edit", d.orgPage(d.editApp))
	root.handle(http.MethodGet, base+"/:id/delete", d.orgPage(d.confirmDeleteApp))
	root.handle(http.MethodPost, base+"/:id/delete", d.orgPage(d.deleteApp))
	root.handle(http.MethodGet, base+"/:id/rename", d.orgPage(d.renameForm))
	root.handle(http.MethodPost, base+"/:id/rename", d.orgPage(d.renameApp))
	root.handle(http.MethodPost, base+"/:id/extend", d.orgPage(d.extendRename))
	root.handle(http.MethodPost, base+"/:id/default-domain", d.orgPage(d.setDefaultDomain))
}

// hasApps reports whether c's member is offered the app pages.
func (d *dashboard) hasApps(c *dashCtx) bool {
	if d.a.opts.Apps == nil {
		return false
	}
	return c.may(auth.ScopeAppsRead, auth.ActAppsRead)
}

// canWriteApps reports whether c's member may create, change and delete
// apps and rename their subdomains (owners and admins).
func canWriteApps(c *dashCtx) bool {
	return c.may(auth.ScopeAppsWrite, auth.ActAppsWrite)
}

// appPath is the page of app id.
func (c *dashCtx) appPath(id uuid.UUID) string { return c.base + "/apps/" + id.String() }

// appListPageSize is the app list's page size.
const appListPageSize = 20

// appNotice is the confirmation of an action that redirected to an app
// page (its done parameter); "" for any other value.
func appNotice(done string) string {
	switch done {
	case "created":
		return "The app was created."
	case "saved":
		return "The changes were saved."
	case "deleted":
		return "The app was deleted."
	case "renamed":
		return "The subdomain was renamed: the previous one keeps serving the app's links during the rename period."
	case "extended":
		return "The rename period was extended by 30 days."
	case "default":
		return "The default link domain was saved."
	}
	return ""
}

// listPageParam reads a list's page parameter: 1 when absent, ok false when it
// is not a number from 1 to maxLinkListPage.
func listPageParam(s string) (page int, ok bool) {
	if s == "" {
		return 1, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLinkListPage {
		return 0, false
	}
	return n, true
}

// pageOfList is page n of the list at path with the query q.
func pageOfList(path string, q url.Values, n int) string {
	u := url.Values{}
	for k, v := range q {
		u[k] = v
	}
	u.Set("page", strconv.Itoa(n))
	return path + "?" + u.Encode()
}

// appList answers GET /apps.
func (d *dashboard) appList(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	q := r.URL.Query()
	list := &web.AppList{Search: q.Get("q"), Path: c.base + "/apps"}
	if canWriteApps(c) {
		list.NewPath = c.base + "/apps/new"
	}
	v := web.DashboardView{Frame: web.Frame{Title: "Apps", Notice: appNotice(q.Get("done"))}, Nav: c.nav("Apps"), Apps: list}
	page, ok := listPageParam(q.Get("page"))
	if !ok {
		v.Error = "The page must be a number from 1 to " + strconv.Itoa(maxLinkListPage) + "."
		return d.render(w, r, c, http.StatusBadRequest, web.PageDashboardApps, v)
	}
	limit, offset := appListPageSize, (page-1)*appListPageSize
	in := linking.ListAppsInput{Limit: &limit, Offset: &offset}
	if list.Search != "" {
		in.Search = &list.Search
	}
	res, err := d.a.opts.Apps.List(r.Context(), c.p, in)
	if err != nil {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		v.Error = msg
		return d.render(w, r, c, status, web.PageDashboardApps, v)
	}
	for _, a := range res.Data {
		list.Rows = append(list.Rows, web.AppRow{Path: c.appPath(a.ID), Name: a.Name, LinkDomain: a.LinkDomain,
			IOS: deref(a.IOSBundleID), Android: deref(a.AndroidPackageName), Renaming: a.PreviousLinkDomain != nil})
	}
	list.Total = res.Pagination.Total
	if len(list.Rows) > 0 {
		list.From, list.To = offset+1, offset+len(list.Rows)
	}
	keep := url.Values{}
	if list.Search != "" {
		keep.Set("q", list.Search)
	}
	if page > 1 {
		list.Prev = pageOfList(list.Path, keep, page-1)
	}
	if res.Pagination.HasMore && page < maxLinkListPage {
		list.Next = pageOfList(list.Path, keep, page+1)
	}
	if o := d.readableOrg(r, c); o != nil && list.Search == "" {
		allowed := org.LimitsOf(o.Plan).Apps
		list.Plan = "The " + planTitle(o.Plan) + " plan allows " + nounCount(allowed, "app", "apps") +
			"; the organization has " + strconv.Itoa(list.Total) + "."
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardApps, v)
}

// readableOrg returns c's organization as the member may read it, or nil when it
// cannot be read (no organizations service, or a refusal): the pages then
// say nothing of its plan.
func (d *dashboard) readableOrg(r *http.Request, c *dashCtx) *org.Organization {
	if d.a.opts.Orgs == nil {
		return nil
	}
	o, err := d.a.opts.Orgs.Get(r.Context(), c.p, c.m.OrgID)
	if err != nil {
		return nil
	}
	return o
}

// planTitle is plan as a page names it: "Growth".
func planTitle(p org.Plan) string {
	s := string(p)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// nounCount writes n with the singular or the plural noun.
func nounCount(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// appNotFound writes the 404 page of an app that is not the
// organization's.
func (d *dashboard) appNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such app in this organization.", c.base+"/apps", "Back to the apps")
}

// appID reads the app id of the path; ok false (after writing the 404
// page) when it is not an id.
func (d *dashboard) appID(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (uuid.UUID, bool, error) {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return uuid.Nil, false, d.appNotFound(w, req.Request, c)
	}
	return id, true, nil
}

// dashApp reads app id of the path for c's member, writing the 404 page
// when it is not an app of the organization (and returning nil).
func (d *dashboard) dashApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*linking.App, error) {
	id, ok, err := d.appID(w, req, c)
	if !ok {
		return nil, err
	}
	app, err := d.a.opts.Apps.Get(req.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.appNotFound(w, req.Request, c)
	}
	if err != nil {
		return nil, d.serviceErrorPage(w, req.Request, c, err, c.base+"/apps", "Back to the apps")
	}
	return app, nil
}

// serviceErrorPage writes the message page of a service error with a link onwards,
// or returns an unexpected one.
func (d *dashboard) serviceErrorPage(w http.ResponseWriter, r *http.Request, c *dashCtx, err error, onward, onwardText string) error {
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	title := "That did not work"
	switch status {
	case http.StatusForbidden:
		title = "Not allowed"
	case http.StatusNotFound:
		title = "Not found"
	}
	return d.message(w, r, c, status, title, msg, onward, onwardText)
}

// notAllowedApps writes the 403 page of an app action the role may not take.
func (d *dashboard) notAllowedApps(w http.ResponseWriter, r *http.Request, c *dashCtx, back string) error {
	return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Only an owner or an admin may change apps.", back, "Back")
}

// appPage answers GET /apps/{id}.
func (d *dashboard) appPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	id, ok, err := d.appID(w, req, c)
	if !ok {
		return err
	}
	v, err := d.appView(w, req.Request, c, id, nil)
	if v == nil || err != nil {
		return err
	}
	v.Notice = appNotice(req.URL.Query().Get("done"))
	return d.render(w, req.Request, c, http.StatusOK, web.PageDashboardApp, *v)
}

// appView is the view of app id's page, with the default link domain's
// form as typed when def is not nil; nil after writing the 404 or error
// page.
func (d *dashboard) appView(w http.ResponseWriter, r *http.Request, c *dashCtx, id uuid.UUID, def *web.DefaultDomainForm) (*web.DashboardView, error) {
	det, err := d.a.opts.Apps.Detail(r.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.appNotFound(w, r, c)
	}
	if err != nil {
		return nil, d.serviceErrorPage(w, r, c, err, c.base+"/apps", "Back to the apps")
	}
	app := det.App
	path := c.appPath(app.ID)
	view := &web.AppView{Name: app.Name, Fields: appFields(app), CanWrite: canWriteApps(c),
		EditPath: path + "/edit", DeletePath: path + "/delete", ListPath: c.base + "/apps"}
	if view.Files, err = d.associationFiles(r, app); err != nil {
		return nil, err
	}
	if view.Subdomain, err = d.subdomainView(r, c, det, def); err != nil {
		return nil, err
	}
	return &web.DashboardView{Frame: web.Frame{Title: app.Name}, Nav: c.nav("Apps"), App: view}, nil
}

// appFields are app's fields as the page lists them, unset ones empty.
func appFields(app *linking.App) [][2]string {
	lines := func(v []string) string { return strings.Join(v, ", ") }
	return [][2]string{
		{"Name", app.Name},
		{"iOS bundle ID", deref(app.IOSBundleID)},
		{"iOS team ID", deref(app.IOSTeamID)},
		{"App Store ID", deref(app.IOSAppStoreID)},
		{"App Store URL", deref(app.IOSAppStoreURL)},
		{"Universal link paths", lines(app.IOSUniversalLinkPaths)},
		{"Android package name", deref(app.AndroidPackageName)},
		{"SHA-256 certificate fingerprints", lines(app.AndroidSHA256Fingerprints)},
		{"Play Store URL", deref(app.AndroidPlayStoreURL)},
		{"App links paths", lines(app.AndroidAppLinksPaths)},
		{"Created", app.CreatedAt.UTC().Format(dashDate)},
		{"Changed", app.UpdatedAt.UTC().Format(dashDate)},
	}
}

// associationFileKinds are the association files an app's page shows, in
// order, each with the builder the link domains serve it with.
var associationFileKinds = []struct {
	id, title, platform, path string
	build                     func(*linking.App) (any, []string)
}{
	{"aasa", "apple-app-site-association", "iOS universal links", AASAPath, aasa},
	{"assetlinks", "assetlinks.json", "Android app links", AssetLinksPath, assetLinks},
}

// appFieldLabels name the fields an association file may lack.
var appFieldLabels = map[string]string{
	linking.FieldIOSTeamID:                 "iOS team ID",
	linking.FieldIOSBundleID:               "iOS bundle ID",
	linking.FieldAndroidPackageName:        "Android package name",
	linking.FieldAndroidSHA256Fingerprints: "SHA-256 certificate fingerprint",
}

// associationFiles returns the live state of app's association files: the
// body each serves (or the fields it lacks) and, at each of the app's
// domains, whether the link domains serve it there and why not.
func (d *dashboard) associationFiles(r *http.Request, app *linking.App) ([]web.AssociationFile, error) {
	domains := appFileDomains(app)
	here := make([]string, len(domains)) // "" where this app's files are served
	if d.a.opts.Resolver != nil {
		for i, domain := range domains {
			why, err := d.fileDomainState(r, app, domain)
			if err != nil {
				return nil, err
			}
			here[i] = why
		}
	}
	var out []web.AssociationFile
	for _, k := range associationFileKinds {
		body, missing, err := associationFile(app, k.build)
		if err != nil {
			return nil, err
		}
		f := web.AssociationFile{ID: k.id, Title: k.title, Platform: k.platform, JSON: string(body)}
		for _, m := range missing {
			f.Missing = append(f.Missing, appFieldLabels[m]+" ("+m+")")
		}
		if d.a.opts.Resolver != nil {
			for i, domain := range domains {
				fd := web.FileDomain{URL: "https://" + domain + k.path}
				switch {
				case here[i] != "":
					fd.Status = here[i]
				case len(missing) > 0:
					fd.Status = "it answers 404 until the app has its " + strings.Join(f.Missing, " and ") + "."
				default:
					fd.Served, fd.Status = true, "it answers 200 with the file below."
				}
				f.Domains = append(f.Domains, fd)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// appFileDomains are the domains where app's association files are asked
// for: its subdomain, its previous subdomain during a rename period, and
// its default link domain when that is another.
func appFileDomains(app *linking.App) []string {
	out := []string{linking.NormalizeDomain(app.LinkDomain)}
	add := func(d string) {
		if d = linking.NormalizeDomain(d); d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if app.PreviousLinkDomain != nil {
		add(*app.PreviousLinkDomain)
	}
	add(app.DefaultLinkDomain)
	return out
}

// fileDomainState asks the link domains' resolver whether domain serves
// app's association files, as the link-domain handler asks it: "" when it
// does, else why not, in words.
func (d *dashboard) fileDomainState(r *http.Request, app *linking.App, domain string) (string, error) {
	got, err := d.a.opts.Resolver.AppForDomain(r.Context(), domain)
	switch {
	case err == nil && got.ID == app.ID:
		return "", nil
	case err == nil:
		return "this address serves another app's files.", nil
	case errcode.CodeOf(err) != errcode.NotFound:
		_, msg, ok := dashboardError(err)
		if !ok {
			return "", err
		}
		return "it could not be checked just now (" + strings.TrimSuffix(msg, ".") + ").", nil
	}
	switch {
	case domain == linking.NormalizeDomain(d.a.opts.DefaultLinkDomain):
		return "it answers 404: the service's own link domain serves no app's files, so links there open in the browser.", nil
	case app.PreviousLinkDomain != nil && domain == linking.NormalizeDomain(*app.PreviousLinkDomain):
		return "it answers 404: the rename period of this previous subdomain has ended.", nil
	case domain != linking.NormalizeDomain(app.LinkDomain):
		return "it answers 404: the custom domain is not live (not verified, suspended or deleted).", nil
	}
	return "it answers 404: no app is found at this address yet.", nil
}

// maxWaitingShown is how many waiting links the app's page names.
const maxWaitingShown = 20

// subdomainView is the subdomain part of an app's page: the state of det
// and the actions c's member is offered, the default link domain's form
// as typed when def is not nil.
func (d *dashboard) subdomainView(r *http.Request, c *dashCtx, det *linking.AppDetail, def *web.DefaultDomainForm) (web.Subdomain, error) {
	app := det.App
	path := c.appPath(app.ID)
	s := web.Subdomain{Handle: app.Handle, LinkDomain: app.LinkDomain, DefaultLinkDomain: app.DefaultLinkDomain}
	if app.PreviousLinkDomain != nil {
		s.Previous = *app.PreviousLinkDomain
		if p := det.RenamePeriod; p != nil {
			s.Opened, s.Ends = p.OpenedAt.UTC().Format(dashDate), p.EndsAt.UTC().Format(dashDate)
			s.ExtensionsUsed, s.ExtensionsLeft = p.ExtensionsUsed, p.ExtensionsLeft
		}
		s.Moving, s.Waiting, s.Kept = det.PreviousLinks.Moving, det.PreviousLinks.Waiting, det.PreviousLinks.Kept
		if s.Waiting > 0 {
			waiting, err := d.a.opts.Apps.WaitingLinks(r.Context(), c.p, app.ID, maxWaitingShown)
			if err != nil && errcode.CodeOf(err) != errcode.Forbidden {
				return s, err
			}
			for _, l := range waiting {
				s.WaitingLinks = append(s.WaitingLinks, web.Option{Value: c.linkPath(l.ID), Label: s.Previous + "/" + l.Slug})
			}
			s.MoreWaiting = max(0, s.Waiting-len(s.WaitingLinks))
		}
	}
	if !canWriteApps(c) {
		return s, nil
	}
	if s.Previous == "" {
		s.RenamePath = path + "/rename"
	} else if s.ExtensionsLeft > 0 {
		s.ExtendPath = path + "/extend"
	}
	if def == nil {
		def = &web.DefaultDomainForm{Value: app.DefaultLinkDomain}
	}
	def.Action = path + "/default-domain"
	opts, err := d.defaultDomainOptions(r, c, app, def.Value)
	if err != nil {
		return s, err
	}
	def.Options = opts
	s.Default = def
	return s, nil
}

// defaultDomainOptions are the domains app's links may use
// (linking.DomainsForApp), which its default link domain is chosen among,
// and value when it is not one of them (a custom domain no longer live).
func (d *dashboard) defaultDomainOptions(r *http.Request, c *dashCtx, app *linking.App, value string) ([]web.Option, error) {
	var custom []string
	if d.a.opts.Domains != nil {
		var err error
		if custom, err = d.a.opts.Domains.LiveCustomDomains(r.Context(), c.m.OrgID); err != nil {
			return nil, err
		}
	}
	def := linking.NormalizeDomain(d.a.opts.DefaultLinkDomain)
	var out []web.Option
	for _, dm := range linking.DomainsForApp(app.Domains(), linking.LinkDomains{Default: def, Custom: custom}) {
		label := dm + " (custom domain)"
		switch dm {
		case linking.NormalizeDomain(app.LinkDomain):
			label = dm + " (the app's subdomain)"
		case def:
			label = dm + " (the service's link domain)"
		}
		out = append(out, web.Option{Value: dm, Label: label})
	}
	if value != "" && !slices.ContainsFunc(out, func(o web.Option) bool { return o.Value == value }) {
		out = append(out, web.Option{Value: value, Label: value + " (no longer usable: choose another)"})
	}
	return out, nil
}

// setDefaultDomain answers POST /apps/{id}/default-domain: domain, one of
// the domains the app's links may use.
func (d *dashboard) setDefaultDomain(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	id, ok, err := d.appID(w, req, c)
	if !ok {
		return err
	}
	back := c.appPath(id)
	if !canWriteApps(c) {
		return d.notAllowedApps(w, r, c, back)
	}
	value := strings.TrimSpace(r.PostForm.Get("domain"))
	in := linking.DefaultLinkDomainInput{Domain: apitype.Null[string]()}
	if value != "" {
		in.Domain = apitype.Some(value)
	}
	_, err = d.a.opts.Apps.SetDefaultLinkDomain(r.Context(), c.p, id, in)
	if err == nil {
		seeOther(w, back+"?done=default")
		return nil
	}
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	if status == http.StatusForbidden || status == http.StatusNotFound {
		return d.serviceErrorPage(w, r, c, err, back, "Back to the app")
	}
	v, verr := d.appView(w, r, c, id, &web.DefaultDomainForm{Value: value, Error: msg})
	if v == nil || verr != nil {
		return verr
	}
	return d.render(w, r, c, status, web.PageDashboardApp, *v)
}

// extendRename answers POST /apps/{id}/extend.
func (d *dashboard) extendRename(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	id, ok, err := d.appID(w, req, c)
	if !ok {
		return err
	}
	back := c.appPath(id)
	if !canWriteApps(c) {
		return d.notAllowedApps(w, req.Request, c, back)
	}
	if _, err := d.a.opts.Apps.Extend(req.Context(), c.p, id); err != nil {
		return d.serviceErrorPage(w, req.Request, c, err, back, "Back to the app")
	}
	seeOther(w, back+"?done=extended")
	return nil
}

// renameForm answers GET /apps/{id}/rename.
func (d *dashboard) renameForm(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	if !canWriteApps(c) {
		return d.notAllowedApps(w, req.Request, c, c.appPath(app.ID))
	}
	return d.showRename(w, req.Request, c, app, &web.RenameForm{}, http.StatusOK, "")
}

func (d *dashboard) showRename(w http.ResponseWriter, r *http.Request, c *dashCtx, app *linking.App, f *web.RenameForm, status int, msg string) error {
	path := c.appPath(app.ID)
	f.Action, f.Cancel, f.Current = path+"/rename", path, app.LinkDomain
	f.Suffix = strings.TrimPrefix(app.LinkDomain, app.Handle) // {handle}.{default link domain}
	return d.render(w, r, c, status, web.PageDashboardAppRename, web.DashboardView{
		Frame: web.Frame{Title: "Rename the subdomain of " + app.Name, Error: msg}, Nav: c.nav("Apps"), Rename: f})
}

// renameApp answers POST /apps/{id}/rename: handle, and confirm=yes when
// links use the subdomain (the service asks for it, and the form then
// shows the checkbox).
func (d *dashboard) renameApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	if !canWriteApps(c) {
		return d.notAllowedApps(w, r, c, c.appPath(app.ID))
	}
	f := &web.RenameForm{Handle: strings.TrimSpace(r.PostForm.Get(linking.FieldHandle))}
	confirm := r.PostForm.Get(linking.FieldConfirm) == "yes"
	st, err := d.a.opts.Apps.Rename(r.Context(), c.p, app.ID, linking.RenameInput{Handle: &f.Handle, Confirm: &confirm})
	if err == nil {
		d.recordUserEvent(r, c, appRenamedEvent(c.p, app.ID, st))
		seeOther(w, c.appPath(app.ID)+"?done=renamed")
		return nil
	}
	status, msg, ok := dashboardError(err)
	if !ok {
		return err
	}
	e, _ := errcode.As(err)
	switch e.Code {
	case errcode.ValidationError:
		for _, fe := range e.Fields {
			f.HandleError += sentence(fe.Message)
		}
		msg = ""
	case errcode.AppHandleTaken, errcode.AppHandleHeld:
		f.HandleError, msg = msg, ""
	case errcode.ConfirmationRequired:
		n, _ := e.Details[linking.DetailAffectedLinks].(int)
		f.Confirm = max(n, 1)
		msg = "Links use the subdomain: tick the box to confirm the rename."
	case errcode.Forbidden, errcode.NotFound, errcode.AttributedKeyRequired:
		return d.serviceErrorPage(w, r, c, err, c.appPath(app.ID), "Back to the app")
	}
	return d.showRename(w, r, c, app, f, status, msg)
}

// confirmDeleteApp answers GET /apps/{id}/delete: the confirmation.
func (d *dashboard) confirmDeleteApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	return d.showConfirmDeleteApp(w, req.Request, c, app, http.StatusOK, "")
}

func (d *dashboard) showConfirmDeleteApp(w http.ResponseWriter, r *http.Request, c *dashCtx, app *linking.App, status int, msg string) error {
	path := c.appPath(app.ID)
	if !canWriteApps(c) {
		return d.notAllowedApps(w, r, c, path)
	}
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: "Delete " + app.Name + "?", Error: msg}, Nav: c.nav("Apps"),
		Confirm: &web.Confirm{Action: path + "/delete", Cancel: path,
			Question: "Deleting the app " + app.Name + " removes it for good: the SDK keys tied to it stop working at once, " +
				app.LinkDomain + " no longer serves its association files (so its links open in the browser, not the app), " +
				"and its links stay, without an app.",
			Check: "I understand that the app cannot be brought back", Button: "Delete the app"}})
}

// deleteApp answers POST /apps/{id}/delete, which needs confirm=yes.
func (d *dashboard) deleteApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmDeleteApp(w, req.Request, c, app, http.StatusBadRequest, "Tick the box to confirm that the app is to be deleted.")
	}
	if _, err := d.a.opts.Apps.Delete(req.Context(), c.p, app.ID); err != nil {
		return d.serviceErrorPage(w, req.Request, c, err, c.appPath(app.ID), "Back to the app")
	}
	seeOther(w, c.base+"/apps?done=deleted")
	return nil
}

// appFormFields are the app form's fields, named as the API's fields are;
// the lists among them take one item a line.
var appFormFields = []string{
	linking.FieldAppName, linking.FieldIOSBundleID, linking.FieldIOSTeamID, linking.FieldIOSAppStoreID,
	linking.FieldIOSAppStoreURL, linking.FieldIOSUniversalLinkPaths, linking.FieldAndroidPackageName,
	linking.FieldAndroidSHA256Fingerprints, linking.FieldAndroidPlayStoreURL, linking.FieldAndroidAppLinksPaths,
}

// appForm is an app form's typed values and errors, by field name.
type appForm struct {
	values, errs map[string]string
}

// readAppForm reads a posted app form.
func readAppForm(r *http.Request) *appForm {
	f := &appForm{values: map[string]string{}, errs: map[string]string{}}
	for _, n := range appFormFields {
		f.values[n] = r.PostForm.Get(n)
	}
	return f
}

// appFormOf returns the form of app, as the edit form shows it.
func appFormOf(app *linking.App) *appForm {
	f := &appForm{values: map[string]string{}, errs: map[string]string{}}
	f.values[linking.FieldAppName] = app.Name
	for name, v := range map[string]*string{
		linking.FieldIOSBundleID: app.IOSBundleID, linking.FieldIOSTeamID: app.IOSTeamID,
		linking.FieldIOSAppStoreID: app.IOSAppStoreID, linking.FieldIOSAppStoreURL: app.IOSAppStoreURL,
		linking.FieldAndroidPackageName: app.AndroidPackageName, linking.FieldAndroidPlayStoreURL: app.AndroidPlayStoreURL,
	} {
		f.values[name] = deref(v)
	}
	f.values[linking.FieldIOSUniversalLinkPaths] = strings.Join(app.IOSUniversalLinkPaths, "\n")
	f.values[linking.FieldAndroidSHA256Fingerprints] = strings.Join(app.AndroidSHA256Fingerprints, "\n")
	f.values[linking.FieldAndroidAppLinksPaths] = strings.Join(app.AndroidAppLinksPaths, "\n")
	return f
}

// text returns the trimmed value of field name ("" when empty).
func (f *appForm) text(name string) string { return strings.TrimSpace(f.values[name]) }

// lines returns the items of list field name, one a line, trimmed, empty
// lines dropped.
func (f *appForm) lines(name string) []string {
	var out []string
	for _, l := range strings.Split(f.values[name], "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkName files the error of an empty name, which the form asks for
// before the service is asked.
func (f *appForm) checkName() {
	if f.text(linking.FieldAppName) == "" {
		f.errs[linking.FieldAppName] = "Give the app a name: 1 to 255 characters."
	}
}

// createInput is the create's input: every field typed, the empty ones
// left out (null).
func (f *appForm) createInput() linking.AppInput {
	var in linking.AppInput
	for name, dst := range f.textFields(&in) {
		if v := f.text(name); v != "" {
			*dst = apitype.Some(v)
		}
	}
	for name, dst := range f.listFields(&in) {
		if v := f.lines(name); len(v) > 0 {
			*dst = apitype.Some(v)
		}
	}
	return in
}

// updateInput is the update's input from the form was of the app: the
// fields that differ from it, an emptied one as null.
func (f *appForm) updateInput(was *appForm) linking.AppInput {
	var in linking.AppInput
	for name, dst := range f.textFields(&in) {
		v := f.text(name)
		switch {
		case v == was.text(name):
		case v == "":
			*dst = apitype.Null[string]()
		default:
			*dst = apitype.Some(v)
		}
	}
	for name, dst := range f.listFields(&in) {
		v := f.lines(name)
		switch {
		case slices.Equal(v, was.lines(name)):
		case len(v) == 0:
			*dst = apitype.Null[[]string]()
		default:
			*dst = apitype.Some(v)
		}
	}
	return in
}

// textFields maps the form's text fields to in's.
func (f *appForm) textFields(in *linking.AppInput) map[string]*apitype.Optional[string] {
	return map[string]*apitype.Optional[string]{
		linking.FieldAppName: &in.Name, linking.FieldIOSBundleID: &in.IOSBundleID, linking.FieldIOSTeamID: &in.IOSTeamID,
		linking.FieldIOSAppStoreID: &in.IOSAppStoreID, linking.FieldIOSAppStoreURL: &in.IOSAppStoreURL,
		linking.FieldAndroidPackageName: &in.AndroidPackageName, linking.FieldAndroidPlayStoreURL: &in.AndroidPlayStoreURL,
	}
}

// listFields maps the form's list fields to in's.
func (f *appForm) listFields(in *linking.AppInput) map[string]*apitype.Optional[[]string] {
	return map[string]*apitype.Optional[[]string]{
		linking.FieldIOSUniversalLinkPaths:     &in.IOSUniversalLinkPaths,
		linking.FieldAndroidSHA256Fingerprints: &in.AndroidSHA256Fingerprints,
		linking.FieldAndroidAppLinksPaths:      &in.AndroidAppLinksPaths,
	}
}

// serviceErrors files a service error's fields under the form's fields (an
// item of a list as its line) and returns the status and the message for
// the top of the form; ok false for an unexpected error.
func (f *appForm) serviceErrors(err error) (status int, msg string, ok bool) {
	status, msg, ok = dashboardError(err)
	if !ok {
		return 0, "", false
	}
	e, _ := errcode.As(err)
	for _, fe := range e.Fields {
		name, line := fe.Field, ""
		if i := strings.IndexByte(name, '['); i > 0 {
			if n, err := strconv.Atoi(strings.TrimSuffix(name[i+1:], "]")); err == nil {
				line = "Line " + strconv.Itoa(n+1) + ": "
			}
			name = name[:i]
		}
		if _, known := f.values[name]; !known {
			continue
		}
		if f.errs[name] == "" {
			f.errs[name] = line + sentence(fe.Message)
		}
	}
	if e.Code == errcode.DuplicateApp {
		if field, _ := e.Details[linking.DetailField].(string); field != "" {
			f.errs[field] = msg
		}
	}
	if len(f.errs) > 0 && (e.Code == errcode.ValidationError || e.Code == errcode.DuplicateApp) {
		msg = ""
	}
	return status, msg, true
}

// newApp answers GET /apps/new.
func (d *dashboard) newApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	if !canWriteApps(c) {
		return d.notAllowedApps(w, req.Request, c, c.base+"/apps")
	}
	return d.showAppForm(w, req.Request, c, nil, &appForm{values: map[string]string{}, errs: map[string]string{}}, http.StatusOK, "")
}

// createApp answers POST /apps.
func (d *dashboard) createApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if !canWriteApps(c) {
		return d.notAllowedApps(w, r, c, c.base+"/apps")
	}
	f := readAppForm(r)
	if f.checkName(); len(f.errs) > 0 {
		return d.showAppForm(w, r, c, nil, f, http.StatusBadRequest, "")
	}
	app, err := d.a.opts.Apps.Create(r.Context(), c.p, f.createInput())
	if err != nil {
		if errcode.CodeOf(err) == errcode.Forbidden {
			return d.serviceErrorPage(w, r, c, err, c.base+"/apps", "Back to the apps")
		}
		status, msg, ok := f.serviceErrors(err)
		if !ok {
			return err
		}
		return d.showAppForm(w, r, c, nil, f, status, msg)
	}
	seeOther(w, c.appPath(app.ID)+"?done=created")
	return nil
}

// editApp answers GET /apps/{id}/edit.
func (d *dashboard) editApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	if !canWriteApps(c) {
		return d.notAllowedApps(w, req.Request, c, c.appPath(app.ID))
	}
	return d.showAppForm(w, req.Request, c, app, appFormOf(app), http.StatusOK, "")
}

// updateApp answers POST /apps/{id}: the fields that differ from the app
// are sent to the service, an emptied one as null.
func (d *dashboard) updateApp(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	app, err := d.dashApp(w, req, c)
	if app == nil || err != nil {
		return err
	}
	if !canWriteApps(c) {
		return d.notAllowedApps(w, r, c, c.appPath(app.ID))
	}
	f := readAppForm(r)
	if f.checkName(); len(f.errs) > 0 {
		return d.showAppForm(w, r, c, app, f, http.StatusBadRequest, "")
	}
	if _, err := d.a.opts.Apps.Update(r.Context(), c.p, app.ID, f.updateInput(appFormOf(app))); err != nil {
		status, msg, ok := f.serviceErrors(err)
		if !ok {
			return err
		}
		if status == http.StatusForbidden || status == http.StatusNotFound {
			return d.serviceErrorPage(w, r, c, err, c.appPath(app.ID), "Back to the app")
		}
		return d.showAppForm(w, r, c, app, f, status, msg)
	}
	seeOther(w, c.appPath(app.ID)+"?done=saved")
	return nil
}

// showAppForm writes the create form (app nil) or the edit form of app
// with f's values and errors, msg on top.
func (d *dashboard) showAppForm(w http.ResponseWriter, r *http.Request, c *dashCtx, app *linking.App, f *appForm, status int, msg string) error {
	field := func(name, label, typ, hint string, max int) web.FormField {
		return web.FormField{Name: name, Label: label, Type: typ, Value: f.values[name], Error: f.errs[name], Hint: hint, MaxLength: max}
	}
	name := field(linking.FieldAppName, "Name", "text", "Shown in the dashboard; a new app's subdomain is made from it.", linking.MaxAppNameLength)
	name.Required = true
	form := &web.Form{Submit: "Create the app", Cancel: c.base + "/apps", Action: c.base + "/apps", Invalid: len(f.errs) > 0,
		Groups: []web.FieldGroup{
			{Legend: "App", Fields: []web.FormField{name}},
			{Legend: "iOS", Fields: []web.FormField{
				field(linking.FieldIOSBundleID, "Bundle ID", "text", "In reverse-domain notation, such as com.example.shop. With the team ID, the apple-app-site-association file needs it.", linking.MaxBundleIDLength),
				field(linking.FieldIOSTeamID, "Team ID", "text", "The 10 letters and digits of your Apple developer team, such as ABCDE12345.", linking.TeamIDLength),
				field(linking.FieldIOSAppStoreID, "App Store ID", "text", "The app's number on the App Store, such as 1234567890.", linking.MaxAppStoreIDLength),
				field(linking.FieldIOSAppStoreURL, "App Store URL", "url", "Where iPhone visitors go when a link has no iOS fallback.", 0),
				field(linking.FieldIOSUniversalLinkPaths, "Universal link paths", "textarea", "One path pattern a line, such as /products/*, at most 50. Empty: every path opens the app.", 0),
			}},
			{Legend: "Android", Fields: []web.FormField{
				field(linking.FieldAndroidPackageName, "Package name", "text", "A Java package name, such as com.example.shop. With a fingerprint, the assetlinks.json file needs it.", linking.MaxPackageNameLength),
				field(linking.FieldAndroidSHA256Fingerprints, "SHA-256 certificate fingerprints", "textarea", "One a line, at most 20: 32 pairs of hex digits joined by colons (AA:BB:…), of each key that signs the app.", 0),
				field(linking.FieldAndroidPlayStoreURL, "Play Store URL", "url", "Where Android visitors go when a link has no Android fallback.", 0),
				field(linking.FieldAndroidAppLinksPaths, "App links paths", "textarea", "One path pattern a line, such as /products/*, at most 50.", 0),
			}},
		}}
	title := "Create an app"
	if app != nil {
		title = "Edit " + app.Name
		form.Submit, form.Cancel, form.Action = "Save the changes", c.appPath(app.ID), c.appPath(app.ID)
	}
	return d.render(w, r, c, status, web.PageDashboardForm, web.DashboardView{
		Frame: web.Frame{Title: title, Error: msg}, Nav: c.nav("Apps"), Form: form})
}
