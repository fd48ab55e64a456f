package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
)

func TestGenerateKeyHasTheKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for _, prefix := range []string{auth.LivePrefix, auth.TestPrefix} {
		for i := 0; i < 200; i++ {
			raw, err := auth.GenerateKey(nil, prefix)
			require.NoError(t, err)
			got, ok := auth.KeyPrefix(raw)
			require.True(t, ok, raw)
			assert.Equal(t, prefix, got)
			assert.Len(t, raw, len(prefix)+auth.KeyBodyLength)
			assert.False(t, seen[raw], "a key repeated")
			seen[raw] = true
		}
	}
}

func TestGenerateKeyRejectsBiasedBytes(t *testing.T) {
	// Bytes 248..255 would favour the first eight characters; they are skipped.
	src := bytes.NewReader(append(bytes.Repeat([]byte{255}, 64), bytes.Repeat([]byte{0}, 64)...))
	raw, err := auth.GenerateKey(src, auth.LivePrefix)
	require.NoError(t, err)
	assert.Equal(t, auth.LivePrefix+strings.Repeat("A", 32), raw)
}

func TestGenerateKeyFailsOnShortRandomness(t *testing.T) {
	_, err := auth.GenerateKey(bytes.NewReader([]byte{1, 2, 3}), auth.LivePrefix)
	assert.Error(t, err)
}

func TestKeyPrefix(t *testing.T) {
	body := strings.Repeat("aZ9", 10) + "xy"
	tests := []struct {
		name, raw, prefix string
		ok                bool
	}{
		{"live key", "svc_live_" + body, "svc_live_", true},
		{"test key", "svc_test_" + body, "svc_test_", true},
		{"unknown prefix", "svc_prod_" + body, "", false},
		{"no prefix", body, "", false},
		{"body too short", "svc_live_" + body[1:], "", false},
		{"body too long", "svc_live_" + body + "a", "", false},
		{"non-alphanumeric body", "svc_live_" + body[:31] + "-", "", false},
		{"non-ASCII body", "svc_live_" + body[:30] + "é", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix, ok := auth.KeyPrefix(tt.raw)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.prefix, prefix)
		})
	}
}

func TestHashKeyIsSHA256Hex(t *testing.T) {
	raw := "svc_live_" + strings.Repeat("a", 32)
	sum := sha256.Sum256([]byte(raw))
	assert.Equal(t, hex.EncodeToString(sum[:]), auth.HashKey(raw))
	assert.True(t, auth.HashMatches(raw, auth.HashKey(raw)))
	assert.False(t, auth.HashMatches(raw+"b", auth.HashKey(raw)))
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER   abc", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		token, ok := auth.BearerToken(tt.header)
		assert.Equal(t, tt.ok, ok, tt.header)
		assert.Equal(t, tt.token, token, tt.header)
	}
}

func TestLooksLikeKey(t *testing.T) {
	assert.True(t, auth.LooksLikeKey("svc_live_x"))
	assert.True(t, auth.LooksLikeKey("svc_test_x"))
	assert.False(t, auth.LooksLikeKey("eyJhbGciOi"))
}

func FuzzKeyPrefix(f *testing.F) {
	f.Add("svc_live_" + strings.Repeat("a", 32))
	f.Add("svc_test_")
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		prefix, ok := auth.KeyPrefix(raw)
		if !ok {
			return
		}
		if !strings.HasPrefix(raw, prefix) || len(raw) != len(prefix)+auth.KeyBodyLength {
			t.Fatalf("KeyPrefix accepted %q", raw)
		}
	})
}

func FuzzBearerToken(f *testing.F) {
	f.Add("Bearer svc_live_x")
	f.Add("bearer  x")
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := auth.BearerToken(header)
		if ok && (token == "" || strings.ContainsAny(token, " \t")) {
			t.Fatalf("BearerToken(%q) = %q", header, token)
		}
	})
}
