package identity_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/identity"
)

func TestPasswordHash(t *testing.T) {
	h, err := identity.HashPassword("correct horse battery")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, "$argon2id$v=19$"))
	ok, err := identity.VerifyPassword(h, "correct horse battery")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = identity.VerifyPassword(h, "correct horse battery!")
	require.NoError(t, err)
	assert.False(t, ok)

	h2, err := identity.HashPassword("correct horse battery")
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "every hash has its own salt")

	for _, bad := range []string{"", "$bcrypt$x", "$argon2id$v=19$m=1$x$y", "$argon2id$v=19$m=1,t=1,p=1$!!$y"} {
		_, err := identity.VerifyPassword(bad, "x")
		assert.ErrorIs(t, err, identity.ErrBadHash, bad)
	}
}
