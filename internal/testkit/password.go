package testkit

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/crypto/argon2"

	"github.com/hoplink/hoplink/identity"
)

// The cheapest argon2id parameters the library accepts: 8 KiB, one pass,
// one lane. A check against such a hash takes microseconds where the
// server's parameters take a tenth of a second or more.
const (
	cheapMemory  = 8
	cheapTime    = 1
	cheapThreads = 1
	cheapKeyLen  = 32
)

// PasswordHash returns an argon2id hash of password in the PHC string form
// that identity.VerifyPassword reads, made with the cheapest parameters. The
// verifier takes its parameters from the hash, so signing in with such a
// hash is real but nearly free; the server never writes one.
func PasswordHash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt) // crypto/rand.Read never returns an error
	key := argon2.IDKey([]byte(password), salt, cheapTime, cheapMemory, cheapThreads, cheapKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, cheapMemory, cheapTime, cheapThreads, enc.EncodeToString(salt), enc.EncodeToString(key))
}

// HashPassword is PasswordHash in the shape of the services' HashPassword
// options (org.ServiceOptions, account.ServiceOptions,
// linking.LinkServiceOptions): tests pass it so that the passwords their
// services hash cost no argon2id work at the server's parameters.
func HashPassword(password string) (string, error) { return PasswordHash(password), nil }

// UserStore is the one method User needs; store.Store has it.
type UserStore interface {
	CreateUser(ctx context.Context, u *identity.User) error
}

// User inserts a user with email, which must be normalized
// (identity.NormalizeEmail), and password, hashed with PasswordHash, created at
// now. It skips org.Service.CreateUser's password policy and its argon2id
// work, so that tests about signing in can make as many users as they
// need; tests of creating users call org.Service.CreateUser.
func User(t testing.TB, s UserStore, email, password string, now time.Time) *identity.User {
	t.Helper()
	now = now.UTC().Truncate(time.Millisecond)
	u := &identity.User{ID: uuid.Must(uuid.NewV7()), Email: email, PasswordHash: PasswordHash(password), CreatedAt: now, UpdatedAt: now}
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatalf("testkit: create user %s: %v", email, err)
	}
	return u
}
