package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/dbdeadline"
	"github.com/hoplink/hoplink/errcode"
)

// stalledKeys is a key store whose lookups wait until their context ends,
// as a database that accepts a connection and answers nothing.
type stalledKeys struct{ *memKeys }

func (s stalledKeys) KeyByHash(ctx context.Context, _ string) (*auth.Key, auth.Role, error) {
	<-ctx.Done()
	return nil, "", ctx.Err()
}

func TestStalledKeyLookupIsUnavailableAtTheDeadline(t *testing.T) {
	t.Parallel()
	// The deadline is real (a context's); it is short so that the test
	// does not wait long for the lookup to give up.
	a := auth.NewAuthenticator(stalledKeys{newMemKeys()}, auth.AuthenticatorOptions{StoreTimeout: 1})
	raw, err := auth.GenerateKey(nil, auth.LivePrefix)
	require.NoError(t, err)
	_, err = a.Authenticate(context.Background(), raw)
	require.Error(t, err)
	assert.ErrorIs(t, err, dbdeadline.ErrTimeout)
	assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(err), "503, not 401 or 500")
}
