package account

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacySealed is a TOTP secret sealed by the code before secretkey
// ("v1:", an HKDF-SHA256 key): the secret "12345678901234567890" of owner
// legacyOwner under a server secret of 32 bytes 0x42, with a nonce of
// twelve bytes 0x07.
const legacySealed = "v1:BwcHBwcHBwcHBwcHu0sUi6Pn8mOiymkv8EQz1sp6Wrdooq4hw7FOeF2wyqNx4YKF"

var legacyOwner = []byte("0190e0b4-7a5b-7c3e-8f00-000000000002")

func TestSecretBoxOpensSecretsSealedBeforeSecretKey(t *testing.T) {
	b, err := newSecretBox(bytes.Repeat([]byte{0x42}, 32))
	require.NoError(t, err)
	plain, err := b.open(legacySealed, legacyOwner)
	require.NoError(t, err)
	assert.Equal(t, "12345678901234567890", string(plain))

	_, err = b.open(legacySealed, []byte("another owner"))
	assert.ErrorIs(t, err, errUnsealable, "the owner is still bound")
	other, err := newSecretBox(bytes.Repeat([]byte{0x43}, 32))
	require.NoError(t, err)
	_, err = other.open(legacySealed, legacyOwner)
	assert.ErrorIs(t, err, errUnsealable, "another server secret")
	_, err = b.open("v2:"+strings.TrimPrefix(legacySealed, "v1:"), legacyOwner)
	assert.ErrorIs(t, err, errUnsealable, "a v1 value is not a v2 value")
}

func TestSecretBoxSealsWithTheDerivedKey(t *testing.T) {
	b, err := newSecretBox(bytes.Repeat([]byte{0x42}, 32))
	require.NoError(t, err)
	sealed, err := b.seal(rand.Reader, []byte("12345678901234567890"), legacyOwner)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(sealed, "v2:"), sealed)
	plain, err := b.open(sealed, legacyOwner)
	require.NoError(t, err)
	assert.Equal(t, "12345678901234567890", string(plain))

	_, err = b.open("v1:"+strings.TrimPrefix(sealed, "v2:"), legacyOwner)
	assert.ErrorIs(t, err, errUnsealable, "a v2 value is not a v1 value")
	for _, damaged := range []string{"", "v2:", "v2:!!!", "v3:" + strings.TrimPrefix(sealed, "v2:"), sealed[:len(sealed)-2]} {
		_, err = b.open(damaged, legacyOwner)
		assert.ErrorIs(t, err, errUnsealable, damaged)
	}
}
