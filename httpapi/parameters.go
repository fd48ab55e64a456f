package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/strictjson"
)

// parameterRoutes registers the organization parameter-default endpoints on v1.
func (a *API) parameterRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/organizations/:id/parameters", a.getOrgParameters)
	v1.handle(http.MethodPut, "/organizations/:id/parameters", a.putOrgParameters)
}

func (a *API) getOrgParameters(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	cfg, err := a.opts.Parameters.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cfg)
	return nil
}

// putOrgParameters replaces the defaults with the body, an OrgParameters
// object decoded strictly by params.DecodeOrgConfig, whose field errors name
// fields from the top ("injected[0].key").
func (a *API) putOrgParameters(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	body, err := strictjson.ReadBody(req.Request)
	if err != nil {
		return err
	}
	cfg, err := params.DecodeOrgConfig(body)
	if err != nil {
		return err
	}
	out, err := a.opts.Parameters.Put(req.Context(), principal(req), id, cfg)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
