package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of every delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix begins every signing secret: "whsec_" and the base64 of the
// key bytes, as the Standard Webhooks specification writes secrets.
const SecretPrefix = "whsec_"

// secretBytes is the size of the keys NewSecret makes: 32 bytes, the size
// of an HMAC-SHA256 block's worth of entropy the specification recommends
// (24 to 64).
const secretBytes = 32

// Tolerance is how far a delivery's timestamp may be from the receiver's
// clock for Verify to accept it: five minutes, the specification's default,
// which stops a captured delivery from being replayed later.
const Tolerance = 5 * time.Minute

// NewSecret returns a new signing secret drawn from random.
func NewSecret(random io.Reader) (string, error) {
	b := make([]byte, secretBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("webhook: secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey returns the HMAC key of secret: the base64 after "whsec_" (the
// prefix is optional, as in the reference libraries).
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook: the secret is not whsec_ followed by base64")
	}
	return key, nil
}

// Sign returns the signature of a delivery, "v1," and the base64
// HMAC-SHA256 of "id.timestamp.body" under secret's key; timestamp is in
// Unix seconds.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, timestamp, body)), nil
}

func mac(key []byte, id string, timestamp int64, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrMissingHeaders   = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp        = errors.New("webhook: the timestamp is malformed or too far from now")
	ErrNoValidSignature = errors.New("webhook: no signature matches")
)

// Verify checks a delivery a receiver got: its webhook-signature header
// must hold a v1 signature (among the space-separated ones) of the
// webhook-id, webhook-timestamp and body under secret, and its timestamp
// must be within Tolerance of now. It returns ErrMissingHeaders,
// ErrTimestamp, ErrNoValidSignature or an error about the secret.
func Verify(secret string, headers http.Header, body []byte) error {
	return VerifyAt(secret, headers, body, time.Now())
}

// VerifyAt is Verify with now given.
func VerifyAt(secret string, headers http.Header, body []byte, now time.Time) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	id, ts, sigs := headers.Get(HeaderID), headers.Get(HeaderTimestamp), headers.Get(HeaderSignature)
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return ErrTimestamp
	}
	want := mac(key, id, sec, body)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoValidSignature
}
