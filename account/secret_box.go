package account

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hoplink/hoplink/secretkey"
)

// MinServerSecretSize is the fewest bytes of server secret NewService accepts.
const MinServerSecretSize = 32

// The versions of the sealed form. v2 is sealed under
// secretkey.Derive(secret, sealPurpose); v1, which the first releases wrote,
// under an HKDF-SHA256 key of legacySealLabel and is only opened, so that
// authenticators enrolled before the change keep working.
const (
	sealPrefix       = "v2:"
	sealPurpose      = "hoplink account totp secret v2"
	legacySealPrefix = "v1:"
	legacySealLabel  = "hoplink account totp secret v1"
)

// secretBox encrypts TOTP secrets at rest with AES-256-GCM. Its key is
// derived from the server secret for this purpose alone, so this key is
// never the one that signs cookies or cursors. The sealed form is "v2:" +
// base64url(nonce || ciphertext); the additional data binds a sealed value
// to its owner (the user id), so a ciphertext copied to another user's row
// does not open. Values sealed as "v1:" still open.
type secretBox struct {
	aead   cipher.AEAD
	legacy cipher.AEAD
}

func newSecretBox(serverSecret []byte) (*secretBox, error) {
	if len(serverSecret) < MinServerSecretSize {
		return nil, fmt.Errorf("account: the server secret must be at least %d bytes", MinServerSecretSize)
	}
	aead, err := newGCM(secretkey.Derive(serverSecret, sealPurpose))
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, serverSecret, nil, legacySealLabel, 32)
	if err != nil {
		return nil, fmt.Errorf("account: derive key: %w", err)
	}
	legacy, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead, legacy: legacy}, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (b *secretBox) seal(random io.Reader, plaintext, owner []byte) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := io.ReadFull(random, nonce); err != nil {
		return "", fmt.Errorf("account: nonce: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, plaintext, owner)
	return sealPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

var errUnsealable = errors.New("account: sealed secret cannot be opened (wrong server secret or damaged value)")

func (b *secretBox) open(sealed string, owner []byte) ([]byte, error) {
	aead := b.aead
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		aead = b.legacy
		if rest, ok = strings.CutPrefix(sealed, legacySealPrefix); !ok {
			return nil, errUnsealable
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < aead.NonceSize() {
		return nil, errUnsealable
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, raw[:n], raw[n:], owner)
	if err != nil {
		return nil, errUnsealable
	}
	return plain, nil
}
