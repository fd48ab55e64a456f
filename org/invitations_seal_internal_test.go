package org

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacySealed is an invitation token sealed by the code before secretkey
// ("v1:", an HKDF-SHA256 key): the token "hl_inv_fixture_token_0123456789"
// of invitation legacyID under a server secret of 32 bytes 0x42, with a
// nonce of twelve bytes 0x07.
const legacySealed = "v1:BwcHBwcHBwcHBwcH0mOWL4cCwB0G2gWdYeRUw30bVfUOl-CvVH1x-EM89dj4rAL7i12qrKFzxNxqDFk"

var legacyID = uuid.MustParse("0190e0b4-7a5b-7c3e-8f00-000000000001")

func newSealer(t *testing.T, secretByte byte) *Invitations {
	t.Helper()
	s, err := NewInvitations(nil, nil, bytes.Repeat([]byte{secretByte}, 32), InvitationsOptions{})
	require.NoError(t, err)
	return s
}

func TestInvitationTokensSealedBeforeSecretKeyStillOpen(t *testing.T) {
	s := newSealer(t, 0x42)
	token, err := s.open(legacySealed, legacyID)
	require.NoError(t, err)
	assert.Equal(t, "hl_inv_fixture_token_0123456789", token)

	_, err = s.open(legacySealed, uuid.MustParse("0190e0b4-7a5b-7c3e-8f00-000000000002"))
	assert.Error(t, err, "the invitation id is still bound")
	_, err = newSealer(t, 0x43).open(legacySealed, legacyID)
	assert.Error(t, err, "another server secret")
	_, err = s.open("v2:"+strings.TrimPrefix(legacySealed, "v1:"), legacyID)
	assert.Error(t, err, "a v1 value is not a v2 value")
}

func TestInvitationTokensSealWithTheDerivedKey(t *testing.T) {
	s := newSealer(t, 0x42)
	sealed, err := s.seal("hl_inv_new", legacyID)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(sealed, "v2:"), sealed)
	token, err := s.open(sealed, legacyID)
	require.NoError(t, err)
	assert.Equal(t, "hl_inv_new", token)

	_, err = s.open("v1:"+strings.TrimPrefix(sealed, "v2:"), legacyID)
	assert.Error(t, err, "a v2 value is not a v1 value")
	for _, damaged := range []string{"", "v2:", "v2:!!!", "v3:" + strings.TrimPrefix(sealed, "v2:"), sealed[:len(sealed)-2]} {
		_, err = s.open(damaged, legacyID)
		assert.Error(t, err, damaged)
	}
}
