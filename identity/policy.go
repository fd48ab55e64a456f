package identity

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

const (
	// MinPasswordLength is the fewest characters (Unicode code points) a
	// password may have.
	MinPasswordLength = 10
	// MaxPasswordLength is the most characters a password may have. It
	// bounds the work of hashing a password someone else chose.
	MaxPasswordLength = 256
)

// commonList holds the most common passwords of MinPasswordLength characters or
// more, lowercase, one a line: frequent leaked passwords and the usual
// variants of frequent words (a number, a year or an exclamation mark
// appended).
//
//go:embed common_passwords.txt
var commonList string

var (
	commonOnce sync.Once
	common     map[string]struct{}
)

// IsCommonPassword reports whether password is on the embedded list of common
// passwords, ignoring case and surrounding white space.
func IsCommonPassword(password string) bool {
	commonOnce.Do(func() {
		lines := strings.Split(commonList, "\n")
		common = make(map[string]struct{}, len(lines))
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" {
				common[l] = struct{}{}
			}
		}
	})
	_, ok := common[strings.ToLower(strings.TrimSpace(password))]
	return ok
}

// CheckPassword returns nil when password may be chosen by the user whose email is
// email (email may be empty when unknown), and otherwise a VALIDATION_ERROR
// on the field "password" whose message says what to change. Length counts
// characters, not bytes.
func CheckPassword(password, email string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordLength:
		return errcode.Field("password", "must be at least 10 characters")
	case n > MaxPasswordLength:
		return errcode.Field("password", "must be at most 256 characters")
	case IsCommonPassword(password):
		return errcode.Field("password", "is one of the most common passwords; choose a less predictable one")
	}
	if email = strings.ToLower(strings.TrimSpace(email)); email != "" {
		p := strings.ToLower(strings.TrimSpace(password))
		local, _, _ := strings.Cut(email, "@")
		if p == email || p == local {
			return errcode.Field("password", "must not be your email address")
		}
	}
	return nil
}
