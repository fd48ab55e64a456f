package secretkey_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/secretkey"
)

// The scheme is HMAC-SHA256(secret, purpose), the one the cursor, cookie,
// CSRF and OAuth keys were derived with before this package existed, so
// those keys do not change.
func TestDeriveIsHMACOfThePurpose(t *testing.T) {
	secret := bytes.Repeat([]byte{0x42}, 32)
	for _, purpose := range []string{"hoplink list cursor v1", "hoplink audit cursor v1", "hoplink oauth hmac v1"} {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(purpose))
		assert.Equal(t, m.Sum(nil), secretkey.Derive(secret, purpose), purpose)
	}
}

func TestDerivedKeysAreIndependent(t *testing.T) {
	secret := bytes.Repeat([]byte{0x42}, 32)
	a := secretkey.Derive(secret, "hoplink link password csrf v1")
	assert.Len(t, a, secretkey.Size)
	assert.NotEqual(t, a, secretkey.Derive(secret, "hoplink link password cookie v1"), "another purpose")
	assert.NotEqual(t, a, secretkey.Derive(bytes.Repeat([]byte{0x43}, 32), "hoplink link password csrf v1"), "another secret")
	assert.Equal(t, a, secretkey.Derive(secret, "hoplink link password csrf v1"), "the same inputs")
}

func ExampleDerive() {
	secret := bytes.Repeat([]byte{0x42}, 32)
	fmt.Println(hex.EncodeToString(secretkey.Derive(secret, "hoplink list cursor v1")))
	// Output: e270d4fa6cefddcdd2d76cfc09b6848495506da3a6ca4d400827cdb64af6d5b7
}
