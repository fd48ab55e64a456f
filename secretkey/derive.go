package secretkey

import (
	"crypto/hmac"
	"crypto/sha256"
)

// Size is the length of a derived key in bytes: 32, an AES-256 or
// HMAC-SHA256 key.
const Size = sha256.Size

// Derive returns the key for purpose derived from the server secret:
// HMAC-SHA256(secret, purpose), Size bytes. The same secret and purpose
// always give the same key.
func Derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}
