package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/strictjson"
)

// memberRoutes registers the team endpoints on v1.
func (a *API) memberRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/members", a.listMembers)
	v1.handle(http.MethodPatch, "/members/:user_id", a.updateMember)
	v1.handle(http.MethodDelete, "/members/:user_id", a.deleteMember)
}

func (a *API) listMembers(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset")
	limit, offset := q.integer("limit"), q.integer("offset")
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Team.List(req.Context(), principal(req), limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (a *API) updateMember(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "user_id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	var in org.UpdateMemberInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	m, err := a.opts.Team.UpdateRole(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	e := idEvent(audit.RoleChanged, "user", id)
	e.Details = map[string]string{"role": string(m.Role)}
	a.recordKeyEvent(req, e)
	writeJSON(w, http.StatusOK, m)
	return nil
}

func (a *API) deleteMember(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "user_id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	m, err := a.opts.Team.Remove(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	a.recordKeyEvent(req, idEvent(audit.MemberRemoved, "user", id))
	writeJSON(w, http.StatusOK, m)
	return nil
}
