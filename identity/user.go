package identity

import (
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// User is a person who can sign in and be a member of organizations.
type User struct {
	ID    uuid.UUID
	Email string
	// PasswordHash is an argon2id hash in PHC string form; never shown.
	PasswordHash string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NormalizeEmail trims and lowercases email and checks that it is a single
// address of at most 255 characters; otherwise it returns a
// VALIDATION_ERROR on the field "email".
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" || len(email) > 255 {
		return "", errcode.Field("email", "must be an email address of at most 255 characters")
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return "", errcode.Field("email", "must be an email address")
	}
	return email, nil
}
