package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bunrouter"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/strictjson"
)

// exportWriteTimeout is how long one page of a download may take to reach
// the client: the server's write timeout bounds a whole response, which a
// large export outlasts, so the download extends it page by page.
const exportWriteTimeout = time.Minute

// exportRoutes registers the click exports on v1 (analytics.Exports).
func (a *API) exportRoutes(v1 routes) {
	v1.handle(http.MethodPost, "/analytics/exports", a.startExport)
	v1.handle(http.MethodGet, "/analytics/exports", a.listExports)
	v1.handle(http.MethodGet, "/analytics/exports/:id", a.getExport)
	v1.handle(http.MethodGet, "/analytics/exports/:id/download", a.downloadExport)
}

// startExport answers POST /v1/analytics/exports with 202 and the pending
// export.
func (a *API) startExport(w http.ResponseWriter, req bunrouter.Request) error {
	if err := noQuery(req); err != nil {
		return err
	}
	var in analytics.StartExportInput
	if err := strictjson.Decode(req.Request, &in); err != nil {
		return err
	}
	e, err := a.opts.Exports.Start(req.Context(), principal(req), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, e)
	return nil
}

// listExports answers GET /v1/analytics/exports, an offset list, newest
// first.
func (a *API) listExports(w http.ResponseWriter, req bunrouter.Request) error {
	q := strictQuery(req, "limit", "offset")
	limit, offset := q.integer("limit"), q.integer("offset")
	if err := q.err(); err != nil {
		return err
	}
	page, err := a.opts.Exports.List(req.Context(), principal(req), limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// getExport answers GET /v1/analytics/exports/{id}, the poll.
func (a *API) getExport(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	e, err := a.opts.Exports.Get(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

// downloadExport answers GET /v1/analytics/exports/{id}/download with the
// CSV (writeExportCSV).
func (a *API) downloadExport(w http.ResponseWriter, req bunrouter.Request) error {
	id, err := pathID(req, "id")
	if err != nil {
		return err
	}
	d, err := a.opts.Exports.Download(req.Context(), principal(req), id)
	if err != nil {
		return err
	}
	a.writeExportCSV(w, req.Request, id, d)
	return nil
}

// writeExportCSV writes export id's CSV d as an attachment, streamed from
// the database page by page; the API's download and the dashboard's both
// answer with it. An error once the first byte is sent can no longer
// become an error answer: the connection is cut instead, so that a client
// never takes a truncated file for a whole one.
func (a *API) writeExportCSV(w http.ResponseWriter, r *http.Request, id uuid.UUID, d *analytics.Download) {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Filename}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	rc := http.NewResponseController(w)
	extend := func() { _ = rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout)) }
	extend()
	w.WriteHeader(http.StatusOK)
	_, err := d.Stream(r.Context(), w, func(int64) {
		extend()
		_ = rc.Flush()
	})
	if err != nil {
		if r.Context().Err() == nil && !errors.Is(err, http.ErrHandlerTimeout) {
			a.log.ErrorContext(r.Context(), "export download failed", "export", id, "err", err)
		}
		panic(http.ErrAbortHandler)
	}
}
