package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/web"
)

// The audit log page, GET /dashboard/o/{org_id}/audit: the organization's
// events as GET /v1/audit-events lists them (audit.Service.List, with the
// member's principal: owners and admins only), newest first, in a window
// (from, to: datetime-local, UTC) and pages through the API's cursors, with
// back cursors for Previous as on the installs pages. Each event says who
// acted (a member's email, a key's name, the operator or the service
// itself), what was done in words, and to what.

// auditPageSize is how many events a page shows.
const auditPageSize = 50

// auditActions say each audit action in words.
var auditActions = map[audit.Action]string{
	audit.SignInSucceeded:   "Signed in",
	audit.SignInFailed:      "Failed to sign in",
	audit.SignedOut:         "Signed out",
	audit.TwoFactorEnrolled: "Turned on two-factor authentication",
	audit.TwoFactorDisabled: "Turned off two-factor authentication",
	audit.BackupCodeUsed:    "Signed in with a backup code",
	audit.PasswordChanged:   "Changed their password",
	audit.SessionRevoked:    "Signed a session out",
	audit.PolicyChanged:     "Changed the security policy",
	audit.KeyCreated:        "Created a key",
	audit.KeyRevoked:        "Revoked a key",
	audit.MemberAdded:       "Added a member",
	audit.MemberRemoved:     "Removed a member",
	audit.RoleChanged:       "Changed a member's role",
	audit.OrgDeleted:        "Deleted the organization",
	audit.AppRenamed:        "Renamed an app's subdomain",
	audit.WebhookDisabled:   "Turned off a webhook endpoint that kept failing",
}

func (d *dashboard) auditRoutes(root routes) {
	if d.a.opts.Audit == nil {
		return
	}
	root.handle(http.MethodGet, "/dashboard/o/:org/audit", d.orgPage(d.auditPage))
}

// hasAudit reports whether c's member is offered the audit log.
func (d *dashboard) hasAudit(c *dashCtx) bool {
	if d.a.opts.Audit == nil {
		return false
	}
	return c.may(auth.ScopeOrgRead, auth.ActAuditRead)
}

// auditPage answers GET /audit.
func (d *dashboard) auditPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	path := c.base + "/audit"
	q := r.URL.Query()
	f := &recordFilter{from: q.Get("from"), to: q.Get("to"), cursor: q.Get("cursor")}
	list := &web.AuditList{Path: path, From: f.from, To: f.to, Filtered: f.filtered()}
	view := web.DashboardView{Frame: web.Frame{Title: "Audit log"}, Nav: c.nav("Audit log"), Audit: list}
	refuse := func(status int, msg string) error {
		view.Error = msg
		if f.cursor != "" {
			list.First = path
		}
		return d.render(w, r, c, status, web.PageDashboardAudit, view)
	}
	if !c.audit {
		list.From, list.To = "", ""
		return refuse(http.StatusForbidden, "Your role does not read the audit log; owners and admins do.")
	}
	filter, bad := readListFilter(q, listParams)
	if bad != "" {
		return refuse(http.StatusBadRequest, bad)
	}
	f = filter
	list.From, list.To = f.from, f.to
	in := audit.Query{Limit: auditPageSize, Cursor: f.cursor}
	var msgs []string
	for _, v := range []struct {
		label, value string
		dst          **time.Time
	}{{"From", f.from, &in.From}, {"To", f.to, &in.To}} {
		if v.value == "" {
			continue
		}
		t, ok := parseFormTime(v.value)
		if !ok {
			msgs = append(msgs, v.label+" must be a date and time, such as 2030-01-31T18:00 (UTC).")
			continue
		}
		*v.dst = &t
	}
	if len(msgs) > 0 {
		return refuse(http.StatusBadRequest, strings.Join(msgs, " "))
	}
	page, err := d.a.opts.Audit.List(r.Context(), c.p, in)
	if err != nil {
		status, msg, ok := listRefusal(err)
		if !ok {
			return err
		}
		return refuse(status, msg)
	}
	names, err := d.auditNames(r, c)
	if err != nil {
		return err
	}
	for i := range page.Events {
		list.Rows = append(list.Rows, names.row(&page.Events[i]))
	}
	list.Prev, list.Next, list.First = f.pager(path, page.NextCursor)
	return d.render(w, r, c, http.StatusOK, web.PageDashboardAudit, view)
}

// auditNames names the actors and targets of events: the organization's
// members and keys as they are now.
type auditNames struct {
	users map[uuid.UUID]string
	keys  map[uuid.UUID]string
}

// auditNames reads the members (the team's list, or the organization's
// members) and the keys c's member sees.
func (d *dashboard) auditNames(r *http.Request, c *dashCtx) (*auditNames, error) {
	n := &auditNames{users: map[uuid.UUID]string{}, keys: map[uuid.UUID]string{}}
	switch {
	case d.a.opts.Team != nil:
		for offset := 0; ; offset += apitype.MaxPageLimit {
			limit, off := apitype.MaxPageLimit, offset
			page, err := d.a.opts.Team.List(r.Context(), c.p, &limit, &off)
			if err != nil {
				return nil, err
			}
			for _, m := range page.Data {
				n.users[m.UserID] = m.Email
			}
			if !page.Pagination.HasMore {
				break
			}
		}
	case d.a.opts.Orgs != nil:
		ms, err := d.a.opts.Orgs.Members(r.Context(), c.m.OrgID)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			n.users[m.UserID] = m.Email
		}
	}
	if d.a.opts.Keys != nil {
		if keys, err := d.a.opts.Keys.List(r.Context(), c.p); err == nil {
			for _, k := range keys {
				n.keys[k.ID] = k.Name
			}
		}
	}
	return n, nil
}

// row is event e as the log shows it.
func (n *auditNames) row(e *audit.Event) web.AuditRow {
	row := web.AuditRow{When: e.OccurredAt.UTC().Format(recordTime), Actor: n.actor(e), Target: n.target(e)}
	if s, ok := auditActions[e.Action]; ok {
		row.Action = s
	} else {
		row.Action = string(e.Action)
	}
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		row.Details = append(row.Details, strings.ReplaceAll(k, "_", " ")+": "+e.Details[k])
	}
	var client []string
	if e.IP != "" {
		client = append(client, e.IP)
	}
	if e.UserAgent != "" {
		client = append(client, browserName(e.UserAgent))
	}
	row.Client = strings.Join(client, ", ")
	return row
}

// actor says who acted in e.
func (n *auditNames) actor(e *audit.Event) string {
	switch e.ActorType {
	case audit.ActorUser:
		if e.ActorID != nil {
			if email, ok := n.users[*e.ActorID]; ok {
				return email
			}
		}
		return "A former member"
	case audit.ActorKey:
		if e.ActorID != nil {
			if name, ok := n.keys[*e.ActorID]; ok {
				return "The key " + name
			}
		}
		return "A key since revoked"
	case audit.ActorOperator:
		return "The operator (command line)"
	case audit.ActorAnonymous:
		return "Someone not signed in"
	case audit.ActorSystem:
		return "Hoplink itself"
	}
	return string(e.ActorType)
}

// target says what e was done to; "" when the actor acted on itself.
func (n *auditNames) target(e *audit.Event) string {
	id, err := uuid.Parse(e.TargetID)
	switch e.TargetType {
	case "":
		return ""
	case "user":
		if err == nil {
			if email, ok := n.users[id]; ok {
				return email
			}
		}
		return "a former member"
	case "key":
		if err == nil {
			if name, ok := n.keys[id]; ok {
				return "key " + name
			}
		}
		if name := e.Details["name"]; name != "" {
			return "key " + name
		}
		return "a key since revoked"
	case "organization":
		return "the organization"
	case "session":
		return "a session"
	}
	return e.TargetType + " " + e.TargetID
}
