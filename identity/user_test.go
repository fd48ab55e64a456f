package identity_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

func TestNormalizeEmail(t *testing.T) {
	got, err := identity.NormalizeEmail("  Alice@Example.COM ")
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", got)
	for _, bad := range []string{"", "alice", "Alice <alice@example.com>", "a@b@c", strings.Repeat("a", 250) + "@x.com"} {
		_, err := identity.NormalizeEmail(bad)
		assert.Equal(t, errcode.ValidationError, errcode.CodeOf(err), bad)
	}
}
