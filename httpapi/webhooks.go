package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/strictjson"
	"github.com/hoplink/hoplink/webhook"
)

// webhookRoutes registers the /webhooks endpoints (issue 19).
func (a *API) webhookRoutes(v1 routes) {
	v1.handle(http.MethodPost, "/webhooks", a.createWebhook)
	v1.handle(http.MethodGet, "/webhooks", a.listWebhooks)
	v1.handle(http.MethodGet, "/webhooks/:id", a.getWebhook)
	v1.handle(http.MethodPatch, "/webhooks/:id", a.updateWebhook)
	v1.handle(http.MethodDelete, "/webhooks/:id", a.deleteWebhook)
	v1.handle(http.MethodPost, "/webhooks/:id/rotate-secret", a.rotateWebhookSecret)
	v1.handle(http.MethodPost, "/webhooks/:id/test", a.testWebhook)
	v1.handle(http.MethodGet, "/webhooks/:id/deliveries", a.listWebhookDeliveries)
	v1.handle(http.MethodPost, "/webhooks/:id/deliveries/:delivery_id/retry", a.retryWebhookDelivery)
}

type webhookList struct {
	Data []*webhook.Webhook `json:"data"`
}

type deliveryList struct {
	Data       []webhook.Delivery `json:"data"`
	Pagination auditPagination    `json:"pagination"`
}

func (a *API) createWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in webhook.CreateInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	out, err := a.opts.Webhooks.Create(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (a *API) listWebhooks(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	list, err := a.opts.Webhooks.List(req.Context(), principal(req))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, webhookList{Data: list})
	return nil
}

func (a *API) getWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	out, err := a.opts.Webhooks.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) updateWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	var in webhook.UpdateInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	out, err := a.opts.Webhooks.Update(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) deleteWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	out, err := a.opts.Webhooks.Delete(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// rotateWebhookSecret takes no body, like the other action endpoints.
func (a *API) rotateWebhookSecret(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	out, err := a.opts.Webhooks.RotateSecret(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// testWebhook takes no body and answers 202 with the queued delivery.
func (a *API) testWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	d, err := a.opts.Webhooks.Test(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, d)
	return nil
}

// listWebhookDeliveries answers GET /v1/webhooks/{id}/deliveries: query
// limit and cursor.
func (a *API) listWebhookDeliveries(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathParamID(req, "id")
	if err != nil {
		return err
	}
	q := strictQuery(req, "limit", "cursor")
	var in webhook.DeliveryQuery
	if n := q.integer("limit"); n != nil {
		in.Limit = *n
		if *n == 0 {
			q.fail("limit", "must be from 1 to 100")
		}
	}
	if c := q.str("cursor"); c != nil {
		in.Cursor = *c
		if *c == "" {
			return errcode.New(errcode.CursorInvalid, "the cursor is empty")
		}
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Webhooks.Deliveries(req.Context(), principal(req), id, in)
	if err != nil {
		return err
	}
	out := deliveryList{Data: page.Data, Pagination: auditPagination{HasMore: page.HasMore}}
	if out.Data == nil {
		out.Data = []webhook.Delivery{}
	}
	if page.HasMore {
		out.Pagination.NextCursor = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) retryWebhookDelivery(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	deliveryID, err := pathID(req, "delivery_id")
	if err != nil {
		return err
	}
	if err := noQuery(req); err != nil {
		return err
	}
	d, err := a.opts.Webhooks.Retry(req.Context(), principal(req), id, deliveryID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, d)
	return nil
}
