package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/strictjson"
)

// linkRoutes registers the /links endpoints on v1.
func (a *API) linkRoutes(v1 routes) {
	v1.handle(http.MethodPost, "/links", a.createLink)
	v1.handle(http.MethodGet, "/links", a.listLinks)
	v1.handle(http.MethodGet, "/links/:id", a.getLink)
	v1.handle(http.MethodGet, "/links/:id/qr", a.linkQR)
	v1.handle(http.MethodPatch, "/links/:id", a.updateLink)
	v1.handle(http.MethodDelete, "/links/:id", a.deleteLink)
	v1.handle(http.MethodPost, "/links/:id/activate", a.activateLink)
	v1.handle(http.MethodPost, "/links/:id/deactivate", a.deactivateLink)
	v1.handle(http.MethodPut, "/links/:id/move-choice", a.putMoveChoice)
	v1.handle(http.MethodDelete, "/links/:id/move-choice", a.deleteMoveChoice)
}

func (a *API) createLink(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in linking.CreateLinkInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	l, err := a.opts.Links.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, l)
	return nil
}

func (a *API) listLinks(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset", "tag", "is_active", "search")
	in := linking.ListLinksInput{
		Limit:    q.integer("limit"),
		Offset:   q.integer("offset"),
		Tag:      q.str("tag"),
		IsActive: q.boolean("is_active"),
		Search:   q.str("search"),
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Links.List(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (a *API) getLink(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	l, err := a.opts.Links.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}

func (a *API) updateLink(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	var in linking.UpdateLinkInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	l, err := a.opts.Links.Update(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}

func (a *API) deleteLink(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	l, err := a.opts.Links.Delete(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}

func (a *API) activateLink(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	l, err := a.opts.Links.Activate(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}

func (a *API) deactivateLink(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	l, err := a.opts.Links.Deactivate(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, l)
	return nil
}
