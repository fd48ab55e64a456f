package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/strictjson"
)

// domainRoutes registers the /domains endpoints on v1 and the TLS question
// of on-demand certificates, which takes no key, on root.
func (a *API) domainRoutes(root, v1 routes) {
	v1.handle(http.MethodPost, "/domains", a.createDomain)
	v1.handle(http.MethodGet, "/domains", a.listDomains)
	v1.handle(http.MethodGet, "/domains/:id", a.getDomain)
	v1.handle(http.MethodDelete, "/domains/:id", a.deleteDomain)
	v1.handle(http.MethodPost, "/domains/:id/verify", a.verifyDomain)
	root.handle(http.MethodGet, "/v1/internal/tls/ask", a.tlsAsk)
}

func (a *API) createDomain(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in linking.CreateDomainInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	d, err := a.opts.Domains.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, d)
	return nil
}

func (a *API) listDomains(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset")
	limit, offset := q.integer("limit"), q.integer("offset")
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Domains.List(req.Context(), principal(req), limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (a *API) getDomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	d, err := a.opts.Domains.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (a *API) deleteDomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	d, err := a.opts.Domains.Delete(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// verifyDomain takes no body: anything sent is ignored, as an empty POST
// from most clients carries none.
func (a *API) verifyDomain(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	res, err := a.opts.Domains.Verify(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

var errNotLiveDomain = errcode.New(errcode.NotFound, "not a verified, active custom domain")

// tlsAsk serves GET /v1/internal/tls/ask?domain=NAME without a key, limited
// per client IP: 200 when NAME is a verified, unsuspended custom domain, so
// that an on-demand TLS proxy (Caddy's on_demand_tls ask) may obtain its
// certificate, else 404.
func (a *API) tlsAsk(w http.ResponseWriter, req bunrouter.Request) error {
	if !a.anonymousLimit(w, req.Request) {
		return nil
	}
	q := strictQuery(req, "domain")
	name := q.str("domain")
	if name == nil {
		q.fail("domain", "is required")
	}
	if err := q.err(); err != nil {
		return err
	}
	live, err := a.opts.Domains.IsLive(req.Context(), *name)
	if err != nil {
		return err
	}
	if !live {
		return errNotLiveDomain
	}
	writeJSON(w, http.StatusOK, map[string]string{"domain": linking.NormalizeDomain(*name)})
	return nil
}
