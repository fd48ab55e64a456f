package mcpserver

import (
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionOwnersSweepsForgottenSessions proves that the owner map does
// not grow without bound: once it doubles, the sessions the server no
// longer holds are dropped from it.
func TestSessionOwnersSweepsForgottenSessions(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	var o sessionOwners
	for i := range 64 {
		o.add("s"+strconv.Itoa(i), "key:a", srv)
	}
	b, ok := o.owner("s63")
	require.True(t, ok)
	assert.Equal(t, "key:a", b)
	assert.Len(t, o.m, 64)
	o.add("s64", "key:b", srv) // the server holds none of them: swept
	assert.Len(t, o.m, 1)
	_, ok = o.owner("s0")
	assert.False(t, ok)
	b, ok = o.owner("s64")
	require.True(t, ok)
	assert.Equal(t, "key:b", b)
}
