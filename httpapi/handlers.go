package httpapi

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
	"github.com/hoplink/hoplink/version"
)

// pathID returns the path parameter name as a UUID, or 400 INVALID_ID. The
// endpoints it serves take no query parameters, so any is refused.
func pathID(req bunrouter.Request, name string) (uuid.UUID, error) {
	if err := noQuery(req); err != nil {
		return uuid.Nil, err
	}
	return pathParamID(req, name)
}

// pathParamID is pathID for an endpoint that takes query parameters, which
// its handler checks.
func pathParamID(req bunrouter.Request, name string) (uuid.UUID, error) {
	s := req.Param(name)
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, errcode.Newf(errcode.InvalidID, "%s is not a valid UUID", name)
	}
	return id, nil
}

// noQuery refuses any query parameter on an endpoint that takes none.
func noQuery(req bunrouter.Request) error {
	if req.URL.RawQuery == "" {
		return nil
	}
	return strictQuery(req).err()
}

func principal(req bunrouter.Request) *auth.Principal {
	return PrincipalFrom(req.Context())
}

type keyList struct {
	Data []auth.Key `json:"data"`
}

func (a *API) createKey(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in auth.CreateKeyInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	k, err := a.opts.Keys.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	a.recordKeyEvent(req, keyCreatedEvent(k))
	writeJSON(w, http.StatusCreated, k)
	return nil
}

func (a *API) listKeys(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	keys, err := a.opts.Keys.List(req.Context(), principal(req))
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []auth.Key{}
	}
	writeJSON(w, http.StatusOK, keyList{Data: keys})
	return nil
}

func (a *API) getKey(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	k, err := a.opts.Keys.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, k)
	return nil
}

func (a *API) deleteKey(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := a.opts.Keys.Revoke(req.Context(), principal(req), id); err != nil {
		return err
	}
	a.recordKeyEvent(req, idEvent(audit.KeyRevoked, "key", id))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *API) getOrganization(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	o, err := a.opts.Orgs.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

func (a *API) deleteOrganization(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	var confirmation *string
	if vals, ok := req.Header["X-Confirmation-Name"]; ok && len(vals) > 0 {
		confirmation = &vals[0]
	}
	o, err := a.opts.Orgs.Delete(req.Context(), principal(req), id, confirmation)
	if err != nil {
		return err
	}
	a.recordKeyEvent(req, idEvent(audit.OrgDeleted, "organization", o.ID))
	writeJSON(w, http.StatusOK, o)
	return nil
}

type sdkValidation struct {
	Valid bool   `json:"valid"`
	OrgID string `json:"org_id"`
}

// validateSDK answers GET /v1/sdk/validate, callable with an SDK or API key.
func (a *API) validateSDK(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	p := principal(req)
	// This route needs no scope, so no service's Authorize applies the role
	// layer; a key whose creator has left the organization is still refused.
	if err := p.CheckCreator(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sdkValidation{Valid: true, OrgID: p.OrgID.String()})
	return nil
}

type health struct {
	Status string `json:"status"`
	// Version is the running build, on /healthz only.
	Version *version.Info `json:"version,omitempty"`
}

func (a *API) healthz(w http.ResponseWriter, req bunrouter.Request) error {
	v := version.Get()
	writeJSON(w, http.StatusOK, health{Status: "ok", Version: &v})
	return nil
}

func (a *API) readyz(w http.ResponseWriter, req bunrouter.Request) error {
	if a.opts.Ready != nil {
		if err := dbdeadline.Call(req.Context(), a.readyTimeout(), a.opts.Ready); err != nil {
			a.log.WarnContext(req.Context(), "not ready", "err", err)
			writeError(w, req.Request, nil, errcode.New(errcode.ServiceUnavailable, "the database cannot be reached"), "")
			return nil
		}
	}
	writeJSON(w, http.StatusOK, health{Status: "ready"})
	return nil
}

// readyTimeout is the deadline of Options.Ready.
func (a *API) readyTimeout() time.Duration {
	return dbdeadline.Or(a.opts.ReadyTimeout, dbdeadline.Default)
}
