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
)

// MinServerSecretSize is the fewest bytes of server secret NewService accepts.
const MinServerSecretSize = 32

// sealPrefix versions the sealed form, so that the scheme can change later.
const sealPrefix = "v1:"

// secretBox encrypts TOTP secrets at rest with AES-256-GCM. Its key is
// derived from the server secret with HKDF-SHA256 under a label of its own,
// so this key is never the one that signs cookies or cursors. The sealed
// form is "v1:" + base64url(nonce || ciphertext); the additional data binds
// a sealed value to its owner (the user id), so a ciphertext copied to
// another user's row does not open.
type secretBox struct {
	aead cipher.AEAD
}

func newSecretBox(serverSecret []byte) (*secretBox, error) {
	if len(serverSecret) < MinServerSecretSize {
		return nil, fmt.Errorf("account: the server secret must be at least %d bytes", MinServerSecretSize)
	}
	key, err := hkdf.Key(sha256.New, serverSecret, nil, "hoplink account totp secret v1", 32)
	if err != nil {
		return nil, fmt.Errorf("account: derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead}, nil
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
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return nil, errUnsealable
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return nil, errUnsealable
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], owner)
	if err != nil {
		return nil, errUnsealable
	}
	return plain, nil
}
