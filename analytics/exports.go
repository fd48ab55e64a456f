package analytics

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
)

// ExportStatus is the state of a click export: pending until a worker
// claims it, running while a worker counts its rows, then complete or
// failed for good.
type ExportStatus string

// The export states (issue 15, item 3).
const (
	ExportPending  ExportStatus = "pending"
	ExportRunning  ExportStatus = "running"
	ExportComplete ExportStatus = "complete"
	ExportFailed   ExportStatus = "failed"
)

// Defaults of ExportsOptions.
const (
	// DefaultExportLifetime is how long a complete export can be
	// downloaded: 24 hours after it completed.
	DefaultExportLifetime = 24 * time.Hour
	// DefaultExportLease is how long a worker holds a job without
	// reporting progress before another worker may take it over.
	DefaultExportLease = time.Minute
	// DefaultExportPageSize is how many rows a download writes between
	// two flushes; the count counts ten times as many per checkpoint.
	DefaultExportPageSize = 1000
	// DefaultExportPoll is how often an idle worker looks for a job.
	DefaultExportPoll = time.Second
	// DefaultExportSettle is how long after its window's end a job waits
	// before it is counted, so that the clicks of that window still in a
	// recorder's buffer (flushed every second) are written first.
	DefaultExportSettle = 5 * time.Second
	// DefaultExportAttempts is how many times a job is started before an
	// interrupted or failing job ends failed.
	DefaultExportAttempts = 3
	// ExportKeep is how long an expired export stays listed (its download
	// answering 410 GONE) before it is deleted (then 404 NOT_FOUND).
	ExportKeep = 7 * 24 * time.Hour
)

// Export is a click export as the API shows it (issue 15, item 3): a job
// that counts the stored clicks of its organization in Window that pass
// Filters, and then serves them as CSV. Window.To is fixed when the export
// is made, so the clicks it covers change afterwards only by deletion
// (deleting a link deletes its clicks) and by a change of a link's tags
// when Filters has a tag.
type Export struct {
	ID     uuid.UUID    `json:"id"`
	Status ExportStatus `json:"status"`
	// Rows is the number of CSV rows (clicks) once complete; while
	// running, the rows counted so far.
	Rows int64 `json:"rows"`
	// Filters are the filters the export was made with.
	Filters Filter `json:"filters"`
	// Window is the window after the plan's look-back and retention.
	Window Window `json:"window"`
	// Failure says why a failed export failed; nil otherwise.
	Failure   *string   `json:"failure"`
	CreatedAt time.Time `json:"created_at"`
	// CompletedAt is when the export ended, complete or failed.
	CompletedAt *time.Time `json:"completed_at"`
	// ExpiresAt is when the download stops being served: CompletedAt plus
	// the lifetime (24 hours by default); nil until the export ends.
	ExpiresAt *time.Time `json:"expires_at"`
	// DownloadURL is the absolute URL of the CSV, set while the export is
	// complete and not expired.
	DownloadURL *string `json:"download_url"`
}

// ExportPosition is a click's place in an export's order: by occurred_at,
// then by id.
type ExportPosition struct {
	Time time.Time
	ID   uuid.UUID
}

// ExportJob is an export as the store keeps it: the resource and what the
// workers need.
type ExportJob struct {
	Export
	OrgID uuid.UUID
	// CreatedBy is the member whose key made the export; nil for a key
	// without a creator.
	CreatedBy *uuid.UUID
	// LinksOf, when set, keeps the clicks of links this member created:
	// the export of a member, whose analytics reach is their own links.
	LinksOf *uuid.UUID
	// After is where the count stopped: the position of the last click
	// counted in Rows; nil before the first page.
	After *ExportPosition
	// Attempts counts the times a worker claimed the job.
	Attempts int
	// LeaseOwner names the worker running the job and LeaseExpiresAt when
	// another may take it over; empty and nil when nobody runs it.
	LeaseOwner     string
	LeaseExpiresAt *time.Time
}

// Scope returns the clicks job covers.
func (j *ExportJob) Scope() ExportScope {
	return ExportScope{OrgID: j.OrgID, Window: j.Window, Filter: j.Filters, LinksOf: j.LinksOf}
}

// ExportScope says which clicks an export reads: OrgID's clicks in Window
// that pass Filter and, when LinksOf is set, whose link that member
// created.
type ExportScope struct {
	OrgID   uuid.UUID
	Window  Window
	Filter  Filter
	LinksOf *uuid.UUID
}

// ExportClick is one click of an export: its place in the order and its
// CSV row.
type ExportClick struct {
	Position ExportPosition
	Row      ExportRow
}

// ErrLeaseLost is wrapped by an ExportStore write refused because the
// worker no longer holds the job's lease (another worker took it over).
var ErrLeaseLost = errors.New("analytics: export lease lost")

// ExportStore keeps export jobs and reads the clicks of exports; package
// store implements it. Every method returns an error wrapping
// errcode.ErrUnavailable when the database cannot be reached.
type ExportStore interface {
	// CreateExport inserts job.
	CreateExport(ctx context.Context, job *ExportJob) error
	// ExportByID returns export id of orgID; an error wrapping
	// errcode.ErrNotFound when orgID has none.
	ExportByID(ctx context.Context, orgID, id uuid.UUID) (*ExportJob, error)
	// ListExports returns a page of orgID's exports, newest first, and how
	// many there are; only those createdBy made when it is not nil.
	ListExports(ctx context.Context, orgID uuid.UUID, createdBy *uuid.UUID, limit, offset int) ([]*ExportJob, int, error)
	// ClaimExport gives owner one job, the oldest first, that is pending
	// or running with a lease expired at now, and whose window ends at or
	// before settled: in one conditional update, so that two workers never
	// hold one job, it sets the job running, its lease owner and its lease
	// expiry to leaseUntil, and counts the attempt. It returns nil when no
	// job waits.
	ClaimExport(ctx context.Context, owner string, now, settled, leaseUntil time.Time) (*ExportJob, error)
	// CheckpointExport records the progress of job id run by owner (rows
	// counted up to after) and extends its lease to leaseUntil; an error
	// wrapping ErrLeaseLost when owner no longer holds it.
	CheckpointExport(ctx context.Context, id uuid.UUID, owner string, rows int64, after ExportPosition, leaseUntil time.Time) error
	// FinishExport ends job id run by owner as complete (with rows) or
	// failed (with failure), at at, downloadable until expiresAt, and
	// drops the lease; an error wrapping ErrLeaseLost when owner no longer
	// holds it.
	FinishExport(ctx context.Context, id uuid.UUID, owner string, status ExportStatus, rows int64, failure *string, at, expiresAt time.Time) error
	// ReleaseExport sets job id run by owner back to pending, keeping its
	// progress, so that any worker resumes it; nothing when owner does not
	// hold it.
	ReleaseExport(ctx context.Context, id uuid.UUID, owner string) error
	// DeleteExports deletes the exports that expired before before and
	// returns how many.
	DeleteExports(ctx context.Context, before time.Time) (int, error)
	// CountExportClicks counts the clicks of scope after position after
	// (from the start when nil), up to limit. When it counted limit, last
	// is the position of the last one counted; otherwise the count is the
	// rest and last is nil.
	CountExportClicks(ctx context.Context, scope ExportScope, after *ExportPosition, limit int) (n int, last *ExportPosition, err error)
	// ScanExportClicks calls fn with each click of scope after position
	// after (from the start when nil), in (occurred_at, id) order, in
	// memory that does not grow with the clicks; it stops at fn's first
	// error and returns it. fn must not keep the click past its return.
	ScanExportClicks(ctx context.Context, scope ExportScope, after *ExportPosition, fn func(*ExportClick) error) error
}

// ExportsOptions configure Exports. The zero value is usable.
type ExportsOptions struct {
	// Clock is the time of jobs and leases; time.Now when nil. Replicas
	// compare leases with their own clocks, which must agree within a
	// fraction of Lease.
	Clock func() time.Time
	// PublicURL is the service's external URL; DownloadURL is
	// PublicURL + "/v1/analytics/exports/{id}/download". If empty, it is
	// "http://localhost:8080".
	PublicURL string
	// Lifetime is how long a complete export may be downloaded;
	// DefaultExportLifetime when zero.
	Lifetime time.Duration
	// Lease is how long a worker holds a job between progress reports;
	// DefaultExportLease when zero.
	Lease time.Duration
	// PageSize is how many rows a download writes between two flushes
	// (and progress reports), and a tenth of how many clicks a job counts
	// between two checkpoints; DefaultExportPageSize when zero.
	PageSize int
	// Poll is how often an idle worker looks for a job; DefaultExportPoll
	// when zero.
	Poll time.Duration
	// Settle is how long a job waits after its window's end;
	// DefaultExportSettle when zero, none when negative.
	Settle time.Duration
	// Attempts is how many times a job is started before it fails;
	// DefaultExportAttempts when zero.
	Attempts int
	// Owner names this worker in leases; random when empty.
	Owner string
	// Logger receives job failures; slog.Default when nil.
	Logger *slog.Logger
}

// Exports runs click exports for every adapter (issue 15, item 3): POST,
// GET and download of /v1/analytics/exports, the MCP tool export_clicks
// and the CLI's `hoplink clicks export` call it alike. It owns the scope
// and role checks, the window under the plan's look-back and retention,
// and the job's life; its worker (Run) counts jobs, and downloads stream
// the CSV from the database in one pass, in constant memory, on whichever
// replica is asked. It is safe for concurrent use.
type Exports struct {
	store ExportStore
	orgs  OrgReader
	opts  ExportsOptions
	log   *slog.Logger
}

// NewExports returns the exports over store, reading plans from orgs.
func NewExports(store ExportStore, orgs OrgReader, opts ExportsOptions) *Exports {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.PublicURL == "" {
		opts.PublicURL = "http://localhost:8080"
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	if opts.Lifetime <= 0 {
		opts.Lifetime = DefaultExportLifetime
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultExportLease
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultExportPageSize
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultExportPoll
	}
	switch {
	case opts.Settle == 0:
		opts.Settle = DefaultExportSettle
	case opts.Settle < 0:
		opts.Settle = 0
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultExportAttempts
	}
	if opts.Owner == "" {
		opts.Owner = "worker-" + rand.Text()[:12]
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Exports{store: store, orgs: orgs, opts: opts, log: log}
}

// StartExportInput is the body of POST /v1/analytics/exports: the
// analytics filters and the window. From and To are RFC 3339 instants; To
// defaults to now and From to 30 days before To.
type StartExportInput struct {
	From *time.Time `json:"from"`
	To   *time.Time `json:"to"`
	Filter
}

// ExportPage is a page of the exports list, an offset list (SPEC.md,
// Limits).
type ExportPage struct {
	Data       []*Export          `json:"data"`
	Pagination apitype.Pagination `json:"pagination"`
}

var errExportNotFound = errcode.New(errcode.NotFound, "export not found")

// checkFilter validates the text filters: each, when set, 1 to MaxText
// bytes of UTF-8.
func checkFilter(f Filter) error {
	var fields []errcode.FieldError
	for _, v := range []struct {
		name  string
		value *string
	}{
		{"domain", f.Domain}, {"tag", f.Tag}, {"source", f.Source}, {"platform", f.Platform},
		{"country", f.Country}, {"utm_source", f.UTMSource}, {"utm_medium", f.UTMMedium},
		{"utm_campaign", f.UTMCampaign},
	} {
		if v.value == nil {
			continue
		}
		if s := *v.value; s == "" || len(s) > MaxText || !utf8.ValidString(s) {
			fields = append(fields, errcode.FieldError{Field: v.name, Message: fmt.Sprintf("must be 1 to %d bytes of UTF-8", MaxText)})
		}
	}
	if len(fields) > 0 {
		return errcode.Validation(fields...)
	}
	return nil
}

// window resolves in's window on orgID's plan at now (ResolveWindow): the
// Free plan's look-back applies, and reaching the monthly click limit
// changes nothing (SPEC.md, Limits).
func (e *Exports) window(ctx context.Context, orgID uuid.UUID, in StartExportInput, now time.Time) (Window, error) {
	if err := checkFilter(in.Filter); err != nil {
		return Window{}, err
	}
	o, err := e.orgs.ByID(ctx, orgID)
	if err != nil {
		return Window{}, err
	}
	return ResolveWindow(o.Plan, in.From, in.To, now)
}

// Start makes an export for p of the clicks in's filters and window keep,
// pending until a worker counts it (202 Accepted). Errors: FORBIDDEN
// without analytics:read or the role; VALIDATION_ERROR naming a bad filter
// or a from not before to; LOOKBACK_EXCEEDED and
// RETENTION_WINDOW_UNAVAILABLE as ResolveWindow says. A member's export
// keeps the clicks of the links the member created.
func (e *Exports) Start(ctx context.Context, p *auth.Principal, in StartExportInput) (*Export, error) {
	linksOf, err := authorize(p)
	if err != nil {
		return nil, err
	}
	now := e.opts.Clock().UTC().Truncate(time.Millisecond)
	w, err := e.window(ctx, p.OrgID, in, now)
	if err != nil {
		return nil, err
	}
	job := &ExportJob{
		Export:    Export{ID: uuid.Must(uuid.NewV7()), Status: ExportPending, Filters: in.Filter, Window: w, CreatedAt: now},
		OrgID:     p.OrgID,
		CreatedBy: p.CreatedBy,
		LinksOf:   linksOf,
	}
	if err := e.store.CreateExport(ctx, job); err != nil {
		return nil, fmt.Errorf("analytics: create export: %w", err)
	}
	return e.resource(job, now), nil
}

// job returns export id of p's organization, as p may see it: a member
// sees the exports they made. NOT_FOUND otherwise.
func (e *Exports) job(ctx context.Context, p *auth.Principal, id uuid.UUID) (*ExportJob, error) {
	linksOf, err := authorize(p)
	if err != nil {
		return nil, err
	}
	job, err := e.store.ExportByID(ctx, p.OrgID, id)
	if err != nil {
		return nil, errcode.NotFoundAs(err, "export not found")
	}
	if linksOf != nil && (job.CreatedBy == nil || *job.CreatedBy != *linksOf) {
		return nil, errExportNotFound
	}
	return job, nil
}

// Get returns export id as p may see it (see Start); NOT_FOUND for an
// export of another organization, or of another member for a member.
func (e *Exports) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Export, error) {
	job, err := e.job(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return e.resource(job, e.opts.Clock()), nil
}

// List returns a page of the exports p may see, newest first. Errors:
// FORBIDDEN; VALIDATION_ERROR naming limit or offset.
func (e *Exports) List(ctx context.Context, p *auth.Principal, limit, offset *int) (*ExportPage, error) {
	linksOf, err := authorize(p)
	if err != nil {
		return nil, err
	}
	l, o, err := apitype.PageBounds(limit, offset)
	if err != nil {
		return nil, err
	}
	jobs, total, err := e.store.ListExports(ctx, p.OrgID, linksOf, l, o)
	if err != nil {
		return nil, fmt.Errorf("analytics: list exports: %w", err)
	}
	now := e.opts.Clock()
	page := &ExportPage{Data: make([]*Export, 0, len(jobs)), Pagination: apitype.NewPagination(total, l, o)}
	for _, j := range jobs {
		page.Data = append(page.Data, e.resource(j, now))
	}
	return page, nil
}

// resource returns job as the API shows it at now.
func (e *Exports) resource(job *ExportJob, now time.Time) *Export {
	x := job.Export
	x.DownloadURL = nil
	if x.Status == ExportComplete && x.ExpiresAt != nil && now.Before(*x.ExpiresAt) {
		u := e.opts.PublicURL + "/v1/analytics/exports/" + x.ID.String() + "/download"
		x.DownloadURL = &u
	}
	return &x
}

// Download is a complete export ready to be streamed.
type Download struct {
	// Filename is the name the CSV is offered under:
	// clicks-{export id}.csv.
	Filename string
	// Rows is the number of rows the export counted.
	Rows  int64
	e     *Exports
	scope ExportScope
}

// Download returns export id of p ready to stream (see Get for who sees
// which). Errors: NOT_FOUND; 409 EXPORT_NOT_COMPLETE with details.status
// while the export is pending or running, or when it failed; 410 GONE once
// it has expired.
func (e *Exports) Download(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Download, error) {
	job, err := e.job(ctx, p, id)
	if err != nil {
		return nil, err
	}
	switch {
	case job.Status != ExportComplete:
		return nil, errcode.Newf(errcode.ExportNotComplete, "the export is %s; download it once its status is complete", job.Status).
			WithDetail("status", string(job.Status))
	case job.ExpiresAt == nil || !e.opts.Clock().Before(*job.ExpiresAt):
		return nil, errcode.New(errcode.Gone, "the export has expired; start a new one")
	}
	return &Download{Filename: "clicks-" + job.ID.String() + ".csv", Rows: job.Rows, e: e, scope: job.Scope()}, nil
}

// Stream writes the CSV to w: the header row and one row per click, read
// from the database as it is written (ExportStore.ScanExportClicks) and
// flushed to w every PageSize rows, so that memory stays flat whatever the
// export's size. progress, when not nil, is called after each flush with
// the rows written so far. It returns the rows written.
func (d *Download) Stream(ctx context.Context, w io.Writer, progress func(rows int64)) (int64, error) {
	return d.e.stream(ctx, d.scope, w, progress)
}

func (e *Exports) stream(ctx context.Context, scope ExportScope, w io.Writer, progress func(int64)) (int64, error) {
	out := NewExportWriter(w)
	var writeErr error
	err := e.store.ScanExportClicks(ctx, scope, nil, func(c *ExportClick) error {
		if writeErr = out.Write(c.Row); writeErr != nil {
			return writeErr
		}
		if out.Rows()%int64(e.opts.PageSize) == 0 {
			if writeErr = out.Flush(); writeErr != nil {
				return writeErr
			}
			if progress != nil {
				progress(out.Rows())
			}
		}
		return nil
	})
	switch {
	case writeErr != nil:
		return out.Rows(), writeErr
	case err != nil:
		return out.Rows(), fmt.Errorf("analytics: read export clicks: %w", err)
	}
	if err := out.Flush(); err != nil {
		return out.Rows(), err
	}
	if progress != nil {
		progress(out.Rows())
	}
	return out.Rows(), nil
}

// WriteCSV writes the CSV of orgID's clicks that in keeps straight to w,
// without a job: for the operator's `hoplink clicks export`, which reads
// the database itself. The window is resolved on the organization's plan
// as Start resolves it. progress is as for Download.Stream.
func (e *Exports) WriteCSV(ctx context.Context, orgID uuid.UUID, in StartExportInput, w io.Writer, progress func(rows int64)) (int64, error) {
	now := e.opts.Clock().UTC().Truncate(time.Millisecond)
	win, err := e.window(ctx, orgID, in, now)
	if err != nil {
		return 0, err
	}
	return e.stream(ctx, ExportScope{OrgID: orgID, Window: win, Filter: in.Filter}, w, progress)
}

// Run is the worker: until ctx is done it runs the jobs that wait (RunOnce)
// and, when none does, waits Poll before looking again; once an hour (and
// at start) it deletes the exports expired more than ExportKeep ago. A job
// it runs when ctx is done goes back to pending, for any worker to resume.
func (e *Exports) Run(ctx context.Context) error {
	var purged time.Time
	for {
		if now := e.opts.Clock(); now.Sub(purged) >= time.Hour {
			if _, err := e.store.DeleteExports(ctx, now.Add(-ExportKeep)); err != nil && ctx.Err() == nil {
				e.log.Warn("analytics: deleting expired exports failed", "err", err)
			}
			purged = now
		}
		ran, err := e.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("analytics: export worker", "err", err)
		}
		if ran && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(e.opts.Poll):
		}
	}
}

// RunOnce claims one job that waits, if any, and runs it to its end: it
// counts the job's clicks page by page, recording its progress and
// extending its lease after each page, and marks it complete with the
// rows. A job claimed more than Attempts times (its workers died or
// failed) ends failed. A job whose run fails goes back to pending, or ends
// failed on its last attempt. It reports whether it claimed a job.
func (e *Exports) RunOnce(ctx context.Context) (bool, error) {
	now := e.opts.Clock()
	job, err := e.store.ClaimExport(ctx, e.opts.Owner, now, now.Add(-e.opts.Settle), now.Add(e.opts.Lease))
	if err != nil || job == nil {
		return false, err
	}
	if job.Attempts > e.opts.Attempts {
		return true, e.fail(job, fmt.Sprintf("the export was interrupted %d times", job.Attempts-1))
	}
	err = e.count(ctx, job)
	switch {
	case err == nil, errors.Is(err, ErrLeaseLost):
		return true, nil
	case ctx.Err() != nil:
		// Stopping: hand the job back at once rather than after its lease.
		release, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return true, e.store.ReleaseExport(release, job.ID, e.opts.Owner)
	case job.Attempts >= e.opts.Attempts:
		e.log.Error("analytics: export failed", "export", job.ID, "err", err)
		return true, e.fail(job, "the clicks could not be read")
	default:
		e.log.Warn("analytics: export will be tried again", "export", job.ID, "attempt", job.Attempts, "err", err)
		return true, e.store.ReleaseExport(ctx, job.ID, e.opts.Owner)
	}
}

// count counts job's clicks from where it stopped and completes it.
func (e *Exports) count(ctx context.Context, job *ExportJob) error {
	scope, rows, after := job.Scope(), job.Rows, job.After
	limit := 10 * e.opts.PageSize
	for {
		n, last, err := e.store.CountExportClicks(ctx, scope, after, limit)
		if err != nil {
			return err
		}
		rows += int64(n)
		now := e.opts.Clock()
		if last == nil {
			at := now.UTC().Truncate(time.Millisecond)
			return e.store.FinishExport(ctx, job.ID, e.opts.Owner, ExportComplete, rows, nil, at, at.Add(e.opts.Lifetime))
		}
		after = last
		if err := e.store.CheckpointExport(ctx, job.ID, e.opts.Owner, rows, *after, now.Add(e.opts.Lease)); err != nil {
			return err
		}
	}
}

// fail ends job failed with reason.
func (e *Exports) fail(job *ExportJob, reason string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	at := e.opts.Clock().UTC().Truncate(time.Millisecond)
	return e.store.FinishExport(ctx, job.ID, e.opts.Owner, ExportFailed, job.Rows, &reason, at, at.Add(e.opts.Lifetime))
}
