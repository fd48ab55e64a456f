package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/audit"
)

// Delivery policy.
const (
	// RetryWindow is how long after its event a delivery is retried.
	RetryWindow = 24 * time.Hour
	// DisableAfter is how long an endpoint may fail every delivery before
	// it is disabled.
	DisableAfter = 5 * 24 * time.Hour
	// MaxResponseBody is the most of an answer's body read (and dropped).
	MaxResponseBody = 64 << 10
	// DefaultFirstRetry is the wait after a delivery's first failure; it
	// doubles after each further failure up to MaxRetryWait, each wait
	// spread by ±20%.
	DefaultFirstRetry = 30 * time.Second
	// MaxRetryWait is the longest wait between two attempts.
	MaxRetryWait = 6 * time.Hour
	// maxErrorLength bounds the error text stored with a delivery.
	maxErrorLength = 500
)

// Backoff returns how long to wait after the attempts-th failed attempt
// (1 for the first) with the default schedule: BackoffFrom(DefaultFirstRetry).
// Pure.
func Backoff(attempts int, jitter float64) time.Duration {
	return BackoffFrom(DefaultFirstRetry, attempts, jitter)
}

// BackoffFrom returns how long to wait after the attempts-th failed
// attempt (1 for the first): first doubling up to MaxRetryWait, scaled by
// jitter, a number in [0, 1) that spreads it by ±20%. Pure.
func BackoffFrom(first time.Duration, attempts int, jitter float64) time.Duration {
	d := min(first, MaxRetryWait)
	for i := 1; i < attempts && d < MaxRetryWait; i++ {
		d *= 2
	}
	d = min(d, MaxRetryWait)
	return time.Duration(float64(d) * (0.8 + 0.4*jitter))
}

// RetryAfter parses a Retry-After value (seconds or an HTTP date) at now;
// false when there is none or it cannot be read. Pure.
func RetryAfter(value string, now time.Time) (time.Duration, bool) {
	if value == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(value); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(value); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// WorkerOptions configure a Worker. Every zero value means the documented
// default.
type WorkerOptions struct {
	// Client posts deliveries; NewClient(ClientOptions{}) when nil, which
	// refuses private addresses.
	Client *http.Client
	// Logger logs failed store calls; slog.Default() when nil.
	Logger *slog.Logger
	// Clock is time.Now when nil.
	Clock func() time.Time
	// Jitter returns numbers in [0, 1) that spread retries; math/rand/v2
	// when nil.
	Jitter func() float64
	// Batch is the most deliveries claimed at once; 50 when zero.
	Batch int
	// Concurrency is how many deliveries are posted at once; 8 when zero.
	Concurrency int
	// Lease is how long a claim holds a delivery; it must outlast an
	// attempt (the client's timeout, Timeout when it has none), or
	// NewWorker fails. One minute when zero.
	Lease time.Duration
	// Poll is how long Run waits when nothing is due; one second when zero.
	Poll time.Duration
	// FirstRetry is the wait after a delivery's first failure, doubling
	// after each further one (BackoffFrom); DefaultFirstRetry when zero.
	FirstRetry time.Duration
	// Retention is how long an event and its deliveries are kept once
	// made: Run deletes older ones about once an hour (Cleanup).
	// DefaultRetention when zero; never deleted when negative.
	Retention time.Duration
}

// DefaultRetention is how long the outbox keeps an event and its
// deliveries (the deliveries list shows them that long): well past the
// 24 hours of retries.
const DefaultRetention = 30 * 24 * time.Hour

// cleanupEvery is how often Run deletes the events past Retention.
const cleanupEvery = time.Hour

// Worker delivers the outbox. Run it on every replica: leases keep two
// replicas from sending one delivery at once. It is safe for concurrent use.
type Worker struct {
	store Store
	box   *secretBox
	opts  WorkerOptions
}

// NewWorker returns a worker over store; serverSecret (at least
// MinServerSecretSize bytes) opens the signing secrets.
func NewWorker(store Store, serverSecret []byte, opts WorkerOptions) (*Worker, error) {
	box, err := newSecretBox(serverSecret)
	if err != nil {
		return nil, err
	}
	if opts.Client == nil {
		opts.Client = NewClient(ClientOptions{})
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Jitter == nil {
		opts.Jitter = rand.Float64
	}
	if opts.Batch == 0 {
		opts.Batch = 50
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 8
	}
	if opts.Lease == 0 {
		opts.Lease = time.Minute
	}
	if opts.Poll == 0 {
		opts.Poll = time.Second
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.FirstRetry == 0 {
		opts.FirstRetry = DefaultFirstRetry
	}
	if opts.FirstRetry < 0 {
		return nil, fmt.Errorf("webhook: the first retry wait (%s) must not be negative", opts.FirstRetry)
	}
	w := &Worker{store: store, box: box, opts: opts}
	if w.opts.Lease <= w.attemptTimeout() {
		return nil, fmt.Errorf("webhook: the lease (%s) must outlast an attempt (%s)", w.opts.Lease, w.attemptTimeout())
	}
	return w, nil
}

// attemptTimeout bounds one post: the client's timeout, or Timeout for a
// client without one.
func (w *Worker) attemptTimeout() time.Duration {
	if t := w.opts.Client.Timeout; t > 0 {
		return t
	}
	return Timeout
}

// Run delivers until ctx ends, waiting Poll whenever nothing was due or
// the store failed.
func (w *Worker) Run(ctx context.Context) {
	var cleaned time.Time
	for ctx.Err() == nil {
		if now := w.opts.Clock(); now.Sub(cleaned) >= cleanupEvery {
			cleaned = now
			if _, err := w.Cleanup(ctx); err != nil && ctx.Err() == nil {
				w.opts.Logger.Warn("webhook outbox cleanup", "err", err)
			}
		}
		n, err := w.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			w.opts.Logger.Warn("webhook deliveries", "err", err)
		}
		if n < w.opts.Batch || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(w.opts.Poll):
			}
		}
	}
}

// Cleanup deletes the events made more than Retention ago, with their
// deliveries, in statements of a thousand, and returns how many; a
// negative Retention deletes none.
func (w *Worker) Cleanup(ctx context.Context) (int, error) {
	if w.opts.Retention < 0 {
		return 0, nil
	}
	const batch = 1000
	before := w.opts.Clock().Add(-w.opts.Retention)
	total := 0
	for {
		n, err := w.store.DeleteEventsBefore(ctx, before, batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}

// RunOnce claims the deliveries due now (at most Batch), posts them and
// records each outcome; it returns how many it claimed.
//
// A delivery is posted only while its lease still outlasts an attempt
// (attemptTimeout): a claim that slow receivers kept waiting past that
// is not posted, and its lease runs out, so that another replica, or the
// next pass, claims it and no two replicas ever post one delivery at once.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	claimedAt := w.opts.Clock()
	claimed, err := w.store.ClaimDeliveries(ctx, claimedAt, w.opts.Lease, w.opts.Batch)
	if err != nil {
		return 0, err
	}
	lastStart := claimedAt.Add(w.opts.Lease - w.attemptTimeout())
	sem := make(chan struct{}, w.opts.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for i := range claimed {
		sem <- struct{}{}
		if w.opts.Clock().After(lastStart) {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := w.deliver(ctx, &claimed[i]); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return len(claimed), errors.Join(errs...)
}

// attempt is what one request did.
type attempt struct {
	status     *int
	retryAfter string
	err        error
	took       time.Duration
}

func (w *Worker) deliver(ctx context.Context, c *Claimed) error {
	start := w.opts.Clock()
	a := w.post(ctx, c, start)
	now := w.opts.Clock()
	o := Outcome{AttemptedAt: start, StatusCode: a.status, ResponseMS: int(a.took.Milliseconds())}
	retry := false
	switch {
	case a.err != nil:
		o.Error, retry = a.err.Error(), true
	case *a.status >= 200 && *a.status < 300:
		o.Status = StatusSucceeded
	case *a.status == http.StatusTooManyRequests || *a.status >= 500:
		o.Error, retry = fmt.Sprintf("the endpoint answered %d", *a.status), true
	default:
		o.Error = fmt.Sprintf("the endpoint answered %d, which is not retried", *a.status)
		o.Status = StatusFailed
	}
	if len(o.Error) > maxErrorLength {
		o.Error = o.Error[:maxErrorLength]
	}
	if o.Status != StatusSucceeded {
		o.DisableBefore = now.Add(-DisableAfter)
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("webhook: audit entry id: %w", err)
		}
		orgID := c.OrgID
		o.Disabled = &audit.Event{ID: id, OrgID: &orgID, Action: audit.WebhookDisabled, ActorType: audit.ActorSystem,
			TargetType: "webhook", TargetID: c.WebhookID.String(), OccurredAt: now.UTC().Truncate(time.Millisecond),
			Details: map[string]string{"url": c.Endpoint.URL, "failing_since": c.Endpoint.failingSince(start)}}
	}
	if retry {
		wait := BackoffFrom(w.opts.FirstRetry, c.Attempts+1, w.opts.Jitter())
		if d, ok := RetryAfter(a.retryAfter, now); ok {
			wait = max(wait, d)
		}
		next := now.Add(wait)
		if next.After(c.CreatedAt.Add(RetryWindow)) {
			o.Status = StatusFailed
		} else {
			o.Status, o.NextAttemptAt = StatusPending, &next
		}
	}
	if _, err := w.store.FinishDelivery(context.WithoutCancel(ctx), c.ID, c.Lease, o); err != nil {
		return fmt.Errorf("webhook: finish delivery %s: %w", c.ID, err)
	}
	return nil
}

func (e *Endpoint) failingSince(now time.Time) string {
	if e.FailingSince != nil {
		return e.FailingSince.UTC().Format(time.RFC3339)
	}
	return now.UTC().Format(time.RFC3339)
}

// Signatures returns the webhook-signature header of a delivery of e:
// signed with its secret and, until PreviousSecretUntil, with the rotated
// one too.
func (w *Worker) signatures(e *Endpoint, id string, ts int64, body []byte, now time.Time) (string, error) {
	secret, err := w.box.open(e.SealedSecret, e.ID)
	if err != nil {
		return "", err
	}
	sig, err := Sign(secret, id, ts, body)
	if err != nil {
		return "", err
	}
	if e.SealedPreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		old, err := w.box.open(e.SealedPreviousSecret, e.ID)
		if err != nil {
			return "", err
		}
		oldSig, err := Sign(old, id, ts, body)
		if err != nil {
			return "", err
		}
		sig += " " + oldSig
	}
	return sig, nil
}

func (w *Worker) post(ctx context.Context, c *Claimed, now time.Time) attempt {
	id, ts := c.EventID.String(), now.Unix()
	sig, err := w.signatures(&c.Endpoint, id, ts, c.Body, now)
	if err != nil {
		return attempt{err: err}
	}
	if w.opts.Client.Timeout <= 0 {
		// A client without a timeout is bounded here, so that an attempt
		// never outlasts the lease.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.attemptTimeout())
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint.URL, bytes.NewReader(c.Body))
	if err != nil {
		return attempt{err: fmt.Errorf("webhook: request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Hoplink-Webhooks/1")
	req.Header.Set(HeaderID, id)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, sig)
	began := time.Now()
	resp, err := w.opts.Client.Do(req)
	if err != nil {
		return attempt{err: err, took: time.Since(began)}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
	status := resp.StatusCode
	return attempt{status: &status, retryAfter: resp.Header.Get("Retry-After"), took: time.Since(began)}
}
