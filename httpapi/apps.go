package httpapi

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/strictjson"
)

// appRoutes registers the /apps endpoints on v1.
func (a *API) appRoutes(v1 routes) {
	v1.handle(http.MethodPost, "/apps", a.createApp)
	v1.handle(http.MethodGet, "/apps", a.listApps)
	v1.handle(http.MethodGet, "/apps/:id", a.getApp)
	v1.handle(http.MethodPatch, "/apps/:id", a.updateApp)
	v1.handle(http.MethodDelete, "/apps/:id", a.deleteApp)
	v1.handle(http.MethodPut, "/apps/:id/default-link-domain", a.putDefaultLinkDomain)
	v1.handle(http.MethodGet, "/apps/:id/subdomain", a.getSubdomain)
	v1.handle(http.MethodPut, "/apps/:id/subdomain", a.putSubdomain)
	v1.handle(http.MethodPost, "/apps/:id/subdomain/extend", a.extendSubdomain)
}

func (a *API) createApp(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in linking.AppInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	app, err := a.opts.Apps.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, app)
	return nil
}

func (a *API) listApps(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset", "search")
	in := linking.ListAppsInput{
		Limit:  q.integer("limit"),
		Offset: q.integer("offset"),
		Search: q.str("search"),
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Apps.List(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (a *API) getApp(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	app, err := a.opts.Apps.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, app)
	return nil
}

func (a *API) updateApp(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	var in linking.AppInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	app, err := a.opts.Apps.Update(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, app)
	return nil
}

func (a *API) deleteApp(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	app, err := a.opts.Apps.Delete(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, app)
	return nil
}

// putDefaultLinkDomain answers PUT /v1/apps/{id}/default-link-domain.
func (a *API) putDefaultLinkDomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	var in linking.DefaultLinkDomainInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	app, err := a.opts.Apps.SetDefaultLinkDomain(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, app)
	return nil
}

// getSubdomain answers GET /v1/apps/{id}/subdomain.
func (a *API) getSubdomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	st, err := a.opts.Apps.Subdomain(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// putSubdomain answers PUT /v1/apps/{id}/subdomain, and writes the rename
// to the audit log, attributed to the member who created the key.
func (a *API) putSubdomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	var in linking.RenameInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	p := principal(req)
	st, err := a.opts.Apps.Rename(req.Context(), p, id, in)
	if err != nil {
		return err
	}
	a.recordEvent(req.Request, appRenamedEvent(p, id, st))
	writeJSON(w, http.StatusOK, st)
	return nil
}

// appRenamedEvent is the audit event of p's rename of app id to st,
// attributed to the member behind p (a rename needs one), with the
// credential's id, the new handle and both subdomains.
func appRenamedEvent(p *auth.Principal, id uuid.UUID, st *linking.SubdomainState) audit.Event {
	prev := ""
	if st.PreviousLinkDomain != nil {
		prev = *st.PreviousLinkDomain
	}
	return audit.Event{OrgID: &p.OrgID, Action: audit.AppRenamed,
		ActorType: audit.ActorUser, ActorID: p.CreatedBy, TargetType: "app", TargetID: id.String(),
		Details: map[string]string{"key_id": p.KeyID.String(), "handle": st.Handle,
			"link_domain": st.LinkDomain, "previous_link_domain": prev}}
}

// extendSubdomain answers POST /v1/apps/{id}/subdomain/extend.
func (a *API) extendSubdomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	st, err := a.opts.Apps.Extend(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
