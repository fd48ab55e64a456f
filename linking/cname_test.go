package linking_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/linking"
)

func TestDNSLookup(t *testing.T) {
	srv := dnstest.Start(t)
	srv.SetCNAME("links.acme.com", "CNAME.Hop.Example.")
	srv.SetCNAME("wrong.acme.com", "elsewhere.example.net")
	srv.SetNoCNAME("apex.acme.com")
	srv.Drop("slow.acme.com")
	l, err := linking.NewDNSLookup(srv.Addr)
	require.NoError(t, err)

	t.Run("a CNAME is returned lowercase without the root dot", func(t *testing.T) {
		target, found, err := l.LookupCNAME(t.Context(), "links.acme.com")
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, "cname.hop.example", target)
	})
	t.Run("a CNAME elsewhere is returned as it is", func(t *testing.T) {
		target, found, err := l.LookupCNAME(t.Context(), "wrong.acme.com")
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, "elsewhere.example.net", target)
	})
	t.Run("a name without a CNAME is not found", func(t *testing.T) {
		_, found, err := l.LookupCNAME(t.Context(), "apex.acme.com")
		require.NoError(t, err)
		assert.False(t, found)
	})
	t.Run("a name that does not exist is not found", func(t *testing.T) {
		_, found, err := l.LookupCNAME(t.Context(), "nothing.acme.com")
		require.NoError(t, err)
		assert.False(t, found)
	})
	t.Run("a server that does not answer is an error once the context ends", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, found, err := l.LookupCNAME(ctx, "slow.acme.com")
		require.Error(t, err)
		assert.False(t, found)
	})
}

func TestNewDNSLookup(t *testing.T) {
	l, err := linking.NewDNSLookup("127.0.0.1")
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1:53"}, l.Servers(), "a host alone gets port 53")
	l, err = linking.NewDNSLookup("[::1]:5353")
	require.NoError(t, err)
	assert.Equal(t, []string{"[::1]:5353"}, l.Servers())
	l, err = linking.NewDNSLookup("")
	require.NoError(t, err)
	assert.NotEmpty(t, l.Servers(), "the system's servers")
}
