package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/store/storetest"
	"github.com/hoplink/hoplink/webhook"
)

// The webhook acceptance items that need real processes: the outbox
// survives a kill -9 in the middle of retries, and two `hoplink serve`
// processes on one PostgreSQL deliver each event once.

// hookDelivery is an entry of GET /v1/webhooks/{id}/deliveries.
type hookDelivery struct {
	EventID       string  `json:"event_id"`
	EventType     string  `json:"event_type"`
	Status        string  `json:"status"`
	Attempts      int     `json:"attempts"`
	NextAttemptAt *string `json:"next_attempt_at"`
}

// createHookOrg migrates the database dsn when it is PostgreSQL (serve
// migrates SQLite itself) and creates an organization there with the
// operator's CLI, returning its API key.
func createHookOrg(t *testing.T, bin, dsn string) string {
	t.Helper()
	if app.IsPostgresDSN(dsn) {
		out, errOut, code := runBinary(t, bin, "migrate", "--db", dsn)
		require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	}
	out, errOut, code := runBinary(t, bin, "org", "create", "--db", dsn, "--name", "Acme", "--plan", "growth", "--json")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	var created struct {
		APIKey struct {
			RawKey string `json:"raw_key"`
		} `json:"api_key"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	return created.APIKey.RawKey
}

// postgresServeArgs are the flags of a serve process on dsn: a server
// secret file of its own, which every process of the test shares.
func postgresServeArgs(t *testing.T, dsn string) []string {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	file := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(file, []byte(hex.EncodeToString(secret)), 0o600))
	return []string{"--db", dsn, "--secret-file", file}
}

// createHook subscribes url to events through srv and returns the
// webhook's id and secret.
func createHook(t *testing.T, srv *server, key, url string, events ...string) (id, secret string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"url": url, "events": events})
	require.NoError(t, err)
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	srv.call(t, key, http.MethodPost, "/v1/webhooks", string(body), http.StatusCreated, &hook)
	return hook.ID, hook.Secret
}

// createShopApp creates an app through srv (links need one) and returns its id.
func createShopApp(t *testing.T, srv *server, key string) string {
	t.Helper()
	var app struct {
		ID string `json:"id"`
	}
	srv.call(t, key, http.MethodPost, "/v1/apps", `{"name":"Acme Shop","android_package_name":"com.acme.shop",`+
		`"android_play_store_url":"https://play.google.com/store/apps/details?id=com.acme.shop"}`, http.StatusCreated, &app)
	return app.ID
}

// createLink creates a link of appID with slug through srv and returns its id.
func createLink(t *testing.T, srv *server, key, appID, slug string) string {
	t.Helper()
	var link struct {
		ID string `json:"id"`
	}
	srv.call(t, key, http.MethodPost, "/v1/links",
		`{"destination_url":"https://shop.example/`+slug+`","slug":"`+slug+`","app_id":"`+appID+`"}`, http.StatusCreated, &link)
	return link.ID
}

// waitCount returns what the receiver got once it holds at least n
// requests, failing when one of live exits first or processLimit passes.
func (rc *hookReceiver) waitCount(t *testing.T, live []*server, n int) []delivered {
	t.Helper()
	limit := time.NewTimer(processLimit)
	defer limit.Stop()
	for {
		got, grew := rc.snapshot()
		if len(got) >= n {
			return got
		}
		exited := make(chan *server, 1)
		stopWatch := make(chan struct{})
		for _, srv := range live {
			go func() {
				select {
				case <-srv.exited:
					select {
					case exited <- srv:
					default:
					}
				case <-stopWatch:
				}
			}()
		}
		select {
		case <-grew:
			close(stopWatch)
		case srv := <-exited:
			close(stopWatch)
			t.Fatalf("hoplink exited with %d of %d deliveries\nstderr: %s", len(got), n, srv.stderr)
		case <-limit.C:
			close(stopWatch)
			t.Fatalf("%d of %d deliveries within %v", len(got), n, processLimit)
		}
	}
}

// waitDeliveries reads the webhook's deliveries through srv until done
// holds for them. The worker records an outcome right after the receiver
// answers, so a caller first waits for the receiver: a few reads suffice,
// well within the API's rate limit.
func waitDeliveries(t *testing.T, srv *server, key, hookID string, done func([]hookDelivery) bool) []hookDelivery {
	t.Helper()
	deadline := time.Now().Add(processLimit)
	for {
		var page struct {
			Data []hookDelivery `json:"data"`
		}
		srv.call(t, key, http.MethodGet, "/v1/webhooks/"+hookID+"/deliveries?limit=100", "", http.StatusOK, &page)
		if done(page.Data) {
			return page.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries did not reach the expected state within %v: %+v", processLimit, page.Data)
		}
		select {
		case <-srv.exited:
			t.Fatalf("hoplink exited\nstderr: %s", srv.stderr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// A receiver answers 500 to the first two attempts; the serve process is
// killed with SIGKILL while the delivery waits for its retry. Started
// again on the same database, serve retries the same event from the
// outbox (same webhook-id), once more against the 500, then delivered.
func TestWebhookRetriesSurviveKill9(t *testing.T) {
	skipCrashTest(t)
	bin := buildHoplink(t)
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "hoplink.db")
		retryAcrossKill9(t, bin, db, []string{"--db", db})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		retryAcrossKill9(t, bin, dsn, append(postgresServeArgs(t, dsn), "--spool-dir", t.TempDir()))
	})
}

func retryAcrossKill9(t *testing.T, bin, dsn string, args []string) {
	key := createHookOrg(t, bin, dsn)
	rc := newFailingHookReceiver(t, 2)
	// Retries 3 s after the first failure and 6 s after the second,
	// instead of 30 s and a minute.
	args = append(args, "--no-bootstrap", "--webhook-allow-private", "--webhook-first-retry", "3s")
	srv := startServe(t, bin, args...)
	hookID, secret := createHook(t, srv, key, rc.URL+"/hoplink", "link.created")
	linkID := createLink(t, srv, key, createShopApp(t, srv, key), "spring")

	first := rc.waitCount(t, []*server{srv}, 1)[0]
	eventID := first.header.Get("webhook-id")
	ds := waitDeliveries(t, srv, key, hookID, func(ds []hookDelivery) bool {
		return len(ds) == 1 && ds[0].Attempts == 1
	})
	require.Equal(t, "pending", ds[0].Status, "the 500 is retried")
	require.NotNil(t, ds[0].NextAttemptAt, "waiting for its retry")
	srv.kill9(t)
	got, _ := rc.snapshot()
	require.Len(t, got, 1, "killed while the delivery waited for its retry, not during an attempt")

	srv = startServe(t, bin, args...)
	rc.waitCount(t, []*server{srv}, 3)
	ds = waitDeliveries(t, srv, key, hookID, func(ds []hookDelivery) bool {
		return len(ds) == 1 && ds[0].Status != "pending"
	})
	srv.stop(t)
	assert.Equal(t, "succeeded", ds[0].Status)
	assert.Equal(t, 3, ds[0].Attempts, "one attempt before the kill, two after")
	assert.Equal(t, eventID, ds[0].EventID)
	got, _ = rc.snapshot()
	require.Len(t, got, 3, "nothing is sent after the success")
	for _, d := range got {
		assert.Equal(t, eventID, d.header.Get("webhook-id"), "the same webhook-id on every attempt")
		assert.Equal(t, "link.created", d.typ)
		assert.Equal(t, linkID, d.data["id"])
		require.NoError(t, webhook.Verify(secret, d.header, d.body))
	}
}

// Two serve processes on one PostgreSQL schema, both running the webhook
// worker. The design promises that a lease keeps two processes from
// sending one delivery at once, and that every process sends deliveries;
// not how they share them. So: events of changes made through either
// process, while both run, arrive exactly once each; and each process,
// running alone, delivers.
func TestTwoServeProcessesOnOnePostgresDeliverEachEventOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the hoplink binary; skipped with -short")
	}
	dsn := storetest.PostgresDSN(t)
	bin := buildHoplink(t)
	key := createHookOrg(t, bin, dsn)
	base := append(postgresServeArgs(t, dsn), "--no-bootstrap", "--webhook-allow-private")
	rc := newHookReceiver(t)

	// B alone delivers.
	b := startServe(t, bin, slices.Concat(base, []string{"--spool-dir", t.TempDir()})...)
	hookID, secret := createHook(t, b, key, rc.URL+"/hoplink", "link.created")
	appID := createShopApp(t, b, key)
	var links []string
	create := func(srv *server, slug string) { links = append(links, createLink(t, srv, key, appID, slug)) }
	for i := range 3 {
		create(b, fmt.Sprintf("b-alone-%d", i))
	}
	rc.waitCount(t, []*server{b}, 3)

	// Both run: 40 changes, half through each process's API.
	a := startServe(t, bin, slices.Concat(base, []string{"--spool-dir", t.TempDir()})...)
	const both = 40
	for i := range both {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		create(srv, fmt.Sprintf("both-%d", i))
	}
	rc.waitCount(t, []*server{a, b}, 3+both)
	// Every outcome recorded before B stops: a stop cuts off an attempt
	// in flight, which is then retried (at least once), and this test is
	// of the normal case.
	settled := func(n int) func([]hookDelivery) bool {
		return func(ds []hookDelivery) bool {
			for _, d := range ds {
				if d.Status == "pending" {
					return false
				}
			}
			return len(ds) == n
		}
	}
	waitDeliveries(t, b, key, hookID, settled(3+both))

	// A alone delivers, once B has stopped.
	b.stop(t)
	for i := range 3 {
		create(a, fmt.Sprintf("a-alone-%d", i))
	}
	total := len(links)
	rc.waitCount(t, []*server{a}, total)
	ds := waitDeliveries(t, a, key, hookID, settled(total))
	a.stop(t)

	got, _ := rc.snapshot()
	require.Len(t, got, total, "one request per event")
	byID := map[string]int{}
	var linked []string
	for _, d := range got {
		byID[d.header.Get("webhook-id")]++
		linked = append(linked, d.data["id"].(string))
		require.NoError(t, webhook.Verify(secret, d.header, d.body))
	}
	for id, n := range byID {
		assert.Equal(t, 1, n, "webhook-id %s delivered %d times", id, n)
	}
	assert.ElementsMatch(t, links, linked, "one link.created per link")
	for _, d := range ds {
		assert.Equal(t, "succeeded", d.Status, d.EventID)
		assert.Equal(t, 1, d.Attempts, "no event was sent twice: %s", d.EventID)
		assert.Equal(t, 1, byID[d.EventID], "the receiver got %s once", d.EventID)
	}
}
