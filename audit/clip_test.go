package audit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hoplink/hoplink/audit"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"a string within the bound is kept", "curl/8.0", 64, "curl/8.0"},
		{"a string at the bound is kept", "abcd", 4, "abcd"},
		{"a longer string is cut at the bound", "abcdef", 4, "abcd"},
		{"a cut never splits a character", "abé", 3, "ab"},
		{"a four-byte character is dropped whole", "a😀", 4, "a"},
		{"a zero bound is empty", "abc", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, audit.Clip(tt.in, tt.n))
		})
	}
}
