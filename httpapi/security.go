package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
)

// securityRoutes registers the organization security-policy endpoints on v1.
func (a *API) securityRoutes(v1 routes) {
	v1.handle(http.MethodGet, "/organizations/:id/security", a.getOrgSecurity)
	v1.handle(http.MethodPut, "/organizations/:id/security", a.putOrgSecurity)
}

// securityPolicy is the SecurityPolicy resource. In a request every field
// is required.
type securityPolicy struct {
	RequireTwoFactor     *bool  `json:"require_two_factor"`
	SessionLifetimeHours *int64 `json:"session_lifetime_hours"`
	IdleTimeoutMinutes   *int64 `json:"idle_timeout_minutes"`
}

func toSecurityPolicy(p account.Policy) securityPolicy {
	hours, minutes := int64(p.SessionLifetime/time.Hour), int64(p.IdleTimeout/time.Minute)
	return securityPolicy{RequireTwoFactor: &p.RequireTwoFactor, SessionLifetimeHours: &hours, IdleTimeoutMinutes: &minutes}
}

// policy returns the account.Policy of a request body, or the
// VALIDATION_ERROR naming every missing field. Values out of range are
// left to account.Policy.Validate.
func (b securityPolicy) policy() (account.Policy, error) {
	var missing []errcode.FieldError
	if b.RequireTwoFactor == nil {
		missing = append(missing, errcode.FieldError{Field: "require_two_factor", Message: "is required"})
	}
	if b.SessionLifetimeHours == nil {
		missing = append(missing, errcode.FieldError{Field: "session_lifetime_hours", Message: "is required"})
	}
	if b.IdleTimeoutMinutes == nil {
		missing = append(missing, errcode.FieldError{Field: "idle_timeout_minutes", Message: "is required"})
	}
	if len(missing) > 0 {
		return account.Policy{}, errcode.Validation(missing...)
	}
	p := account.Policy{RequireTwoFactor: *b.RequireTwoFactor}
	// Values beyond the bounds are clamped just past them, so that a huge
	// number cannot overflow into the valid range and Validate refuses it.
	p.SessionLifetime = time.Duration(min(max(*b.SessionLifetimeHours, 0), 1<<20)) * time.Hour
	p.IdleTimeout = time.Duration(min(max(*b.IdleTimeoutMinutes, 0), 1<<26)) * time.Minute
	return p, nil
}

func (a *API) getOrgSecurity(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	p, err := a.opts.Accounts.PolicyFor(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toSecurityPolicy(p))
	return nil
}

func (a *API) putOrgSecurity(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	var body securityPolicy
	if err := strictjson.Decode(req.Request, &body); err != nil {
		return err
	}
	pol, err := body.policy()
	if err != nil {
		return err
	}
	out, err := a.opts.Accounts.SetPolicyFor(req.Context(), principal(req), id, pol)
	if err != nil {
		return err
	}
	e := idEvent(audit.PolicyChanged, "organization", id)
	e.Details = map[string]string{
		"require_two_factor":     strconv.FormatBool(out.RequireTwoFactor),
		"session_lifetime_hours": strconv.FormatInt(int64(out.SessionLifetime/time.Hour), 10),
		"idle_timeout_minutes":   strconv.FormatInt(int64(out.IdleTimeout/time.Minute), 10),
	}
	a.recordKeyEvent(req, e)
	writeJSON(w, http.StatusOK, toSecurityPolicy(out))
	return nil
}
