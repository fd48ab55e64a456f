package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/attribution"
)

// listRoutes registers the installs and attempts lists on v1.
func (a *API) listRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/installs", a.listInstalls)
	v1.handle(http.MethodGet, "/attribution/attempts", a.listAttempts)
}

// listQuery reads the parameters the two lists share from q; an unknown or
// repeated parameter is noted for the service to report after its scope
// and role checks.
func listQuery(q *query) attribution.ListQuery {
	return attribution.ListQuery{AppID: q.str("app_id"), From: q.str("from"), To: q.str("to"),
		Limit: q.str("limit"), Cursor: q.str("cursor"), Invalid: q.fields}
}

// listInstalls answers GET /v1/installs (attribution.Lists.Installs).
func (a *API) listInstalls(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "app_id", "link_id", "from", "to", "limit", "cursor")
	page, err := a.opts.Lists.Installs(req.Context(), principal(req),
		attribution.InstallsQuery{ListQuery: listQuery(q), LinkID: q.str("link_id")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// listAttempts answers GET /v1/attribution/attempts
// (attribution.Lists.Attempts).
func (a *API) listAttempts(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "app_id", "matched", "from", "to", "limit", "cursor")
	page, err := a.opts.Lists.Attempts(req.Context(), principal(req),
		attribution.AttemptsQuery{ListQuery: listQuery(q), Matched: q.str("matched")})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}
