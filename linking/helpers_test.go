package linking_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
)

// requireFieldError asserts err is a VALIDATION_ERROR naming field alone and
// returns its message.
func requireFieldError(t *testing.T, err error, field string) string {
	t.Helper()
	require.Error(t, err)
	e, ok := errcode.As(err)
	require.True(t, ok, "not an *errcode.Error: %v", err)
	assert.Equal(t, errcode.ValidationError, e.Code)
	require.Len(t, e.Fields, 1)
	assert.Equal(t, field, e.Fields[0].Field)
	return e.Fields[0].Message
}

// requireCode asserts err is an *errcode.Error with code and returns it.
func requireCode(t *testing.T, err error, code errcode.Code) *errcode.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := errcode.As(err)
	require.True(t, ok, "not an *errcode.Error: %v", err)
	require.Equal(t, code, e.Code, e.Message)
	return e
}
