// Command webhook-receiver shows how a backend receives Hoplink's webhook
// deliveries and verifies them with package webhook alone: it checks the
// Standard Webhooks signature of the raw body, drops a webhook-id it has
// already processed (delivery is at least once), and answers 2xx.
//
// Run it with: go run ./examples/webhook-receiver
// which signs a few sample deliveries and posts them to the receiver on
// loopback. To receive real deliveries, give the secret the create answered
// and a listen address:
//
//	HOPLINK_WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver -listen :9000
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hoplink/hoplink/webhook"
)

// receiver verifies deliveries and handles each event once.
type receiver struct {
	secret string
	// now is the clock signatures are checked against; time.Now in a
	// real receiver.
	now  func() time.Time
	out  io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	// Verify the raw bytes: re-encoded JSON would not match the signature.
	if err := webhook.VerifyAt(rc.secret, r.Header, body, rc.now()); err != nil {
		fmt.Fprintf(rc.out, "refused: %v\n", err)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	dup := rc.seen[id]
	rc.seen[id] = true
	rc.mu.Unlock()
	if dup {
		fmt.Fprintf(rc.out, "duplicate %s: already handled\n", id)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var event struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &event); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	switch event.Type {
	case "install.attributed":
		var d webhook.InstallAttributedData
		_ = json.Unmarshal(event.Data, &d)
		fmt.Fprintf(rc.out, "install %s came from link %s (%s, confidence %.2f)\n", d.InstallID, d.LinkID, d.MatchType, d.MatchConfidence)
	default:
		fmt.Fprintf(rc.out, "event %s\n", event.Type)
	}
	w.WriteHeader(http.StatusNoContent)
}

func main() {
	listen := flag.String("listen", "", "address to receive real deliveries on; empty runs the demo")
	flag.Parse()
	if *listen != "" {
		rc := &receiver{secret: os.Getenv("HOPLINK_WEBHOOK_SECRET"), now: time.Now, out: os.Stdout, seen: map[string]bool{}}
		log.Fatal(http.ListenAndServe(*listen, rc))
	}
	run(os.Stdout)
}

// The demo's fixed secret and time.
const demoSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var demoNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// run posts signed sample deliveries to a receiver on loopback: a good
// one, the same again (a retry), one with a changed body and one signed
// with another secret.
func run(out io.Writer) {
	rc := &receiver{secret: demoSecret, now: func() time.Time { return demoNow }, out: out, seen: map[string]bool{}}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	body := []byte(`{"type":"install.attributed","timestamp":"2026-11-27T12:00:00Z","data":{"install_id":"0193a8f2-0000-7000-8000-000000000001",` +
		`"app_id":null,"link_id":"0193a8f2-0000-7000-8000-000000000002","click_id":null,"match_type":"deterministic",` +
		`"match_confidence":1,"match_signal":"referrer","platform":"android","is_reinstall":false,"installed_at":"2026-11-27T12:00:00Z"}}`)
	post := func(label, secret, id string, signed, sent []byte) {
		ts := demoNow.Unix()
		sig, err := webhook.Sign(secret, id, ts, signed)
		if err != nil {
			log.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(sent))
		req.Header.Set("webhook-id", id)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("webhook-signature", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Fprintf(out, "%s -> %d\n", label, resp.StatusCode)
	}
	post("delivery", demoSecret, "evt-1", body, body)
	post("retry", demoSecret, "evt-1", body, body)
	post("changed body", demoSecret, "evt-2", body, append(bytes.Clone(body), ' '))
	post("other secret", "whsec_"+"b3RoZXIgc2VjcmV0IG9mIDMyIGJ5dGVzIGxvbmchIQ==", "evt-3", body, body)
}
