package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store"
)

// The fields of SPEC.md's Organization and ApiKey resources; the ApiKey also
// shows created_by (README, Decisions) and, when created, raw_key.
var (
	organizationFields = []string{"id", "name", "slug", "plan", "monthly_click_limit", "billing_period_start", "created_at", "updated_at"}
	apiKeyFields       = []string{"id", "type", "name", "app_id", "key_prefix", "scopes", "created_by", "last_used_at", "expires_at", "created_at", "updated_at"}
	issuedKeyFields    = append(slices.Clone(apiKeyFields), "raw_key")
)

// clearEnv unsets every HOPLINK_ variable for the test, so that the
// developer's environment does not leak into it.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HOPLINK_") {
			t.Setenv(k, "") // restores the old value after the test
			require.NoError(t, os.Unsetenv(k))
		}
	}
}

// cliRun is the outcome of one run of the CLI.
type cliRun struct {
	stdout, stderr string
	err            error
}

// hoplink runs the CLI in process with args and stdin, as main does.
func hoplink(t *testing.T, stdin string, args ...string) cliRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := newApp(&stdout, &stderr, strings.NewReader(stdin)).Run(append([]string{"hoplink"}, args...))
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// decodeOne decodes out, which must hold exactly one JSON document.
func decodeOne(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var doc map[string]any
	require.NoError(t, dec.Decode(&doc), "stdout is not one JSON object: %q", out)
	_, err := dec.Token()
	require.ErrorIs(t, err, io.EOF, "stdout holds more than one JSON document: %q", out)
	return doc
}

// ok runs the CLI with args, requires success and returns its one JSON document.
func ok(t *testing.T, stdin string, args ...string) map[string]any {
	t.Helper()
	r := hoplink(t, stdin, args...)
	require.NoError(t, r.err, "hoplink %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.stdout, r.stderr)
	return decodeOne(t, r.stdout)
}

// fails runs the CLI with args, which must include --json, and requires the
// error envelope with code (any code when "") as the only document on stdout.
func fails(t *testing.T, code errcode.Code, stdin string, args ...string) map[string]any {
	t.Helper()
	r := hoplink(t, stdin, args...)
	require.Error(t, r.err, "hoplink %s should fail\nstdout: %s", strings.Join(args, " "), r.stdout)
	doc := decodeOne(t, r.stdout)
	require.Equal(t, []string{"error"}, keysOf(doc), "only the envelope: %s", r.stdout)
	e, isObj := doc["error"].(map[string]any)
	require.True(t, isObj, "error is an object: %s", r.stdout)
	assert.Subset(t, []string{"code", "message", "details"}, keysOf(e))
	if code != "" {
		assert.Equal(t, string(code), e["code"], "stdout: %s", r.stdout)
	}
	msg, _ := e["message"].(string)
	assert.NotEmpty(t, msg, "the envelope has a message")
	assert.Contains(t, r.stderr, "hoplink: ", "a human-readable line on stderr too")
	return e
}

func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	items, isList := v.([]any)
	require.True(t, isList, "%v is not a list", v)
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(string)
	}
	return out
}

func scopeStrings(scopes []auth.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

func requireTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, isString := v.(string)
	require.True(t, isString, "%v is not a date-time string", v)
	tm, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return tm
}

func requireUUID(t *testing.T, v any) string {
	t.Helper()
	s, _ := v.(string)
	_, err := uuid.Parse(s)
	require.NoError(t, err, "%v is not a UUID", v)
	return s
}

// newDB returns the path of a new SQLite file in a temporary directory.
func newDB(t *testing.T) string {
	t.Helper()
	clearEnv(t)
	return filepath.Join(t.TempDir(), "hoplink.db")
}

// createOrg creates an organization on db and returns its id and bootstrap key.
func createOrg(t *testing.T, db, name string) (id, rawKey string) {
	t.Helper()
	doc := ok(t, "", "org", "create", "--db", db, "--name", name, "--json")
	o := doc["organization"].(map[string]any)
	k := doc["api_key"].(map[string]any)
	return o["id"].(string), k["raw_key"].(string)
}

// authenticate checks raw against the database as the server does.
func authenticate(t *testing.T, db, raw string) (*auth.Principal, error) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	return auth.NewAuthenticator(s, auth.AuthenticatorOptions{CacheTTL: -1}).Authenticate(ctx, raw)
}

func TestMigrate(t *testing.T) {
	db := newDB(t)

	first := ok(t, "", "migrate", "--db", db, "--json")
	require.Equal(t, []string{"applied"}, keysOf(first))
	applied := strs(t, first["applied"])
	assert.NotEmpty(t, applied, "a new database gets every migration, and says so")

	second := ok(t, "", "migrate", "--db", db, "--json")
	assert.Equal(t, []string{}, strs(t, second["applied"]), "a second run applies nothing")

	text := hoplink(t, "", "migrate", "--db", db)
	require.NoError(t, text.err)
	assert.Equal(t, "The database is up to date.\n", text.stdout)

	other := newDB(t)
	text = hoplink(t, "", "migrate", "--db", other)
	require.NoError(t, text.err)
	assert.Contains(t, text.stdout, "Applied")
	assert.Contains(t, text.stdout, applied[0])
}

func TestOrgCreate(t *testing.T) {
	db := newDB(t)

	doc := ok(t, "", "org", "create", "--db", db, "--name", "Acme", "--plan", "growth", "--json")
	require.Equal(t, []string{"api_key", "organization"}, keysOf(doc))

	o, isObj := doc["organization"].(map[string]any)
	require.True(t, isObj)
	assert.Equal(t, sorted(organizationFields), keysOf(o), "every Organization field of SPEC.md, nothing else")
	orgID := requireUUID(t, o["id"])
	assert.Equal(t, "Acme", o["name"])
	assert.Equal(t, "acme", o["slug"])
	assert.Equal(t, "growth", o["plan"])
	assert.EqualValues(t, org.LimitsOf(org.PlanGrowth).MonthlyClicks, o["monthly_click_limit"])
	requireTime(t, o["billing_period_start"])
	requireTime(t, o["created_at"])
	requireTime(t, o["updated_at"])

	k, isObj := doc["api_key"].(map[string]any)
	require.True(t, isObj)
	assert.Equal(t, sorted(issuedKeyFields), keysOf(k), "every ApiKey field of SPEC.md with raw_key")
	requireUUID(t, k["id"])
	assert.Equal(t, "api", k["type"])
	assert.Equal(t, org.BootstrapKeyName, k["name"])
	assert.Nil(t, k["app_id"])
	assert.Equal(t, auth.LivePrefix, k["key_prefix"])
	assert.Equal(t, scopeStrings(auth.RequestableScopes), strs(t, k["scopes"]), "every requestable scope")
	assert.NotContains(t, strs(t, k["scopes"]), string(auth.ScopeAttributionWrite))
	assert.Nil(t, k["created_by"], "the bootstrap key has no creator")
	assert.Nil(t, k["last_used_at"])
	assert.Nil(t, k["expires_at"])
	requireTime(t, k["created_at"])
	requireTime(t, k["updated_at"])

	raw, _ := k["raw_key"].(string)
	prefix, wellFormed := auth.KeyPrefix(raw)
	require.True(t, wellFormed, "raw_key %q has the key format", raw)
	assert.Equal(t, auth.LivePrefix, prefix)

	p, err := authenticate(t, db, raw)
	require.NoError(t, err, "the printed raw key authenticates")
	assert.Equal(t, orgID, p.OrgID.String())
	assert.Equal(t, auth.RequestableScopes, p.Scopes.Scopes())
	assert.Nil(t, p.CreatedBy)

	t.Run("the plan defaults to free", func(t *testing.T) {
		o := ok(t, "", "org", "create", "--db", db, "--name", "Beta", "--json")["organization"].(map[string]any)
		assert.Equal(t, "free", o["plan"])
		assert.EqualValues(t, org.LimitsOf(org.PlanFree).MonthlyClicks, o["monthly_click_limit"])
	})

	t.Run("without --json the output is for people", func(t *testing.T) {
		r := hoplink(t, "", "org", "create", "--db", db, "--name", "Gamma Corp")
		require.NoError(t, r.err)
		assert.False(t, json.Valid([]byte(r.stdout)), "not JSON: %s", r.stdout)
		assert.Contains(t, r.stdout, "Gamma Corp")
		assert.Contains(t, r.stdout, "gamma-corp")
		assert.Contains(t, r.stdout, "shown only this once")
		assert.Contains(t, r.stdout, auth.LivePrefix)
	})

	t.Run("an unknown plan is refused", func(t *testing.T) {
		fails(t, errcode.ValidationError, "", "org", "create", "--db", db, "--name", "Delta", "--plan", "enterprise", "--json")
	})

	t.Run("an empty name is refused", func(t *testing.T) {
		fails(t, errcode.ValidationError, "", "org", "create", "--db", db, "--name", "", "--json")
	})

	t.Run("a missing --name is refused with the envelope", func(t *testing.T) {
		e := fails(t, errcode.ValidationError, "", "org", "create", "--db", db, "--json")
		assert.Contains(t, e["message"], "name")
	})
}

func TestOrgListGetSetPlan(t *testing.T) {
	db := newDB(t)

	empty := ok(t, "", "org", "list", "--db", db, "--json")
	assert.Equal(t, map[string]any{"data": []any{}}, empty, "an empty list is [], not null")

	acme, _ := createOrg(t, db, "Acme")
	beta, _ := createOrg(t, db, "Beta")

	list := ok(t, "", "org", "list", "--db", db, "--json")
	require.Equal(t, []string{"data"}, keysOf(list))
	items, isList := list["data"].([]any)
	require.True(t, isList)
	require.Len(t, items, 2)
	var ids []string
	for _, it := range items {
		o := it.(map[string]any)
		assert.Equal(t, sorted(organizationFields), keysOf(o))
		ids = append(ids, o["id"].(string))
	}
	assert.Equal(t, []string{acme, beta}, ids, "oldest first")

	got := ok(t, "", "org", "get", acme, "--db", db, "--json")
	assert.Equal(t, sorted(organizationFields), keysOf(got))
	assert.Equal(t, acme, got["id"])
	assert.Equal(t, "Acme", got["name"])
	assert.Equal(t, "free", got["plan"])

	moved := ok(t, "", "org", "set-plan", acme, "scale", "--db", db, "--json")
	assert.Equal(t, sorted(organizationFields), keysOf(moved))
	assert.Equal(t, "scale", moved["plan"])
	assert.EqualValues(t, org.LimitsOf(org.PlanScale).MonthlyClicks, moved["monthly_click_limit"])
	assert.False(t, requireTime(t, moved["updated_at"]).Before(requireTime(t, got["updated_at"])))

	again := ok(t, "", "org", "get", acme, "--db", db, "--json")
	assert.Equal(t, "scale", again["plan"], "the new plan is stored")
	assert.EqualValues(t, org.LimitsOf(org.PlanScale).MonthlyClicks, again["monthly_click_limit"])

	t.Run("failures", func(t *testing.T) {
		fails(t, errcode.NotFound, "", "org", "get", uuid.NewString(), "--db", db, "--json")
		fails(t, errcode.InvalidID, "", "org", "get", "not-a-uuid", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "org", "get", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "org", "get", acme, beta, "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "org", "set-plan", acme, "platinum", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "org", "set-plan", acme, "--db", db, "--json")
		fails(t, errcode.NotFound, "", "org", "set-plan", uuid.NewString(), "growth", "--db", db, "--json")
	})

	t.Run("without --json the output is for people", func(t *testing.T) {
		r := hoplink(t, "", "org", "list", "--db", db)
		require.NoError(t, r.err)
		assert.True(t, strings.HasPrefix(r.stdout, "ID"), "a table with a header: %s", r.stdout)
		assert.Contains(t, r.stdout, acme)
		assert.Contains(t, r.stdout, "Beta")

		r = hoplink(t, "", "org", "get", beta, "--db", db)
		require.NoError(t, r.err)
		assert.Contains(t, r.stdout, "name:")
		assert.Contains(t, r.stdout, "Beta")
	})
}

func TestKeys(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	otherOrg, _ := createOrg(t, db, "Other")

	// A user who is a plain member of Acme, and one who belongs nowhere.
	member := ok(t, "correct horse battery\n", "user", "create", "--db", db, "--email", "m@example.com", "--password-stdin", "--json")
	memberID := member["id"].(string)
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "m@example.com", "--role", "member", "--json")
	stranger := ok(t, "correct horse battery\n", "user", "create", "--db", db, "--email", "s@example.com", "--password-stdin", "--json")
	ok(t, "", "member", "add", "--db", db, "--org", otherOrg, "--email", "s@example.com", "--role", "owner", "--json")
	strangerID := stranger["id"].(string)

	future := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)

	created := []struct {
		name        string
		args        []string
		wantType    string
		wantScopes  []auth.Scope
		wantPrefix  string
		wantCreator string
		wantExpiry  *time.Time
	}{
		{
			name:       "links:write includes links:read",
			args:       []string{"--name", "ci", "--scopes", "links:write"},
			wantType:   "api",
			wantScopes: []auth.Scope{auth.ScopeLinksRead, auth.ScopeLinksWrite},
			wantPrefix: auth.LivePrefix,
		},
		{
			name:       "scopes are put in SPEC.md order without duplicates",
			args:       []string{"--name", "reports", "--scopes", "org:read, analytics:read,analytics:read"},
			wantType:   "api",
			wantScopes: []auth.Scope{auth.ScopeAnalyticsRead, auth.ScopeOrgRead},
			wantPrefix: auth.LivePrefix,
		},
		{
			name:       "an SDK key has the fixed SDK scopes",
			args:       []string{"--name", "ios", "--type", "sdk"},
			wantType:   "sdk",
			wantScopes: auth.SDKScopes,
			wantPrefix: auth.LivePrefix,
		},
		{
			name:       "--test makes a test key",
			args:       []string{"--name", "staging", "--scopes", "links:read", "--test"},
			wantType:   "api",
			wantScopes: []auth.Scope{auth.ScopeLinksRead},
			wantPrefix: auth.TestPrefix,
		},
		{
			name:       "an API key may expire",
			args:       []string{"--name", "temp", "--scopes", "links:read", "--expires-at", future.Format(time.RFC3339)},
			wantType:   "api",
			wantScopes: []auth.Scope{auth.ScopeLinksRead},
			wantPrefix: auth.LivePrefix,
			wantExpiry: &future,
		},
		{
			name:        "--created-by a member gives the key a creator",
			args:        []string{"--name", "mine", "--scopes", "links:write", "--created-by", memberID},
			wantType:    "api",
			wantScopes:  []auth.Scope{auth.ScopeLinksRead, auth.ScopeLinksWrite},
			wantPrefix:  auth.LivePrefix,
			wantCreator: memberID,
		},
	}
	var createdIDs []string
	for _, tt := range created {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"key", "create", "--db", db, "--org", orgID, "--json"}, tt.args...)
			k := ok(t, "", args...)
			assert.Equal(t, sorted(issuedKeyFields), keysOf(k))
			id := requireUUID(t, k["id"])
			createdIDs = append(createdIDs, id)
			assert.Equal(t, tt.wantType, k["type"])
			assert.Equal(t, scopeStrings(tt.wantScopes), strs(t, k["scopes"]))
			assert.Equal(t, tt.wantPrefix, k["key_prefix"])
			raw, _ := k["raw_key"].(string)
			assert.True(t, strings.HasPrefix(raw, tt.wantPrefix), raw)
			if tt.wantCreator == "" {
				assert.Nil(t, k["created_by"], "CLI keys have no creator unless --created-by names one")
			} else {
				assert.Equal(t, tt.wantCreator, k["created_by"])
			}
			if tt.wantExpiry == nil {
				assert.Nil(t, k["expires_at"])
			} else {
				assert.True(t, tt.wantExpiry.Equal(requireTime(t, k["expires_at"])), "expires_at %v", k["expires_at"])
			}

			p, err := authenticate(t, db, raw)
			require.NoError(t, err, "the raw key authenticates")
			assert.Equal(t, id, p.KeyID.String())
			assert.Equal(t, orgID, p.OrgID.String())
			assert.Equal(t, tt.wantScopes, p.Scopes.Scopes())
			assert.Equal(t, auth.KeyType(tt.wantType), p.Type)
		})
	}

	refused := []struct {
		name string
		code errcode.Code
		args []string
	}{
		{name: "an expiry in the past", code: errcode.ValidationError, args: []string{"--name", "old", "--scopes", "links:read", "--expires-at", past}},
		{name: "an expiry that is no RFC 3339 date-time", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "links:read", "--expires-at", "tomorrow"}},
		{name: "an expiring SDK key", code: errcode.ValidationError, args: []string{"--name", "x", "--type", "sdk", "--expires-at", future.Format(time.RFC3339)}},
		{name: "a creator who is no member of the organization", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "links:read", "--created-by", strangerID}},
		{name: "a creator who is no user at all", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "links:read", "--created-by", uuid.NewString()}},
		{name: "a scope the creator's role lacks", code: errcode.Forbidden, args: []string{"--name", "x", "--scopes", "links:read,apps:write", "--created-by", memberID}},
		{name: "attribution:write on an API key", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "attribution:write"}},
		{name: "an unknown scope", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "links:admin"}},
		{name: "an API key without scopes", code: errcode.ValidationError, args: []string{"--name", "x"}},
		{name: "an API key tied to an app", code: errcode.ValidationError, args: []string{"--name", "x", "--scopes", "links:read", "--app", uuid.NewString()}},
		{name: "an SDK key tied to an app of no organization", code: errcode.ValidationError, args: []string{"--name", "x", "--type", "sdk", "--app", uuid.NewString()}},
		{name: "an unknown type", code: errcode.ValidationError, args: []string{"--name", "x", "--type", "admin"}},
		{name: "an empty name", code: errcode.ValidationError, args: []string{"--name", "", "--scopes", "links:read"}},
		{name: "a missing --name", code: errcode.ValidationError, args: []string{"--scopes", "links:read"}},
		{name: "a created-by that is no UUID", code: errcode.InvalidID, args: []string{"--name", "x", "--scopes", "links:read", "--created-by", "alice"}},
	}
	for _, tt := range refused {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			fails(t, tt.code, "", append([]string{"key", "create", "--db", db, "--org", orgID, "--json"}, tt.args...)...)
		})
	}
	t.Run("refused: an unknown organization", func(t *testing.T) {
		fails(t, errcode.NotFound, "", "key", "create", "--db", db, "--org", uuid.NewString(), "--name", "x", "--scopes", "links:read", "--json")
	})
	t.Run("refused: an organization id that is no UUID", func(t *testing.T) {
		fails(t, errcode.InvalidID, "", "key", "create", "--db", db, "--org", "acme", "--name", "x", "--scopes", "links:read", "--json")
	})
	t.Run("refused: a missing --org", func(t *testing.T) {
		e := fails(t, errcode.ValidationError, "", "key", "create", "--db", db, "--name", "x", "--scopes", "links:read", "--json")
		assert.Contains(t, e["message"], "org")
	})

	t.Run("list shows every key of the organization without raw values", func(t *testing.T) {
		list := ok(t, "", "key", "list", "--db", db, "--org", orgID, "--json")
		require.Equal(t, []string{"data"}, keysOf(list))
		items := list["data"].([]any)
		var ids []string
		for _, it := range items {
			k := it.(map[string]any)
			assert.Equal(t, sorted(apiKeyFields), keysOf(k), "no raw_key in a list")
			ids = append(ids, k["id"].(string))
		}
		assert.Len(t, ids, 1+len(created), "the bootstrap key and the keys created above")
		assert.Subset(t, ids, createdIDs)

		other := ok(t, "", "key", "list", "--db", db, "--org", otherOrg, "--json")
		assert.Len(t, other["data"], 1, "another organization's keys are not listed")

		fails(t, errcode.NotFound, "", "key", "list", "--db", db, "--org", uuid.NewString(), "--json")

		r := hoplink(t, "", "key", "list", "--db", db, "--org", orgID)
		require.NoError(t, r.err)
		assert.True(t, strings.HasPrefix(r.stdout, "ID"), r.stdout)
		assert.NotContains(t, r.stdout, auth.LivePrefix, "no raw key in the table")
	})

	t.Run("revoke deletes the key for good", func(t *testing.T) {
		k := ok(t, "", "key", "create", "--db", db, "--org", orgID, "--name", "doomed", "--scopes", "links:read", "--json")
		id, raw := k["id"].(string), k["raw_key"].(string)
		_, err := authenticate(t, db, raw)
		require.NoError(t, err)

		doc := ok(t, "", "key", "revoke", id, "--db", db, "--json")
		assert.Equal(t, map[string]any{"id": id, "revoked": true}, doc)

		_, err = authenticate(t, db, raw)
		assert.ErrorIs(t, err, auth.ErrUnauthorized, "a revoked key no longer authenticates")
		list := ok(t, "", "key", "list", "--db", db, "--org", orgID, "--json")
		for _, it := range list["data"].([]any) {
			assert.NotEqual(t, id, it.(map[string]any)["id"])
		}

		fails(t, errcode.NotFound, "", "key", "revoke", id, "--db", db, "--json")
		fails(t, errcode.InvalidID, "", "key", "revoke", "nope", "--db", db, "--json")

		k = ok(t, "", "key", "create", "--db", db, "--org", orgID, "--name", "doomed too", "--type", "sdk", "--json")
		r := hoplink(t, "", "key", "revoke", k["id"].(string), "--db", db)
		require.NoError(t, r.err)
		assert.Contains(t, r.stdout, "Revoked key "+k["id"].(string))
	})
}

func TestUsersAndMembers(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")

	u := ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", " A@Example.com ", "--password-stdin", "--json")
	assert.Equal(t, []string{"created_at", "email", "id"}, keysOf(u))
	userID := requireUUID(t, u["id"])
	assert.Equal(t, "a@example.com", u["email"], "the email is normalized")
	requireTime(t, u["created_at"])

	t.Run("the password is stored hashed and verifies", func(t *testing.T) {
		ctx := context.Background()
		s, err := store.Open(ctx, db)
		require.NoError(t, err)
		defer s.Close()
		stored, err := s.UserByEmail(ctx, "a@example.com")
		require.NoError(t, err)
		assert.NotContains(t, stored.PasswordHash, "correct horse")
		match, err := identity.VerifyPassword(stored.PasswordHash, "correct horse battery staple")
		require.NoError(t, err)
		assert.True(t, match, "only the first line of stdin is the password")
	})

	t.Run("user create refuses", func(t *testing.T) {
		fails(t, errcode.ValidationError, "short\n", "user", "create", "--db", db, "--email", "b@example.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "", "user", "create", "--db", db, "--email", "b@example.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "long enough password\n", "user", "create", "--db", db, "--email", "not an email", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "long enough password\n", "user", "create", "--db", db, "--email", "a@EXAMPLE.com", "--password-stdin", "--json")
		fails(t, errcode.ValidationError, "long enough password\n", "user", "create", "--db", db, "--email", "b@example.com", "--json")
	})

	t.Run("user create without --json", func(t *testing.T) {
		r := hoplink(t, "long enough password\n", "user", "create", "--db", db, "--email", "c@example.com", "--password-stdin")
		require.NoError(t, r.err)
		assert.Contains(t, r.stdout, "Created user c@example.com")
	})

	m := ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "A@EXAMPLE.COM", "--role", "admin", "--json")
	assert.Equal(t, []string{"email", "joined_at", "org_id", "role", "user_id"}, keysOf(m))
	assert.Equal(t, orgID, m["org_id"])
	assert.Equal(t, userID, m["user_id"])
	assert.Equal(t, "a@example.com", m["email"])
	assert.Equal(t, "admin", m["role"])
	requireTime(t, m["joined_at"])

	fails(t, errcode.AlreadyMember, "", "member", "add", "--db", db, "--org", orgID, "--email", "a@example.com", "--role", "member", "--json")
	fails(t, errcode.ValidationError, "", "member", "add", "--db", db, "--org", orgID, "--email", "c@example.com", "--role", "boss", "--json")
	fails(t, errcode.NotFound, "", "member", "add", "--db", db, "--org", orgID, "--email", "nobody@example.com", "--role", "member", "--json")
	fails(t, errcode.NotFound, "", "member", "add", "--db", db, "--org", uuid.NewString(), "--email", "c@example.com", "--role", "member", "--json")

	// An admin may create keys with apps:write; once removed, the user can
	// no longer be named as a creator.
	k := ok(t, "", "key", "create", "--db", db, "--org", orgID, "--name", "admin key", "--scopes", "apps:write", "--created-by", userID, "--json")
	assert.Equal(t, userID, k["created_by"])
	fails(t, errcode.Forbidden, "", "key", "create", "--db", db, "--org", orgID, "--name", "x", "--scopes", "org:delete", "--created-by", userID, "--json")

	removed := ok(t, "", "member", "remove", "--db", db, "--org", orgID, "--email", "A@Example.com", "--json")
	assert.Equal(t, map[string]any{"org_id": orgID, "email": "a@example.com", "removed": true}, removed)
	fails(t, errcode.NotFound, "", "member", "remove", "--db", db, "--org", orgID, "--email", "a@example.com", "--json")
	fails(t, errcode.ValidationError, "", "key", "create", "--db", db, "--org", orgID, "--name", "x", "--scopes", "links:read", "--created-by", userID, "--json")

	p, err := authenticate(t, db, k["raw_key"].(string))
	require.NoError(t, err)
	assert.Empty(t, p.Role, "a key whose creator left carries no role, so every request is refused")

	r := hoplink(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "c@example.com", "--role", "owner")
	require.NoError(t, r.err)
	assert.Contains(t, r.stdout, "Added c@example.com")
	r = hoplink(t, "", "member", "remove", "--db", db, "--org", orgID, "--email", "c@example.com")
	require.NoError(t, r.err)
	assert.Contains(t, r.stdout, "Removed c@example.com")
}

func TestFlagsAfterSubcommandAndFromEnv(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")

	t.Run("operator flags after the subcommand", func(t *testing.T) {
		list := ok(t, "", "org", "list", "--db", db, "--json")
		assert.Len(t, list["data"], 1)
	})

	t.Run("flags after a positional argument", func(t *testing.T) {
		got := ok(t, "", "org", "get", orgID, "--db", db, "--json")
		assert.Equal(t, orgID, got["id"])
		got = ok(t, "", "org", "get", "--json", orgID, "--db="+db)
		assert.Equal(t, orgID, got["id"])
		got = ok(t, "", "org", "set-plan", orgID, "--db", db, "starter", "--json")
		assert.Equal(t, "starter", got["plan"])
	})

	t.Run("HOPLINK_DB", func(t *testing.T) {
		t.Setenv("HOPLINK_DB", db)
		list := ok(t, "", "org", "list", "--json")
		assert.Len(t, list["data"], 1)
		got := ok(t, "", "org", "get", orgID, "--json")
		assert.Equal(t, "Acme", got["name"])
	})

	t.Run("--db beats HOPLINK_DB", func(t *testing.T) {
		t.Setenv("HOPLINK_DB", filepath.Join(t.TempDir(), "elsewhere.db"))
		list := ok(t, "", "org", "list", "--db", db, "--json")
		assert.Len(t, list["data"], 1)
	})

	t.Run("--json=false prints for people", func(t *testing.T) {
		r := hoplink(t, "", "org", "get", orgID, "--db", db, "--json=false")
		require.NoError(t, r.err)
		assert.Contains(t, r.stdout, "name:")
	})
}

func TestFailures(t *testing.T) {
	db := newDB(t)

	t.Run("with --json stdout holds exactly the error envelope", func(t *testing.T) {
		cases := []struct {
			name string
			code errcode.Code
			args []string
		}{
			{name: "unknown flag", code: errcode.ValidationError, args: []string{"org", "list", "--db", db, "--bogus", "--json"}},
			{name: "unknown flag after a positional argument", code: errcode.ValidationError, args: []string{"org", "get", uuid.NewString(), "--bogus", "--db", db, "--json"}},
			{name: "a flag without its value after a positional argument", code: errcode.ValidationError, args: []string{"org", "get", uuid.NewString(), "--json", "--db"}},
			{name: "missing required flag", code: errcode.ValidationError, args: []string{"key", "list", "--db", db, "--json"}},
			{name: "invalid operator flag", code: errcode.ValidationError, args: []string{"org", "list", "--db", db, "--log-level", "loud", "--json"}},
			{name: "a PostgreSQL that does not answer (the admin commands need no secret file)", args: []string{"org", "list", "--db", "postgres://u@127.0.0.1:1/x", "--json"}},
			{name: "unknown subcommand", code: errcode.ValidationError, args: []string{"org", "bogus", "--json"}},
			{name: "a database that cannot be opened", args: []string{"org", "list", "--db", filepath.Join(t.TempDir(), "missing", "dir", "x.db"), "--json"}},
		}
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				fails(t, tt.code, "", tt.args...)
			})
		}
	})

	t.Run("without --json the error is a line on stderr and stdout stays empty", func(t *testing.T) {
		for _, args := range [][]string{
			{"org", "get", "not-a-uuid", "--db", db},
			{"org", "list", "--db", db, "--bogus"},
			{"key", "list", "--db", db},
			{"org", "list", "--db", db, "--log-format", "xml"},
			{"bogus"},
			{"org", "bogus"},
			{"--db", db, "org", "list"},
		} {
			r := hoplink(t, "", args...)
			require.Error(t, r.err, "%v", args)
			assert.Empty(t, r.stdout, "%v", args)
			assert.True(t, strings.HasPrefix(r.stderr, "hoplink: "), "%v: %q", args, r.stderr)
		}
	})

	t.Run("help is for people and succeeds", func(t *testing.T) {
		for _, args := range [][]string{{}, {"org"}, {"key", "create", "--help"}} {
			r := hoplink(t, "", args...)
			require.NoError(t, r.err, "%v", args)
			assert.Contains(t, r.stdout, "USAGE:", "%v", args)
		}
		r := hoplink(t, "", "key", "create", "--help")
		assert.Contains(t, r.stdout, "(required)", "required flags say so in help")
	})
}
