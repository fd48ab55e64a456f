package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/web"
)

// The dashboard (docs/dashboard.md; decisions in docs/decisions.md): the
// pages of a signed-in member under /dashboard, beside the account pages
// and with their session cookie, CSRF tokens, form limits and layout.
//
//   - GET /dashboard sends a member of one organization to its links and
//     lets a member of several choose (?org={id} chooses, for the
//     switcher's form); a user of no organization is told how to join one.
//   - Every page of an organization is under /dashboard/o/{org_id}. The
//     organization in the URL is never trusted: the user's memberships are
//     read on every request, and an organization the user is not a member
//     of is 404, as a resource of another organization is in the API.
//   - Each request acts as the principal of the member's current role
//     (dashboardPrincipal), through the services the API calls, so that a
//     page can do nothing the API refuses to a key that member created.
//
// Every POST carries the form's CSRF token, checked before anything else;
// a destructive action needs its confirm field, which its confirmation
// page's checkbox sends.

// dashboardFormMaxBytes bounds a dashboard form's body: a link's form
// carries up to four URLs, previews, tags and a parameter configuration.
const dashboardFormMaxBytes = 64 << 10

// dashboard serves the dashboard's pages.
type dashboard struct {
	p *accountPages
	a *API
}

// dashboardRoutes registers the dashboard on root; the API calls it when it
// serves links.
func (p *accountPages) dashboardRoutes(root routes) {
	d := &dashboard{p: p, a: p.a}
	root.handle(http.MethodGet, "/dashboard", d.page(d.home))
	root.handle(http.MethodGet, "/dashboard/o/:org", d.orgPage(d.orgHome))
	d.linkRoutes(root)
	d.analyticsRoutes(root)
	d.keyRoutes(root)
	d.teamRoutes(root)
	d.appRoutes(root)
	d.domainRoutes(root)
	d.installRoutes(root)
	d.auditRoutes(root)
	d.settingsRoutes(root)
}

// dashCtx is what an organization's page knows of its request.
type dashCtx struct {
	who *account.Authenticated
	// orgs are the user's memberships; m the one of the page's organization.
	orgs []account.Membership
	m    account.Membership
	// p acts for the member (dashboardPrincipal).
	p *auth.Principal
	// base is the organization's path, /dashboard/o/{org_id}.
	base string
	// analytics and keys say that the member is offered the analytics and
	// the key pages.
	analytics, keys bool
	// team says that the member is offered the team page.
	team bool
	// apps and domains say that the member is offered the app and the
	// custom-domain pages.
	apps, domains bool
	// installs, audit and settings say that the member is offered the
	// installs and attempts, the audit log and the settings pages.
	installs, audit, settings bool
}

// may reports whether c's member may do act with scope: what the member
// may not do is not offered.
func (c *dashCtx) may(scope auth.Scope, act auth.Action) bool {
	_, err := c.p.Authorize(scope, act)
	return err == nil
}

// dashboardPrincipal is the principal of member m, signed in with session
// who: the user as the creator, the member's current role, and every
// requestable scope that role may hold (auth.RoleGrants), exactly the
// widest key the member could create. KeyID is the session's id, which
// names the credential as a key id names a key.
func dashboardPrincipal(who *account.Authenticated, m account.Membership) *auth.Principal {
	var scopes []auth.Scope
	for _, s := range auth.RequestableScopes {
		if auth.RoleGrants(m.Role, s) {
			scopes = append(scopes, s)
		}
	}
	user := who.User.ID
	return &auth.Principal{
		KeyID:     who.Session.ID,
		OrgID:     m.OrgID,
		Type:      auth.KeyTypeAPI,
		Scopes:    auth.NewScopeSet(scopes),
		CreatedBy: &user,
		Role:      m.Role,
	}
}

// page adapts a dashboard handler: the dashboard's security headers, and an
// unexpected error becomes the error page.
func (d *dashboard) page(h func(w http.ResponseWriter, req bunrouter.Request) error) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		web.SetHeaders(w.Header(), web.DashboardPolicy)
		if err := h(w, req); err != nil {
			if !errors.Is(err, context.Canceled) {
				d.a.log.ErrorContext(req.Context(), "serving a dashboard page", "route", req.Route(), "err", err)
			}
			d.p.renderMessage(w, req.Request, http.StatusInternalServerError, web.MessageView{
				Frame: web.Frame{Title: "Something went wrong", Error: "Something went wrong on our side. Please try again."},
				Link:  "/dashboard", LinkText: "Back to the dashboard"})
		}
		return nil
	}
}

// user returns the signed-in user, or sends the browser to sign in (and
// back here afterwards: a GET's path and query, the dashboard after a
// POST) or to enrol in two-factor authentication first, and returns nil.
func (d *dashboard) user(w http.ResponseWriter, r *http.Request) (*account.Authenticated, error) {
	who, err := d.p.signedIn(r)
	if err != nil {
		return nil, err
	}
	back := "/dashboard"
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if s := SafeReturnTo(r.URL.RequestURI()); s != "" {
			back = s
		}
	}
	if who == nil {
		d.p.clearSession(w)
		seeOther(w, "/login?"+url.Values{ReturnToField: {back}}.Encode())
		return nil, nil
	}
	if who.EnrolmentRequired {
		seeOther(w, "/account/2fa?"+url.Values{ReturnToField: {back}}.Encode())
		return nil, nil
	}
	return who, nil
}

// home answers GET /dashboard.
func (d *dashboard) home(w http.ResponseWriter, req bunrouter.Request) error {
	r := req.Request
	who, err := d.user(w, r)
	if who == nil || err != nil {
		return err
	}
	ms, err := d.p.accounts.Memberships(r.Context(), who.User.ID)
	if err != nil {
		return err
	}
	c := &dashCtx{who: who, orgs: ms}
	if chosen := r.URL.Query().Get("org"); chosen != "" {
		for _, m := range ms {
			if m.OrgID.String() == chosen {
				seeOther(w, orgPath(m.OrgID)+"/links")
				return nil
			}
		}
		return d.notFound(w, r, c, "You are not a member of that organization, or it does not exist.")
	}
	if len(ms) == 1 {
		seeOther(w, orgPath(ms[0].OrgID)+"/links")
		return nil
	}
	title := "Choose an organization"
	if len(ms) == 0 {
		title = "Dashboard"
	}
	return d.render(w, r, c, http.StatusOK, web.PageDashboardOrgs, web.DashboardView{Frame: web.Frame{Title: title}})
}

// orgHome answers GET /dashboard/o/{org_id}: its first section.
func (d *dashboard) orgHome(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	seeOther(w, c.base+"/links")
	return nil
}

func orgPath(id uuid.UUID) string { return "/dashboard/o/" + id.String() }

// orgPage adapts the handler of an organization's page: the user signed in,
// a member of the organization in the path (else 404), and, for a POST, a
// form of at most dashboardFormMaxBytes with a valid CSRF token (else 403).
func (d *dashboard) orgPage(h func(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error) bunrouter.HandlerFunc {
	return d.page(func(w http.ResponseWriter, req bunrouter.Request) error {
		r := req.Request
		who, err := d.user(w, r)
		if who == nil || err != nil {
			return err
		}
		ms, err := d.p.accounts.Memberships(r.Context(), who.User.ID)
		if err != nil {
			return err
		}
		c := &dashCtx{who: who, orgs: ms}
		id, err := uuid.Parse(req.Param("org"))
		found := false
		if err == nil {
			for _, m := range ms {
				if m.OrgID == id {
					c.m, found = m, true
				}
			}
		}
		if !found {
			return d.notFound(w, r, c, "You are not a member of that organization, or it does not exist.")
		}
		c.p = dashboardPrincipal(who, c.m)
		c.base = orgPath(c.m.OrgID)
		c.analytics = d.hasAnalytics(c)
		c.keys = d.hasKeys(c)
		c.team = d.hasTeam(c)
		c.apps = d.hasApps(c)
		c.domains = d.hasDomains(c)
		c.installs = d.hasInstalls(c)
		c.audit = d.hasAudit(c)
		c.settings = d.hasSettings(c)
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, dashboardFormMaxBytes)
			if err := r.ParseForm(); err != nil {
				return d.message(w, r, c, http.StatusBadRequest, "The form could not be read", msgPageBadForm, c.base+"/links", "Back to the links")
			}
			if !d.p.validCSRF(r) {
				return d.message(w, r, c, http.StatusForbidden, "The form has expired", msgPageBadToken, c.base+"/links", "Back to the links")
			}
		}
		return h(w, req, c)
	})
}

// nav returns the sections offered to c's member, section current marked.
// A section whose pages are not built yet is absent, not a dead link.
func (c *dashCtx) nav(current string) []web.NavItem {
	items := []web.NavItem{{Label: "Links", Path: c.base + "/links"}}
	if c.analytics {
		items = append(items, web.NavItem{Label: "Analytics", Path: c.analyticsPath(nil)})
	}
	if c.apps {
		items = append(items, web.NavItem{Label: "Apps", Path: c.base + "/apps"})
	}
	if c.domains {
		items = append(items, web.NavItem{Label: "Domains", Path: c.base + "/domains"})
	}
	if c.keys {
		items = append(items, web.NavItem{Label: "Keys", Path: c.base + "/keys"})
	}
	if c.team {
		items = append(items, web.NavItem{Label: "Team", Path: c.teamPath()})
	}
	if c.installs {
		items = append(items, web.NavItem{Label: "Installs", Path: c.base + "/installs"})
	}
	if c.audit {
		items = append(items, web.NavItem{Label: "Audit log", Path: c.base + "/audit"})
	}
	if c.settings {
		items = append(items, web.NavItem{Label: "Settings", Path: c.base + "/settings"})
	}
	for i := range items {
		items[i].Current = items[i].Label == current
	}
	return items
}

// render fills v's shell (the user, the switcher, the form token) and
// writes page name.
func (d *dashboard) render(w http.ResponseWriter, r *http.Request, c *dashCtx, status int, name string, v web.DashboardView) error {
	if err := d.p.withCSRF(w, r, func(token string) { v.CSRF = token }); err != nil {
		return err
	}
	v.Email = c.who.User.Email
	for _, m := range c.orgs {
		o := web.DashboardOrg{ID: m.OrgID.String(), Name: m.OrgName, Role: string(m.Role)}
		v.Orgs = append(v.Orgs, o)
		if c.p != nil && m.OrgID == c.m.OrgID {
			v.Org = o
		}
	}
	if err := web.Render(w, r, status, name, v); err != nil {
		return err
	}
	return nil
}

// message writes the dashboard's message page: a title, an error and a
// link onwards.
func (d *dashboard) message(w http.ResponseWriter, r *http.Request, c *dashCtx, status int, title, msg, onward, onwardText string) error {
	v := web.DashboardView{Frame: web.Frame{Title: title, Error: msg}, Onward: onward, OnwardText: onwardText}
	if c.p != nil {
		v.Nav = c.nav("")
	}
	return d.render(w, r, c, status, web.PageDashboardMessage, v)
}

// notFound writes the 404 page.
func (d *dashboard) notFound(w http.ResponseWriter, r *http.Request, c *dashCtx, msg string) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", msg, "/dashboard", "Back to the dashboard")
}
