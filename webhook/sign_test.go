package webhook_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/webhook"
)

// The test vector of the Standard Webhooks specification's reference
// libraries.
const (
	refSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	refID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	refTimestamp = 1614265330
	refBody      = `{"test": 2432232314}`
	refSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesTheReferenceVector(t *testing.T) {
	sig, err := webhook.Sign(refSecret, refID, refTimestamp, []byte(refBody))
	require.NoError(t, err)
	assert.Equal(t, refSignature, sig)
}

func headers(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	h.Set(webhook.HeaderID, id)
	h.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(webhook.HeaderSignature, sig)
	return h
}

func TestVerify(t *testing.T) {
	now := time.Unix(refTimestamp, 0)
	other, err := webhook.NewSecret(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	otherSig, err := webhook.Sign(other, refID, refTimestamp, []byte(refBody))
	require.NoError(t, err)
	tests := []struct {
		name    string
		secret  string
		headers http.Header
		body    string
		now     time.Time
		want    error
	}{
		{"the reference signature verifies", refSecret, headers(refID, refTimestamp, refSignature), refBody, now, nil},
		{"one of several space-separated signatures verifies", refSecret,
			headers(refID, refTimestamp, otherSig+" "+refSignature), refBody, now, nil},
		{"a secret without the prefix works", refSecret[len("whsec_"):], headers(refID, refTimestamp, refSignature), refBody, now, nil},
		{"a changed body fails", refSecret, headers(refID, refTimestamp, refSignature), refBody + " ", now, webhook.ErrNoValidSignature},
		{"another id fails", refSecret, headers("msg_other", refTimestamp, refSignature), refBody, now, webhook.ErrNoValidSignature},
		{"another secret's signature fails", refSecret, headers(refID, refTimestamp, otherSig), refBody, now, webhook.ErrNoValidSignature},
		{"an unknown version is ignored", refSecret, headers(refID, refTimestamp, "v2,"+refSignature[3:]), refBody, now, webhook.ErrNoValidSignature},
		{"a timestamp too old fails", refSecret, headers(refID, refTimestamp, refSignature), refBody,
			now.Add(webhook.Tolerance + time.Second), webhook.ErrTimestamp},
		{"a timestamp in the future fails", refSecret, headers(refID, refTimestamp, refSignature), refBody,
			now.Add(-webhook.Tolerance - time.Second), webhook.ErrTimestamp},
		{"a malformed timestamp fails", refSecret, func() http.Header {
			h := headers(refID, refTimestamp, refSignature)
			h.Set(webhook.HeaderTimestamp, "soon")
			return h
		}(), refBody, now, webhook.ErrTimestamp},
		{"missing headers fail", refSecret, http.Header{}, refBody, now, webhook.ErrMissingHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := webhook.VerifyAt(tt.secret, tt.headers, []byte(tt.body), tt.now)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
	assert.Error(t, webhook.VerifyAt("whsec_***", headers(refID, refTimestamp, refSignature), []byte(refBody), now), "a malformed secret")
}

func TestNewSecretFormat(t *testing.T) {
	s, err := webhook.NewSecret(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	require.NoError(t, err)
	assert.Equal(t, "whsec_AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=", s)
}

func ExampleVerify() {
	h := http.Header{}
	h.Set("webhook-id", refID)
	h.Set("webhook-timestamp", strconv.Itoa(refTimestamp))
	h.Set("webhook-signature", refSignature)
	fmt.Println(webhook.VerifyAt(refSecret, h, []byte(refBody), time.Unix(refTimestamp, 0)))
	// Output: <nil>
}
