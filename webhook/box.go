package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/secretkey"
)

// MinServerSecretSize is the fewest bytes of server secret the Service and
// the Worker accept.
const MinServerSecretSize = 32

// Signing secrets are stored sealed, since the worker must sign with them
// (a hash would not do): AES-256-GCM under secretkey.Derive(secret,
// sealPurpose), the form "v1:" + base64url(nonce || ciphertext), the
// endpoint's id as additional data so that a sealed secret copied to
// another endpoint's row does not open.
const (
	sealPrefix  = "v1:"
	sealPurpose = "hoplink webhook secret v1"
)

type secretBox struct{ aead cipher.AEAD }

func newSecretBox(serverSecret []byte) (*secretBox, error) {
	if len(serverSecret) < MinServerSecretSize {
		return nil, fmt.Errorf("webhook: the server secret must be at least %d bytes", MinServerSecretSize)
	}
	block, err := aes.NewCipher(secretkey.Derive(serverSecret, sealPurpose))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead}, nil
}

func (b *secretBox) seal(random io.Reader, secret string, owner uuid.UUID) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := io.ReadFull(random, nonce); err != nil {
		return "", fmt.Errorf("webhook: nonce: %w", err)
	}
	return sealPrefix + base64.RawURLEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(secret), owner[:])), nil
}

var errUnsealable = errors.New("webhook: sealed secret cannot be opened (wrong server secret or damaged value)")

func (b *secretBox) open(sealed string, owner uuid.UUID) (string, error) {
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return "", errUnsealable
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	n := b.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", errUnsealable
	}
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], owner[:])
	if err != nil {
		return "", errUnsealable
	}
	return string(plain), nil
}
