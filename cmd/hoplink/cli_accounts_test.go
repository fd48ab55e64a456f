package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/store"
)

// auditLog returns the actions, oldest first, and the events of orgID as
// an owner's key would list them.
func auditLog(t *testing.T, db, orgID string) ([]string, []audit.Event) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	svc, err := audit.NewService(s, []byte("0123456789abcdef0123456789abcdef"), audit.ServiceOptions{})
	require.NoError(t, err)
	id := uuid.MustParse(orgID)
	page, err := svc.List(ctx, testkit.Principal(id, auth.ScopeOrgRead), audit.Query{Limit: 100})
	require.NoError(t, err)
	actions := make([]string, len(page.Events))
	for i, e := range page.Events {
		actions[len(page.Events)-1-i] = string(e.Action)
	}
	return actions, page.Events
}

// insertUser inserts a user into db with a cheap password hash
// (testkit.User), so that signing in costs no argon2id work at the server's
// parameters, and returns its id. Tests of `hoplink user create` make
// their users through the CLI.
func insertUser(t *testing.T, db, email, password string) string {
	t.Helper()
	s, err := store.Open(context.Background(), db)
	require.NoError(t, err)
	defer s.Close()
	return testkit.User(t, s, email, password, time.Now()).ID.String()
}

func TestUserSetPassword(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	userID := insertUser(t, db, "ann@example.com", "correct horse battery staple")
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "admin", "--json")

	// A browser signs in, as the sign-in page would.
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	accounts, err := account.NewService(s, []byte("0123456789abcdef0123456789abcdef"),
		account.ServiceOptions{HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	res, err := accounts.SignIn(ctx, "ann@example.com", "correct horse battery staple", account.Client{IP: "192.0.2.1"})
	require.NoError(t, err)
	require.NotNil(t, res.Session)
	require.NoError(t, s.Close())

	doc := ok(t, "a new passphrase for ann\n", "user", "set-password", "--db", db, "--email", " Ann@Example.com ", "--password-stdin", "--json")
	assert.Equal(t, userID, doc["id"])
	assert.Equal(t, "ann@example.com", doc["email"])

	s, err = store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	accounts, err = account.NewService(s, []byte("0123456789abcdef0123456789abcdef"),
		account.ServiceOptions{HashPassword: testkit.HashPassword})
	require.NoError(t, err)
	_, err = accounts.Authenticate(ctx, res.Session.Token)
	assert.Equal(t, errcode.Unauthorized, errcode.CodeOf(err), "every session of the user has ended")
	stored, err := s.UserByEmail(ctx, "ann@example.com")
	require.NoError(t, err)
	match, err := identity.VerifyPassword(stored.PasswordHash, "a new passphrase for ann")
	require.NoError(t, err)
	assert.True(t, match, "the new password is set")

	t.Run("refusals", func(t *testing.T) {
		fails(t, errcode.NotFound, "a new passphrase for bob\n", "user", "set-password", "--db", db, "--email", "bob@example.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "short\n", "user", "set-password", "--db", db, "--email", "ann@example.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "", "user", "set-password", "--db", db, "--email", "ann@example.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "a new passphrase\n", "user", "set-password", "--db", db, "--email", "ann@example.com", "--json")
	})

	r := hoplink(t, "yet another passphrase\n", "user", "set-password", "--db", db, "--email", "ann@example.com", "--password-stdin")
	require.NoError(t, r.err)
	assert.Contains(t, r.stdout, "every session of the user has ended")

	actions, events := auditLog(t, db, orgID)
	assert.Equal(t, []string{"member.added", "password.changed", "password.changed"}, actions)
	for _, e := range events {
		assert.Equal(t, audit.ActorOperator, e.ActorType, "the operator acted")
		assert.Nil(t, e.ActorID)
		assert.Equal(t, "user", e.TargetType)
		assert.Equal(t, userID, e.TargetID)
	}
	assert.Equal(t, map[string]string{"role": "admin"}, events[2].Details)
}

func TestOperatorChangesAreAudited(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	u := ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "ann@example.com", "--password-stdin", "--json")
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "member", "--json")
	k := ok(t, "", "key", "create", "--db", db, "--org", orgID, "--name", "ci", "--scopes", "links:read", "--json")
	ok(t, "", "key", "revoke", "--db", db, k["id"].(string), "--json")
	ok(t, "", "member", "remove", "--db", db, "--org", orgID, "--email", "ANN@example.com", "--json")
	fails(t, errcode.NotFound, "", "member", "remove", "--db", db, "--org", orgID, "--email", "ann@example.com", "--json")

	actions, events := auditLog(t, db, orgID)
	assert.Equal(t, []string{"member.added", "key.created", "key.revoked", "member.removed"}, actions, "a refused removal records nothing")
	assert.Equal(t, u["id"], events[0].TargetID)
	assert.Equal(t, k["id"], events[1].TargetID)
	assert.Equal(t, map[string]string{"name": "ci", "type": "api", "scopes": "links:read"}, events[2].Details)
}
