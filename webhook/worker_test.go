package webhook_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/store"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

func TestDeliveryIsSignedAndVerifiable(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL+"/hooks", webhook.LinkCreated)
	link := uuid.Must(uuid.NewV7())
	ev := f.emit(t, webhook.LinkCreated, webhook.LinkDeletedData{ID: link, Domain: "hop.example", Slug: "spring"})
	f.emit(t, webhook.DomainVerified, webhook.DomainData{}) // not subscribed

	assert.Equal(t, 1, f.run(t))
	got := rc.requests()
	require.Len(t, got, 1, "delivered once")
	r := got[0]
	assert.Equal(t, ev.ID.String(), r.header.Get("webhook-id"))
	assert.Equal(t, strconv.FormatInt(f.clock.Now().Unix(), 10), r.header.Get("webhook-timestamp"))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	assert.NoError(t, webhook.VerifyAt(hook.Secret, r.header, r.body, f.clock.Now()), "verifiable with the secret")
	var body struct {
		Type      string          `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.body, &body))
	assert.Equal(t, "link.created", body.Type)
	assert.Equal(t, f.clock.Now(), body.Timestamp)
	assert.JSONEq(t, `{"id":"`+link.String()+`","domain":"hop.example","slug":"spring","app_id":null}`, string(body.Data))

	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.StatusSucceeded, ds[0].Status)
	assert.Equal(t, 1, ds[0].Attempts)
	assert.Equal(t, http.StatusOK, *ds[0].LastStatusCode)
	assert.Nil(t, ds[0].NextAttemptAt)
	assert.NotNil(t, ds[0].LastResponseMS)

	assert.Equal(t, 0, f.run(t), "nothing left")
	assert.Len(t, rc.requests(), 1)
}

func TestA500ThenA200DeliversTwiceWithOneID(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusInternalServerError), status(http.StatusOK))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{UserID: uuid.Must(uuid.NewV7()), Role: "member"})

	f.run(t)
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.StatusPending, ds[0].Status)
	assert.Equal(t, 500, *ds[0].LastStatusCode)
	assert.Equal(t, "the endpoint answered 500", ds[0].LastError)
	assert.Equal(t, f.clock.Now().Add(webhook.Backoff(1, 0.5)), *ds[0].NextAttemptAt, "backed off")
	w, err := f.svc.Get(t.Context(), f.owner, hook.ID)
	require.NoError(t, err)
	assert.Equal(t, f.clock.Now(), *w.FailingSince, "the endpoint is failing")

	assert.Equal(t, 0, f.run(t), "not due before its time")
	f.clock.Add(webhook.Backoff(1, 0.5))
	assert.Equal(t, 1, f.run(t))
	got := rc.requests()
	require.Len(t, got, 2)
	assert.Equal(t, got[0].header.Get("webhook-id"), got[1].header.Get("webhook-id"), "the same id on every attempt")
	ds = f.deliveries(t, hook.ID)
	assert.Equal(t, webhook.StatusSucceeded, ds[0].Status)
	assert.Equal(t, 2, ds[0].Attempts)
	assert.Empty(t, ds[0].LastError)
	w, err = f.svc.Get(t.Context(), f.owner, hook.ID)
	require.NoError(t, err)
	assert.Nil(t, w.FailingSince, "a success ends the failing")
}

func TestAHangingReceiverIsTimedOut(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.answers[0] = rc.hang
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true,
		client: webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, TLS: rc.tls(), Timeout: 100 * time.Millisecond})})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.run(t)
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.StatusPending, ds[0].Status, "a timeout is retried")
	assert.Nil(t, ds[0].LastStatusCode)
	assert.Contains(t, ds[0].LastError, "Timeout")
}

func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		status webhook.Status
		wait   time.Duration // from now, when pending
	}{
		{"429 is retried after Retry-After when it is longer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}, webhook.StatusPending, time.Hour},
		{"a short Retry-After keeps the backoff", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		}, webhook.StatusPending, webhook.Backoff(1, 0.5)},
		{"a redirect is not followed and not retried", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://example.com/", http.StatusFound)
		}, webhook.StatusFailed, 0},
		{"a 4xx other than 429 is not retried", status(http.StatusGone), webhook.StatusFailed, 0},
		{"a Retry-After past the retry window gives up", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", strconv.Itoa(int((25 * time.Hour).Seconds())))
			w.WriteHeader(http.StatusTooManyRequests)
		}, webhook.StatusFailed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, tt.answer)
			f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
			hook := f.create(t, rc.URL, webhook.MemberJoined)
			f.emit(t, webhook.MemberJoined, webhook.MemberData{})
			f.run(t)
			ds := f.deliveries(t, hook.ID)
			require.Len(t, ds, 1)
			assert.Equal(t, tt.status, ds[0].Status)
			if tt.status == webhook.StatusPending {
				assert.Equal(t, f.clock.Now().Add(tt.wait), *ds[0].NextAttemptAt)
			} else {
				assert.Nil(t, ds[0].NextAttemptAt)
			}
			assert.Len(t, rc.requests(), 1)
		})
	}
}

func TestRetriesStopAfterTheWindow(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusBadGateway))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	start := f.clock.Now()
	for range 50 {
		f.run(t)
		ds := f.deliveries(t, hook.ID)
		if ds[0].Status != webhook.StatusPending {
			break
		}
		f.clock.Add(ds[0].NextAttemptAt.Sub(f.clock.Now()))
	}
	ds := f.deliveries(t, hook.ID)
	assert.Equal(t, webhook.StatusFailed, ds[0].Status, "given up")
	assert.LessOrEqual(t, ds[0].LastAttemptAt.Sub(start), webhook.RetryWindow, "within the window")
	assert.Greater(t, ds[0].Attempts, 5, "with several attempts")
	assert.Len(t, rc.requests(), ds[0].Attempts)
}

func TestBackoff(t *testing.T) {
	assert.Equal(t, 30*time.Second, webhook.Backoff(1, 0.5))
	assert.Equal(t, 60*time.Second, webhook.Backoff(2, 0.5))
	assert.Equal(t, 24*time.Second, webhook.Backoff(1, 0), "jitter -20%")
	assert.Equal(t, 6*time.Hour, webhook.Backoff(40, 0.5), "capped")
	assert.Equal(t, 2*time.Second, webhook.BackoffFrom(2*time.Second, 1, 0.5))
	assert.Equal(t, 8*time.Second, webhook.BackoffFrom(2*time.Second, 3, 0.5))
	assert.Equal(t, 6*time.Hour, webhook.BackoffFrom(2*time.Second, 40, 0.5), "capped")
	assert.Equal(t, 6*time.Hour, webhook.BackoffFrom(24*time.Hour, 1, 0.5), "a first wait past the cap is capped")
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	d, ok := webhook.RetryAfter("120", now)
	assert.True(t, ok)
	assert.Equal(t, 2*time.Minute, d)
	d, ok = webhook.RetryAfter(now.Add(time.Hour).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Equal(t, time.Hour, d)
	_, ok = webhook.RetryAfter("soon", now)
	assert.False(t, ok)
}

func TestAnEndpointFailingForFiveDaysIsDisabledAndAudited(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusInternalServerError))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	for day := 0; day <= 5; day++ {
		f.emit(t, webhook.MemberJoined, webhook.MemberData{})
		f.run(t)
		w, err := f.svc.Get(t.Context(), f.owner, hook.ID)
		require.NoError(t, err)
		assert.Equal(t, day < 5, w.Enabled, "day %d", day)
		f.clock.Add(24*time.Hour + time.Second)
	}
	page, err := f.audit.List(t.Context(), f.owner, audit.Query{})
	require.NoError(t, err)
	require.Len(t, page.Events, 1)
	e := page.Events[0]
	assert.Equal(t, audit.WebhookDisabled, e.Action)
	assert.Equal(t, audit.ActorSystem, e.ActorType)
	assert.Equal(t, hook.ID.String(), e.TargetID)
	assert.Equal(t, rc.URL, e.Details["url"])

	before := len(rc.requests())
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.clock.Add(time.Hour)
	assert.Equal(t, 0, f.run(t), "a disabled endpoint gets nothing")
	assert.Len(t, rc.requests(), before)

	enabled, err := f.svc.Update(t.Context(), f.owner, hook.ID, webhook.UpdateInput{Enabled: someBool(true)})
	require.NoError(t, err)
	assert.True(t, enabled.Enabled)
	assert.Nil(t, enabled.FailingSince)
}

func TestARotatedSecretSignsBesideTheNewOneForADay(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	rotated, err := f.svc.RotateSecret(t.Context(), f.owner, hook.ID)
	require.NoError(t, err)
	assert.NotEqual(t, hook.Secret, rotated.Secret)
	assert.Equal(t, f.clock.Now().Add(24*time.Hour), *rotated.PreviousSecretExpiresAt)

	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.run(t)
	r := rc.requests()[0]
	assert.Len(t, r.header.Values("webhook-signature"), 1)
	assert.Regexp(t, `^v1,\S+ v1,\S+$`, r.header.Get("webhook-signature"), "two signatures, space-separated")
	assert.NoError(t, webhook.VerifyAt(rotated.Secret, r.header, r.body, f.clock.Now()), "the new secret")
	assert.NoError(t, webhook.VerifyAt(hook.Secret, r.header, r.body, f.clock.Now()), "the old secret")

	f.clock.Add(24 * time.Hour)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.run(t)
	r = rc.requests()[1]
	assert.NoError(t, webhook.VerifyAt(rotated.Secret, r.header, r.body, f.clock.Now()))
	assert.ErrorIs(t, webhook.VerifyAt(hook.Secret, r.header, r.body, f.clock.Now()), webhook.ErrNoValidSignature,
		"the old secret stops signing after a day")
}

// Two workers, each with a store of its own (two processes' connection
// pools) on one database, deliver each event once: on SQLite a file, on
// PostgreSQL when HOPLINK_TEST_POSTGRES is set.
func TestTwoWorkersDeliverEachEventOnce(t *testing.T) {
	t.Parallel()
	dsns := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "hoplink.db") },
		"postgres": func(t *testing.T) string { return storetest.PostgresDSN(t) },
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsn := dsn(t)
			open := func() *store.Store {
				s, err := store.Open(t.Context(), dsn)
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				return s
			}
			first := open()
			require.NoError(t, first.Migrate(t.Context()))
			second := open()
			rc := newReceiver(t)
			f := newFixture(t, rc, fixtureOptions{allowPrivate: true, store: first})
			g := newFixture(t, rc, fixtureOptions{allowPrivate: true, store: second, org: f.org})
			f.create(t, rc.URL, webhook.MemberJoined)
			for range 40 {
				f.emit(t, webhook.MemberJoined, webhook.MemberData{})
			}
			var wg sync.WaitGroup
			for _, w := range []*webhook.Worker{f.worker, g.worker} {
				wg.Go(func() {
					for {
						n, err := w.RunOnce(t.Context())
						assert.NoError(t, err)
						if n == 0 {
							return
						}
					}
				})
			}
			wg.Wait()
			seen := map[string]int{}
			for _, r := range rc.requests() {
				seen[r.header.Get("webhook-id")]++
			}
			assert.Len(t, seen, 40)
			for id, n := range seen {
				assert.Equal(t, 1, n, id)
			}
		})
	}
}

func TestTheOutboxSurvivesARestart(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusServiceUnavailable), status(http.StatusOK))
	dsn := filepath.Join(t.TempDir(), "hoplink.db")
	first, err := store.Open(t.Context(), dsn)
	require.NoError(t, err)
	require.NoError(t, first.Migrate(t.Context()))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true, store: first})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	ev := f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.run(t)
	require.NoError(t, first.Close(), "the process stops in the middle of retries")

	second, err := store.Open(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = second.Close() })
	g := newFixture(t, rc, fixtureOptions{allowPrivate: true, store: second, org: f.org})
	g.clock.Add(time.Hour)
	assert.Equal(t, 1, g.run(t))
	got := rc.requests()
	require.Len(t, got, 2)
	assert.Equal(t, ev.ID.String(), got[1].header.Get("webhook-id"))
	assert.NoError(t, webhook.VerifyAt(hook.Secret, got[1].header, got[1].body, g.clock.Now()))
}

func TestAPrivateAddressIsRefusedAtConnectionTime(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	dns := dnstest.Start(t)
	dns.SetA("hooks.example.test", "203.0.113.10")
	resolver := loopbackResolver(dns.Addr)
	f := newFixture(t, rc, fixtureOptions{resolver: resolver,
		client: webhook.NewClient(webhook.ClientOptions{Resolver: resolver, TLS: rc.tls(), Timeout: 2 * time.Second})})
	_, port, err := splitHostPort(rc.URL)
	require.NoError(t, err)
	hook := f.create(t, "https://hooks.example.test:"+port+"/in", webhook.MemberJoined)

	dns.SetA("hooks.example.test", "127.0.0.1") // rebinding after the save
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	f.run(t)
	assert.Empty(t, rc.requests(), "never connected")
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Contains(t, ds[0].LastError, "loopback, private, link-local or metadata")
	assert.Nil(t, ds[0].LastStatusCode)
}

// A claim that slow receivers keep waiting is posted only while its lease
// outlasts an attempt; what is left is claimed again once the lease has
// run out, so that no delivery is posted twice, and none is lost.
func TestASlowClaimLeavesWhatItCannotFinishToTheNextClaim(t *testing.T) {
	t.Parallel()
	var f *fixture
	// Each answer takes 0.4 s of the fixture's clock.
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		f.clock.Add(400 * time.Millisecond)
		w.WriteHeader(http.StatusOK)
	})
	f = newFixture(t, rc, fixtureOptions{allowPrivate: true})
	f.create(t, rc.URL, webhook.MemberJoined)
	for range 5 {
		f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	}
	client := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, TLS: rc.tls(), Timeout: 500 * time.Millisecond})
	opts := webhook.WorkerOptions{Client: client, Clock: f.clock.Now, Jitter: func() float64 { return 0.5 },
		Batch: 5, Concurrency: 1, Lease: 2 * time.Second}
	w, err := webhook.NewWorker(f.store, serverSecret, opts)
	require.NoError(t, err)

	n, err := w.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	assert.Len(t, rc.requests(), 4, "posted at 0, 0.4, 0.8 and 1.2 s; at 1.6 s an attempt could outlast the lease")
	n, err = w.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Zero(t, n, "the fifth is still leased")
	f.clock.Add(time.Second)
	n, err = w.RunOnce(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the lease ran out: the fifth is claimed again")

	seen := map[string]int{}
	for _, r := range rc.requests() {
		seen[r.header.Get("webhook-id")]++
	}
	assert.Len(t, seen, 5)
	for id, k := range seen {
		assert.Equal(t, 1, k, id)
	}

	opts.Lease = 500 * time.Millisecond
	_, err = webhook.NewWorker(f.store, serverSecret, opts)
	assert.ErrorContains(t, err, "must outlast an attempt")
}

// A ping reaches the receiver signed, naming its endpoint, and a delivery
// retried by hand reaches it again with the same webhook-id.
func TestAPingAndAManualRetryReachTheReceiver(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)

	_, err := f.svc.Test(t.Context(), f.owner, hook.ID)
	require.NoError(t, err)
	require.Equal(t, 1, f.run(t))
	got := rc.requests()
	require.Len(t, got, 1)
	require.NoError(t, webhook.VerifyAt(hook.Secret, got[0].header, got[0].body, f.clock.Now()))
	var ping struct {
		Type string `json:"type"`
		Data struct {
			WebhookID string `json:"webhook_id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(got[0].body, &ping))
	assert.Equal(t, "ping", ping.Type)
	assert.Equal(t, hook.ID.String(), ping.Data.WebhookID)

	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	require.Equal(t, 1, f.run(t))
	require.Len(t, rc.requests(), 2)
	first := rc.requests()[1].header.Get("webhook-id")
	var delivered *webhook.Delivery
	for _, d := range f.deliveries(t, hook.ID) {
		if d.Status == webhook.StatusSucceeded && d.EventType == webhook.MemberJoined {
			delivered = &d
		}
	}
	require.NotNil(t, delivered)
	assert.Zero(t, f.run(t), "a delivered event is not due again")
	_, err = f.svc.Retry(t.Context(), f.owner, hook.ID, delivered.ID)
	require.NoError(t, err)
	require.Equal(t, 1, f.run(t))
	require.Len(t, rc.requests(), 3)
	assert.Equal(t, first, rc.requests()[2].header.Get("webhook-id"), "a retry is the same message")
	require.NoError(t, webhook.VerifyAt(hook.Secret, rc.requests()[2].header, rc.requests()[2].body, f.clock.Now()))
}

// The outbox keeps an event and its deliveries for Retention after it was
// made: Cleanup deletes the older ones and keeps the rest.
func TestCleanupDeletesEventsPastRetention(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	old, err := webhook.NewEvent(f.org.ID, webhook.MemberJoined, f.clock.Now(), nil, nil, webhook.MemberData{})
	require.NoError(t, err)
	// An event made 31 days ago: its id says when.
	made := time.Now().Add(-31 * 24 * time.Hour)
	old.ID = uuidV7At(t, made)
	require.NoError(t, f.store.EnqueueEvents(t.Context(), []webhook.Event{old}))
	f.emit(t, webhook.MemberJoined, webhook.MemberData{})
	require.Len(t, f.deliveries(t, hook.ID), 2)

	w, err := webhook.NewWorker(f.store, serverSecret, webhook.WorkerOptions{Client: webhook.NewClient(webhook.ClientOptions{}),
		Clock: time.Now})
	require.NoError(t, err)
	n, err := w.Cleanup(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1, "the new event's delivery stays")
	assert.NotEqual(t, old.ID, ds[0].EventID)

	w, err = webhook.NewWorker(f.store, serverSecret, webhook.WorkerOptions{Client: webhook.NewClient(webhook.ClientOptions{}),
		Clock: time.Now, Retention: -1})
	require.NoError(t, err)
	n, err = w.Cleanup(t.Context())
	require.NoError(t, err)
	assert.Zero(t, n, "a negative retention keeps everything")
	assert.Len(t, f.deliveries(t, hook.ID), 1)
}

// uuidV7At is a UUIDv7 of time at.
func uuidV7At(t *testing.T, at time.Time) uuid.UUID {
	t.Helper()
	u := uuid.Must(uuid.NewV7())
	ms := uint64(at.UnixMilli())
	for i := 5; i >= 0; i-- {
		u[i] = byte(ms)
		ms >>= 8
	}
	return u
}

// FirstRetry, the operator's --webhook-first-retry, sets the first wait
// and the schedule doubles from it.
func TestFirstRetrySetsTheSchedule(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusInternalServerError), status(http.StatusServiceUnavailable), status(http.StatusOK))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	client := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, TLS: rc.tls(), Timeout: 2 * time.Second})
	var err error
	f.worker, err = webhook.NewWorker(f.store, serverSecret, webhook.WorkerOptions{Client: client, Clock: f.clock.Now,
		Jitter: func() float64 { return 0.5 }, FirstRetry: 2 * time.Second})
	require.NoError(t, err)
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{UserID: uuid.Must(uuid.NewV7()), Role: "member"})

	f.run(t)
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Equal(t, f.clock.Now().Add(2*time.Second), *ds[0].NextAttemptAt, "the first wait")
	f.clock.Add(2 * time.Second)
	assert.Equal(t, 1, f.run(t))
	ds = f.deliveries(t, hook.ID)
	assert.Equal(t, f.clock.Now().Add(4*time.Second), *ds[0].NextAttemptAt, "doubled")
	f.clock.Add(4 * time.Second)
	assert.Equal(t, 1, f.run(t))
	ds = f.deliveries(t, hook.ID)
	assert.Equal(t, webhook.StatusSucceeded, ds[0].Status)
	assert.Equal(t, 3, ds[0].Attempts)

	_, err = webhook.NewWorker(f.store, serverSecret, webhook.WorkerOptions{Client: client, FirstRetry: -time.Second})
	assert.ErrorContains(t, err, "must not be negative")
}
