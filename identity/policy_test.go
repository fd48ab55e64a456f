package identity_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
)

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		name, password, email string
		ok                    bool
	}{
		{"a long uncommon password is accepted", "violet tractor umbrella", "ann@example.com", true},
		{"exactly ten characters is accepted", "zq8!rT2#vk", "", true},
		{"nine characters are refused", "zq8!rT2#v", "", false},
		{"length counts characters, not bytes", "ééééééééé", "", false},
		{"ten multi-byte characters are accepted", "éàüöñçøåßœ", "", true},
		{"256 characters are accepted", strings.Repeat("xy", 128), "", true},
		{"257 characters are refused", strings.Repeat("x", 257), "", false},
		{"a common password is refused", "password123", "", false},
		{"the list is compared case-insensitively", "PassWord123", "", false},
		{"a common keyboard walk is refused", "qwertyuiop", "", false},
		{"a repeated digit is refused", "1111111111", "", false},
		{"a word with a year is refused", "summer2024!", "", false},
		{"the email is refused", "Ann.Lee@Example.com", "ann.lee@example.com", false},
		{"the email's local part is refused", "ann.lee.long", "ann.lee.long@example.com", false},
		{"a password containing the local part is accepted", "ann.lee.long and more", "ann.lee.long@example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := identity.CheckPassword(tt.password, tt.email)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			e, ok := errcode.As(err)
			require.True(t, ok, "a coded error")
			assert.Equal(t, errcode.ValidationError, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, "password", e.Fields[0].Field)
			assert.NotEmpty(t, e.Fields[0].Message)
		})
	}
}

func TestPasswordsUsedElsewhereInTheTestsAreNotCommon(t *testing.T) {
	for _, p := range []string{"correct horse battery", "correct horse battery staple", "a long enough password", "long enough password"} {
		assert.NoError(t, identity.CheckPassword(p, "someone@example.com"), p)
	}
}

func FuzzCheckPassword(f *testing.F) {
	f.Add("password123", "a@b.c")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, password, email string) {
		_ = identity.CheckPassword(password, email)
	})
}
