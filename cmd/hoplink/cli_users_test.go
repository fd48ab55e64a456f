package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/store"
)

// TestUserCreate proves issue rule "users are created through hoplink user
// create --email E --password-stdin": the email is normalized and unique,
// the password is stored hashed and must pass the password policy.
func TestUserCreate(t *testing.T) {
	db := newDB(t)
	doc := ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "  Ann.Lee@Example.COM ", "--password-stdin", "--json")
	id := requireUUID(t, doc["id"])
	assert.Equal(t, "ann.lee@example.com", doc["email"], "the email is normalized")
	assert.NotContains(t, doc, "password_hash")

	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	u, err := s.UserByEmail(ctx, "ann.lee@example.com")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.Equal(t, id, u.ID.String())
	assert.NotContains(t, u.PasswordHash, "correct horse battery staple", "only a hash is stored")
	match, err := identity.VerifyPassword(u.PasswordHash, "correct horse battery staple")
	require.NoError(t, err)
	assert.True(t, match)

	refusals := []struct {
		rule, stdin, email, field string
		passwordStdin             bool
	}{
		{"an email that is taken, in any case", "another good passphrase\n", "ANN.LEE@example.com", "email", true},
		{"not an email", "another good passphrase\n", "ann.lee", "email", true},
		{"a password under 10 characters", "short one\n", "bob@example.com", "password", true},
		{"a common password", "password123\n", "bob@example.com", "password", true},
		{"the email as the password", "bob.smith@example.com\n", "bob.smith@example.com", "password", true},
		{"no password on standard input", "", "bob@example.com", "password", true},
	}
	for _, tt := range refusals {
		t.Run("refused: "+tt.rule, func(t *testing.T) {
			args := []string{"user", "create", "--db", db, "--email", tt.email, "--json"}
			if tt.passwordStdin {
				args = append(args, "--password-stdin")
			}
			e := fails(t, errcode.ValidationError, tt.stdin, args...)
			fields, _ := e["details"].(map[string]any)["fields"].([]any)
			require.Len(t, fields, 1, "one field named: %v", e)
			assert.Equal(t, tt.field, fields[0].(map[string]any)["field"])
		})
	}
	t.Run("refused: without --password-stdin", func(t *testing.T) {
		fails(t, "", "another good passphrase\n", "user", "create", "--db", db, "--email", "carol@example.com", "--json")
	})

	s, err = store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.UserByEmail(ctx, "bob@example.com")
	assert.ErrorIs(t, err, errcode.ErrNotFound, "no refused user was created")
}
