package errcode_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
)

func TestNotFoundAs(t *testing.T) {
	t.Run("nil stays nil", func(t *testing.T) {
		assert.NoError(t, errcode.NotFoundAs(nil, "link not found"))
	})

	notFound := map[string]error{
		"the sentinel becomes NOT_FOUND":          errcode.ErrNotFound,
		"a wrapped sentinel becomes NOT_FOUND":    fmt.Errorf("store: link by id: %w", errcode.ErrNotFound),
		"a doubly wrapped sentinel is recognised": fmt.Errorf("linking: %w", fmt.Errorf("store: %w", errcode.ErrNotFound)),
	}
	for name, err := range notFound {
		t.Run(name, func(t *testing.T) {
			got := errcode.NotFoundAs(err, "link not found")
			e, ok := errcode.As(got)
			require.True(t, ok, "a coded error")
			assert.Equal(t, errcode.New(errcode.NotFound, "link not found"), e, "no fields, details or cause")
			assert.NotErrorIs(t, got, errcode.ErrNotFound, "the storage error stays out of the answer")
		})
	}

	t.Run("an unavailable database passes through with its chain", func(t *testing.T) {
		err := fmt.Errorf("store: link by id: %w", errcode.ErrUnavailable)
		got := errcode.NotFoundAs(err, "link not found")
		assert.Same(t, err, got)
		assert.ErrorIs(t, got, errcode.ErrUnavailable)
		assert.Equal(t, errcode.ServiceUnavailable, errcode.CodeOf(got))
	})

	t.Run("another error passes through unchanged", func(t *testing.T) {
		err := errors.New("disk full")
		assert.Same(t, err, errcode.NotFoundAs(err, "link not found"))
	})

	t.Run("a coded error passes through unchanged", func(t *testing.T) {
		err := errcode.New(errcode.Forbidden, "not yours")
		assert.Same(t, err, errcode.NotFoundAs(err, "link not found"))
	})
}

func ExampleNotFoundAs() {
	stored := fmt.Errorf("store: link by id: %w", errcode.ErrNotFound)
	fmt.Println(errcode.NotFoundAs(stored, "link not found"))

	down := fmt.Errorf("store: link by id: %w", errcode.ErrUnavailable)
	fmt.Println(errcode.NotFoundAs(down, "link not found"))
	// Output:
	// NOT_FOUND: link not found
	// store: link by id: database unavailable
}

func TestFieldErrors(t *testing.T) {
	t.Run("nothing noted is no error", func(t *testing.T) {
		var f errcode.FieldErrors
		assert.NoError(t, f.Err())
		assert.Nil(t, f.Err(), "a nil error, not a typed nil in an interface")
	})

	t.Run("one field names it in the message", func(t *testing.T) {
		var f errcode.FieldErrors
		f.Add("limit", "must be an integer")
		e, ok := errcode.As(f.Err())
		require.True(t, ok)
		assert.Equal(t, errcode.ValidationError, e.Code)
		assert.Equal(t, "limit: must be an integer", e.Message)
		assert.Equal(t, []errcode.FieldError{{Field: "limit", Message: "must be an integer"}}, e.Fields)
	})

	t.Run("every field noted is listed in order", func(t *testing.T) {
		var f errcode.FieldErrors
		f.Add("from", "must be an instant")
		f.Add("to", "must be an instant")
		e, ok := errcode.As(f.Err())
		require.True(t, ok)
		assert.Equal(t, errcode.ValidationError, e.Code)
		assert.Equal(t, []errcode.FieldError{
			{Field: "from", Message: "must be an instant"},
			{Field: "to", Message: "must be an instant"},
		}, e.Fields)
	})
}
