package webhook_test

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/webhook"
)

// countingTransport counts the bytes read from every response body it
// returns.
type countingTransport struct {
	base http.RoundTripper
	read atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// A receiver that answers with a body larger than MaxResponseBody gets
// that much of it read, no more, and the delivery still succeeds on its
// status.
func TestAnAnswerIsReadUpToTheCap(t *testing.T) {
	t.Parallel()
	large := bytes.Repeat([]byte("x"), 16*webhook.MaxResponseBody)
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(large)
	})
	client := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, TLS: rc.tls(), Timeout: 2 * time.Second})
	counting := &countingTransport{base: client.Transport}
	client.Transport = counting
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true, client: client})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	f.emit(t, webhook.MemberJoined, webhook.MemberData{Role: "member"})

	require.Equal(t, 1, f.run(t))
	assert.Equal(t, int64(webhook.MaxResponseBody), counting.read.Load(), "64 KiB of a 1 MiB answer")
	ds := f.deliveries(t, hook.ID)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.StatusSucceeded, ds[0].Status)
	assert.Equal(t, http.StatusOK, *ds[0].LastStatusCode)
}
