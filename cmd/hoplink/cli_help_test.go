package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/version"
)

// helpFlags returns the flag names a command's --help lists.
func helpFlags(t *testing.T, args ...string) []string {
	t.Helper()
	r := hoplink(t, "", append(args, "--help")...)
	require.NoError(t, r.err, "%v", args)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s+--([a-z-]+)`).FindAllStringSubmatch(r.stdout, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestEachCommandListsOnlyTheFlagsItUses proves that the admin commands do
// not list the servers' flags: a command takes the database, its own flags
// and, for apps, the default link domain.
func TestEachCommandListsOnlyTheFlagsItUses(t *testing.T) {
	clearEnv(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"migrate"}, []string{"db", "json", "status", "help"}},
		{[]string{"org", "list"}, []string{"db", "json", "help"}},
		{[]string{"key", "revoke"}, []string{"db", "json", "help"}},
		{[]string{"member", "set-role"}, []string{"db", "org", "email", "role", "json", "help"}},
		{[]string{"app", "set-legacy"}, []string{"db", "default-link-domain", "json", "help"}},
		{[]string{"purge"}, []string{"db", "json", "help"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			assert.Equal(t, tt.want, helpFlags(t, tt.args...))
		})
	}
	t.Run("serve lists the server's flags", func(t *testing.T) {
		flags := helpFlags(t, "serve")
		for _, f := range []string{"db", "addr", "public-url", "short-url-base", "log-level", "no-access-log", "no-bootstrap"} {
			assert.Contains(t, flags, f)
		}
	})
	t.Run("no admin command lists a server flag", func(t *testing.T) {
		server := map[string]bool{}
		for _, f := range app.Flags(true) {
			server[f.Names()[0]] = true
		}
		delete(server, "db")
		delete(server, "default-link-domain")
		checked := 0
		var walk func(path []string, cmds []*cli.Command)
		walk = func(path []string, cmds []*cli.Command) {
			for _, c := range cmds {
				args := append(append([]string(nil), path...), c.Name)
				if len(c.Subcommands) > 0 {
					walk(args, c.Subcommands)
					continue
				}
				if c.Name == "serve" || c.Name == "help" {
					continue
				}
				checked++
				for _, f := range helpFlags(t, args...) {
					assert.False(t, server[f], "%s lists the server flag --%s", strings.Join(args, " "), f)
				}
			}
		}
		var out, errOut strings.Builder
		walk(nil, newApp(&out, &errOut, strings.NewReader("")).Commands)
		assert.True(t, server["addr"] && server["spool-dir"], "the server's flags: %v", server)
		assert.GreaterOrEqual(t, checked, 18, "every admin command was checked (18 today)")
	})
	t.Run("a server flag on an admin command is an unknown flag", func(t *testing.T) {
		fails(t, errcode.ValidationError, "", "org", "list", "--db", newDB(t), "--addr", "127.0.0.1:1", "--json")
	})
}

func TestVersionFlag(t *testing.T) {
	r := hoplink(t, "", "--version")
	require.NoError(t, r.err)
	assert.Equal(t, "hoplink version "+version.Get().String()+"\n", r.stdout)
}

func TestKeyCreateHelpListsScopes(t *testing.T) {
	r := hoplink(t, "", "key", "create", "--help")
	require.NoError(t, r.err)
	for _, s := range auth.RequestableScopes {
		assert.Contains(t, r.stdout, string(s))
	}
}

// TestMemberSetRole proves `hoplink member set-role`: it changes a member's
// role, refuses an unknown role and a user who is no member, and keeps the
// last owner.
func TestMemberSetRole(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "ann@example.com", "--password-stdin", "--json")
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "member", "--json")

	doc := ok(t, "", "member", "set-role", "--db", db, "--org", orgID, "--email", "Ann@Example.com", "--role", "owner", "--json")
	assert.Equal(t, "owner", doc["role"])
	assert.Equal(t, "ann@example.com", doc["email"])
	assert.Equal(t, orgID, doc["org_id"])

	fails(t, errcode.ValidationError, "", "member", "set-role", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "boss", "--json")
	fails(t, errcode.NotFound, "", "member", "set-role", "--db", db, "--org", orgID, "--email", "bob@example.com", "--role", "admin", "--json")
	fails(t, errcode.LastOwner, "", "member", "set-role", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "admin", "--json")
}

func TestMemberAddOfAnUnknownUserSuggestsUserCreate(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	e := fails(t, errcode.NotFound, "", "member", "add", "--db", db, "--org", orgID, "--email", "bob@example.com", "--role", "admin", "--json")
	assert.Contains(t, e["message"], "hoplink user create --email bob@example.com --password-stdin")
}

func TestDatabaseInAMissingFolderIsNamed(t *testing.T) {
	missing := t.TempDir() + "/no-such-folder/x.db"
	e := fails(t, errcode.ValidationError, "", "org", "list", "--db", missing, "--json")
	assert.Contains(t, e["message"], "the folder "+strings.TrimSuffix(missing, "/x.db")+" does not exist")
}

func TestSetPasswordOfAnUnknownUserSuggestsUserCreate(t *testing.T) {
	db := newDB(t)
	e := fails(t, errcode.NotFound, "a good long passphrase\n", "user", "set-password", "--db", db, "--email", "bob@example.com", "--password-stdin", "--json")
	assert.Contains(t, e["message"], "hoplink user create --email bob@example.com --password-stdin")
}

// TestANewDatabaseIsNoted proves that a command that creates the SQLite
// database, as a mistyped --db does, says so on stderr with its full
// path, and that one on an existing database says nothing there.
func TestANewDatabaseIsNoted(t *testing.T) {
	db := newDB(t)
	r := hoplink(t, "", "org", "list", "--db", db, "--json")
	require.NoError(t, r.err)
	assert.JSONEq(t, `{"data":[]}`, r.stdout, "stdout keeps its one document")
	assert.Equal(t, "hoplink: note: "+db+" did not exist; this command created it, an empty database\n", r.stderr)
	r = hoplink(t, "", "org", "list", "--db", db, "--json")
	require.NoError(t, r.err)
	assert.Empty(t, r.stderr)
}
