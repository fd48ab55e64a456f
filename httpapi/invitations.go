package httpapi

import (
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/strictjson"
)

// invitationRoutes registers the /invitations endpoints on v1.
func (a *API) invitationRoutes(v1 routes) {
	v1.handle(http.MethodPost, "/invitations", a.createInvitation)
	v1.handle(http.MethodGet, "/invitations", a.listInvitations)
	v1.handle(http.MethodDelete, "/invitations/:id", a.revokeInvitation)
}

func (a *API) createInvitation(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in org.CreateInvitationInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	inv, err := a.opts.Invitations.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, createdInvitation{Invitation: inv, AcceptURL: a.invitationURL(req.Request, inv.Token)})
	return nil
}

// createdInvitation is the create response: the Invitation and the address
// of its acceptance page, to send to the invited person.
type createdInvitation struct {
	*org.Invitation
	AcceptURL string `json:"accept_url"`
}

// invitationURL is the acceptance page of token on the public URL of the
// service host (AccountPagesOptions.PublicURL), or on the host r came to
// when none is configured.
func (a *API) invitationURL(r *http.Request, token string) string {
	base := ""
	if a.opts.AccountPages != nil && a.opts.AccountPages.PublicURL != nil {
		base = strings.TrimSuffix(a.opts.AccountPages.PublicURL.String(), "/")
	} else {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + invitationPath(token)
}

func (a *API) listInvitations(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset", "status")
	limit, offset, status := q.integer("limit"), q.integer("offset"), q.str("status")
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Invitations.List(req.Context(), principal(req), status, limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (a *API) revokeInvitation(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	inv, err := a.opts.Invitations.Revoke(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}
