package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/strictjson"
)

// The move choice of a link on its app's previous subdomain (SPEC.md, link
// move choice). Both handlers check, in order: the scope links:write and
// the role (403), the path id (400 INVALID_ID), the link in the caller's
// organization (404), a member's own link (403), then the body (PUT) and
// the move (409).

func (a *API) putMoveChoice(w http.ResponseWriter, req bunrouter.Request) error {
	p := principal(req)
	if _, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite); err != nil {
		return err
	}
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	var in linking.MoveChoiceInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		// A missing link, or another's link of a member, wins over a bad body.
		if first := a.opts.Links.CheckMoveChoice(req.Context(), p, id); first != nil {
			return first
		}
		return err
	}
	c, err := a.opts.Links.SetMoveChoice(req.Context(), p, id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (a *API) deleteMoveChoice(w http.ResponseWriter, req bunrouter.Request) error {
	p := principal(req)
	if _, err := p.Authorize(auth.ScopeLinksWrite, auth.ActLinksWrite); err != nil {
		return err
	}
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := a.opts.Links.ClearMoveChoice(req.Context(), p, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
