package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
)

// AppIDHeader names the app calling POST /v1/attribution/match: its id, iOS
// bundle id or Android package name.
const AppIDHeader = "X-Service-App-Id"

var errAttributionAPIKey = errcode.New(errcode.Forbidden, "only an SDK key can record attribution")

// attributionRoutes registers the attribution endpoints on v1.
func (a *API) attributionRoutes(v1 routes) {
	v1.handleSDK(http.MethodPost, "/attribution/match", a.matchAttribution)
}

// matchAttribution answers POST /v1/attribution/match (SPEC.md,
// Attribution): an API key is 403 FORBIDDEN (Authentication rule 6); the
// body is decoded strictly into attribution.MatchRequest and checked by its
// Validate (400 VALIDATION_ERROR naming every field); the Matcher decides,
// with the app named by X-Service-App-Id and the SDK key's tie, and its
// answer is the body: {"matched": false} alone when unmatched. The
// Matcher's 403 KEY_APP_MISMATCH is returned as it is.
func (a *API) matchAttribution(w http.ResponseWriter, req bunrouter.Request) error {
	p := principal(req)
	if p.Type != auth.KeyTypeSDK {
		return errAttributionAPIKey
	}
	if !p.Scopes.Has(auth.ScopeAttributionWrite) {
		return errcode.Newf(errcode.Forbidden, "this key lacks the %s scope", auth.ScopeAttributionWrite)
	}
	if p.CreatedBy != nil && p.Role == "" {
		// No role action covers attribution (every role may make SDK keys),
		// but a key whose creator left is refused everywhere (SPEC.md,
		// Authentication rule 8).
		return errcode.New(errcode.Forbidden, "the member who created this key is no longer in the organization")
	}
	if err := noQuery(req); err != nil {
		return err
	}
	var in attribution.MatchRequest
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	ctx, cancel := dbdeadline.Context(req.Context(), dbdeadline.Or(a.opts.MatchTimeout, 2*dbdeadline.Default))
	defer cancel()
	res, err := a.opts.Attribution.Match(ctx, attribution.MatchInput{
		OrgID:     p.OrgID,
		KeyAppID:  p.AppID,
		AppHeader: req.Header.Get(AppIDHeader),
		Request:   in,
		ClientIP:  ClientIPFrom(req.Context()),
		At:        a.now(),
	})
	if err != nil {
		return dbdeadline.Err(ctx, err)
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
