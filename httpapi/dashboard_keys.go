package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/web"
)

// The dashboard's key pages, under /dashboard/o/{org_id}/keys:
//
//   - GET  /keys               the keys the member may see, and the create form
//   - POST /keys               creates a key and shows its raw value, once
//   - GET  /keys/{id}/revoke   the confirmation; POST with confirm=yes revokes
//
// They call auth.Keys as /v1/keys does, with the member's principal, and
// record the same audit events with the user as the actor. The raw key is
// in the body of the POST's answer only (never in a URL), which the
// dashboard's headers forbid caches to keep.
func (d *dashboard) keyRoutes(root routes) {
	if d.a.opts.Keys == nil {
		return
	}
	const base = "/dashboard/o/:org/keys"
	root.handle(http.MethodGet, base, d.orgPage(d.keysPage))
	root.handle(http.MethodPost, base, d.orgPage(d.createDashKey))
	root.handle(http.MethodGet, base+"/:id/revoke", d.orgPage(d.confirmRevokeKey))
	root.handle(http.MethodPost, base+"/:id/revoke", d.orgPage(d.revokeDashKey))
}

// hasKeys reports whether c's member is offered the key pages.
func (d *dashboard) hasKeys(c *dashCtx) bool {
	if d.a.opts.Keys == nil {
		return false
	}
	return c.may(auth.ScopeKeysRead, auth.ActKeysRead)
}

// keyListPageSize is the key list's page size, as the links list's.
const keyListPageSize = linkListPageSize

// keysPage answers GET /keys: page (1 to maxLinkListPage) and done. A bad
// page number is a 400 page that shows the first page.
func (d *dashboard) keysPage(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	f, err := d.keyForm(req.Request, c)
	if err != nil {
		return err
	}
	q := req.URL.Query()
	notice := ""
	if q.Get("done") == "revoked" {
		notice = "The key was revoked: its next use is refused."
	}
	page := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLinkListPage {
			v, err := d.keysView(req.Request, c, f, 1)
			if err != nil {
				return d.serviceError(w, req.Request, c, err)
			}
			v.Error = "The page must be a number from 1 to " + strconv.Itoa(maxLinkListPage) + "."
			return d.render(w, req.Request, c, http.StatusBadRequest, web.PageDashboardKeys, *v)
		}
		page = n
	}
	return d.showKeys(w, req.Request, c, http.StatusOK, f, notice, page)
}

// showKeys writes page of the key list with create form f (nil when the
// role may not create keys).
func (d *dashboard) showKeys(w http.ResponseWriter, r *http.Request, c *dashCtx, status int, f *web.KeyForm, notice string, page int) error {
	v, err := d.keysView(r, c, f, page)
	if err != nil {
		return d.serviceError(w, r, c, err)
	}
	v.Notice = notice
	return d.render(w, r, c, status, web.PageDashboardKeys, *v)
}

// keysView is page of the key list, twenty keys a page. The service lists
// every key the member may see at once, as GET /v1/keys does (an
// organization has few), and the page shows its share of them.
func (d *dashboard) keysView(r *http.Request, c *dashCtx, f *web.KeyForm, page int) (*web.DashboardView, error) {
	keys, err := d.a.opts.Keys.List(r.Context(), c.p)
	if err != nil {
		return nil, err
	}
	list := &web.KeyList{Create: f, Own: auth.ReachOf(c.m.Role, auth.ActKeysRead) == auth.Own, Total: len(keys)}
	pageURL := func(n int) string { return c.base + "/keys?page=" + strconv.Itoa(n) }
	offset := (page - 1) * keyListPageSize
	if page > 1 {
		list.Prev, list.First = pageURL(page-1), pageURL(1)
	}
	if offset+keyListPageSize < len(keys) && page < maxLinkListPage {
		list.Next = pageURL(page + 1)
	}
	keys = keys[min(offset, len(keys)):min(offset+keyListPageSize, len(keys))]
	if len(keys) > 0 {
		list.From, list.To = offset+1, offset+len(keys)
	}
	reach, err := c.p.Authorize(auth.ScopeKeysWrite, auth.ActKeysWrite)
	canRevoke := err == nil
	for _, k := range keys {
		row := web.KeyRow{Name: k.Name, Type: keyTypeName(k.Type), Prefix: k.Prefix, Scopes: scopeList(k.Scopes),
			Created: k.CreatedAt.UTC().Format(dashDate)}
		if k.ExpiresAt != nil {
			row.Expires = k.ExpiresAt.UTC().Format(dashDate)
		}
		if k.LastUsedAt != nil {
			row.LastUsed = k.LastUsedAt.UTC().Format(dashDate)
		}
		if canRevoke && (reach == auth.All || c.p.Owns(k.CreatedBy)) {
			row.RevokePath = c.base + "/keys/" + k.ID.String() + "/revoke"
		}
		list.Rows = append(list.Rows, row)
	}
	return &web.DashboardView{Frame: web.Frame{Title: "API and SDK keys"}, Nav: c.nav("Keys"), Keys: list}, nil
}

// dashDate is how the dashboard writes an instant.
const dashDate = "2006-01-02 15:04 UTC"

func keyTypeName(t auth.KeyType) string {
	if t == auth.KeyTypeSDK {
		return "SDK"
	}
	return "API"
}

func scopeList(scopes []auth.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ", ")
}

// keyForm returns an empty create form for c's member, or nil when the role
// may not create keys. Its scopes are those the role may grant
// (dashboardPrincipal holds exactly those), attribution:write aside: it
// belongs to SDK keys.
func (d *dashboard) keyForm(r *http.Request, c *dashCtx) (*web.KeyForm, error) {
	if _, err := c.p.Authorize(auth.ScopeKeysWrite, auth.ActKeysWrite); err != nil {
		return nil, nil
	}
	f := &web.KeyForm{Action: c.base + "/keys", Type: string(auth.KeyTypeAPI)}
	for _, s := range auth.RequestableScopes {
		if s != auth.ScopeAttributionWrite && c.p.Scopes.Has(s) {
			f.Scopes = append(f.Scopes, web.ScopeChoice{Permission: web.DescribeScope(string(s))})
		}
	}
	if d.a.opts.Apps != nil {
		limit := 100
		apps, err := d.a.opts.Apps.List(r.Context(), c.p, linking.ListAppsInput{Limit: &limit})
		if err != nil && errcode.CodeOf(err) != errcode.Forbidden {
			return nil, err
		}
		if apps != nil {
			for _, a := range apps.Data {
				f.Apps = append(f.Apps, web.Option{Value: a.ID.String(), Label: a.Name})
			}
		}
	}
	return f, nil
}

// createDashKey answers POST /keys: name, type (api or sdk), scopes (one
// field per scope), expires_at (datetime-local, UTC) and app_id. The answer
// is the page with the raw key; a refused form is the list with the form
// as typed and its errors.
func (d *dashboard) createDashKey(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	r := req.Request
	f, err := d.keyForm(r, c)
	if err != nil {
		return err
	}
	if f == nil {
		return d.message(w, r, c, http.StatusForbidden, "Not allowed", "Your role may not create keys.", c.base+"/links", "Back to the links")
	}
	form := r.PostForm
	f.Name, f.Type, f.Expires, f.AppID = form.Get("name"), form.Get("type"), form.Get("expires_at"), form.Get("app_id")
	in := auth.CreateKeyInput{Name: strings.TrimSpace(f.Name), Type: auth.KeyType(f.Type)}
	chosen := form["scopes"]
	if len(chosen) > len(auth.AllScopes) {
		chosen = chosen[:len(auth.AllScopes)]
	}
	if in.Type != auth.KeyTypeSDK {
		for _, s := range chosen {
			in.Scopes = append(in.Scopes, auth.Scope(s))
		}
	}
	for i := range f.Scopes {
		for _, s := range chosen {
			if s == f.Scopes[i].Scope {
				f.Scopes[i].Checked = true
			}
		}
	}
	if v := strings.TrimSpace(f.Expires); v != "" {
		t, ok := parseFormTime(v)
		if !ok {
			f.ExpiresError = "Must be a date and time, such as 2030-01-31T18:00 (UTC)."
		} else {
			in.ExpiresAt = &t
		}
	}
	if v := strings.TrimSpace(f.AppID); v != "" {
		id, err := uuid.Parse(v)
		if err != nil {
			f.AppError = "Choose one of the apps."
		} else {
			in.AppID = &id
		}
	}
	if f.ExpiresError != "" || f.AppError != "" {
		f.Invalid = true
		return d.showKeys(w, r, c, http.StatusBadRequest, f, "", 1)
	}
	k, err := d.a.opts.Keys.Create(r.Context(), c.p, in)
	if err != nil {
		e, coded := errcode.As(err)
		if !coded || e.Code != errcode.ValidationError {
			return d.serviceError(w, r, c, err)
		}
		for _, fe := range e.Fields {
			msg := sentence(fe.Message)
			switch fe.Field {
			case "name":
				f.NameError += msg
			case "type":
				f.TypeError += msg
			case "scopes":
				f.ScopesError += msg
			case "expires_at":
				f.ExpiresError += msg
			case "app_id":
				f.AppError += msg
			default:
				f.NameError += sentence(fe.Field + " " + fe.Message)
			}
		}
		if len(e.Fields) == 0 {
			f.NameError = sentence(e.Message)
		}
		f.Invalid = true
		return d.showKeys(w, r, c, http.StatusBadRequest, f, "", 1)
	}
	d.recordUserEvent(r, c, keyCreatedEvent(k))
	return d.render(w, r, c, http.StatusCreated, web.PageDashboardKeyCreated, web.DashboardView{
		Frame: web.Frame{Title: "Key created"}, Nav: c.nav("Keys"),
		NewKey: &web.NewKey{Name: k.Name, Raw: k.RawKey, Scopes: scopeList(k.Scopes), ListPath: c.base + "/keys"}})
}

// parseFormTime reads a datetime-local value (or RFC 3339) as UTC.
func parseFormTime(v string) (time.Time, bool) {
	for _, layout := range []string{formTime, formTime + ":05", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// recordUserEvent records e as the API records it, with the signed-in user
// as the actor.
func (d *dashboard) recordUserEvent(r *http.Request, c *dashCtx, e audit.Event) {
	user := c.who.User.ID
	e.ActorType, e.ActorID = audit.ActorUser, &user
	if e.OrgID == nil {
		org := c.m.OrgID
		e.OrgID = &org
	}
	d.a.recordEvent(r, e)
}

// dashKey reads key id of the path as the revoke needs it, writing the 404
// page (another organization's key, or none) or the 403 page (a key the
// role may not revoke) and returning nil.
func (d *dashboard) dashKey(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) (*auth.Key, error) {
	id, err := uuid.Parse(req.Param("id"))
	if err != nil {
		return nil, d.keyNotFound(w, req.Request, c)
	}
	k, err := d.a.opts.Keys.Get(req.Context(), c.p, id)
	if errcode.CodeOf(err) == errcode.NotFound {
		return nil, d.keyNotFound(w, req.Request, c)
	}
	if err == nil {
		_, err = c.p.Authorize(auth.ScopeKeysWrite, auth.ActKeysWrite)
	}
	if err != nil {
		return nil, d.serviceError(w, req.Request, c, err)
	}
	return k, nil
}

func (d *dashboard) keyNotFound(w http.ResponseWriter, r *http.Request, c *dashCtx) error {
	return d.message(w, r, c, http.StatusNotFound, "Not found", "There is no such key in this organization.", c.base+"/keys", "Back to the keys")
}

// confirmRevokeKey answers GET /keys/{id}/revoke.
func (d *dashboard) confirmRevokeKey(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	k, err := d.dashKey(w, req, c)
	if k == nil || err != nil {
		return err
	}
	return d.showConfirmRevoke(w, req.Request, c, k, http.StatusOK, "")
}

func (d *dashboard) showConfirmRevoke(w http.ResponseWriter, r *http.Request, c *dashCtx, k *auth.Key, status int, msg string) error {
	list := c.base + "/keys"
	return d.render(w, r, c, status, web.PageDashboardConfirm, web.DashboardView{
		Frame: web.Frame{Title: "Revoke " + k.Name + "?", Error: msg}, Nav: c.nav("Keys"),
		Confirm: &web.Confirm{Action: list + "/" + k.ID.String() + "/revoke", Cancel: list,
			Question: "Revoking the " + keyTypeName(k.Type) + " key " + k.Name + " (" + k.Prefix + "…) refuses its next use for good: every script or app that sends it stops working.",
			Check:    "I understand that the key cannot be brought back", Button: "Revoke the key"}})
}

// revokeDashKey answers POST /keys/{id}/revoke, which needs confirm=yes.
func (d *dashboard) revokeDashKey(w http.ResponseWriter, req bunrouter.Request, c *dashCtx) error {
	k, err := d.dashKey(w, req, c)
	if k == nil || err != nil {
		return err
	}
	if req.PostForm.Get("confirm") != "yes" {
		return d.showConfirmRevoke(w, req.Request, c, k, http.StatusBadRequest, "Tick the box to confirm that the key is to be revoked.")
	}
	if err := d.a.opts.Keys.Revoke(req.Context(), c.p, k.ID); err != nil {
		return d.serviceError(w, req.Request, c, err)
	}
	d.recordUserEvent(req.Request, c, idEvent(audit.KeyRevoked, "key", k.ID))
	seeOther(w, c.base+"/keys?done=revoked")
	return nil
}
