package apitype

import (
	"bytes"
	"encoding/json"
)

// Optional is a field of a PATCH body, which may be absent (Set false), null
// (Set and Null) or a value (Set, Value). Decoding JSON into it records that
// the field was present; decoding null records Null.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Some returns an Optional holding v.
func Some[T any](v T) Optional[T] { return Optional[T]{Set: true, Value: v} }

// Null returns an Optional sent as null.
func Null[T any]() Optional[T] { return Optional[T]{Set: true, Null: true} }

// UnmarshalJSON implements json.Unmarshaler. Errors decoding the value are
// returned as the value's decoder returns them.
func (o *Optional[T]) UnmarshalJSON(data []byte) error {
	var zero T
	o.Set, o.Null, o.Value = true, false, zero
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(data, &o.Value)
}

// Ptr returns a pointer to the value, or nil when o is null or absent.
func (o Optional[T]) Ptr() *T {
	if !o.Set || o.Null {
		return nil
	}
	v := o.Value
	return &v
}
