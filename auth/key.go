package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"io"
	"strings"
)

// Key prefixes (SPEC.md, Authentication rule 1).
const (
	LivePrefix = "svc_live_"
	TestPrefix = "svc_test_"
)

// KeyBodyLength is the number of alphanumeric characters after the prefix.
const KeyBodyLength = 32

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// GenerateKey returns a new raw key: prefix followed by 32 alphanumeric
// characters drawn without bias from random (crypto/rand.Reader when nil).
// prefix must be LivePrefix or TestPrefix.
func GenerateKey(random io.Reader, prefix string) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	var b strings.Builder
	b.Grow(len(prefix) + KeyBodyLength)
	b.WriteString(prefix)
	buf := make([]byte, 64)
	for n := 0; n < KeyBodyLength; {
		if _, err := io.ReadFull(random, buf); err != nil {
			return "", err
		}
		for _, c := range buf {
			// 248 = 4*62: rejecting larger bytes keeps every character equally likely.
			if c >= 248 {
				continue
			}
			b.WriteByte(alphabet[int(c)%len(alphabet)])
			n++
			if n == KeyBodyLength {
				break
			}
		}
	}
	return b.String(), nil
}

// KeyPrefix returns the fixed prefix of raw ("svc_live_" or "svc_test_") and
// whether raw has the key format: that prefix and exactly 32 ASCII letters or digits.
func KeyPrefix(raw string) (string, bool) {
	var prefix string
	switch {
	case strings.HasPrefix(raw, LivePrefix):
		prefix = LivePrefix
	case strings.HasPrefix(raw, TestPrefix):
		prefix = TestPrefix
	default:
		return "", false
	}
	body := raw[len(prefix):]
	if len(body) != KeyBodyLength {
		return "", false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", false
		}
	}
	return prefix, true
}

// LooksLikeKey reports whether token starts with one of the key prefixes. The
// MCP endpoint uses it to tell API keys from OAuth access tokens.
func LooksLikeKey(token string) bool {
	return strings.HasPrefix(token, LivePrefix) || strings.HasPrefix(token, TestPrefix)
}

// HashKey returns the lowercase hex SHA-256 of raw, the only form in which a
// key is stored.
func HashKey(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// HashMatches reports in constant time whether raw hashes to hash.
func HashMatches(raw, hash string) bool {
	h := HashKey(raw)
	return subtle.ConstantTimeCompare([]byte(h), []byte(hash)) == 1
}
