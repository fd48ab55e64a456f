package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/web"
)

// The organization's settings page, under /dashboard/o/{org_id}:
//
//   - GET  /settings             the organization, its plan and usage, its
//     parameter defaults and its security policy
//   - POST /settings/parameters  replaces the parameter defaults
//   - POST /settings/security    replaces the security policy
//
// Every role reads the page (org:read). The parameter defaults are changed
// through org.Parameters.Put as PUT /v1/organizations/{id}/parameters
// changes them (owners and admins), the policy through
// account.Service.SetPolicyFor as PUT /v1/organizations/{id}/security
// (owners only), which records security_policy.changed with the user as
// the actor. The API renames no organization and changes no plan (the
// operator's CLI does), so neither does the page.

// maxParametersJSON bounds the parameter defaults' text area; the
// service's own size limit refuses a configuration long before it.
const maxParametersJSON = 32 << 10

func (d *dashboard) settingsRoutes(root routes) {
	if d.a.opts.Orgs == nil {
		return
	}
	const base = "/dashboard/o/:org/settings"
	root.handle(http.MethodGet, base, d.orgPage(d.settingsPage))
	root.handle(http.MethodPost, base+"/parameters", d.orgPage(d.saveParameters))
	root.handle(http.MethodPost, base+"/security", d.orgPage(d.saveSecurity))
}

// hasSettings reports whether c's member is offered the settings page.
func (d *dashboard) hasSettings(c *dashCtx) bool {
	if d.a.opts.Orgs == nil {
		return false
	}
	return c.may(auth.ScopeOrgRead, auth.ActOrgRead)
}

// mayChangeParameters and mayChangeSecurity say whether c's member may
// change the parameter defaults and the security policy: the checks of the
// services that change them.
func mayChangeParameters(c *dashCtx) bool {
	return c.may(auth.ScopeLinksWrite, auth.ActOrgWrite)
}

func mayChangeSecurity(c *dashCtx) bool {
	return c.may(auth.ScopeTeamWrite, auth.ActOrgSecurity)
}

// settingsPage answers GET /settings.
func (d *dashboard) settingsPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	notice := ""
	switch req.URL.Query().Get("done") {
	case "parameters":
		notice = "The parameter defaults were saved: every link's next redirect uses them."
	case "security":
		notice = "The security policy was saved."
	}
	return d.showSettings(w, req.Request, c, http.StatusOK, notice, nil, nil)
}

// showSettings writes the settings page; params and security, when not
// nil, are forms as typed with their errors.
func (d *dashboard) showSettings(w http.ResponseWriter, r *http.Request, c *dashCtx, status int, notice string,
	pf *web.ParametersForm, sf *web.SecurityForm) error {
	if !c.settings {
		return d.notFound(w, r, c, "There are no settings to show you here.")
	}
	u, err := d.a.opts.Orgs.Usage(r.Context(), c.p, c.m.OrgID)
	if err != nil {
		return d.serviceError(w, r, c, err)
	}
	o := u.Organization
	v := &web.Settings{Name: o.Name, Slug: o.Slug, Plan: planTitle(o.Plan), Created: o.CreatedAt.UTC().Format(dashDate),
		Period: u.PeriodStart.Format(dashDate) + " to " + u.PeriodEnd.Format(dashDate), Retention: retentionText(u.Limits),
		Usage: usageRows(u)}
	if d.a.opts.Parameters != nil {
		if pf == nil {
			if pf, err = d.parametersForm(r, c); err != nil {
				return err
			}
		}
		v.Parameters = pf
	}
	if d.a.opts.Accounts != nil {
		if sf == nil {
			if sf, err = d.securityForm(r, c); err != nil {
				return err
			}
		}
		v.Security = sf
	}
	return d.render(w, r, c, status, web.PageDashboardSettings, web.DashboardView{
		Frame: web.Frame{Title: "Settings of " + o.Name, Notice: notice}, Nav: c.nav("Settings"), Settings: v})
}

// parametersForm is the parameter defaults as stored.
func (d *dashboard) parametersForm(r *http.Request, c *dashCtx) (*web.ParametersForm, error) {
	cfg, err := d.a.opts.Parameters.Get(r.Context(), c.p, c.m.OrgID)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	f := &web.ParametersForm{JSON: string(b)}
	if mayChangeParameters(c) {
		f.Action = c.base + "/settings/parameters"
	}
	return f, nil
}

// securityForm is the security policy as stored.
func (d *dashboard) securityForm(r *http.Request, c *dashCtx) (*web.SecurityForm, error) {
	p, err := d.a.opts.Accounts.PolicyFor(r.Context(), c.p, c.m.OrgID)
	if err != nil {
		return nil, err
	}
	f := newSecurityForm(c)
	f.RequireTwoFactor = p.RequireTwoFactor
	f.SessionHours = strconv.FormatInt(int64(p.SessionLifetime/time.Hour), 10)
	f.IdleMinutes = strconv.FormatInt(int64(p.IdleTimeout/time.Minute), 10)
	return f, nil
}

func newSecurityForm(c *dashCtx) *web.SecurityForm {
	f := &web.SecurityForm{
		HoursHint: "From " + strconv.Itoa(int(account.MinSessionLifetime/time.Hour)) + " to " +
			strconv.Itoa(int(account.MaxSessionLifetime/time.Hour)) + " (90 days): a member signs in again after it",
		MinutesHint: "From " + strconv.Itoa(int(account.MinIdleTimeout/time.Minute)) + " to " +
			strconv.Itoa(int(account.MaxIdleTimeout/time.Minute)) + ", at most the session lifetime: a session unused this long ends",
	}
	if mayChangeSecurity(c) {
		f.Action = c.base + "/settings/security"
	}
	return f
}

// saveParameters answers POST /settings/parameters: field parameters, the
// defaults as the API's JSON body.
func (d *dashboard) saveParameters(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if d.a.opts.Parameters == nil || !c.settings {
		return d.notFound(w, r, c, "There are no settings to show you here.")
	}
	if !mayChangeParameters(c) {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Your role may not change the parameter defaults; owners and admins may.",
			c.base+"/settings", "Back to the settings")
	}
	text := r.PostForm.Get("parameters")
	f := &web.ParametersForm{Action: c.base + "/settings/parameters", JSON: text}
	refuse := func(err error) error {
		status, msg, ok := dashboardError(err)
		if !ok {
			return err
		}
		f.Error = msg
		return d.showSettings(w, r, c, status, "", f, nil)
	}
	if len(text) > maxParametersJSON {
		f.JSON = text[:maxParametersJSON]
		return refuse(errcode.Field("parameters", "must be at most 32 KiB of JSON"))
	}
	cfg, err := params.DecodeOrgConfig([]byte(text))
	if err != nil {
		return refuse(err)
	}
	if _, err := d.a.opts.Parameters.Put(r.Context(), c.p, c.m.OrgID, cfg); err != nil {
		return refuse(err)
	}
	seeOther(w, c.base+"/settings?done=parameters")
	return nil
}

// saveSecurity answers POST /settings/security: require_two_factor (a
// checkbox), session_lifetime_hours and idle_timeout_minutes.
func (d *dashboard) saveSecurity(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	if d.a.opts.Accounts == nil || !c.settings {
		return d.notFound(w, r, c, "There are no settings to show you here.")
	}
	if !mayChangeSecurity(c) {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Your role may not change the security policy; owners may.",
			c.base+"/settings", "Back to the settings")
	}
	form := r.PostForm
	f := newSecurityForm(c)
	f.RequireTwoFactor = form.Get("require_two_factor") == "yes"
	f.SessionHours = clip(strings.TrimSpace(form.Get("session_lifetime_hours")), 20)
	f.IdleMinutes = clip(strings.TrimSpace(form.Get("idle_timeout_minutes")), 20)
	refused := func() error {
		f.Error = "The policy was not saved: see the messages below the fields."
		return d.showSettings(w, r, c, http.StatusBadRequest, "", nil, f)
	}
	hours, herr := strconv.ParseInt(f.SessionHours, 10, 64)
	minutes, merr := strconv.ParseInt(f.IdleMinutes, 10, 64)
	if herr != nil {
		f.HoursError = "Must be a whole number of hours."
	}
	if merr != nil {
		f.MinutesError = "Must be a whole number of minutes."
	}
	if herr != nil || merr != nil {
		return refused()
	}
	pol, err := securityPolicy{RequireTwoFactor: &f.RequireTwoFactor, SessionLifetimeHours: &hours, IdleTimeoutMinutes: &minutes}.policy()
	if err == nil {
		pol, err = d.a.opts.Accounts.SetPolicyFor(r.Context(), c.p, c.m.OrgID, pol)
	}
	if err != nil {
		e, coded := errcode.As(err)
		if !coded || e.Code != errcode.ValidationError {
			return d.serviceError(w, r, c, err)
		}
		for _, fe := range e.Fields {
			switch fe.Field {
			case "session_lifetime_hours":
				f.HoursError += sentence(fe.Message)
			case "idle_timeout_minutes":
				f.MinutesError += sentence(fe.Message)
			default:
				f.HoursError += sentence(fe.Field + " " + fe.Message)
			}
		}
		if len(e.Fields) == 0 {
			f.HoursError = sentence(e.Message)
		}
		return refused()
	}
	e := idEvent(audit.PolicyChanged, "organization", c.m.OrgID)
	e.Details = map[string]string{
		"require_two_factor":     strconv.FormatBool(pol.RequireTwoFactor),
		"session_lifetime_hours": strconv.FormatInt(int64(pol.SessionLifetime/time.Hour), 10),
		"idle_timeout_minutes":   strconv.FormatInt(int64(pol.IdleTimeout/time.Minute), 10),
	}
	d.recordUserEvent(r, c, e)
	seeOther(w, c.base+"/settings?done=security")
	return nil
}

// clip cuts s to at most n bytes, so that a page never echoes a huge value.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// retentionText says how long the plan keeps data and how far back it
// reads it.
func retentionText(l org.Limits) string {
	s := "Clicks, installs and attempts are kept for " + count(int(l.Retention/(24*time.Hour)), "day", "days") + "."
	if l.Lookback > 0 {
		s += " Installs, attempts and exports read the last " + count(int(l.Lookback/(24*time.Hour)), "day", "days") + "."
	}
	return s
}

// usageRows are u's limits against what is used.
func usageRows(u *org.Usage) []web.UsageRow {
	row := func(label string, used, limit int64, note string) web.UsageRow {
		r := web.UsageRow{Label: label, Used: thousands(used), Limit: thousands(limit), Note: note, Full: limit > 0 && used >= limit}
		if limit == 0 {
			r.Limit = "None on this plan"
		}
		return r
	}
	seats := int64(u.Members + u.PendingInvitations)
	return []web.UsageRow{
		row("Clicks this month", u.Clicks, int64(u.Organization.MonthlyClickLimit),
			"Clicks past the allowance are counted, not stored"),
		row("Links created this month", int64(u.Links), int64(u.Limits.LinksPerMonth), "Links created since the month began and not deleted"),
		row("Apps", int64(u.Apps), int64(u.Limits.Apps), "Every app of the organization"),
		row("Custom domains", int64(u.CustomDomains), int64(u.Limits.CustomDomains), "Verified or not"),
		row("Seats", seats, int64(u.Limits.Seats),
			count(u.Members, "member", "members")+" and "+count(u.PendingInvitations, "pending invitation", "pending invitations")),
	}
}

// thousands writes n with thousands separators: 1,000,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
