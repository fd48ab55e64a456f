package client

import (
	"encoding/json"
)

// Nullable is a field of an update (PATCH) body that the API lets a caller
// clear. Its zero value is unset: the field is not sent and keeps its
// value. Null sends null, which clears it; Value sends a value.
type Nullable[T any] struct {
	value T
	state nullableState
}

type nullableState uint8

const (
	unset nullableState = iota
	null
	present
)

// Value returns a Nullable that sends v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: present} }

// Null returns a Nullable that sends null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: null} }

// IsZero reports whether n is unset; the json tag omitzero omits it then.
func (n Nullable[T]) IsZero() bool { return n.state == unset }

// IsNull reports whether n sends null.
func (n Nullable[T]) IsNull() bool { return n.state == null }

// Get returns the value n sends and whether it sends one.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.state == present }

// MarshalJSON implements json.Marshaler: null unless n holds a value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != present {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON implements json.Unmarshaler, so that a body can be read
// back: null is Null and anything else a Value.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = Value(v)
	return nil
}
